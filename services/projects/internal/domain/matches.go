package domain

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// The searches a project matched, as the instant alerts record and tell
// them; CriteriaIndex finds them.

// EventCriteriaMatched is the event of an overnight search's digest.
const EventCriteriaMatched = "criteria.matched"

// EventProjectMatched is the event of a project that saved normal searches
// newly match: the instant alerts of one project.
const EventProjectMatched = "project.matched"

// EventImportMatched is the event of one user's instant alerts of one
// import that newly matched two projects or more (ImportMatches).
const EventImportMatched = "import.matched"

// ImportNames bounds the projects an import.matched event names with their
// details (the alert names the first three; it lists every project by id):
// at 20 a 20,000-project import's events carried ~100 MB of names.
const ImportNames = 3

// ImportMatches is what one import newly matched of the saved normal
// searches of some of its users (one event of the import's alerts: an
// import tells its users in a few of them, ImportChunks).
type ImportMatches struct {
	ImportID int64
	Users    []ImportUser
	// Projects are the projects the alerts name with their details: each
	// user's first ImportNames, each once.
	Projects []Project
}

// ImportUser is one user's part of ImportMatches: the projects, in the
// order told.
type ImportUser struct {
	UserID     string
	ProjectIDs []string
}

// Bounds of one import.matched event: its users (one transaction of the
// notification service writes their bell rows) and its size, well under
// JetStream's 1 MB (counted as each project id plus a few bytes, and
// namedBytes a named project).
const (
	MaxImportUsersPerEvent = 1000
	MaxImportEventBytes    = 600_000
	namedBytes             = 400
)

// ImportChunks splits the users of an import into the events that tell
// them, in order: each within MaxImportUsersPerEvent users and
// MaxImportEventBytes (a user alone may exceed it: 40,000 projects). named
// gives a user's projects named with details (their first ImportNames);
// a project named by several users of an event counts once.
func ImportChunks(users []ImportUser) [][]ImportUser {
	var out [][]ImportUser
	start, size := 0, 0
	named := map[string]bool{}
	cost := func(u ImportUser) int {
		n := 0
		for _, id := range u.ProjectIDs {
			n += len(id) + 3
		}
		for _, id := range u.ProjectIDs[:min(len(u.ProjectIDs), ImportNames)] {
			if !named[id] {
				n += namedBytes
			}
		}
		return n
	}
	for i, u := range users {
		n := cost(u)
		if i > start && (i-start >= MaxImportUsersPerEvent || size+n > MaxImportEventBytes) {
			out = append(out, users[start:i:i])
			start, size = i, 0
			clear(named)
			n = cost(u)
		}
		size += n
		for _, id := range u.ProjectIDs[:min(len(u.ProjectIDs), ImportNames)] {
			named[id] = true
		}
	}
	if start < len(users) {
		out = append(out, users[start:])
	}
	return out
}

// StaleAfter is how old a project's last announcement or closing may be
// and still raise an instant alert: older data (an import of past years)
// is in search and the overnight digests, not in the bell.
const StaleAfter = 7 * 24 * time.Hour

// StaleForAlerts reports whether p is old data for the instant alerts at
// now: its latest announcement (LastAnnounced) or its closing for bids
// (SubmissionDue) lies more than StaleAfter in the past. A project with
// neither date known is not stale.
func StaleForAlerts(p *Project, now time.Time) bool {
	cut := now.Add(-StaleAfter)
	if !p.LastAnnounced.IsZero() && p.LastAnnounced.Before(cut) {
		return true
	}
	return p.SubmissionDue != nil && p.SubmissionDue.Before(cut)
}

// SearchIndex gives the saved normal searches as an index and the version
// (CriteriaVersion) it holds: what a write of projects matches the projects
// it creates or changes against, in its own transaction (the instant
// alerts of docs/product.md#instant-alerts).
type SearchIndex interface {
	Searches(ctx context.Context) (*CriteriaIndex, int64, error)
}

// MaxMatchesPerEvent bounds the searches one project.matched event names
// (a message stays well under JetStream's 1 MB); a project matching more
// new searches is told in several events.
const MaxMatchesPerEvent = 2000

// ProjectMatches is a project and the saved normal searches it matches, by
// their keys. The alerts are grouped by project, not by search: a project
// of a bulk import matches ~160 searches, and one record and one event a
// project instead of one a match is what lets the alerts keep up with an
// import. Keys, not the searches: the alerts store and send nothing else,
// and reading each search's record from memory was a cache miss a match.
type ProjectMatches struct {
	Project *Project
	Keys    []SearchKey
	// AsOf is the version of the saved searches matched (CriteriaVersion):
	// a consumer that learned a search's name at an older one asks again.
	AsOf int64
}

// Chunks splits the keys into groups of at most MaxMatchesPerEvent, each
// the searches of one event.
func (m ProjectMatches) Chunks() [][]SearchKey {
	var out [][]SearchKey
	for s := m.Keys; len(s) > 0; {
		n := min(len(s), MaxMatchesPerEvent)
		out, s = append(out, s[:n:n]), s[n:]
	}
	return out
}

// SearchKey is a saved search's id as its 16 bytes, how the instant alerts
// store and send the searches that matched: a third of the id's 36
// characters, and no text to parse for each of a bulk import's millions of
// matches.
type SearchKey [16]byte

// ParseSearchKey reads a search id (a UUID of 36 characters, in either
// case); ok is false for anything else.
func ParseSearchKey(id string) (k SearchKey, ok bool) {
	if len(id) != 36 { // uuid.Parse also takes braces, urn:uuid: and no dashes
		return k, false
	}
	u, err := uuid.Parse(id)
	if err != nil {
		return k, false
	}
	return SearchKey(u), true
}

// String is the key as the canonical lower-case id.
func (k SearchKey) String() string { return uuid.UUID(k).String() }
