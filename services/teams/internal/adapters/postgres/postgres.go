// Package postgres stores the teams schema, with the events and mail of each
// change queued in the change's own transaction.
package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/protobuf/types/known/timestamppb"

	teamsv1 "bidradar/gen/teams/v1"
	"bidradar/pkg/mail"
	"bidradar/pkg/outbox"
	"bidradar/pkg/pgdb"
	"bidradar/services/teams/internal/domain"
)

// Repo implements domain.Store.
type Repo struct{ pool *pgxpool.Pool }

// New returns the store on pool (its search_path is the teams schema).
func New(pool *pgxpool.Pool) *Repo { return &Repo{pool: pool} }

func (r *Repo) tx(ctx context.Context, fn func(pgx.Tx) error) error {
	return pgx.BeginTxFunc(ctx, r.pool, pgx.TxOptions{}, fn)
}

// teamCols reads a team with its member count and used seats (members plus
// pending invitations) as of $now.
const teamCols = `t.id::text, t.name, t.owner_user_id::text, t.created_at,
	(SELECT count(*) FROM members m2 WHERE m2.team_id = t.id),
	(SELECT count(*) FROM members m2 WHERE m2.team_id = t.id)
	 + (SELECT count(*) FROM invitations i WHERE i.team_id = t.id AND i.closed_at IS NULL AND i.expires_at > $NOW)`

func teamSQL(now int) string {
	return strings.ReplaceAll(teamCols, "$NOW", fmt.Sprintf("$%d", now))
}

func scanTeam(row pgx.Row, extra ...any) (domain.Team, error) {
	var t domain.Team
	dst := append([]any{&t.ID, &t.Name, &t.OwnerUserID, &t.CreatedAt, &t.MemberCount, &t.SeatsUsed}, extra...)
	err := row.Scan(dst...)
	return t, err
}

