// Package app holds the interests use cases: every call acts for one signed-in
// user on their own records.
package app

import (
	"context"
	"time"

	"bidradar/pkg/apperr"
	"bidradar/services/interests/internal/domain"
)

// ErrProjectsUnavailable: the projects service did not answer.
var ErrProjectsUnavailable = apperr.New(apperr.Unavailable, "projects-unavailable", "Service is currently unavailable. Please try again later.")

// MaxPerPage caps list pages; MaxFlagIDs caps an internal id list.
const (
	DefaultPerPage = 10
	MaxPerPage     = 100
	MaxFlagIDs     = 10000
)

// App is the interests use cases.
type App struct {
	records  domain.Records
	projects domain.Projects
	now      func() time.Time
}

// New returns the use cases; now may be nil (time.Now).
func New(records domain.Records, projects domain.Projects, now func() time.Time) *App {
	if now == nil {
		now = time.Now
	}
	return &App{records: records, projects: projects, now: now}
}

// Row is a record with its project's list fields.
type Row struct {
	domain.Record
	Project domain.ProjectInfo
	Known   bool // a record exists (false: the all-false answer of the lookup)
}

func checkID(projectID string) error {
	if !domain.ValidProjectID(projectID) {
		return domain.ErrInvalidProjectID
	}
	return nil
}

func (a *App) info(ctx context.Context, ids []string) (map[string]domain.ProjectInfo, error) {
	if len(ids) == 0 {
		return map[string]domain.ProjectInfo{}, nil
	}
	m, err := a.projects.Info(ctx, ids)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Unavailable, ErrProjectsUnavailable.Slug, ErrProjectsUnavailable.Message)
	}
	return m, nil
}

// project returns one project's info, or ErrProjectNotFound.
func (a *App) project(ctx context.Context, projectID string) (domain.ProjectInfo, error) {
	m, err := a.info(ctx, []string{projectID})
	if err != nil {
		return domain.ProjectInfo{}, err
	}
	p, ok := m[projectID]
	if !ok {
		return p, domain.ErrProjectNotFound
	}
	return p, nil
}

// Lookup is SPEC §4's lookup for one project: the active record, else the
// archived one, else every flag false.
func (a *App) Lookup(ctx context.Context, userID, projectID string) (Row, error) {
	if err := checkID(projectID); err != nil {
		return Row{}, err
	}
	rec, ok, err := a.records.Get(ctx, userID, projectID)
	if err != nil {
		return Row{}, err
	}
	if !ok {
		rec = domain.Record{UserID: userID, ProjectID: projectID}
	}
	row := Row{Record: rec, Known: ok}
	if m, err := a.info(ctx, []string{projectID}); err == nil {
		row.Project = m[projectID]
	}
	return row, nil
}

// Update applies a PATCH, creating the record on first use; the project
// must exist.
func (a *App) Update(ctx context.Context, userID, projectID string, p domain.Patch) (Row, error) {
	if err := checkID(projectID); err != nil {
		return Row{}, err
	}
	if err := p.Validate(); err != nil {
		return Row{}, err
	}
	info, err := a.project(ctx, projectID)
	if err != nil {
		return Row{}, err
	}
	now := a.now()
	rec, _, err := a.records.Update(ctx, userID, projectID, now, func(r *domain.Record) error {
		return r.Apply(p, info.Base(), now)
	})
	if err != nil {
		return Row{}, err
	}
	return Row{Record: rec, Project: info, Known: true}, nil
}

// List is one page of the user's active or archived records, with their
// projects and the user's counts per mark.
func (a *App) List(ctx context.Context, userID string, archived bool, page, perPage int) ([]Row, int64, domain.Page, domain.Counts, error) {
	p := domain.Page{Number: page, Size: perPage}
	if p.Number < 1 {
		p.Number = 1
	}
	if p.Size < 1 {
		p.Size = DefaultPerPage
	}
	if p.Size > MaxPerPage {
		p.Size = MaxPerPage
	}
	if p.Number > 1_000_000 {
		return nil, 0, p, domain.Counts{}, apperr.New(apperr.InvalidArgument, "invalid-page", "page is too large")
	}
	recs, total, err := a.records.List(ctx, userID, archived, p)
	if err != nil {
		return nil, 0, p, domain.Counts{}, err
	}
	counts, err := a.records.Counts(ctx, userID)
	if err != nil {
		return nil, 0, p, counts, err
	}
	rows, err := a.withProjects(ctx, recs)
	return rows, total, p, counts, err
}

