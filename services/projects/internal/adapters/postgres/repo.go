// Package postgres stores projects in PostgreSQL and runs the Thai search
// (docs/architecture.md#trigram-index, with one character-trigram int4[] GIN serving keywords of 2
// and 3+ characters, see migrations/00005), plans chosen in the service from a
// selectivity estimate on an in-memory sample and forced per query, keyset
// pagination and totals exact up to a cap.
package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/pkg/outbox"
	"bidradar/pkg/pgdb"
	"bidradar/services/projects/internal/domain"
)

// Repo implements domain.ProjectRepository and domain.RunRepository.
type Repo struct {
	pool    *pgxpool.Pool
	reads   *pgdb.Reads // search, listing and details; the rest on pool
	enc     Encoder
	alerts  domain.SearchIndex // nil: writes alert nobody
	opts    Options
	sample  *sampler
	facetMu sync.Mutex
	facets  *domain.Facets
	facetAt time.Time
}

// Options tune search.
type Options struct {
	// TotalCap: totals are exact up to this many matches, estimated above.
	TotalCap int
	// SampleSize is the number of rows kept in memory for selectivity
	// estimates (0: 1 % of the table, at least 10 000 and at most
	// 50 000); SampleTTL how long a sample is reused.
	SampleSize int
	SampleTTL  time.Duration
	// ForcePlan overrides the plan choice ("walk", "bitmap", "planner"),
	// for benchmarks and tests.
	ForcePlan string
	// Reads routes the reads of search, listings and details to a replica
	// (docs/architecture.md#beyond-one-machine); nil: all on the pool.
	Reads *pgdb.Reads
}

// DefaultTotalCap: an exact count reads every match from the heap (~10 µs
// a row on 2 cores), so above 1 000 matches a total is an estimate, marked
// as such, unless the page's plan counted it for free.
const DefaultTotalCap = 1000

// Encoder turns a domain event into its event message (eventproto.Encoder),
// which the outbox writes on the subject its proto declares.
type Encoder interface {
	Encode(domain.Event) (outbox.ProtoEvent, error)
}

// New returns a repository on pool. enc encodes outbox events; nil writes
// no events.
func New(pool *pgxpool.Pool, enc Encoder, opts Options) *Repo {
	if opts.TotalCap <= 0 {
		opts.TotalCap = DefaultTotalCap
	}
	if opts.SampleTTL <= 0 {
		opts.SampleTTL = 10 * time.Minute
	}
	r := &Repo{pool: pool, reads: opts.Reads, enc: enc, opts: opts}
	if r.reads == nil {
		r.reads = pgdb.NewPrimaryReads(pool)
	}
	r.sample = &sampler{repo: r}
	return r
}

var columnNames = []string{"id", "name", "search_text", "search_grams", "agency_code", "agency_name", "sub_agency_code", "sub_agency_name",
	"ministry_code", "ministry_name", "province_code", "district", "subdistrict", "method_code", "method_name",
	"work_type_code", "work_type_name", "strategy_code", "budget", "reference_price", "agreed_price", "budget_year",
	"status", "raw_status", "steps", "announce_types", "announced_on", "last_announce_type", "winner_tax_id",
	"winner_tax_id_damaged", "winner_name", "contract_no", "contract_signed", "contract_end", "contract_value",
	"contract_status", "location", "source", "submission_due", "hearing_due", "first_seen_at", "last_seen_at"}

var (
	// projectColumns is what rows are written with (CopyProjects' order).
	projectColumns = strings.Join(columnNames, ", ")
	// readColumns is what scanProject reads: the trigram codes are derived
	// from search_text, written for the index and never read back.
	readColumns = strings.Join(slices.DeleteFunc(slices.Clone(columnNames), func(c string) bool { return c == "search_grams" }), ", ")
)

func numeric(m *domain.Money) pgtype.Numeric {
	if m == nil {
		return pgtype.Numeric{}
	}
	return pgtype.Numeric{Int: big.NewInt(int64(*m)), Exp: -2, Valid: true}
}

func money(n pgtype.Numeric) (*domain.Money, error) {
	if !n.Valid {
		return nil, nil
	}
	v := new(big.Int).Set(n.Int)
	exp := n.Exp + 2
	for ; exp > 0; exp-- {
		v.Mul(v, big.NewInt(10))
	}
	for ; exp < 0; exp++ {
		v.Quo(v, big.NewInt(10))
	}
	if !v.IsInt64() {
		return nil, fmt.Errorf("amount out of range")
	}
	m := domain.Money(v.Int64())
	return &m, nil
}