// CreateTeam implements domain.Store.
func (r *Repo) CreateTeam(ctx context.Context, t domain.Team, owner domain.MemberRec) error {
	return r.tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO teams (id, name, owner_user_id, created_at) VALUES ($1, $2, $3, $4)`,
			t.ID, t.Name, t.OwnerUserID, t.CreatedAt); err != nil {
			return fmt.Errorf("create team: %w", err)
		}
		return insertMember(ctx, tx, owner)
	})
}

func insertMember(ctx context.Context, tx pgx.Tx, m domain.MemberRec) error {
	_, err := tx.Exec(ctx, `INSERT INTO members (team_id, user_id, role, username, email, joined_at) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (team_id, user_id) DO NOTHING`, m.TeamID, m.UserID, string(m.Role), m.Username, m.Email, m.JoinedAt)
	if err != nil {
		return fmt.Errorf("add member: %w", err)
	}
	return nil
}

// TeamsOf implements domain.Store.
func (r *Repo) TeamsOf(ctx context.Context, userID string, now time.Time) ([]domain.Membership, error) {
	rows, err := r.pool.Query(ctx, `SELECT `+teamSQL(2)+`, m.role FROM teams t JOIN members m ON m.team_id = t.id
		WHERE m.user_id = $1 ORDER BY t.created_at, t.id`, userID, now)
	if err != nil {
		return nil, fmt.Errorf("teams of: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.Membership, error) {
		var role string
		t, err := scanTeam(row, &role)
		return domain.Membership{Team: t, Role: domain.Role(role)}, err
	})
}

// Membership implements domain.Store.
func (r *Repo) Membership(ctx context.Context, teamID, userID string, now time.Time) (domain.Membership, error) {
	var role string
	t, err := scanTeam(r.pool.QueryRow(ctx, `SELECT `+teamSQL(3)+`, m.role FROM teams t JOIN members m ON m.team_id = t.id
		WHERE t.id = $1 AND m.user_id = $2`, teamID, userID, now), &role)
	if pgdb.IsNoRows(err) {
		return domain.Membership{}, domain.ErrNotFound
	}
	if err != nil {
		return domain.Membership{}, fmt.Errorf("membership: %w", err)
	}
	return domain.Membership{Team: t, Role: domain.Role(role)}, nil
}

// Team implements domain.Store.
func (r *Repo) Team(ctx context.Context, teamID string, now time.Time) (domain.Team, error) {
	t, err := scanTeam(r.pool.QueryRow(ctx, `SELECT `+teamSQL(2)+` FROM teams t WHERE t.id = $1`, teamID, now))
	if pgdb.IsNoRows(err) {
		return t, domain.ErrNotFound
	}
	if err != nil {
		return t, fmt.Errorf("team: %w", err)
	}
	return t, nil
}

const memberCols = `team_id::text, user_id::text, role, username, email, joined_at`

func scanMember(row pgx.CollectableRow) (domain.MemberRec, error) {
	var m domain.MemberRec
	var role string
	err := row.Scan(&m.TeamID, &m.UserID, &role, &m.Username, &m.Email, &m.JoinedAt)
	m.Role = domain.Role(role)
	return m, err
}

// Members implements domain.Store.
func (r *Repo) Members(ctx context.Context, teamID string) ([]domain.MemberRec, error) {
	rows, err := r.pool.Query(ctx, `SELECT `+memberCols+` FROM members WHERE team_id = $1
		ORDER BY CASE role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 WHEN 'member' THEN 2 ELSE 3 END, joined_at, user_id`, teamID)
	if err != nil {
		return nil, fmt.Errorf("members: %w", err)
	}
	return pgx.CollectRows(rows, scanMember)
}

// MemberByUsername implements domain.Store.
func (r *Repo) MemberByUsername(ctx context.Context, teamID string, usernames []string) ([]domain.MemberRec, error) {
	rows, err := r.pool.Query(ctx, `SELECT `+memberCols+` FROM members WHERE team_id = $1 AND lower(username) = ANY($2)
		ORDER BY user_id`, teamID, usernames)
	if err != nil {
		return nil, fmt.Errorf("members by username: %w", err)
	}
	return pgx.CollectRows(rows, scanMember)
}

// lockTeam serialises the membership changes of one team.
func lockTeam(ctx context.Context, tx pgx.Tx, teamID string) error {
	var id string
	err := tx.QueryRow(ctx, `SELECT id::text FROM teams WHERE id = $1 FOR UPDATE`, teamID).Scan(&id)
	if pgdb.IsNoRows(err) {
		return domain.ErrNotFound
	}
	return err
}

func ownersBut(ctx context.Context, tx pgx.Tx, teamID, userID string) (int, error) {
	var n int
	err := tx.QueryRow(ctx, `SELECT count(*) FROM members WHERE team_id = $1 AND role = 'owner' AND user_id <> $2`, teamID, userID).Scan(&n)
	return n, err
}

// SetRole implements domain.Store.
func (r *Repo) SetRole(ctx context.Context, teamID, userID string, role domain.Role) (domain.MemberRec, error) {
	var out domain.MemberRec
	err := r.tx(ctx, func(tx pgx.Tx) error {
		if err := lockTeam(ctx, tx, teamID); err != nil {
			return err
		}
		if role != domain.Owner {
			n, err := ownersBut(ctx, tx, teamID, userID)
			if err != nil {
				return err
			}
			var cur string
			if err := tx.QueryRow(ctx, `SELECT role FROM members WHERE team_id = $1 AND user_id = $2`, teamID, userID).Scan(&cur); err != nil {
				if pgdb.IsNoRows(err) {
					return domain.ErrMemberNotFound
				}
				return err
			}
			if cur == string(domain.Owner) && n == 0 {
				return domain.ErrLastOwner
			}
		}
		rows, err := tx.Query(ctx, `UPDATE members SET role = $3 WHERE team_id = $1 AND user_id = $2 RETURNING `+memberCols, teamID, userID, string(role))
		if err != nil {
			return err
		}
		ms, err := pgx.CollectRows(rows, scanMember)
		if err != nil {
			return err
		}
		if len(ms) == 0 {
			return domain.ErrMemberNotFound
		}
		out = ms[0]
		// The team's owner of record follows the first owner (seats are the
		// tier of that owner).
		_, err = tx.Exec(ctx, `UPDATE teams SET owner_user_id = (SELECT user_id FROM members WHERE team_id = $1 AND role = 'owner'
			ORDER BY (user_id = teams.owner_user_id) DESC, joined_at LIMIT 1) WHERE id = $1`, teamID)
		return err
	})
	return out, err
}

// RemoveMember implements domain.Store.
func (r *Repo) RemoveMember(ctx context.Context, teamID, userID string, now time.Time) error {
	return r.tx(ctx, func(tx pgx.Tx) error {
		if err := lockTeam(ctx, tx, teamID); err != nil {
			return err
		}
		var cur string
		if err := tx.QueryRow(ctx, `SELECT role FROM members WHERE team_id = $1 AND user_id = $2`, teamID, userID).Scan(&cur); err != nil {
			if pgdb.IsNoRows(err) {
				return domain.ErrMemberNotFound
			}
			return err
		}
		if cur == string(domain.Owner) {
			n, err := ownersBut(ctx, tx, teamID, userID)
			if err != nil {
				return err
			}
			if n == 0 {
				return domain.ErrLastOwner
			}
		}
		if _, err := tx.Exec(ctx, `DELETE FROM members WHERE team_id = $1 AND user_id = $2`, teamID, userID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE teams SET owner_user_id = (SELECT user_id FROM members WHERE team_id = $1 AND role = 'owner'
			ORDER BY joined_at LIMIT 1) WHERE id = $1 AND owner_user_id = $2`, teamID, userID); err != nil {
			return err
		}
		return outbox.EnqueueEvent(ctx, tx, &teamsv1.MemberRemoved{EventId: uuid.NewString(), OccurredAt: timestamppb.New(now),
			TeamId: teamID, UserId: userID})
	})
}

