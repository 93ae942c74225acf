package domain

import (
	"context"
	"time"

	"bidradar/pkg/apperr"
)

// ErrProjectNotFound is returned for an unknown project id.
var ErrProjectNotFound = apperr.New(apperr.NotFound, "project-not-found", "Project not found")

// Event kinds published through the outbox.
const (
	EventProjectCreated    = "project.created"
	EventProjectUpdated    = "project.updated"
	EventAnnouncementAdded = "announcement.added"
)

// Event is a domain event written to the outbox with the change.
type Event struct {
	ID           string
	Kind         string
	At           time.Time
	Project      *Project
	Announcement *Announcement
	RunID        int64
	Matched      *ProjectMatches  // EventProjectMatched: the searches a project newly matched (at most MaxMatchesPerEvent)
	Digest       *OvernightDigest // EventCriteriaMatched, an overnight run's digest
	Import       *ImportMatches   // EventImportMatched: some users' new matches of one import
	Deadline     *Deadline        // EventDeadlineApproaching
}

// UpsertStats counts the effect of an upsert batch.
type UpsertStats struct {
	Seen, Created, Updated, Unchanged, AnnouncementsAdded int
	// Alerted counts the new matches of saved searches (instant alerts).
	Alerted int
}

// Add accumulates o into s.
func (s *UpsertStats) Add(o UpsertStats) {
	s.Seen += o.Seen
	s.Created += o.Created
	s.Updated += o.Updated
	s.Unchanged += o.Unchanged
	s.AnnouncementsAdded += o.AnnouncementsAdded
	s.Alerted += o.Alerted
}

// PageRequest asks for one page of results: by page number (1-based) or,
// for deep pages, after an opaque cursor from the previous page.
type PageRequest struct {
	Page    int
	PerPage int
	After   string
}

// ResultPage is one page of search results.
type ResultPage struct {
	// Items hold what a result list shows: identity, names and codes,
	// money, status, dates, SearchText, and of the announcements only the
	// latest one with a link (its Link alone); the rest is left empty (Get
	// reads a whole project).
	Items          []Project
	Total          int  // exact when !TotalEstimated
	TotalEstimated bool // above the cap: an estimate, shown as "about N"
	NextCursor     string
	Page, PerPage  int
	Plan           string // chosen plan, for logs and benchmarks
}

// ProjectRepository stores projects.
type ProjectRepository interface {
	// Upsert merges observations into the store idempotently and writes the
	// resulting events to the outbox in the same transaction.
	Upsert(ctx context.Context, runID int64, obs []Project, now time.Time) (UpsertStats, error)
	Get(ctx context.Context, id string) (Project, error)
	// GetMany returns the stored projects among ids, in id order.
	GetMany(ctx context.Context, ids []string) ([]Project, error)
	Search(ctx context.Context, c Criteria, p PageRequest) (ResultPage, error)
	Facets(ctx context.Context) (Facets, error)
}

// Facets are the values of the data-driven dropdowns.
type Facets struct {
	Departments    []string
	SubDepartments []string
	BudgetYears    []int
}

// IngestRun records one ingestion run.
type IngestRun struct {
	ID         int64
	Source     string
	Target     string // URL or file name
	StartedAt  time.Time
	FinishedAt time.Time
	Stats      UpsertStats
	Errors     int
	ErrorLog   []string // first errors, for the operator
	Status     string   // running, succeeded, failed
}

// RunRepository records ingestion runs.
type RunRepository interface {
	StartRun(ctx context.Context, source, target string, at time.Time) (int64, error)
	FinishRun(ctx context.Context, run IngestRun) error
	ListRuns(ctx context.Context, limit int) ([]IngestRun, error)
}

// RecordError is a per-record problem that does not stop a run.
type RecordError struct {
	Line int
	Err  error
}

func (e *RecordError) Error() string { return "record " + itoa(e.Line) + ": " + e.Err.Error() }
func (e *RecordError) Unwrap() error { return e.Err }

// ObservationSource is the ingestion port: an adapter reads a feed or a file
// and hands each observation (a partial project) to fn. Per-record problems
// go to onErr and do not stop the source.
type ObservationSource interface {
	Name() string
	Each(ctx context.Context, fn func(Project) error, onErr func(RecordError)) error
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// DeadlineStore writes the reminders of a date's deadlines, each once.
type DeadlineStore interface {
	RemindDeadlines(ctx context.Context, day, now time.Time) ([]Deadline, error)
}

// SavedSearches reads the saved normal searches for instant alerts.
type SavedSearches interface {
	// CriteriaVersion moves whenever a saved search changes.
	CriteriaVersion(ctx context.Context) (int64, error)
	NormalCriteria(ctx context.Context) ([]SavedCriteria, int64, error)
}

// OvernightStore keeps the overnight runs and reads what they search.
type OvernightStore interface {
	// ClaimOvernight leases the run of day: a new one, an unfinished one
	// whose lease ran out (resumed over its window), or with rerun a
	// finished one. ok is false when it is held or done.
	ClaimOvernight(ctx context.Context, day, now time.Time, lease time.Duration, rerun bool) (from, to time.Time, ok bool, err error)
	RenewOvernight(ctx context.Context, day, until time.Time) error
	FinishOvernight(ctx context.Context, st OvernightStats) error
	OvernightCriteria(ctx context.Context) ([]SavedCriteria, error)
	// FirstSeen pages through the projects first seen in [from, to).
	FirstSeen(ctx context.Context, from, to, afterAt time.Time, afterID string, limit int) ([]Project, error)
	// RecordDigests writes searches' digests of their day and their events,
	// once per search and day; it returns how many it wrote.
	RecordDigests(ctx context.Context, ds []OvernightDigest, now time.Time) (int, error)
}