func bangkokDate(t time.Time) time.Time { return domain.Date(t.Year(), t.Month(), t.Day()) }

func scanProject(rows pgx.Row) (domain.Project, error) {
	var p domain.Project
	var budget, ref, agreed, cval pgtype.Numeric
	var by int32
	var status, lastType string
	var steps []byte
	var types []string
	var announced time.Time
	var signed, end, subDue, hearDue *time.Time
	err := rows.Scan(&p.ID, &p.Name, &p.SearchText, &p.AgencyCode, &p.AgencyName, &p.SubAgencyCode, &p.SubAgencyName,
		&p.MinistryCode, &p.MinistryName, &p.ProvinceCode, &p.District, &p.Subdistrict, &p.MethodCode, &p.MethodName,
		&p.WorkTypeCode, &p.WorkTypeName, &p.StrategyCode, &budget, &ref, &agreed, &by,
		&status, &p.RawStatus, &steps, &types, &announced, &lastType, &p.WinnerTaxID,
		&p.WinnerTaxIDBad, &p.WinnerName, &p.ContractNo, &signed, &end, &cval,
		&p.ContractStatus, &p.Location, &p.Source, &subDue, &hearDue, &p.FirstSeen, &p.LastSeen)
	if err != nil {
		return p, err
	}
	p.BudgetYear = int(by)
	p.Status = domain.Status(status)
	p.LastAnnounceTyp = domain.AnnouncementType(lastType)
	if err := json.Unmarshal(steps, &p.Announcements); err != nil {
		return p, fmt.Errorf("steps of %s: %w", p.ID, err)
	}
	for i := range p.Announcements {
		p.Announcements[i].Date = p.Announcements[i].Date.In(domain.Bangkok)
	}
	p.LastAnnounced = lastAnnounced(announced)
	p.ContractSigned, p.ContractEnd = bangkokDay(signed), bangkokDay(end)
	p.SubmissionDue, p.HearingDue = bangkokDay(subDue), bangkokDay(hearDue)
	return p, moneyInto(moneyCol{&p.Budget, budget}, moneyCol{&p.ReferencePrice, ref}, moneyCol{&p.AgreedPrice, agreed},
		moneyCol{&p.ContractValue, cval})
}

// lastAnnounced is the announced_on column as Project.LastAnnounced: zero
// for the column's domain.NoDate (never announced).
func lastAnnounced(announced time.Time) time.Time {
	if announced.Equal(domain.NoDate) {
		return time.Time{}
	}
	return bangkokDate(announced)
}

// bangkokDay is bangkokDate of a nullable date column.
func bangkokDay(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	d := bangkokDate(*t)
	return &d
}

// moneyCol is a numeric column and the amount it is read into.
type moneyCol struct {
	dst **domain.Money
	n   pgtype.Numeric
}

// moneyInto reads each numeric column into its amount.
func moneyInto(cols ...moneyCol) error {
	for _, c := range cols {
		m, err := money(c.n)
		if err != nil {
			return err
		}
		*c.dst = m
	}
	return nil
}

// listColumns is what a search page reads of each project
// (domain.ResultPage): the fields a result list shows, and of the
// announcement steps only the latest link (ports.summary). Reading every
// column cost a search ~10 % of the stack's CPU at 1 M projects, a third
// of it decoding the steps' JSON (bench/README.md).
const listColumns = "id, name, search_text, agency_code, agency_name, sub_agency_name, ministry_code, ministry_name, " +
	"province_code, method_code, method_name, work_type_code, work_type_name, budget, reference_price, agreed_price, " +
	"budget_year, status, announced_on, last_announce_type, winner_name, submission_due, hearing_due, " +
	`jsonb_path_query_array(steps, '$[*] ? (@.link != "")') -> -1 ->> 'link'`

