package domain

import (
	"time"

	"bidradar/pkg/apperr"
)

// Bangkok is the time zone deadlines are counted in: a project's last day
// to submit bids is a Thai calendar date.
var Bangkok = func() *time.Location {
	l, err := time.LoadLocation("Asia/Bangkok")
	if err != nil {
		return time.FixedZone("ICT", 7*3600) // no DST since 1920
	}
	return l
}()

// Today is now's Bangkok date, ISO (YYYY-MM-DD).
func Today(now time.Time) string { return now.In(Bangkok).Format(time.DateOnly) }

// List orders.
const (
	SortChanged  = "changed"  // newest change first (the default)
	SortDeadline = "deadline" // upcoming deadlines soonest first, then newest change first
)

// MaxClosingWithin bounds ListQuery.ClosingWithin (a year and a day).
const MaxClosingWithin = 366

// ErrListQuery: a list's sort or deadline filter that cannot be run.
var ErrListQuery = apperr.New(apperr.InvalidArgument, "invalid-list-query", "Invalid sort or deadline filter")

// ListQuery is the order and deadline filters of a user's list.
type ListQuery struct {
	Sort           string
	ClosingWithin  int    // > 0: the last day to submit bids is today or within the next N-1 days
	DueFrom, DueTo string // ISO dates bounding the last day to submit bids
}

// Validate checks the query; its message names the bad field.
func (q ListQuery) Validate() error {
	bad := func(msg string) error {
		return &apperr.Error{Kind: ErrListQuery.Kind, Slug: ErrListQuery.Slug, Message: msg}
	}
	switch q.Sort {
	case "", SortChanged, SortDeadline:
	default:
		return bad(`sort must be "changed" or "deadline"`)
	}
	if q.ClosingWithin < 0 || q.ClosingWithin > MaxClosingWithin {
		return bad("closing_within_days must be between 1 and 366")
	}
	for _, d := range []string{q.DueFrom, q.DueTo} {
		if _, err := time.Parse(time.DateOnly, d); d != "" && err != nil {
			return bad("dueSDate_User and dueEDate_User must be dates (YYYY-MM-DD)")
		}
	}
	if q.DueFrom != "" && q.DueTo != "" && q.DueTo < q.DueFrom {
		return bad("dueEDate_User is before dueSDate_User")
	}
	return nil
}

// Filtered reports whether the query keeps only some records.
func (q ListQuery) Filtered() bool { return q.ClosingWithin > 0 || q.DueFrom != "" || q.DueTo != "" }

// Keep reports whether a project with this last day to submit bids (ISO,
// "" when unknown) passes the filters on the Bangkok date today.
func (q ListQuery) Keep(due, today string) bool {
	if !q.Filtered() {
		return true
	}
	if due == "" {
		return false
	}
	if q.DueFrom != "" && due < q.DueFrom || q.DueTo != "" && due > q.DueTo {
		return false
	}
	if q.ClosingWithin > 0 {
		t, _ := time.Parse(time.DateOnly, today)
		last := t.AddDate(0, 0, q.ClosingWithin-1).Format(time.DateOnly)
		return due >= today && due <= last
	}
	return true
}

// DeadlineFirst orders two records for SortDeadline (true when a comes
// first): upcoming last days to submit bids soonest first, then the rest;
// ties by the newer change, then the project id.
func DeadlineFirst(a, b Record, aDue, bDue, today string) bool {
	ua, ub := aDue != "" && aDue >= today, bDue != "" && bDue >= today
	if ua != ub {
		return ua
	}
	if ua && aDue != bDue {
		return aDue < bDue
	}
	if !a.Updated.Equal(b.Updated) {
		return a.Updated.After(b.Updated)
	}
	return a.ProjectID < b.ProjectID
}
