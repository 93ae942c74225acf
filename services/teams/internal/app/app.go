// Package app holds the teams use cases (docs/product.md#teams): who may do
// what is domain's role table; a caller who is not a member of a team gets
// domain.ErrNotFound for everything of it, so a team's existence is never
// revealed.
package app

import (
	"context"
	"crypto/rand"
	"fmt"
	"math/big"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"bidradar/pkg/apperr"
	"bidradar/services/teams/internal/domain"
)

// Options configures the use cases.
type Options struct {
	// PublicURL is the app's origin for the links in invitation mail.
	PublicURL string
	// KeyLimit calls per KeyWindow for each API key.
	KeyLimit  int
	KeyWindow time.Duration
	Now       func() time.Time
}

// App is the teams use cases.
type App struct {
	store    domain.Store
	projects domain.Projects
	plans    domain.Plans
	opt      Options
}

// New returns the use cases.
func New(s domain.Store, p domain.Projects, plans domain.Plans, o Options) *App {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.KeyLimit <= 0 {
		o.KeyLimit = 60
	}
	if o.KeyWindow <= 0 {
		o.KeyWindow = time.Minute
	}
	return &App{store: s, projects: p, plans: plans, opt: o}
}

// View is a team as the caller sees it.
type View struct {
	Team     domain.Team
	Role     domain.Role
	Seats    int
	ReadOnly bool
}

func (a *App) seats(ctx context.Context, ownerID string) (int, error) {
	m, err := a.plans.TeamSeats(ctx, []string{ownerID})
	if err != nil {
		return 0, apperr.Wrap(err, domain.ErrUnavailable.Kind, domain.ErrUnavailable.Slug, domain.ErrUnavailable.Message)
	}
	return m[ownerID], nil
}

func (a *App) view(ctx context.Context, m domain.Membership) (View, error) {
	s, err := a.seats(ctx, m.Team.OwnerUserID)
	if err != nil {
		return View{}, err
	}
	return View{Team: m.Team, Role: m.Role, Seats: s, ReadOnly: s == 0}, nil
}

// access returns the caller's membership of team when the caller may do
// act: ErrNotFound for a stranger (and a key of another team), ErrForbidden
// or ErrKeyScope when the role or key does not allow it.
func (a *App) access(ctx context.Context, c domain.Caller, teamID string, act domain.Action) (domain.Membership, error) {
	if !domain.ValidID(teamID) {
		return domain.Membership{}, domain.ErrNotFound
	}
	if c.IsKey() {
		if c.KeyTeam != teamID {
			return domain.Membership{}, domain.ErrNotFound
		}
		t, err := a.store.Team(ctx, teamID, a.opt.Now())
		if err != nil {
			return domain.Membership{}, err
		}
		if !domain.KeyAllows(c.KeyScopes, act) {
			return domain.Membership{}, domain.ErrKeyScope
		}
		return domain.Membership{Team: t}, nil
	}
	if c.UserID == "" {
		return domain.Membership{}, domain.ErrNotFound
	}
	m, err := a.store.Membership(ctx, teamID, c.UserID, a.opt.Now())
	if err != nil {
		return m, err
	}
	if !domain.Can(m.Role, act) {
		return m, domain.ErrForbidden
	}
	return m, nil
}

// writable refuses a write while the owner's plan holds no team
// (docs/product.md#teams: read-only, nothing deleted).
func (a *App) writable(ctx context.Context, t domain.Team) error {
	s, err := a.seats(ctx, t.OwnerUserID)
	if err != nil {
		return err
	}
	if s == 0 {
		return domain.ErrReadOnly
	}
	return nil
}