// scanListRow reads listColumns.
func scanListRow(row pgx.Row) (domain.Project, error) {
	var p domain.Project
	var budget, ref, agreed pgtype.Numeric
	var by int32
	var status, lastType string
	var announced time.Time
	var subDue, hearDue *time.Time
	var link *string
	err := row.Scan(&p.ID, &p.Name, &p.SearchText, &p.AgencyCode, &p.AgencyName, &p.SubAgencyName, &p.MinistryCode, &p.MinistryName,
		&p.ProvinceCode, &p.MethodCode, &p.MethodName, &p.WorkTypeCode, &p.WorkTypeName, &budget, &ref, &agreed,
		&by, &status, &announced, &lastType, &p.WinnerName, &subDue, &hearDue, &link)
	if err != nil {
		return p, err
	}
	p.BudgetYear, p.Status, p.LastAnnounceTyp = int(by), domain.Status(status), domain.AnnouncementType(lastType)
	p.LastAnnounced = lastAnnounced(announced)
	p.SubmissionDue, p.HearingDue = bangkokDay(subDue), bangkokDay(hearDue)
	if link != nil {
		p.Announcements = []domain.Announcement{{Link: *link}}
	}
	return p, moneyInto(moneyCol{&p.Budget, budget}, moneyCol{&p.ReferencePrice, ref}, moneyCol{&p.AgreedPrice, agreed})
}

// Get implements domain.ProjectRepository.
func (r *Repo) Get(ctx context.Context, id string) (domain.Project, error) {
	var p domain.Project
	err := r.reads.Read(ctx, func(pool *pgxpool.Pool) (err error) {
		p, err = scanProject(pool.QueryRow(ctx, "SELECT "+readColumns+" FROM projects WHERE id = $1", id))
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Project{}, fmt.Errorf("%w: %s", domain.ErrProjectNotFound, id)
	}
	if err != nil {
		return domain.Project{}, fmt.Errorf("get project %s: %w", id, err)
	}
	return p, nil
}

// GetMany implements domain.ProjectRepository: the stored projects among ids.
func (r *Repo) GetMany(ctx context.Context, ids []string) ([]domain.Project, error) {
	var out []domain.Project
	err := r.reads.Read(ctx, func(pool *pgxpool.Pool) error {
		out = out[:0]
		rows, err := pool.Query(ctx, "SELECT "+readColumns+" FROM projects WHERE id = ANY($1) ORDER BY id", ids)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			p, err := scanProject(rows)
			if err != nil {
				return err
			}
			out = append(out, p)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("get projects: %w", err)
	}
	return out, nil
}

// getMany returns the stored projects among ids, keyed by id, row-locked
// when lock is set.
func (r *Repo) getMany(ctx context.Context, tx pgx.Tx, ids []string, lock bool) (map[string]*domain.Project, error) {
	q := "SELECT " + readColumns + " FROM projects WHERE id = ANY($1)"
	if lock {
		q += " ORDER BY id FOR UPDATE"
	}
	rows, err := tx.Query(ctx, q, ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]*domain.Project, len(ids))
	for rows.Next() {
		p, err := scanProject(rows)
		if err != nil {
			return nil, err
		}
		out[p.ID] = &p
	}
	return out, rows.Err()
}

// SetInstantAlerts makes every write match the projects it creates or
// changes against the saved normal searches of s (the instant alerts).
func (r *Repo) SetInstantAlerts(s domain.SearchIndex) { r.alerts = s }

// Upsert implements domain.ProjectRepository: new projects are copied
// straight into the table; observations of stored projects are merged
// (domain.Merge), the changed rows locked, merged again and written with
// COPY + INSERT … ON CONFLICT; the events go to the outbox in the same
// transaction. Replaying the same observations changes nothing and
// publishes nothing.
//
// With instant alerts set, the created and changed projects are matched
// against the saved searches in the same transaction, and their new
// matches recorded and told (recordMatches): a project is committed with
// its alerts, so the alerts keep up with any import, and a crash loses
// neither. Matching costs about as much as the rest of the write
// (bench/README.md, "Instant alerts in the write").
func (r *Repo) Upsert(ctx context.Context, runID int64, obs []domain.Project, now time.Time) (domain.UpsertStats, error) {
	var st domain.UpsertStats
	if len(obs) == 0 {
		return st, nil
	}
	ix, asOf, err := r.instantSearches(ctx)
	if err != nil {
		return st, fmt.Errorf("upsert %d projects: saved searches: %w", len(obs), err)
	}
	order, batch, err := mergeBatch(obs, now)
	if err != nil {
		return st, err
	}
	st.Seen = len(obs)
	var created int
	// A write extending project_alerts may deadlock with a search switched
	// to instant alerts (UpdateCriteria): the write is tried again.
	err = retryOnDeadlock(3, func() error {
		return pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
			st = domain.UpsertStats{Seen: len(obs)}
			// Lookups by a list of ids must use the primary key, planned for
			// the ids at hand: pgx prepares statements, and PostgreSQL's
			// generic plan for "id = ANY($1)" (made once, e.g. on the empty
			// table after a TRUNCATE) took 450 ms a batch of 1 000 on 30 k rows
			// against 1.3 ms for the custom plan (measured: 600 rows/s when
			// replaying 100 k rows). On a table growing during an import the
			// statistics are stale too, so sequential scans are off as well.
			if _, err := tx.Exec(ctx, "SELECT set_config('plan_cache_mode', 'force_custom_plan', true), set_config('enable_seqscan', 'off', true)"); err != nil {
				return err
			}
			// New ids skip the locked read of whole rows: which ids exist is an
			// index-only probe of the primary key.
			known, err := existingIDs(ctx, tx, order)
			if err != nil {
				return fmt.Errorf("existing ids: %w", err)
			}
			var fresh, old []string
			for _, id := range order {
				if known[id] {
					old = append(old, id)
				} else {
					fresh = append(fresh, id)
				}
			}
			var evs []domain.Event
			if len(fresh) > 0 {
				fevs, ok, err := insertFresh(ctx, tx, runID, fresh, batch, now, &st)
				if err != nil {
					return err
				}
				if ok {
					evs = fevs
				} else {
					// another writer created some of these ids meanwhile: merge
					// them all under row locks
					old = order
				}
			}
			if len(old) > 0 {
				oevs, err := r.mergeExisting(ctx, tx, runID, old, batch, now, &st)
				if err != nil {
					return err
				}
				evs = append(evs, oevs...)
			}
			created = st.Created
			if ix != nil {
				mevs, n, err := recordMatches(ctx, tx, matchWritten(ix, evs, now), asOf, now)
				if err != nil {
					return err
				}
				st.Alerted = n
				if runID > 0 {
					// Told when the run finishes, once a user (FinishRun).
					if err := deferMatches(ctx, tx, runID, mevs); err != nil {
						return err
					}
					mevs = nil
				}
				evs = append(evs, mevs...)
			}
			return r.enqueue(ctx, tx, evs)
		})
	})
	if err != nil {
		return domain.UpsertStats{}, fmt.Errorf("upsert %d projects: %w", len(obs), err)
	}
	if created > 0 {
		r.sample.noteWrites(created)
	}
	return st, nil
}