// CreateInvitation implements domain.Store.
func (r *Repo) CreateInvitation(ctx context.Context, inv domain.Invitation, seats int, m domain.Mail, now time.Time) error {
	return r.tx(ctx, func(tx pgx.Tx) error {
		if err := lockTeam(ctx, tx, inv.TeamID); err != nil {
			return err
		}
		var member bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM members WHERE team_id = $1 AND lower(email) = $2)`, inv.TeamID, inv.Email).Scan(&member); err != nil {
			return err
		}
		if member {
			return domain.ErrAlreadyMember
		}
		// A new invitation to the same address replaces the pending one
		// (and its seat).
		if _, err := tx.Exec(ctx, `UPDATE invitations SET closed_at = $3 WHERE team_id = $1 AND email = $2 AND closed_at IS NULL`,
			inv.TeamID, inv.Email, now); err != nil {
			return err
		}
		var used int
		if err := tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM members WHERE team_id = $1)
			+ (SELECT count(*) FROM invitations WHERE team_id = $1 AND closed_at IS NULL AND expires_at > $2)`, inv.TeamID, now).Scan(&used); err != nil {
			return err
		}
		if seats >= 0 && used >= seats {
			return domain.ErrSeatLimit
		}
		if _, err := tx.Exec(ctx, `INSERT INTO invitations (id, team_id, email, role, code_hash, invited_by_user_id, created_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, inv.ID, inv.TeamID, inv.Email, string(inv.Role), inv.CodeHash, inv.InvitedBy,
			inv.CreatedAt, inv.ExpiresAt); err != nil {
			return fmt.Errorf("invite: %w", err)
		}
		return mail.Enqueue(ctx, tx, mail.Message{To: m.To, Subject: m.Subject, Text: m.Text}, time.Time{})
	})
}

const invCols = `id::text, team_id::text, email, role, code_hash, invited_by_user_id::text, created_at, expires_at`

func scanInv(row pgx.CollectableRow) (domain.Invitation, error) {
	var i domain.Invitation
	var role string
	err := row.Scan(&i.ID, &i.TeamID, &i.Email, &role, &i.CodeHash, &i.InvitedBy, &i.CreatedAt, &i.ExpiresAt)
	i.Role = domain.Role(role)
	return i, err
}

// Invitations implements domain.Store.
func (r *Repo) Invitations(ctx context.Context, teamID string, now time.Time) ([]domain.Invitation, error) {
	rows, err := r.pool.Query(ctx, `SELECT `+invCols+` FROM invitations WHERE team_id = $1 AND closed_at IS NULL AND expires_at > $2
		ORDER BY created_at DESC`, teamID, now)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, scanInv)
	for i := range out {
		out[i].CodeHash = nil
	}
	return out, err
}

// RevokeInvitation implements domain.Store.
func (r *Repo) RevokeInvitation(ctx context.Context, teamID, id string, now time.Time) error {
	tag, err := r.pool.Exec(ctx, `UPDATE invitations SET closed_at = $3 WHERE team_id = $1 AND id = $2 AND closed_at IS NULL AND expires_at > $3`, teamID, id, now)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return domain.ErrInviteNotFound
	}
	return nil
}

// AcceptInvitation implements domain.Store.
func (r *Repo) AcceptInvitation(ctx context.Context, email, code string, u domain.MemberRec, now time.Time, check func(string) error) (string, bool, bool, error) {
	var teamID string
	var found, matched bool
	err := r.tx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT `+invCols+` FROM invitations WHERE email = $1 AND closed_at IS NULL AND expires_at > $2
			ORDER BY created_at FOR UPDATE`, email, now)
		if err != nil {
			return err
		}
		invs, err := pgx.CollectRows(rows, scanInv)
		if err != nil {
			return err
		}
		found = len(invs) > 0
		for _, inv := range invs {
			if !domain.CodeMatches(inv.ID, code, inv.CodeHash) {
				continue
			}
			if err := check(inv.TeamID); err != nil {
				return err
			}
			matched, teamID = true, inv.TeamID
			m := u
			m.TeamID, m.Role = inv.TeamID, inv.Role
			if err := insertMember(ctx, tx, m); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `UPDATE invitations SET closed_at = $2 WHERE id = $1`, inv.ID, now)
			return err
		}
		if found {
			// A wrong code counts against every pending invitation to the
			// address; the fifth burns it.
			_, err := tx.Exec(ctx, `UPDATE invitations SET attempts = attempts + 1,
				closed_at = CASE WHEN attempts + 1 >= $3 THEN $2 ELSE NULL END
				WHERE email = $1 AND closed_at IS NULL AND expires_at > $2`, email, now, domain.MaxCodeTries)
			return err
		}
		return nil
	})
	return teamID, found, matched, err
}

