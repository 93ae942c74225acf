package domain

import (
	"context"
	"time"
)

// Page asks for one page of a list.
type Page struct{ Number, Size int }

// Records stores the records and comments; every call is scoped to one user.
type Records interface {
	// Get returns the user's record on a project; ok is false when there is none.
	Get(ctx context.Context, userID, projectID string) (rec Record, ok bool, err error)
	// Update creates the record when missing and applies change to it in one
	// transaction, with the record row locked; created reports a new record.
	Update(ctx context.Context, userID, projectID string, now time.Time, change func(r *Record) error) (rec Record, created bool, err error)
	List(ctx context.Context, userID string, archived bool, p Page) ([]Record, int64, error)
	Counts(ctx context.Context, userID string) (Counts, error)
	GetMany(ctx context.Context, userID string, projectIDs []string) ([]Record, error)
	ProjectIDs(ctx context.Context, userID string, f Flag, limit int) (ids []string, truncated bool, err error)

	Comments(ctx context.Context, userID, projectID string) ([]Comment, error)
	// AddComment adds a comment, creating an active record when there is none.
	AddComment(ctx context.Context, userID, projectID, text string, now time.Time) (Comment, Record, bool, error)
	UpdateComment(ctx context.Context, userID, projectID, commentID, text string, now time.Time) (Comment, error)
	DeleteComment(ctx context.Context, userID, projectID, commentID string, now time.Time) (Record, error)
	// DeleteUser erases every record and comment of a user (account deleted).
	DeleteUser(ctx context.Context, userID string) error
}

// Projects reads projects from their owner, the projects service.
type Projects interface {
	// Info returns the projects among ids that exist, keyed by id.
	Info(ctx context.Context, ids []string) (map[string]ProjectInfo, error)
}