// insertFresh writes the projects of ids that did not exist, adding to st
// and returning their events; ok is false (nothing written, st unchanged)
// when another writer created one of them meanwhile.
func insertFresh(ctx context.Context, tx pgx.Tx, runID int64, ids []string, batch map[string]domain.Project, now time.Time, st *domain.UpsertStats) (evs []domain.Event, ok bool, err error) {
	write := make([]domain.Project, 0, len(ids))
	var fst domain.UpsertStats
	for _, id := range ids {
		merged, _, added := domain.Merge(nil, batch[id], now)
		write = append(write, merged)
		fst.Created++
		fst.AnnouncementsAdded += len(added)
		// A new project publishes project.created only: it carries
		// every step, and no one can follow a project before it
		// exists, so announcement.added is for steps added later.
		m := merged
		evs = append(evs, domain.Event{ID: newID(), Kind: domain.EventProjectCreated, At: now, Project: &m, RunID: runID})
		if domain.AwardChanged(nil, &m) {
			evs = append(evs, domain.Event{ID: newID(), Kind: domain.EventAwardRecorded, At: now, Project: &m, RunID: runID})
		}
	}
	if ok, err = insertNew(ctx, tx, write); err != nil || !ok {
		return nil, ok, err
	}
	st.Created, st.AnnouncementsAdded = fst.Created, fst.AnnouncementsAdded
	return evs, true, nil
}

// instantSearches is the index of the saved normal searches a write
// matches its projects against, and its version (nil without instant
// alerts or searches).
func (r *Repo) instantSearches(ctx context.Context) (*domain.CriteriaIndex, int64, error) {
	if r.alerts == nil {
		return nil, 0, nil
	}
	ix, asOf, err := r.alerts.Searches(ctx)
	if err != nil || ix.Len() == 0 {
		return nil, asOf, err
	}
	return ix, asOf, nil
}

