package domain

import (
	"context"
	"errors"
	"strings"
	"time"
)

// SourceEGPProject names observations fetched one project at a time from
// e-GP (scrape, update-project-smart).
const SourceEGPProject = "egp-project"

// ErrNotAtSource reports a project id that the source does not know.
var ErrNotAtSource = errors.New("project not found at the source")

// ProjectSource fetches one project from e-GP by its 11-digit id. It
// returns ErrNotAtSource when e-GP does not know the id; other errors
// mean the source could not answer (network, rate limit, format).
type ProjectSource interface {
	FetchProject(ctx context.Context, id string) (Project, error)
}

// NormalizeProjectID trims id and turns Thai digits into ASCII digits; ok
// reports whether the result is an 11-digit e-GP project id.
func NormalizeProjectID(id string) (string, bool) {
	s := strings.TrimSpace(foldDigits(strings.TrimSpace(id)))
	return s, ValidProjectID(s)
}

// CooldownStore keeps the time of the last refresh of each project, shared
// by every replica (update-project-smart).
type CooldownStore interface {
	// Claim records a refresh of id at now when the previous one is at
	// least cooldown old (or there is none). When it is not, ok is false
	// and last is the time of the previous refresh. prev is the time the
	// claim replaced (zero when none), for Release.
	Claim(ctx context.Context, id string, now time.Time, cooldown time.Duration) (ok bool, last, prev time.Time, err error)
	// Release undoes a claim made at claimed, restoring prev (zero: none),
	// when no later claim replaced it.
	Release(ctx context.Context, id string, claimed, prev time.Time) error
}
