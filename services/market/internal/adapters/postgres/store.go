package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/protobuf/types/known/timestamppb"

	marketv1 "bidradar/gen/market/v1"
	"bidradar/pkg/outbox"
	"bidradar/pkg/pgdb"
	"bidradar/pkg/thaitext"
	"bidradar/services/market/internal/domain"
)

// Store implements domain.Store.
type Store struct {
	pool  *pgxpool.Pool
	reads *pgdb.Reads // the figures a user asks for; nil: every read on pool
}

// New returns the store over pool (search_path: the market schema).
func New(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

// ReadOn sends the figures a user asks for (benchmarks, price guide,
// suppliers, agencies) to reads: the replica of DATABASE_READ_URL when it
// has replayed the user's last write (docs/architecture.md#beyond-one-machine).
// The watchlist, the imports' writes and the rollups' refresh (no user on
// their context) stay on the primary.
func (s *Store) ReadOn(reads *pgdb.Reads) { s.reads = reads }

// reader runs the read-only queries of the figures.
type reader interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// rd is where a read-only query of ctx runs: through reads.Read, like the
// projects' search, so a query the replica fails on its connection (killed,
// restarting) runs again on the primary and the replica is taken out until
// its next check passes (docs/architecture.md#beyond-one-machine).
func (s *Store) rd(_ context.Context) reader {
	if s.reads == nil {
		return s.pool
	}
	return retrying{s.reads}
}

// retrying is a reader over pgdb.Reads.Read.
type retrying struct{ reads *pgdb.Reads }

// QueryRow runs the query at Scan, where its error shows.
func (r retrying) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return retryRow{r.reads, ctx, sql, args}
}

// Query retries a query failing before its first row (the replica's
// connection refused or lost); rows read already are not read again.
func (r retrying) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	var rows pgx.Rows
	err := r.reads.Read(ctx, func(p *pgxpool.Pool) (err error) {
		rows, err = p.Query(ctx, sql, args...)
		return err
	})
	return rows, err
}

type retryRow struct {
	reads *pgdb.Reads
	ctx   context.Context // the query's own context, used at Scan
	sql   string
	args  []any
}

func (r retryRow) Scan(dest ...any) error {
	return r.reads.Read(r.ctx, func(p *pgxpool.Pool) error { return p.QueryRow(r.ctx, r.sql, r.args...).Scan(dest...) })
}

var _ domain.Store = (*Store)(nil)

// contentKey is a digest of everything an award event carries: an award
// equal to the stored one is not written again.
func contentKey(a domain.Award) string {
	b, _ := json.Marshal(a)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:16])
}

func nullDate(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.Format(time.DateOnly)
}