// mergeBatch merges the observations of a project within a batch, in batch
// order, and returns the projects' ids in the order first met.
func mergeBatch(obs []domain.Project, now time.Time) ([]string, map[string]domain.Project, error) {
	order := make([]string, 0, len(obs))
	batch := make(map[string]domain.Project, len(obs))
	for _, o := range obs {
		if err := o.CheckID(); err != nil {
			return nil, nil, err
		}
		if prev, ok := batch[o.ID]; ok {
			merged, _, _ := domain.Merge(&prev, o, now)
			batch[o.ID] = merged
			continue
		}
		order = append(order, o.ID)
		batch[o.ID] = o
	}
	return order, batch, nil
}

// matchWritten matches the projects that evs create or change against ix;
// old data (domain.StaleForAlerts at now) raises no instant alert.
func matchWritten(ix *domain.CriteriaIndex, evs []domain.Event, now time.Time) []domain.ProjectMatches {
	var ms []domain.ProjectMatches
	var keys []domain.SearchKey // every project's, end to end
	for _, e := range evs {
		if e.Kind != domain.EventProjectCreated && e.Kind != domain.EventProjectUpdated {
			continue
		}
		if domain.StaleForAlerts(e.Project, now) {
			continue
		}
		from := len(keys)
		if keys = ix.AppendKeys(keys, e.Project); len(keys) > from {
			// Full slice expression: a later append never writes into it.
			ms = append(ms, domain.ProjectMatches{Project: e.Project, Keys: keys[from:len(keys):len(keys)]})
		}
	}
	return ms
}

func existingIDs(ctx context.Context, tx pgx.Tx, ids []string) (map[string]bool, error) {
	rows, err := tx.Query(ctx, "SELECT id FROM projects WHERE id = ANY($1::text[])", ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]bool)
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}

// insertNew copies rows of new projects straight into the table under a
// savepoint. ok=false when one of the ids exists after all (a concurrent
// writer): nothing was written then.
func insertNew(ctx context.Context, tx pgx.Tx, ps []domain.Project) (ok bool, err error) {
	sp, err := tx.Begin(ctx)
	if err != nil {
		return false, err
	}
	if err := CopyProjects(ctx, sp.Conn(), "projects", ps); err != nil {
		_ = sp.Rollback(ctx)
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "23505" {
			return false, nil
		}
		return false, fmt.Errorf("copy new projects: %w", err)
	}
	if err := sp.Commit(ctx); err != nil {
		return false, err
	}
	return true, insertAgencies(ctx, tx, ps)
}

// insertAgencies records the (agency, sub-agency) pairs of rows.
func insertAgencies(ctx context.Context, tx pgx.Tx, ps []domain.Project) error {
	seen := map[[2]string]bool{}
	var keys [][2]string
	for i := range ps {
		k := [2]string{ps[i].AgencyName, ps[i].SubAgencyName}
		if k[0] == "" || seen[k] {
			continue
		}
		seen[k] = true
		keys = append(keys, k)
	}
	// Concurrent ingest workers insert the same new pairs: in one order
	// (bytewise, as writeRows) they wait for each other instead of
	// deadlocking.
	slices.SortFunc(keys, func(a, b [2]string) int {
		if c := strings.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return strings.Compare(a[1], b[1])
	})
	as, ss := make([]string, len(keys)), make([]string, len(keys))
	for i, k := range keys {
		as[i], ss[i] = k[0], k[1]
	}
	if len(as) == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, `INSERT INTO agencies (agency_name, sub_agency_name) SELECT * FROM unnest($1::text[], $2::text[])
		ON CONFLICT DO NOTHING`, as, ss); err != nil {
		return fmt.Errorf("agencies: %w", err)
	}
	return nil
}