func (a *App) withProjects(ctx context.Context, recs []domain.Record) ([]Row, error) {
	ids := make([]string, len(recs))
	for i, r := range recs {
		ids[i] = r.ProjectID
	}
	m, err := a.info(ctx, ids)
	if err != nil {
		return nil, err
	}
	rows := make([]Row, len(recs))
	for i, r := range recs {
		rows[i] = Row{Record: r, Project: m[r.ProjectID], Known: true}
	}
	return rows, nil
}

// Flags returns the user's records among projectIDs (internal: the listing's row flags).
func (a *App) Flags(ctx context.Context, userID string, projectIDs []string) ([]domain.Record, error) {
	if userID == "" || len(projectIDs) == 0 {
		return nil, nil
	}
	if len(projectIDs) > MaxPerPage*5 {
		return nil, apperr.New(apperr.InvalidArgument, "too-many-ids", "at most 500 project ids")
	}
	return a.records.GetMany(ctx, userID, projectIDs)
}

// ProjectIDs returns the ids of the user's projects carrying a listing flag (internal).
func (a *App) ProjectIDs(ctx context.Context, userID, flag string, limit int) ([]string, bool, error) {
	f, err := domain.ParseFlag(flag)
	if err != nil {
		return nil, false, err
	}
	if userID == "" {
		return nil, false, apperr.New(apperr.InvalidArgument, "user-id-required", "user_id is required")
	}
	if limit <= 0 || limit > MaxFlagIDs {
		limit = MaxFlagIDs
	}
	return a.records.ProjectIDs(ctx, userID, f, limit)
}

// Thread is a record's comments.
type Thread struct {
	Comments []domain.Comment
	Record   domain.Record
	Created  bool
}

// Comments lists the comments of the user's record on a project.
func (a *App) Comments(ctx context.Context, userID, projectID string) (Thread, error) {
	if err := checkID(projectID); err != nil {
		return Thread{}, err
	}
	rec, ok, err := a.records.Get(ctx, userID, projectID)
	if err != nil {
		return Thread{}, err
	}
	if !ok {
		return Thread{}, domain.ErrNoRecord
	}
	cs, err := a.records.Comments(ctx, userID, projectID)
	return Thread{Comments: cs, Record: rec}, err
}

// AddComment adds a comment; a user may comment on any existing project
// (an active record is created when there is none). asUser, when given,
// must be the caller.
func (a *App) AddComment(ctx context.Context, userID, projectID, asUser, text string) (Thread, domain.Comment, Row, error) {
	if err := checkID(projectID); err != nil {
		return Thread{}, domain.Comment{}, Row{}, err
	}
	if asUser != "" && asUser != userID {
		return Thread{}, domain.Comment{}, Row{}, domain.ErrNotYourUserID
	}
	text, err := domain.NormalizeComment(text)
	if err != nil {
		return Thread{}, domain.Comment{}, Row{}, err
	}
	info, err := a.project(ctx, projectID)
	if err != nil {
		return Thread{}, domain.Comment{}, Row{}, err
	}
	c, rec, created, err := a.records.AddComment(ctx, userID, projectID, text, a.now())
	if err != nil {
		return Thread{}, domain.Comment{}, Row{}, err
	}
	cs, err := a.records.Comments(ctx, userID, projectID)
	return Thread{Comments: cs, Record: rec, Created: created}, c, Row{Record: rec, Project: info, Known: true}, err
}

// UpdateComment edits one of the user's comments.
func (a *App) UpdateComment(ctx context.Context, userID, projectID, commentID, text string) (domain.Comment, error) {
	if err := checkID(projectID); err != nil {
		return domain.Comment{}, err
	}
	text, err := domain.NormalizeComment(text)
	if err != nil {
		return domain.Comment{}, err
	}
	return a.records.UpdateComment(ctx, userID, projectID, commentID, text, a.now())
}

// DeleteComment deletes one of the user's comments.
func (a *App) DeleteComment(ctx context.Context, userID, projectID, commentID string) (domain.Record, error) {
	if err := checkID(projectID); err != nil {
		return domain.Record{}, err
	}
	return a.records.DeleteComment(ctx, userID, projectID, commentID, a.now())
}

// ForgetUser erases a deleted account's records and comments (PDPA); run
// again, it finds nothing left to erase.
func (a *App) ForgetUser(ctx context.Context, userID string) error {
	return a.records.DeleteUser(ctx, userID)
}