// ApplyAward implements domain.Store.
func (s *Store) ApplyAward(ctx context.Context, a domain.Award, now time.Time) (bool, error) {
	key := contentKey(a)
	changed := false
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('market.award:' || $1))`, a.ProjectID); err != nil {
			return err
		}
		if current, err := advanceVersion(ctx, tx, a.ProjectID, a.EventAt); err != nil || !current {
			return err
		}
		var stored string
		var old [3]string
		err := tx.QueryRow(ctx, `SELECT content_key, dept_code, method_code, type_code FROM awards WHERE project_id = $1`,
			a.ProjectID).Scan(&stored, &old[0], &old[1], &old[2])
		oldp := &old
		if errors.Is(err, pgx.ErrNoRows) {
			oldp = nil
		} else if err != nil {
			return err
		}
		if stored == key {
			return nil
		}
		changed = true
		oldKeys, oldTax := []string{}, map[string]bool{}
		rows, err := tx.Query(ctx, `SELECT winner_key, coalesce(tax_id, '') FROM award_winners WHERE project_id = $1`, a.ProjectID)
		if err != nil {
			return err
		}
		for rows.Next() {
			var k, t string
			if err := rows.Scan(&k, &t); err != nil {
				return err
			}
			oldKeys = append(oldKeys, k)
			oldTax[t] = true
		}
		if err := rows.Err(); err != nil {
			return err
		}
		search := thaitext.Normalize(a.ProjectName)
		wk, wt, wn := WinnerArrays(a.Winners)
		var disc any
		if d, ok := a.Discount(); ok {
			disc = d
		}
		if _, err := tx.Exec(ctx, `INSERT INTO awards (project_id, project_name, search_text, trigrams, dept_code, dept_name,
			dept_sub_code, dept_sub_name, ministry_code, ministry_name, province_code, method_code, method_name,
			type_code, type_name, budget_year, budget_satang, reference_satang, agreed_satang, contract_satang,
			discount_pct, announce_date, source, content_key, updated_at, winner_keys, winner_tax_ids, winner_names)
			VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22::date,$23,$24,$25,$26,$27,$28)
			ON CONFLICT (project_id) DO UPDATE SET project_name = EXCLUDED.project_name, search_text = EXCLUDED.search_text,
			trigrams = EXCLUDED.trigrams, dept_code = EXCLUDED.dept_code, dept_name = EXCLUDED.dept_name,
			dept_sub_code = EXCLUDED.dept_sub_code, dept_sub_name = EXCLUDED.dept_sub_name,
			ministry_code = EXCLUDED.ministry_code, ministry_name = EXCLUDED.ministry_name,
			province_code = EXCLUDED.province_code, method_code = EXCLUDED.method_code, method_name = EXCLUDED.method_name,
			type_code = EXCLUDED.type_code, type_name = EXCLUDED.type_name, budget_year = EXCLUDED.budget_year,
			budget_satang = EXCLUDED.budget_satang, reference_satang = EXCLUDED.reference_satang,
			agreed_satang = EXCLUDED.agreed_satang, contract_satang = EXCLUDED.contract_satang,
			discount_pct = EXCLUDED.discount_pct, announce_date = EXCLUDED.announce_date, source = EXCLUDED.source,
			content_key = EXCLUDED.content_key, updated_at = EXCLUDED.updated_at, winner_keys = EXCLUDED.winner_keys,
			winner_tax_ids = EXCLUDED.winner_tax_ids, winner_names = EXCLUDED.winner_names`,
			a.ProjectID, a.ProjectName, search, thaitext.Trigrams(search), a.DeptCode, a.DeptName, a.DeptSubCode, a.DeptSubName,
			a.MinistryCode, a.MinistryName, a.ProvinceCode, a.MethodCode, a.MethodName, a.TypeCode, a.TypeName,
			a.BudgetYear, a.Budget, a.Reference, a.Agreed, contractOf(a), disc, nullDate(a.AnnounceDate), a.Source, key, now,
			wk, wt, wn); err != nil {
			return fmt.Errorf("upsert award %s: %w", a.ProjectID, err)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM award_winners WHERE project_id = $1`, a.ProjectID); err != nil {
			return err
		}
		keys := append([]string(nil), oldKeys...)
		var agreed int64
		if a.Agreed != nil {
			agreed = *a.Agreed
		}
		for i, w := range a.Winners {
			var tax any
			if w.TaxID != "" {
				tax = w.TaxID
			}
			k := w.Key()
			keys = append(keys, k)
			if _, err := tx.Exec(ctx, `INSERT INTO award_winners (project_id, seq, name, name_key, tax_id_published,
				tax_id_damaged, tax_id, winner_key, contract_no, contract_satang) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)`,
				a.ProjectID, i, w.Name, domain.NameKey(w.Name), w.TaxIDPublished, w.TaxIDDamaged, tax, k, w.ContractNo, w.Contract); err != nil {
				return fmt.Errorf("winner of %s: %w", a.ProjectID, err)
			}
			if w.TaxID == "" || oldTax[w.TaxID] {
				continue
			}
			// A winner new on the project: its watchers' alert, once
			// (docs/market.md#competitor-watch).
			if _, err := tx.Exec(ctx, `INSERT INTO competitor_alerts (user_id, project_id, tax_id, project_name,
				winner_name, agreed_satang, dept_name, created_at)
				SELECT user_id, $1, $2, $3, $4, $5, $6, $7 FROM watches WHERE tax_id = $2
				ON CONFLICT DO NOTHING`, a.ProjectID, w.TaxID, a.ProjectName, w.Name, agreed, a.DeptName, now); err != nil {
				return fmt.Errorf("alerts of %s: %w", a.ProjectID, err)
			}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO dirty_suppliers (winner_key) SELECT DISTINCT unnest($1::text[])
			ON CONFLICT DO NOTHING`, keys); err != nil {
			return err
		}
		return markGroupsDirty(ctx, tx, oldp, a)
	})
	return changed, err
}

// WithdrawAward implements domain.Store: the award leaves awards (its
// winners by cascade), its unsent competitor alerts go, and its groups and
// winners are marked stale so the refresh job recomputes the rollups and
// suppliers without it (docs/market.md#withdrawn-awards).
func (s *Store) WithdrawAward(ctx context.Context, projectID string, at time.Time) (bool, error) {
	changed := false
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('market.award:' || $1))`, projectID); err != nil {
			return err
		}
		if current, err := advanceVersion(ctx, tx, projectID, at); err != nil || !current {
			return err
		}
		var old domain.Award
		err := tx.QueryRow(ctx, `SELECT dept_code, method_code, type_code FROM awards WHERE project_id = $1`,
			projectID).Scan(&old.DeptCode, &old.MethodCode, &old.TypeCode)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		changed = true
		if _, err := tx.Exec(ctx, `INSERT INTO dirty_suppliers (winner_key)
			SELECT DISTINCT winner_key FROM award_winners WHERE project_id = $1 ON CONFLICT DO NOTHING`, projectID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM competitor_alerts WHERE project_id = $1 AND sent_at IS NULL`, projectID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM awards WHERE project_id = $1`, projectID); err != nil {
			return fmt.Errorf("withdraw award %s: %w", projectID, err)
		}
		return markGroupsDirty(ctx, tx, nil, old)
	})
	return changed, err
}