// mergeExisting merges observations into stored projects and writes the
// changed ones; it returns their events.
func (r *Repo) mergeExisting(ctx context.Context, tx pgx.Tx, runID int64, ids []string, batch map[string]domain.Project, now time.Time, st *domain.UpsertStats) ([]domain.Event, error) {
	// Read without locks first: re-imports are mostly unchanged rows, and a
	// row lock writes to the heap and the WAL. Only the rows the merge
	// changes are then read again under a lock and merged from that.
	existing, err := r.getMany(ctx, tx, ids, false)
	if err != nil {
		return nil, fmt.Errorf("load existing: %w", err)
	}
	var changedIDs []string
	for _, id := range ids {
		if _, changed, _ := domain.Merge(existing[id], batch[id], now); changed {
			changedIDs = append(changedIDs, id)
		}
	}
	st.Unchanged += len(ids) - len(changedIDs)
	if len(changedIDs) == 0 {
		return nil, nil
	}
	ids = changedIDs
	if existing, err = r.getMany(ctx, tx, ids, true); err != nil {
		return nil, fmt.Errorf("lock existing: %w", err)
	}
	var write []domain.Project
	var evs []domain.Event
	for _, id := range ids {
		cur := existing[id]
		merged, changed, added := domain.Merge(cur, batch[id], now)
		if !changed {
			st.Unchanged++
			continue
		}
		write = append(write, merged)
		m := merged
		if cur == nil {
			st.Created++
			st.AnnouncementsAdded += len(added)
			evs = append(evs, domain.Event{ID: newID(), Kind: domain.EventProjectCreated, At: now, Project: &m, RunID: runID})
			if domain.AwardChanged(nil, &m) {
				evs = append(evs, domain.Event{ID: newID(), Kind: domain.EventAwardRecorded, At: now, Project: &m, RunID: runID})
			}
			continue
		}
		st.Updated++
		evs = append(evs, domain.Event{ID: newID(), Kind: domain.EventProjectUpdated, At: now, Project: &m, RunID: runID})
		if domain.AwardChanged(cur, &m) {
			evs = append(evs, domain.Event{ID: newID(), Kind: domain.EventAwardRecorded, At: now, Project: &m, RunID: runID})
		}
		if domain.AwardWithdrawal(cur, &m) {
			evs = append(evs, domain.Event{ID: newID(), Kind: domain.EventAwardWithdrawn, At: now, Project: &m, RunID: runID})
		}
		for i := range added {
			st.AnnouncementsAdded++
			evs = append(evs, domain.Event{ID: newID(), Kind: domain.EventAnnouncementAdded, At: now, Project: &m, Announcement: &added[i], RunID: runID})
		}
	}
	if len(write) == 0 {
		return nil, nil
	}
	if err := writeRows(ctx, tx, write); err != nil {
		return nil, err
	}
	return evs, nil
}