// CreateTeam makes a team owned by the caller (a tier with team seats only).
func (a *App) CreateTeam(ctx context.Context, c domain.Caller, name string) (View, error) {
	name, err := domain.CleanName(name)
	if err != nil {
		return View{}, err
	}
	s, err := a.seats(ctx, c.UserID)
	if err != nil {
		return View{}, err
	}
	if s == 0 {
		return View{}, domain.ErrUpgrade
	}
	now := a.opt.Now()
	t := domain.Team{ID: uuid.NewString(), Name: name, OwnerUserID: c.UserID, CreatedAt: now, MemberCount: 1, SeatsUsed: 1}
	if err := a.store.CreateTeam(ctx, t, domain.MemberRec{TeamID: t.ID, UserID: c.UserID, Role: domain.Owner,
		Username: c.Username, Email: c.Email, JoinedAt: now}); err != nil {
		return View{}, err
	}
	return View{Team: t, Role: domain.Owner, Seats: s}, nil
}

// ListTeams lists the caller's teams.
func (a *App) ListTeams(ctx context.Context, c domain.Caller) ([]View, error) {
	ms, err := a.store.TeamsOf(ctx, c.UserID, a.opt.Now())
	if err != nil {
		return nil, err
	}
	out := make([]View, 0, len(ms))
	for _, m := range ms {
		v, err := a.view(ctx, m)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// GetTeam is one of the caller's teams.
func (a *App) GetTeam(ctx context.Context, c domain.Caller, teamID string) (View, error) {
	m, err := a.access(ctx, c, teamID, domain.ActRead)
	if err != nil {
		return View{}, err
	}
	return a.view(ctx, m)
}

// Members lists a team's members.
func (a *App) Members(ctx context.Context, c domain.Caller, teamID string) ([]domain.MemberRec, error) {
	if _, err := a.access(ctx, c, teamID, domain.ActRead); err != nil {
		return nil, err
	}
	return a.store.Members(ctx, teamID)
}

// SetRole changes a member's role: admins manage members and viewers;
// only owners make or unmake owners and admins.
func (a *App) SetRole(ctx context.Context, c domain.Caller, teamID, userID, role string) (domain.MemberRec, error) {
	m, err := a.access(ctx, c, teamID, domain.ActManageMembers)
	if err != nil {
		return domain.MemberRec{}, err
	}
	r, ok := domain.ParseRole(role)
	if !ok {
		return domain.MemberRec{}, domain.ErrBadRole
	}
	if !domain.ValidID(userID) {
		return domain.MemberRec{}, domain.ErrMemberNotFound
	}
	target, err := a.store.Membership(ctx, teamID, userID, a.opt.Now())
	if err != nil {
		return domain.MemberRec{}, domain.ErrMemberNotFound
	}
	if (r == domain.Owner || r == domain.Admin || target.Role == domain.Owner || target.Role == domain.Admin) && !domain.Can(m.Role, domain.ActGrantOwner) {
		return domain.MemberRec{}, domain.ErrForbidden
	}
	return a.store.SetRole(ctx, teamID, userID, r)
}

// RemoveMember removes a member (owners and admins; admins not owners or
// admins) or the caller; never the last owner.
func (a *App) RemoveMember(ctx context.Context, c domain.Caller, teamID, userID string) error {
	self := userID == c.UserID
	act := domain.ActManageMembers
	if self {
		act = domain.ActLeave
	}
	m, err := a.access(ctx, c, teamID, act)
	if err != nil {
		return err
	}
	if !domain.ValidID(userID) {
		return domain.ErrMemberNotFound
	}
	if !self {
		target, err := a.store.Membership(ctx, teamID, userID, a.opt.Now())
		if err != nil {
			return domain.ErrMemberNotFound
		}
		if (target.Role == domain.Owner || target.Role == domain.Admin) && !domain.Can(m.Role, domain.ActGrantOwner) {
			return domain.ErrForbidden
		}
	}
	return a.store.RemoveMember(ctx, teamID, userID, a.opt.Now())
}

// Invite mails address a code that joins it to the team with role.
func (a *App) Invite(ctx context.Context, c domain.Caller, teamID, email, role string) (domain.Invitation, error) {
	m, err := a.access(ctx, c, teamID, domain.ActInvite)
	if err != nil {
		return domain.Invitation{}, err
	}
	addr, ok := domain.NormEmail(email)
	if !ok {
		return domain.Invitation{}, domain.ErrBadEmail
	}
	if role == "" {
		role = string(domain.Member)
	}
	r, ok := domain.ParseRole(role)
	if !ok || r == domain.Owner {
		return domain.Invitation{}, domain.ErrBadInviteRole
	}
	if r == domain.Admin && !domain.Can(m.Role, domain.ActGrantOwner) {
		return domain.Invitation{}, domain.ErrForbidden
	}
	seats, err := a.seats(ctx, m.Team.OwnerUserID)
	if err != nil {
		return domain.Invitation{}, err
	}
	if seats == 0 {
		return domain.Invitation{}, domain.ErrReadOnly
	}
	code, err := sixDigits()
	if err != nil {
		return domain.Invitation{}, err
	}
	now := a.opt.Now()
	inv := domain.Invitation{ID: uuid.NewString(), TeamID: teamID, Email: addr, Role: r, InvitedBy: c.UserID,
		CreatedAt: now, ExpiresAt: now.Add(domain.InviteTTL)}
	inv.CodeHash = domain.CodeHash(inv.ID, code)
	link := strings.TrimRight(a.opt.PublicURL, "/") + "/teams/join?code=" + code
	mail := domain.Mail{To: addr, Subject: "รหัสเข้าร่วมทีม " + m.Team.Name + " บน BidRadar",
		Text: fmt.Sprintf("%s เชิญคุณเข้าร่วมทีม \"%s\" บน BidRadar\n\nรหัสเข้าร่วมทีม: %s\n\nเข้าสู่ระบบด้วยอีเมลนี้ แล้วใส่รหัสที่ %s\nรหัสใช้ได้ 72 ชั่วโมง\n",
			nameOr(c.Username, "สมาชิกทีม"), m.Team.Name, code, link)}
	if err := a.store.CreateInvitation(ctx, inv, seats, mail, now); err != nil {
		return domain.Invitation{}, err
	}
	inv.CodeHash = nil
	return inv, nil
}

func nameOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func sixDigits() (string, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%06d", n.Int64()), nil
}

// Invitations lists a team's pending invitations (owners and admins).
func (a *App) Invitations(ctx context.Context, c domain.Caller, teamID string) ([]domain.Invitation, error) {
	if _, err := a.access(ctx, c, teamID, domain.ActInvite); err != nil {
		return nil, err
	}
	return a.store.Invitations(ctx, teamID, a.opt.Now())
}

// RevokeInvitation cancels a pending invitation.
func (a *App) RevokeInvitation(ctx context.Context, c domain.Caller, teamID, id string) error {
	if _, err := a.access(ctx, c, teamID, domain.ActInvite); err != nil {
		return err
	}
	if !domain.ValidID(id) {
		return domain.ErrInviteNotFound
	}
	return a.store.RevokeInvitation(ctx, teamID, id, a.opt.Now())
}

// ErrWrongCode answers a code that matches none of the caller's invitations.
var ErrWrongCode = apperr.New(apperr.InvalidArgument, "invalid-invitation-code", "The code is wrong: check the latest invitation e-mail")

// Accept joins the caller to the team whose pending invitation to the
// caller's e-mail carries code. A caller with no pending invitation gets
// ErrInviteNotFound, whatever the code.
func (a *App) Accept(ctx context.Context, c domain.Caller, code string) (View, error) {
	code = strings.TrimSpace(code)
	if !domain.ValidCode(code) {
		return View{}, domain.ErrBadCode
	}
	addr, ok := domain.NormEmail(c.Email)
	if !ok {
		return View{}, domain.ErrInviteNotFound
	}
	now := a.opt.Now()
	u := domain.MemberRec{UserID: c.UserID, Username: c.Username, Email: addr, JoinedAt: now}
	teamID, found, matched, err := a.store.AcceptInvitation(ctx, addr, code, u, now, func(teamID string) error {
		t, err := a.store.Team(ctx, teamID, now)
		if err != nil {
			return err
		}
		return a.writable(ctx, t)
	})
	switch {
	case err != nil:
		return View{}, err
	case !found:
		return View{}, domain.ErrInviteNotFound
	case !matched:
		return View{}, ErrWrongCode
	}
	m, err := a.store.Membership(ctx, teamID, c.UserID, now)
	if err != nil {
		return View{}, err
	}
	return a.view(ctx, m)
}

// ItemView is an item with its project.
type ItemView struct {
	Item    domain.Item
	Project domain.ProjectInfo
}

func (a *App) withProjects(ctx context.Context, items []domain.Item) ([]ItemView, error) {
	ids := make([]string, 0, len(items))
	for _, it := range items {
		ids = append(ids, it.ProjectID)
	}
	infos := map[string]domain.ProjectInfo{}
	if len(ids) > 0 {
		var err error
		if infos, err = a.projects.Info(ctx, ids); err != nil {
			return nil, apperr.Wrap(err, domain.ErrUnavailable.Kind, domain.ErrUnavailable.Slug, domain.ErrUnavailable.Message)
		}
	}
	out := make([]ItemView, 0, len(items))
	for _, it := range items {
		p, ok := infos[it.ProjectID]
		if !ok {
			p = domain.ProjectInfo{ID: it.ProjectID}
		}
		out = append(out, ItemView{Item: it, Project: p})
	}
	return out, nil
}

// Pipeline pages a team's items.
func (a *App) Pipeline(ctx context.Context, c domain.Caller, teamID string, f domain.ItemFilter) ([]ItemView, int64, domain.ItemFilter, error) {
	if _, err := a.access(ctx, c, teamID, domain.ActRead); err != nil {
		return nil, 0, f, err
	}
	if f.Page == 0 {
		f.Page = 1
	}
	if f.PerPage == 0 {
		f.PerPage = domain.DefPerPage
	}
	if f.Page < 1 || f.PerPage < 1 || f.PerPage > domain.MaxPerPage {
		return nil, 0, f, domain.ErrBadPage
	}
	if f.Stage != "" && !domain.ValidStage(f.Stage) {
		return nil, 0, f, domain.ErrBadStage
	}
	if f.Owner != "" && !domain.ValidID(f.Owner) {
		return nil, 0, f, domain.ErrBadOwner
	}
	items, total, err := a.store.Items(ctx, teamID, f)
	if err != nil {
		return nil, 0, f, err
	}
	vs, err := a.withProjects(ctx, items)
	return vs, total, f, err
}

// Item is one item.
func (a *App) Item(ctx context.Context, c domain.Caller, teamID, projectID string) (ItemView, error) {
	if _, err := a.access(ctx, c, teamID, domain.ActRead); err != nil {
		return ItemView{}, err
	}
	if !domain.ValidProjectID(projectID) {
		return ItemView{}, domain.ErrBadProjectID
	}
	it, err := a.store.Item(ctx, teamID, projectID)
	if err != nil {
		return ItemView{}, err
	}
	vs, err := a.withProjects(ctx, []domain.Item{it})
	if err != nil {
		return ItemView{}, err
	}
	return vs[0], nil
}

// PutInput is a PUT's fields as sent (nil: not given).
type PutInput struct {
	Stage, Owner, DueDate, BidPrice, Note *string
}

func (in PutInput) patch() (domain.Patch, error) {
	var p domain.Patch
	if in.Stage != nil {
		s := strings.TrimSpace(*in.Stage)
		if !domain.ValidStage(s) {
			return p, domain.ErrBadStage
		}
		p.Stage = &s
	}
	if in.Owner != nil {
		s := strings.TrimSpace(*in.Owner)
		if s != "" && !domain.ValidID(s) {
			return p, domain.ErrBadOwner
		}
		p.Owner = &s
	}
	if in.DueDate != nil {
		var d *time.Time
		if s := strings.TrimSpace(*in.DueDate); s != "" {
			t, err := domain.ParseDate(s)
			if err != nil {
				return p, err
			}
			d = &t
		}
		p.DueDate = &d
	}
	if in.BidPrice != nil {
		var v *int64
		if s := strings.TrimSpace(*in.BidPrice); s != "" {
			n, err := domain.ParseBaht(s)
			if err != nil {
				return p, err
			}
			v = &n
		}
		p.BidSatang = &v
	}
	if in.Note != nil {
		s := strings.TrimSpace(*in.Note)
		if utf8.RuneCountInString(s) > domain.MaxText || !utf8.ValidString(s) {
			return p, domain.ErrBadNote
		}
		p.Note = &s
	}
	return p, nil
}

// Put adds a project to the pipeline or changes its item's given fields.
func (a *App) Put(ctx context.Context, c domain.Caller, teamID, projectID string, in PutInput) (ItemView, bool, error) {
	m, err := a.access(ctx, c, teamID, domain.ActWritePipeline)
	if err != nil {
		return ItemView{}, false, err
	}
	if !domain.ValidProjectID(projectID) {
		return ItemView{}, false, domain.ErrBadProjectID
	}
	p, err := in.patch()
	if err != nil {
		return ItemView{}, false, err
	}
	if err := a.writable(ctx, m.Team); err != nil {
		return ItemView{}, false, err
	}
	infos, err := a.projects.Info(ctx, []string{projectID})
	if err != nil {
		return ItemView{}, false, apperr.Wrap(err, domain.ErrUnavailable.Kind, domain.ErrUnavailable.Slug, domain.ErrUnavailable.Message)
	}
	info, ok := infos[projectID]
	if !ok {
		return ItemView{}, false, domain.ErrProjectNotFound
	}
	now := a.opt.Now()
	it, created, err := a.store.PutItem(ctx, teamID, projectID, p, c.Actor(), now, func(old, n domain.Item) *domain.StageEvent {
		if old.Stage == n.Stage || n.OwnerUserID == "" || n.OwnerUserID == c.UserID {
			return nil
		}
		return &domain.StageEvent{Team: m.Team, Project: info, Owner: n.OwnerUserID, Actor: c.Actor(),
			From: old.Stage, To: n.Stage, OccurredAt: now}
	})
	if err != nil {
		return ItemView{}, false, err
	}
	return ItemView{Item: it, Project: info}, created, nil
}

// Delete removes an item (its history stays).
func (a *App) Delete(ctx context.Context, c domain.Caller, teamID, projectID string) error {
	m, err := a.access(ctx, c, teamID, domain.ActWritePipeline)
	if err != nil {
		return err
	}
	if !domain.ValidProjectID(projectID) {
		return domain.ErrBadProjectID
	}
	if err := a.writable(ctx, m.Team); err != nil {
		return err
	}
	return a.store.DeleteItem(ctx, teamID, projectID, c.Actor(), a.opt.Now())
}

// History lists an item's changes, newest first.
func (a *App) History(ctx context.Context, c domain.Caller, teamID, projectID string) ([]domain.History, error) {
	if _, err := a.access(ctx, c, teamID, domain.ActRead); err != nil {
		return nil, err
	}
	if !domain.ValidProjectID(projectID) {
		return nil, domain.ErrBadProjectID
	}
	return a.store.History(ctx, teamID, projectID)
}

// Comments lists an item's discussion.
func (a *App) Comments(ctx context.Context, c domain.Caller, teamID, projectID string) ([]domain.Comment, error) {
	if _, err := a.access(ctx, c, teamID, domain.ActRead); err != nil {
		return nil, err
	}
	if !domain.ValidProjectID(projectID) {
		return nil, domain.ErrBadProjectID
	}
	if _, err := a.store.Item(ctx, teamID, projectID); err != nil {
		return nil, err
	}
	return a.store.Comments(ctx, teamID, projectID)
}

// AddComment adds to an item's discussion; each @username of a member
// (other than the author) tells that member.
func (a *App) AddComment(ctx context.Context, c domain.Caller, teamID, projectID, text string) (domain.Comment, error) {
	m, err := a.access(ctx, c, teamID, domain.ActComment)
	if err != nil {
		return domain.Comment{}, err
	}
	if !domain.ValidProjectID(projectID) {
		return domain.Comment{}, domain.ErrBadProjectID
	}
	text = strings.TrimSpace(text)
	if text == "" || utf8.RuneCountInString(text) > domain.MaxText || !utf8.ValidString(text) {
		return domain.Comment{}, domain.ErrBadText
	}
	if err := a.writable(ctx, m.Team); err != nil {
		return domain.Comment{}, err
	}
	if _, err := a.store.Item(ctx, teamID, projectID); err != nil {
		return domain.Comment{}, err
	}
	now := a.opt.Now()
	author := c.Username
	if c.IsKey() {
		author = "API key"
	}
	cm := domain.Comment{ID: uuid.NewString(), TeamID: teamID, ProjectID: projectID, UserID: c.Actor(), Username: author, Text: text, CreatedAt: now}
	var evs []domain.MentionEvent
	if names := domain.Mentions(text); len(names) > 0 {
		ms, err := a.store.MemberByUsername(ctx, teamID, names)
		if err != nil {
			return domain.Comment{}, err
		}
		var info domain.ProjectInfo
		if infos, err := a.projects.Info(ctx, []string{projectID}); err == nil {
			info = infos[projectID]
		}
		if info.Name == "" {
			info = domain.ProjectInfo{ID: projectID, Name: "โครงการ " + projectID}
		}
		excerpt := text
		if r := []rune(excerpt); len(r) > 200 {
			excerpt = string(r[:200])
		}
		for _, mm := range ms {
			cm.Mentions = append(cm.Mentions, mm.UserID)
			if mm.UserID == c.UserID {
				continue
			}
			evs = append(evs, domain.MentionEvent{Team: m.Team, Project: info, Comment: cm, UserID: mm.UserID,
				AuthorName: author, Excerpt: excerpt, OccurredAt: now})
		}
	}
	if err := a.store.AddComment(ctx, cm, evs); err != nil {
		return domain.Comment{}, err
	}
	return cm, nil
}

// CreateKey makes a team API key; the secret is returned this once.
func (a *App) CreateKey(ctx context.Context, c domain.Caller, teamID, name string, scopes []string) (domain.APIKey, string, error) {
	m, err := a.access(ctx, c, teamID, domain.ActManageKeys)
	if err != nil {
		return domain.APIKey{}, "", err
	}
	name, err = domain.CleanName(name)
	if err != nil {
		return domain.APIKey{}, "", err
	}
	sc, err := domain.NormScopes(scopes)
	if err != nil {
		return domain.APIKey{}, "", err
	}
	if err := a.writable(ctx, m.Team); err != nil {
		return domain.APIKey{}, "", err
	}
	raw, err := domain.NewSecret()
	if err != nil {
		return domain.APIKey{}, "", err
	}
	secret := "brk_" + raw
	k := domain.APIKey{ID: uuid.NewString(), TeamID: teamID, Name: name, Scopes: sc, Prefix: secret[:10],
		CreatedBy: c.UserID, CreatedAt: a.opt.Now()}
	if err := a.store.CreateKey(ctx, k, domain.HashSecret(secret)); err != nil {
		return domain.APIKey{}, "", err
	}
	return k, secret, nil
}

// Keys lists a team's live keys.
func (a *App) Keys(ctx context.Context, c domain.Caller, teamID string) ([]domain.APIKey, error) {
	if _, err := a.access(ctx, c, teamID, domain.ActManageKeys); err != nil {
		return nil, err
	}
	return a.store.Keys(ctx, teamID)
}

// RevokeKey ends a key at once.
func (a *App) RevokeKey(ctx context.Context, c domain.Caller, teamID, keyID string) error {
	if _, err := a.access(ctx, c, teamID, domain.ActManageKeys); err != nil {
		return err
	}
	if !domain.ValidID(keyID) {
		return domain.ErrKeyNotFound
	}
	return a.store.RevokeKey(ctx, teamID, keyID, a.opt.Now())
}

// VerifyKey finds a live key and counts the call against its limit.
func (a *App) VerifyKey(ctx context.Context, secret string) (domain.APIKey, error) {
	secret = strings.TrimSpace(secret)
	if !strings.HasPrefix(secret, "brk_") || len(secret) > 100 {
		return domain.APIKey{}, domain.ErrBadKey
	}
	k, wait, err := a.store.UseKey(ctx, domain.HashSecret(secret), a.opt.Now(), a.opt.KeyLimit, a.opt.KeyWindow)
	if err != nil {
		return k, err
	}
	if wait > 0 {
		return k, apperr.RetryAfter(domain.ErrKeyLimited, wait)
	}
	return k, nil
}

// Feed tells whether the team has a calendar link.
func (a *App) Feed(ctx context.Context, c domain.Caller, teamID string) (time.Time, bool, error) {
	if _, err := a.access(ctx, c, teamID, domain.ActRead); err != nil {
		return time.Time{}, false, err
	}
	return a.store.Feed(ctx, teamID)
}

// RotateFeed makes the team a new calendar link.
func (a *App) RotateFeed(ctx context.Context, c domain.Caller, teamID string) (string, time.Time, error) {
	if _, err := a.access(ctx, c, teamID, domain.ActManageCalendar); err != nil {
		return "", time.Time{}, err
	}
	tok, err := domain.NewSecret()
	if err != nil {
		return "", time.Time{}, err
	}
	now := a.opt.Now()
	return tok, now, a.store.RotateFeed(ctx, teamID, domain.HashSecret(tok), now)
}

// RevokeFeed ends the team's calendar link.
func (a *App) RevokeFeed(ctx context.Context, c domain.Caller, teamID string) error {
	if _, err := a.access(ctx, c, teamID, domain.ActManageCalendar); err != nil {
		return err
	}
	return a.store.RevokeFeed(ctx, teamID)
}

// CalendarEvents are the events of a calendar link's team and its name.
func (a *App) CalendarEvents(ctx context.Context, token, origin string) (string, []domain.CalendarEvent, error) {
	if !domain.ValidFeedToken(token) {
		return "", nil, domain.ErrFeedNotFound
	}
	teamID, err := a.store.FeedTeam(ctx, domain.HashSecret(token))
	if err != nil {
		return "", nil, err
	}
	t, err := a.store.Team(ctx, teamID, a.opt.Now())
	if err != nil {
		return "", nil, err
	}
	items, err := a.store.AllItems(ctx, teamID)
	if err != nil {
		return "", nil, err
	}
	vs, err := a.withProjects(ctx, items)
	if err != nil {
		return "", nil, err
	}
	infos := map[string]domain.ProjectInfo{}
	for _, v := range vs {
		infos[v.Item.ProjectID] = v.Project
	}
	return t.Name, domain.FeedEvents(items, infos, origin), nil
}

// ForgetUser erases a deleted account's memberships and comments.
func (a *App) ForgetUser(ctx context.Context, userID string) error {
	return a.store.ForgetUser(ctx, userID)
}