// advanceVersion records at as the time of the latest award event applied
// to the project, under the award's lock, and reports whether the event is
// current: false when a later one was applied already (this one, delivered
// late, must change nothing). A zero time is unordered: always current,
// nothing recorded.
func advanceVersion(ctx context.Context, tx pgx.Tx, projectID string, at time.Time) (bool, error) {
	if at.IsZero() {
		return true, nil
	}
	tag, err := tx.Exec(ctx, `INSERT INTO award_versions (project_id, occurred_at) VALUES ($1, $2)
		ON CONFLICT (project_id) DO UPDATE SET occurred_at = EXCLUDED.occurred_at
		WHERE award_versions.occurred_at <= EXCLUDED.occurred_at`, projectID, at)
	if err != nil {
		return false, fmt.Errorf("award version %s: %w", projectID, err)
	}
	return tag.RowsAffected() == 1, nil
}

// WinnerArrays are an award's winners as awards.winner_keys,
// winner_tax_ids (empty without a valid id) and winner_names, in seq order
// (migrations/00005).
func WinnerArrays(ws []domain.Winner) (keys, taxIDs, names []string) {
	keys, taxIDs, names = make([]string, len(ws)), make([]string, len(ws)), make([]string, len(ws))
	for i, w := range ws {
		keys[i], taxIDs[i], names[i] = w.Key(), w.TaxID, w.Name
	}
	return keys, taxIDs, names
}

func contractOf(a domain.Award) any {
	var sum int64
	any := false
	for _, w := range a.Winners {
		if w.Contract != nil {
			sum += *w.Contract
			any = true
		}
	}
	if !any {
		return nil
	}
	return sum
}