func writeRows(ctx context.Context, tx pgx.Tx, ps []domain.Project) error {
	if _, err := tx.Exec(ctx, `CREATE TEMP TABLE IF NOT EXISTS projects_stage (LIKE projects INCLUDING DEFAULTS) ON COMMIT DELETE ROWS`); err != nil {
		return fmt.Errorf("stage table: %w", err)
	}
	if err := CopyProjects(ctx, tx.Conn(), "projects_stage", ps); err != nil {
		return fmt.Errorf("copy to stage: %w", err)
	}
	set := ""
	for i, c := range columnNames[1:] {
		if c == "first_seen_at" {
			continue
		}
		if i > 0 {
			set += ", "
		}
		set += c + " = EXCLUDED." + c
	}
	if _, err := tx.Exec(ctx, "INSERT INTO projects ("+projectColumns+") SELECT "+projectColumns+" FROM projects_stage ON CONFLICT (id) DO UPDATE SET "+set); err != nil {
		return fmt.Errorf("upsert from stage: %w", err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO agencies (agency_name, sub_agency_name)
		SELECT a, s FROM (SELECT DISTINCT agency_name, sub_agency_name FROM projects_stage WHERE agency_name <> '') d (a, s)
		ORDER BY a COLLATE "C", s COLLATE "C" ON CONFLICT DO NOTHING`); err != nil {
		return fmt.Errorf("agencies: %w", err)
	}
	return nil
}

// enqueue writes the events of one upsert to the outbox as one batch row
// (outbox.EnqueueBatch): the relay still publishes one message per event.
func (r *Repo) enqueue(ctx context.Context, tx pgx.Tx, evs []domain.Event) error {
	if r.enc == nil || len(evs) == 0 {
		return nil
	}
	batch := make([]outbox.ProtoEvent, len(evs))
	for i, e := range evs {
		m, err := r.enc.Encode(e)
		if err != nil {
			return fmt.Errorf("encode %s: %w", e.Kind, err)
		}
		batch[i] = m
	}
	return outbox.EnqueueBatch(ctx, tx, batch)
}

func newID() string { return uuid.NewString() }

// Facets implements domain.ProjectRepository (cached for a minute).
func (r *Repo) Facets(ctx context.Context) (domain.Facets, error) {
	r.facetMu.Lock()
	defer r.facetMu.Unlock()
	if r.facets != nil && time.Since(r.facetAt) < time.Minute {
		return *r.facets, nil
	}
	var f domain.Facets
	rows, err := r.pool.Query(ctx, `SELECT agency_name, sub_agency_name FROM agencies ORDER BY agency_name, sub_agency_name LIMIT 20000`)
	if err != nil {
		return f, fmt.Errorf("facets: %w", err)
	}
	seenA, seenS := map[string]bool{}, map[string]bool{}
	for rows.Next() {
		var a, s string
		if err := rows.Scan(&a, &s); err != nil {
			rows.Close()
			return f, err
		}
		if !seenA[a] {
			seenA[a] = true
			f.Departments = append(f.Departments, a)
		}
		if s != "" && !seenS[s] {
			seenS[s] = true
			f.SubDepartments = append(f.SubDepartments, s)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return f, err
	}
	// distinct budget years via a loose index scan would need an index; the
	// range is small, so probe it.
	var lo, hi *int32
	if err := r.pool.QueryRow(ctx, `SELECT min(budget_year) FILTER (WHERE budget_year > 0), max(budget_year) FROM (SELECT budget_year FROM projects ORDER BY announced_on DESC LIMIT 1000) s`).Scan(&lo, &hi); err != nil {
		return f, err
	}
	if lo != nil && hi != nil {
		for y := *hi; y >= *lo-3 && y >= 2558; y-- {
			f.BudgetYears = append(f.BudgetYears, int(y))
		}
	}
	r.facets, r.facetAt = &f, time.Now()
	return f, nil
}

// StartRun implements domain.RunRepository.
func (r *Repo) StartRun(ctx context.Context, source, target string, at time.Time) (int64, error) {
	if err := r.flushLeftovers(ctx, at); err != nil {
		return 0, fmt.Errorf("start run: %w", err)
	}
	var id int64
	err := r.pool.QueryRow(ctx, `INSERT INTO ingest_runs (source, target, started_at) VALUES ($1, $2, $3) RETURNING id`, source, target, at).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("start run: %w", err)
	}
	return id, nil
}

// FinishRun implements domain.RunRepository.
func (r *Repo) FinishRun(ctx context.Context, run domain.IngestRun) error {
	log := run.ErrorLog
	if log == nil {
		log = []string{}
	}
	b, _ := json.Marshal(log)
	_, err := r.pool.Exec(ctx, `UPDATE ingest_runs SET status = $2, finished_at = $3, duration_ms = $4, seen = $5, created = $6,
		updated = $7, unchanged = $8, announcements_added = $9, errors = $10, error_log = $11 WHERE id = $1`,
		run.ID, run.Status, run.FinishedAt, run.FinishedAt.Sub(run.StartedAt).Milliseconds(), run.Stats.Seen, run.Stats.Created,
		run.Stats.Updated, run.Stats.Unchanged, run.Stats.AnnouncementsAdded, run.Errors, b)
	if err != nil {
		return fmt.Errorf("finish run %d: %w", run.ID, err)
	}
	// The run's instant alerts, once a user (import_alerts.go).
	if err := r.flushImport(ctx, run.ID, run.FinishedAt); err != nil {
		return fmt.Errorf("finish run %d: alerts: %w", run.ID, err)
	}
	return nil
}

// ListRuns implements domain.RunRepository.
func (r *Repo) ListRuns(ctx context.Context, limit int) ([]domain.IngestRun, error) {
	rows, err := r.pool.Query(ctx, `SELECT id, source, target, status, started_at, coalesce(finished_at, started_at), seen, created, updated,
		unchanged, announcements_added, errors, error_log FROM ingest_runs ORDER BY id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []domain.IngestRun
	for rows.Next() {
		var x domain.IngestRun
		var log []byte
		if err := rows.Scan(&x.ID, &x.Source, &x.Target, &x.Status, &x.StartedAt, &x.FinishedAt, &x.Stats.Seen, &x.Stats.Created,
			&x.Stats.Updated, &x.Stats.Unchanged, &x.Stats.AnnouncementsAdded, &x.Errors, &log); err != nil {
			return nil, err
		}
		_ = json.Unmarshal(log, &x.ErrorLog)
		out = append(out, x)
	}
	return out, rows.Err()
}