const itemCols = `i.team_id::text, i.project_id, i.stage, coalesce(i.owner_user_id::text, ''), i.due_date, i.bid_satang, i.note,
	i.created_at, i.updated_at, i.updated_by,
	(SELECT count(*) FROM comments c WHERE c.team_id = i.team_id AND c.project_id = i.project_id),
	coalesce((SELECT m.username FROM members m WHERE m.team_id = i.team_id AND m.user_id = i.owner_user_id), '')`

func scanItem(row pgx.Row) (domain.Item, error) {
	var it domain.Item
	err := row.Scan(&it.TeamID, &it.ProjectID, &it.Stage, &it.OwnerUserID, &it.DueDate, &it.BidSatang, &it.Note,
		&it.CreatedAt, &it.UpdatedAt, &it.UpdatedBy, &it.CommentCount, &it.OwnerName)
	return it, err
}

// PutItem implements domain.Store: the item's row lock orders concurrent
// writers, each sees the previous one's values, and each change is one
// history row of the same transaction.
func (r *Repo) PutItem(ctx context.Context, teamID, projectID string, p domain.Patch, actor string, now time.Time,
	ev func(old, n domain.Item) *domain.StageEvent) (domain.Item, bool, error) {
	var out domain.Item
	var created bool
	err := r.tx(ctx, func(tx pgx.Tx) error {
		if p.Owner != nil && *p.Owner != "" {
			var ok bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM members WHERE team_id = $1 AND user_id = $2)`, teamID, *p.Owner).Scan(&ok); err != nil {
				return err
			}
			if !ok {
				return domain.ErrBadOwner
			}
		}
		tag, err := tx.Exec(ctx, `INSERT INTO pipeline_items (team_id, project_id, stage, created_at, updated_at, updated_by)
			VALUES ($1, $2, $3, $4, $4, $5) ON CONFLICT DO NOTHING`, teamID, projectID, domain.Stages[0], now, actor)
		if err != nil {
			return fmt.Errorf("add item: %w", err)
		}
		created = tag.RowsAffected() == 1
		old, err := scanItem(tx.QueryRow(ctx, `SELECT `+itemCols+` FROM pipeline_items i WHERE i.team_id = $1 AND i.project_id = $2 FOR UPDATE`, teamID, projectID))
		if err != nil {
			return fmt.Errorf("lock item: %w", err)
		}
		// Writers that waited for the lock record their change after the
		// one they waited for: an item's history is in time order too.
		if !now.After(old.UpdatedAt) {
			now = old.UpdatedAt.Add(time.Microsecond)
		}
		if created {
			old.Stage = ""
		}
		n, changes := domain.Apply(old, created, p)
		if created {
			old.Stage = domain.Stages[0]
		}
		if len(changes) == 0 {
			out = old
			return nil
		}
		var owner *string
		if n.OwnerUserID != "" {
			owner = &n.OwnerUserID
		}
		if _, err := tx.Exec(ctx, `UPDATE pipeline_items SET stage = $3, owner_user_id = $4, due_date = $5, bid_satang = $6, note = $7,
			updated_at = $8, updated_by = $9 WHERE team_id = $1 AND project_id = $2`,
			teamID, projectID, n.Stage, owner, n.DueDate, n.BidSatang, n.Note, now, actor); err != nil {
			return fmt.Errorf("write item: %w", err)
		}
		if err := history(ctx, tx, teamID, projectID, actor, now, changes); err != nil {
			return err
		}
		if e := ev(old, n); e != nil && !created {
			if err := outbox.EnqueueEvent(ctx, tx, &teamsv1.ItemStageChanged{EventId: uuid.NewString(), OccurredAt: timestamppb.New(e.OccurredAt),
				TeamId: teamID, TeamName: e.Team.Name, ProjectId: projectID, ProjectName: e.Project.Name, OwnerUserId: e.Owner,
				Actor: e.Actor, FromStage: e.From, ToStage: e.To}); err != nil {
				return err
			}
		}
		out, err = scanItem(tx.QueryRow(ctx, `SELECT `+itemCols+` FROM pipeline_items i WHERE i.team_id = $1 AND i.project_id = $2`, teamID, projectID))
		return err
	})
	return out, created, err
}

func history(ctx context.Context, tx pgx.Tx, teamID, projectID, actor string, now time.Time, cs []domain.Change) error {
	b := &pgx.Batch{}
	for _, c := range cs {
		b.Queue(`INSERT INTO pipeline_history (team_id, project_id, at, actor, field, from_value, to_value) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			teamID, projectID, now, actor, c.Field, c.From, c.To)
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
}

// DeleteItem implements domain.Store.
func (r *Repo) DeleteItem(ctx context.Context, teamID, projectID, actor string, now time.Time) error {
	return r.tx(ctx, func(tx pgx.Tx) error {
		var stage string
		err := tx.QueryRow(ctx, `DELETE FROM pipeline_items WHERE team_id = $1 AND project_id = $2 RETURNING stage`, teamID, projectID).Scan(&stage)
		if pgdb.IsNoRows(err) {
			return domain.ErrItemNotFound
		}
		if err != nil {
			return err
		}
		return history(ctx, tx, teamID, projectID, actor, now, []domain.Change{{Field: "item", From: stage, To: "removed"}})
	})
}

// Item implements domain.Store.
func (r *Repo) Item(ctx context.Context, teamID, projectID string) (domain.Item, error) {
	it, err := scanItem(r.pool.QueryRow(ctx, `SELECT `+itemCols+` FROM pipeline_items i WHERE i.team_id = $1 AND i.project_id = $2`, teamID, projectID))
	if pgdb.IsNoRows(err) {
		return it, domain.ErrItemNotFound
	}
	return it, err
}

// Items implements domain.Store.
func (r *Repo) Items(ctx context.Context, teamID string, f domain.ItemFilter) ([]domain.Item, int64, error) {
	where := `i.team_id = $1 AND ($2 = '' OR i.stage = $2) AND ($3 = '' OR i.owner_user_id::text = $3)`
	var total int64
	if err := r.pool.QueryRow(ctx, `SELECT count(*) FROM pipeline_items i WHERE `+where, teamID, f.Stage, f.Owner).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := r.pool.Query(ctx, `SELECT `+itemCols+` FROM pipeline_items i WHERE `+where+`
		ORDER BY i.updated_at DESC, i.project_id LIMIT $4 OFFSET $5`, teamID, f.Stage, f.Owner, f.PerPage, (f.Page-1)*f.PerPage)
	if err != nil {
		return nil, 0, err
	}
	items, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.Item, error) { return scanItem(row) })
	return items, total, err
}