// FlushAlerts implements domain.Store.
func (s *Store) FlushAlerts(ctx context.Context, perEvent int, now time.Time) (int, error) {
	sent := 0
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT user_id, project_id, tax_id, project_name, winner_name, agreed_satang, dept_name
			FROM competitor_alerts WHERE sent_at IS NULL ORDER BY user_id, created_at, project_id, tax_id
			LIMIT 5000 FOR UPDATE SKIP LOCKED`)
		if err != nil {
			return err
		}
		type row struct {
			user string
			w    domain.NewWin
		}
		var rs []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.user, &r.w.ProjectID, &r.w.TaxID, &r.w.ProjectName, &r.w.WinnerName, &r.w.Agreed, &r.w.DeptName); err != nil {
				return err
			}
			rs = append(rs, r)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if len(rs) == 0 {
			return nil
		}
		var evs []outbox.ProtoEvent
		var cur *marketv1.CompetitorWon
		users, projects, taxes := make([]string, len(rs)), make([]string, len(rs)), make([]string, len(rs))
		for i, r := range rs {
			users[i], projects[i], taxes[i] = r.user, r.w.ProjectID, r.w.TaxID
			if cur == nil || cur.UserId != r.user || len(cur.Awards) >= perEvent {
				cur = &marketv1.CompetitorWon{EventId: uuid.NewString(), OccurredAt: timestamppb.New(now), UserId: r.user}
				evs = append(evs, cur)
			}
			cur.Awards = append(cur.Awards, &marketv1.CompetitorAward{ProjectId: r.w.ProjectID, ProjectName: r.w.ProjectName,
				TaxId: r.w.TaxID, WinnerName: r.w.WinnerName, AgreedPrice: float64(r.w.Agreed) / 100,
				AgreedPriceSatang: r.w.Agreed, DeptName: r.w.DeptName})
		}
		if err := outbox.EnqueueBatch(ctx, tx, evs); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE competitor_alerts c SET sent_at = $4
			FROM unnest($1::text[], $2::text[], $3::text[]) k(u, p, t)
			WHERE c.user_id = k.u AND c.project_id = k.p AND c.tax_id = k.t`, users, projects, taxes, now); err != nil {
			return err
		}
		sent = len(rs)
		return nil
	})
	return sent, err
}

// AddWatch implements domain.Store.
func (s *Store) AddWatch(ctx context.Context, userID, taxID string, limit int, now time.Time) (domain.Watch, bool, error) {
	full := false
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('market.watch:' || $1))`, userID); err != nil {
			return err
		}
		var have, held int
		if err := tx.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE tax_id = $2) FROM watches WHERE user_id = $1`,
			userID, taxID).Scan(&have, &held); err != nil {
			return err
		}
		if held > 0 {
			return nil
		}
		if limit >= 0 && have >= limit {
			full = true
			return nil
		}
		_, err := tx.Exec(ctx, `INSERT INTO watches (user_id, tax_id, created_at) VALUES ($1, $2, $3)`, userID, taxID, now)
		return err
	})
	if err != nil || full {
		return domain.Watch{}, full, err
	}
	ws, err := s.watches(ctx, userID, taxID)
	if err != nil || len(ws) == 0 {
		return domain.Watch{}, false, err
	}
	return ws[0], false, nil
}

func (s *Store) watches(ctx context.Context, userID, taxID string) ([]domain.Watch, error) {
	rows, err := s.pool.Query(ctx, `SELECT w.tax_id, coalesce(s.name, ''), coalesce(s.wins, 0), coalesce(s.total_satang, 0), w.created_at
		FROM watches w LEFT JOIN suppliers s ON s.winner_key = 'T' || w.tax_id
		WHERE w.user_id = $1 AND ($2 = '' OR w.tax_id = $2) ORDER BY w.created_at DESC, w.tax_id`, userID, taxID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.Watch, error) {
		var w domain.Watch
		err := r.Scan(&w.TaxID, &w.Name, &w.Wins, &w.Total, &w.Created)
		return w, err
	})
}

// ListWatches implements domain.Store.
func (s *Store) ListWatches(ctx context.Context, userID string) ([]domain.Watch, error) {
	return s.watches(ctx, userID, "")
}

// RemoveWatch implements domain.Store.
func (s *Store) RemoveWatch(ctx context.Context, userID, taxID string) (bool, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM watches WHERE user_id = $1 AND tax_id = $2`, userID, taxID)
	return tag.RowsAffected() > 0, err
}

// ForgetUser implements domain.Store.
func (s *Store) ForgetUser(ctx context.Context, userID string) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM watches WHERE user_id = $1`, userID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM competitor_alerts WHERE user_id = $1`, userID)
		return err
	})
}
