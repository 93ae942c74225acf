// Package app holds the interests use cases: every call acts for one signed-in
// user on their own records.
package app

import (
	"context"
	"sort"
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
	feeds    domain.Feeds
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

// infoAll is info for any number of ids, a chunk a call.
func (a *App) infoAll(ctx context.Context, ids []string) (map[string]domain.ProjectInfo, error) {
	if len(ids) <= infoChunk {
		return a.info(ctx, ids)
	}
	out := make(map[string]domain.ProjectInfo, len(ids))
	for i := 0; i < len(ids); i += infoChunk {
		m, err := a.info(ctx, ids[i:min(i+infoChunk, len(ids))])
		if err != nil {
			return nil, err
		}
		for k, v := range m {
			out[k] = v
		}
	}
	return out, nil
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

// Lookup is the lookup for one project (docs/product.md#interest-lookup): the
// active record, else the archived one, else every flag false.
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
// projects and the user's counts per mark, newest change first.
func (a *App) List(ctx context.Context, userID string, archived bool, page, perPage int) ([]Row, int64, domain.Page, domain.Counts, error) {
	return a.ListBy(ctx, userID, archived, page, perPage, domain.ListQuery{})
}

// ListBy is List in the query's order and with its deadline filters. The
// deadlines are the projects service's: ordering or filtering by them reads
// the whole list (at most MaxFlagIDs records) and its projects, then
// pages; a user's list is tens to hundreds of records.
func (a *App) ListBy(ctx context.Context, userID string, archived bool, page, perPage int, q domain.ListQuery) ([]Row, int64, domain.Page, domain.Counts, error) {
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
	if err := q.Validate(); err != nil {
		return nil, 0, p, domain.Counts{}, err
	}
	if q.Sort == domain.SortDeadline || q.Filtered() {
		rows, total, err := a.listByDeadline(ctx, userID, archived, p, q)
		if err != nil {
			return nil, 0, p, domain.Counts{}, err
		}
		counts, err := a.records.Counts(ctx, userID)
		return rows, total, p, counts, err
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

func (a *App) listByDeadline(ctx context.Context, userID string, archived bool, p domain.Page, q domain.ListQuery) ([]Row, int64, error) {
	recs, _, err := a.records.List(ctx, userID, archived, domain.Page{Number: 1, Size: MaxFlagIDs})
	if err != nil {
		return nil, 0, err
	}
	all, err := a.withProjects(ctx, recs)
	if err != nil {
		return nil, 0, err
	}
	today := domain.Today(a.now())
	kept := all[:0]
	for _, r := range all {
		if q.Keep(r.Project.SubmissionDue, today) {
			kept = append(kept, r)
		}
	}
	if q.Sort == domain.SortDeadline {
		sort.SliceStable(kept, func(i, j int) bool {
			return domain.DeadlineFirst(kept[i].Record, kept[j].Record, kept[i].Project.SubmissionDue, kept[j].Project.SubmissionDue, today)
		})
	}
	total := int64(len(kept))
	from := min((p.Number-1)*p.Size, len(kept))
	return kept[from:min(from+p.Size, len(kept))], total, nil
}

// infoChunk is the most ids one GetProjectSummaries call takes.
const infoChunk = 500

func (a *App) withProjects(ctx context.Context, recs []domain.Record) ([]Row, error) {
	ids := make([]string, len(recs))
	for i, r := range recs {
		ids[i] = r.ProjectID
	}
	m, err := a.infoAll(ctx, ids)
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

// SetFeeds sets the store of calendar links (nil: the feed RPCs fail).
func (a *App) SetFeeds(f domain.Feeds) { a.feeds = f }

// FeedState is the user's calendar link, if any.
func (a *App) FeedState(ctx context.Context, userID string) (domain.Feed, bool, error) {
	return a.feeds.Feed(ctx, userID)
}

// RotateFeed makes the user a new calendar link and returns its token (to
// be shown once); the old link, if any, stops at once.
func (a *App) RotateFeed(ctx context.Context, userID string) (domain.Feed, string, error) {
	token, hash, err := domain.NewFeedToken()
	if err != nil {
		return domain.Feed{}, "", err
	}
	f, err := a.feeds.RotateFeed(ctx, userID, hash, a.now())
	return f, token, err
}

// RevokeFeed ends the user's calendar link; ErrFeedNotFound when none.
func (a *App) RevokeFeed(ctx context.Context, userID string) error {
	ok, err := a.feeds.RevokeFeed(ctx, userID)
	if err == nil && !ok {
		err = domain.ErrFeedNotFound
	}
	return err
}

// FeedEvents are the events of a calendar link: the owner's active
// followed and bidding projects, their latest steps and deadlines. A bad
// token is ErrFeedToken, an unknown (revoked, replaced) one ErrFeedNotFound.
func (a *App) FeedEvents(ctx context.Context, token, origin string) ([]domain.CalendarEvent, error) {
	hash, err := domain.FeedTokenHash(token)
	if err != nil {
		return nil, err
	}
	user, ok, err := a.feeds.FeedOwner(ctx, hash)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, domain.ErrFeedNotFound
	}
	seen := map[string]bool{}
	var ids []string
	for _, f := range []domain.Flag{domain.FlagFollow, domain.FlagBid} {
		got, _, err := a.records.ProjectIDs(ctx, user, f, MaxFlagIDs)
		if err != nil {
			return nil, err
		}
		for _, id := range got {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	m, err := a.infoAll(ctx, ids)
	if err != nil {
		return nil, err
	}
	infos := make([]domain.ProjectInfo, 0, len(m))
	for _, id := range ids {
		if p, ok := m[id]; ok {
			infos = append(infos, p)
		}
	}
	return domain.FeedEvents(infos, origin), nil
}

// Now is the use cases' clock (the feed's DTSTAMP).
func (a *App) Now() time.Time { return a.now() }

// ForgetUser erases a deleted account's records and comments (PDPA); run
// again, it finds nothing left to erase.
func (a *App) ForgetUser(ctx context.Context, userID string) error {
	return a.records.DeleteUser(ctx, userID)
}