// AllItems implements domain.Store.
func (r *Repo) AllItems(ctx context.Context, teamID string) ([]domain.Item, error) {
	rows, err := r.pool.Query(ctx, `SELECT `+itemCols+` FROM pipeline_items i WHERE i.team_id = $1 ORDER BY i.project_id LIMIT 5000`, teamID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.Item, error) { return scanItem(row) })
}

// History implements domain.Store.
func (r *Repo) History(ctx context.Context, teamID, projectID string) ([]domain.History, error) {
	rows, err := r.pool.Query(ctx, `SELECT at, actor, field, from_value, to_value FROM pipeline_history
		WHERE team_id = $1 AND project_id = $2 ORDER BY id DESC`, teamID, projectID)
	if err != nil {
		return nil, err
	}
	hs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.History, error) {
		var h domain.History
		err := row.Scan(&h.At, &h.Actor, &h.Field, &h.From, &h.To)
		return h, err
	})
	if err == nil && len(hs) == 0 {
		return nil, domain.ErrItemNotFound
	}
	return hs, err
}

// Comments implements domain.Store.
func (r *Repo) Comments(ctx context.Context, teamID, projectID string) ([]domain.Comment, error) {
	rows, err := r.pool.Query(ctx, `SELECT id::text, team_id::text, project_id, user_id, username, text, mentions, created_at FROM comments
		WHERE team_id = $1 AND project_id = $2 ORDER BY created_at, id`, teamID, projectID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.Comment, error) {
		var c domain.Comment
		err := row.Scan(&c.ID, &c.TeamID, &c.ProjectID, &c.UserID, &c.Username, &c.Text, &c.Mentions, &c.CreatedAt)
		return c, err
	})
}

