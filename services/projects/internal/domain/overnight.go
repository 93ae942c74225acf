package domain

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"bidradar/pkg/apperr"
)

// Overnight searches (search_type overnight) never alert instantly: at
// OvernightHour Asia/Bangkok each one runs over the projects first seen in
// the last OvernightWindow, and its user gets one digest naming what it
// found. A run is keyed by its Bangkok date: however often it runs that
// day (a replica, a restart, an operator's "run now"), a search is told at
// most once per date.
const (
	OvernightHour   = 2
	OvernightWindow = 24 * time.Hour
	// DigestNames is how many projects a digest event names (it counts all).
	DigestNames = 50
)

// ErrOvernightBusy reports a run of the day held by another replica.
var ErrOvernightBusy = apperr.New(apperr.Aborted, "overnight-run-in-progress", "An overnight run is in progress; try again in a few minutes")

// OvernightDay is the Bangkok date of now (midnight UTC of that date, as a
// date column reads back) and whether the day's scheduled run is due.
func OvernightDay(now time.Time) (day time.Time, due bool) {
	l := now.In(Bangkok)
	return time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, time.UTC), l.Hour() >= OvernightHour
}

// OvernightEventID is the event id of a search's digest of day: the same on
// every run of that day, so the outbox, JetStream and the notification
// service all keep one.
func OvernightEventID(criteriaID string, day time.Time) string {
	return nameID("overnight:" + criteriaID + ":" + day.Format(time.DateOnly))
}

// nameID is a UUID derived from name (the version 5 layout, SHA-256): an
// event id that every writer of the same event computes alike.
func nameID(name string) string {
	h := sha256.Sum256([]byte(name))
	h[6] = h[6]&0x0f | 0x50
	h[8] = h[8]&0x3f | 0x80
	x := hex.EncodeToString(h[:16])
	return x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:]
}

// DigestProject is a project as a digest names it.
type DigestProject struct {
	ID, Name, Agency string
	Budget           *Money
}

// OvernightDigest is what one overnight search found in a run.
type OvernightDigest struct {
	Criteria SavedCriteria
	Day      time.Time
	Projects []DigestProject // in the order found
}

// OvernightStats sums up a run.
type OvernightStats struct {
	Day          time.Time
	From, To     time.Time
	Criteria     int
	ProjectsSeen int
	Digests      int
	FinishedAt   time.Time
}

// OvernightRun collects, project by project, what each overnight search
// finds, with the search's own semantics (the Matcher behind the index).
type OvernightRun struct {
	ix    *CriteriaIndex
	day   time.Time
	found map[*SavedCriteria][]DigestProject
	order []*SavedCriteria
	seen  int
}

// NewOvernightRun starts a run of the overnight searches among saved.
func NewOvernightRun(saved []SavedCriteria, day time.Time) *OvernightRun {
	return &OvernightRun{ix: NewOvernightIndex(saved), day: day, found: map[*SavedCriteria][]DigestProject{}}
}

// Len is the number of overnight searches in the run.
func (r *OvernightRun) Len() int { return r.ix.Len() }

// Seen is the number of projects added.
func (r *OvernightRun) Seen() int { return r.seen }

// Add matches one project (SearchText derived) against every search.
func (r *OvernightRun) Add(p *Project) {
	r.seen++
	for _, s := range r.ix.Match(p) {
		if _, ok := r.found[s]; !ok {
			r.order = append(r.order, s)
		}
		r.found[s] = append(r.found[s], DigestProject{ID: p.ID, Name: p.Name, Agency: p.AgencyName, Budget: p.Budget})
	}
}

// Digests are the searches that found something, in the order they first did.
func (r *OvernightRun) Digests() []OvernightDigest {
	out := make([]OvernightDigest, 0, len(r.order))
	for _, s := range r.order {
		out = append(out, OvernightDigest{Criteria: *s, Day: r.day, Projects: r.found[s]})
	}
	return out
}