// AddComment implements domain.Store.
func (r *Repo) AddComment(ctx context.Context, c domain.Comment, mentions []domain.MentionEvent) error {
	return r.tx(ctx, func(tx pgx.Tx) error {
		ms := c.Mentions
		if ms == nil {
			ms = []string{}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO comments (id, team_id, project_id, user_id, username, text, mentions, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, c.ID, c.TeamID, c.ProjectID, c.UserID, c.Username, c.Text, ms, c.CreatedAt); err != nil {
			return fmt.Errorf("add comment: %w", err)
		}
		evs := make([]outbox.ProtoEvent, 0, len(mentions))
		for _, m := range mentions {
			evs = append(evs, &teamsv1.MemberMentioned{EventId: uuid.NewString(), OccurredAt: timestamppb.New(m.OccurredAt),
				TeamId: m.Team.ID, TeamName: m.Team.Name, ProjectId: m.Project.ID, ProjectName: m.Project.Name,
				CommentId: c.ID, AuthorUserId: c.UserID, AuthorUsername: m.AuthorName, UserId: m.UserID, Excerpt: m.Excerpt})
		}
		if len(evs) == 0 {
			return nil
		}
		return outbox.EnqueueBatch(ctx, tx, evs)
	})
}

const keyCols = `id::text, team_id::text, name, scopes, prefix, created_by_user_id::text, created_at, last_used_at`

func scanKey(row pgx.Row) (domain.APIKey, error) {
	var k domain.APIKey
	err := row.Scan(&k.ID, &k.TeamID, &k.Name, &k.Scopes, &k.Prefix, &k.CreatedBy, &k.CreatedAt, &k.LastUsed)
	return k, err
}

// CreateKey implements domain.Store.
func (r *Repo) CreateKey(ctx context.Context, k domain.APIKey, hash []byte) error {
	_, err := r.pool.Exec(ctx, `INSERT INTO api_keys (id, team_id, name, scopes, key_hash, prefix, created_by_user_id, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, k.ID, k.TeamID, k.Name, k.Scopes, hash, k.Prefix, k.CreatedBy, k.CreatedAt)
	if err != nil {
		return fmt.Errorf("create key: %w", err)
	}
	return nil
}

// Keys implements domain.Store.
func (r *Repo) Keys(ctx context.Context, teamID string) ([]domain.APIKey, error) {
	rows, err := r.pool.Query(ctx, `SELECT `+keyCols+` FROM api_keys WHERE team_id = $1 AND revoked_at IS NULL ORDER BY created_at, id`, teamID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.APIKey, error) { return scanKey(row) })
}

// RevokeKey implements domain.Store.
func (r *Repo) RevokeKey(ctx context.Context, teamID, id string, now time.Time) error {
	tag, err := r.pool.Exec(ctx, `UPDATE api_keys SET revoked_at = $3 WHERE team_id = $1 AND id = $2 AND revoked_at IS NULL`, teamID, id, now)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return domain.ErrKeyNotFound
	}
	return nil
}

// UseKey implements domain.Store: a fixed window per key, counted in its
// row (so every gateway replica shares it).
func (r *Repo) UseKey(ctx context.Context, hash []byte, now time.Time, limit int, window time.Duration) (domain.APIKey, time.Duration, error) {
	var k domain.APIKey
	var wait time.Duration
	err := r.tx(ctx, func(tx pgx.Tx) error {
		var start *time.Time
		var count int
		var err error
		row := tx.QueryRow(ctx, `SELECT `+keyCols+`, window_start, window_count FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL FOR UPDATE`, hash)
		if err = row.Scan(&k.ID, &k.TeamID, &k.Name, &k.Scopes, &k.Prefix, &k.CreatedBy, &k.CreatedAt, &k.LastUsed, &start, &count); err != nil {
			if pgdb.IsNoRows(err) {
				return domain.ErrBadKey
			}
			return err
		}
		if start == nil || !now.Before(start.Add(window)) {
			s := now
			start, count = &s, 0
		}
		if count >= limit {
			wait = start.Add(window).Sub(now)
			return nil
		}
		_, err = tx.Exec(ctx, `UPDATE api_keys SET window_start = $2, window_count = $3, last_used_at = $4 WHERE id = $1`, k.ID, *start, count+1, now)
		return err
	})
	return k, wait, err
}

// Feed implements domain.Store.
func (r *Repo) Feed(ctx context.Context, teamID string) (time.Time, bool, error) {
	var at time.Time
	err := r.pool.QueryRow(ctx, `SELECT created_at FROM calendar_feeds WHERE team_id = $1`, teamID).Scan(&at)
	if pgdb.IsNoRows(err) {
		return at, false, nil
	}
	return at, err == nil, err
}

// RotateFeed implements domain.Store.
func (r *Repo) RotateFeed(ctx context.Context, teamID string, hash []byte, now time.Time) error {
	_, err := r.pool.Exec(ctx, `INSERT INTO calendar_feeds (team_id, token_hash, created_at) VALUES ($1, $2, $3)
		ON CONFLICT (team_id) DO UPDATE SET token_hash = excluded.token_hash, created_at = excluded.created_at`, teamID, hash, now)
	return err
}

// RevokeFeed implements domain.Store.
func (r *Repo) RevokeFeed(ctx context.Context, teamID string) error {
	tag, err := r.pool.Exec(ctx, `DELETE FROM calendar_feeds WHERE team_id = $1`, teamID)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return domain.ErrFeedNotFound
	}
	return nil
}

// FeedTeam implements domain.Store.
func (r *Repo) FeedTeam(ctx context.Context, hash []byte) (string, error) {
	var id string
	err := r.pool.QueryRow(ctx, `SELECT team_id::text FROM calendar_feeds WHERE token_hash = $1`, hash).Scan(&id)
	if pgdb.IsNoRows(err) {
		return "", domain.ErrFeedNotFound
	}
	return id, err
}

// ForgetUser implements domain.Store: the account's memberships and
// comments go; a team left without an owner goes with everything in it.
func (r *Repo) ForgetUser(ctx context.Context, userID string) error {
	if !domain.ValidID(userID) {
		return nil
	}
	return r.tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM comments WHERE user_id = $1`, userID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM members WHERE user_id = $1`, userID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE pipeline_items SET owner_user_id = NULL WHERE owner_user_id = $1`, userID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM teams t WHERE NOT EXISTS (SELECT 1 FROM members m WHERE m.team_id = t.id AND m.role = 'owner')`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE teams t SET owner_user_id = (SELECT user_id FROM members m WHERE m.team_id = t.id AND m.role = 'owner'
			ORDER BY joined_at LIMIT 1) WHERE owner_user_id = $1`, userID)
		return err
	})
}

var _ domain.Store = (*Repo)(nil)
