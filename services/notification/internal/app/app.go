// Package app holds the notification use cases: the bell of one signed-in
// user, and the alerts written from other services' events.
package app

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"time"

	"bidradar/services/notification/internal/domain"
)

// App is the notification use cases.
type App struct {
	store  domain.Store
	now    func() time.Time
	ch     Channels
	limits domain.Limits
}

// Channels are the ways out besides the bell; a nil part is not configured.
type Channels struct {
	Contacts domain.Contacts
	Mail     domain.Mailer
	Line     domain.LinePusher
	Webhook  domain.WebhookPoster
	// Plans says which channels each user's tier includes; nil: none
	// beyond the bell (and webhooks).
	Plans     domain.Plans
	PublicURL string // the app's origin, for links in messages
	// AllowPrivateWebhooks (the development flag WEBHOOK_ALLOW_PRIVATE,
	// never in production) lets webhooks reach the loopback over http and
	// private addresses; otherwise only https to public addresses.
	AllowPrivateWebhooks bool
}

// New returns the use cases; now may be nil (time.Now).
func New(store domain.Store, now func() time.Time) *App {
	if now == nil {
		now = time.Now
	}
	return &App{store: store, now: now, limits: domain.DefaultLimits}
}

// WithLimits replaces the per-account rate limits (domain.DefaultLimits).
func (a *App) WithLimits(l domain.Limits) *App {
	a.limits = l
	return a
}

// take counts a call of userID against l, or refuses it (429 with when to
// try again).
func (a *App) take(ctx context.Context, userID string, l domain.RateLimit) error {
	wait, err := a.store.TakeRate(ctx, userID, l, a.now())
	if err != nil {
		return err
	}
	if wait > 0 {
		return l.Refuse(wait)
	}
	return nil
}

// WithChannels sets the e-mail and LINE channels.
func (a *App) WithChannels(c Channels) *App {
	a.ch = c
	return a
}

// List is one page of the bell with the total of the filter and the unread count.
type List struct {
	Items         []domain.Notification
	Total, Unread int64
}

// List returns a page of the user's notifications, newest first. Zero page
// values take the defaults.
func (a *App) List(ctx context.Context, userID string, f domain.ListFilter, p domain.Page) (List, error) {
	if p.Number == 0 {
		p.Number = 1
	}
	if p.Size == 0 {
		p.Size = domain.DefaultPerPage
	}
	if p.Number < 1 || p.Size < 1 || p.Size > domain.MaxPerPage {
		return List{}, domain.ErrInvalidPage
	}
	if !domain.ValidCategory(f.Category) {
		return List{}, domain.ErrInvalidCategory
	}
	ns, total, unread, err := a.store.List(ctx, userID, f, p)
	return List{Items: ns, Total: total, Unread: unread}, err
}

// UnreadCount counts the user's unread notifications.
func (a *App) UnreadCount(ctx context.Context, userID string) (int64, error) {
	return a.store.UnreadCount(ctx, userID)
}

// MarkRead marks one of the user's notifications read.
func (a *App) MarkRead(ctx context.Context, userID, id string) (domain.Notification, int64, error) {
	if !domain.ValidID(id) {
		return domain.Notification{}, 0, domain.ErrInvalidID
	}
	return a.store.MarkRead(ctx, userID, id, a.now())
}

// MarkAllRead marks all the user's notifications read.
func (a *App) MarkAllRead(ctx context.Context, userID string) (int64, error) {
	return a.store.MarkAllRead(ctx, userID, a.now())
}

// Delete deletes one of the user's notifications.
func (a *App) Delete(ctx context.Context, userID, id string) error {
	if !domain.ValidID(id) {
		return domain.ErrInvalidID
	}
	return a.store.Delete(ctx, userID, id, a.now())
}

// Clear deletes (or archives) the user's notifications matching f.
func (a *App) Clear(ctx context.Context, userID string, f domain.ClearFilter) (int64, error) {
	if err := f.Validate(); err != nil {
		return 0, err
	}
	return a.store.Clear(ctx, userID, f, a.now())
}

// CreateTest writes count test notifications (1 to MaxTestBatch); count 0
// writes one unnumbered.
func (a *App) CreateTest(ctx context.Context, userID string, count int) ([]domain.Notification, error) {
	if count < 0 || count > domain.MaxTestBatch {
		return nil, domain.ErrInvalidCount
	}
	if err := a.take(ctx, userID, a.limits.Test); err != nil {
		return nil, err
	}
	batch := newID()
	drafts := []domain.Draft{domain.Test(userID, batch, 0)}
	if count > 0 {
		drafts = drafts[:0]
		for i := 1; i <= count; i++ {
			drafts = append(drafts, domain.Test(userID, fmt.Sprintf("%s:%d", batch, i), i))
		}
	}
	return a.store.Create(ctx, "", "", drafts, a.now())
}

// Settings returns the user's channel settings.
func (a *App) Settings(ctx context.Context, userID string) (domain.Settings, error) {
	m, err := a.store.SettingsOf(ctx, []string{userID})
	if err != nil {
		return domain.Settings{}, err
	}
	return m[userID], nil
}

// PutSettings replaces the user's channel settings; turning on a channel
// the user's tier does not include is refused. A LINE user id sent along is
// not kept: alerts go only to the LINE account the user proved (see lineID).
func (a *App) PutSettings(ctx context.Context, userID string, s domain.Settings) (domain.Settings, error) {
	if err := s.Validate(); err != nil {
		return domain.Settings{}, err
	}
	s.LineUserID = ""
	if err := a.checkTurnsOn(ctx, userID, s); err != nil {
		return domain.Settings{}, err
	}
	return s, a.store.PutSettings(ctx, userID, s, a.now())
}

// WebhookLogSize is how many deliveries the settings page lists.
const WebhookLogSize = 50

// SetWebhook sets the user's webhook with a new signing secret, returned
// this once (only its hint is shown again). Changes count against the
// account's webhook limit; a refused address does not.
func (a *App) SetWebhook(ctx context.Context, userID, rawURL string) (domain.Webhook, error) {
	u, err := domain.CleanWebhookURL(rawURL, a.ch.AllowPrivateWebhooks)
	if err != nil {
		return domain.Webhook{}, err
	}
	if err := a.take(ctx, userID, a.limits.Webhook); err != nil {
		return domain.Webhook{}, err
	}
	var b [32]byte
	_, _ = rand.Read(b[:])
	w := domain.Webhook{UserID: userID, URL: u, Secret: "whsec_" + base64.RawURLEncoding.EncodeToString(b[:]), CreatedAt: a.now()}
	return w, a.store.PutWebhook(ctx, w, w.CreatedAt)
}

// DeleteWebhook removes the user's webhook (a change, counted like a set).
func (a *App) DeleteWebhook(ctx context.Context, userID string) error {
	if err := a.take(ctx, userID, a.limits.Webhook); err != nil {
		return err
	}
	found, err := a.store.DeleteWebhook(ctx, userID, a.now())
	if err == nil && !found {
		err = domain.ErrWebhookNotFound
	}
	return err
}

// Webhook returns the user's webhook (ok false when none) and its recent deliveries.
func (a *App) Webhook(ctx context.Context, userID string) (w domain.Webhook, ok bool, log []domain.WebhookDelivery, err error) {
	if w, ok, err = a.store.GetWebhook(ctx, userID); err != nil {
		return w, false, nil, err
	}
	log, err = a.store.WebhookDeliveries(ctx, userID, WebhookLogSize)
	return w, ok, log, err
}

// Events. Each handler is idempotent on the event id: the consumer name and
// the id are recorded with the rows they write, in one transaction.

// Consumer names (processed_events.consumer).
const (
	ConsumerMatches       = "notification-matches"
	ConsumerProjectMatch  = "notification-project-matches"
	ConsumerImportMatch   = "notification-import-matches"
	ConsumerAnnouncements = "notification-announcements"
	ConsumerDeadlines     = "notification-deadlines"
	ConsumerTeams         = "notification-teams"
	ConsumerCompetitors   = "notification-competitors"
)

// TeamMention rings the bell of a member mentioned in a team's discussion
// (the teams service names members only).
func (a *App) TeamMention(ctx context.Context, eventID, userID, teamID, teamName, projectID, projectName, author, excerpt string) error {
	return a.teamDraft(ctx, eventID, userID, domain.TeamMention(userID, eventID, teamID, teamName, projectID, projectName, author, excerpt))
}

// TeamStage rings the bell of the owner of a pipeline item that moved.
func (a *App) TeamStage(ctx context.Context, eventID, userID, teamID, teamName, projectID, projectName, from, to string) error {
	return a.teamDraft(ctx, eventID, userID, domain.TeamStage(userID, eventID, teamID, teamName, projectID, projectName, from, to))
}

func (a *App) teamDraft(ctx context.Context, eventID, userID string, d domain.Draft) error {
	set, err := a.store.SettingsOf(ctx, []string{userID})
	if err != nil {
		return err
	}
	var drafts []domain.Draft
	if set[userID].Wants(d.Category) {
		d.Channels = set[userID].Channels(d.Category)
		drafts = append(drafts, d)
	}
	_, err = a.store.Create(ctx, ConsumerTeams, eventID, drafts, a.now())
	return err
}

// CriteriaMatched: a saved search found projects. An instant search makes
// one alert per project (never two for the same search and project); an
// overnight run makes one digest per search and run.
// total is how many projects an overnight run found (projects may name fewer).
func (a *App) CriteriaMatched(ctx context.Context, eventID, userID, criteriaID, criteriaName, runKey string, projects []domain.MatchedProject, total int) error {
	if len(projects) == 0 {
		return nil
	}
	set, err := a.store.SettingsOf(ctx, []string{userID})
	if err != nil {
		return err
	}
	var drafts []domain.Draft
	if set[userID].Wants(domain.CategorySearchMatch) {
		if runKey != "" {
			drafts = append(drafts, domain.Digest(userID, criteriaID, criteriaName, runKey, projects, total))
		} else {
			for _, p := range projects {
				drafts = append(drafts, domain.SearchMatch(userID, criteriaID, criteriaName, p))
			}
		}
	}
	for i := range drafts {
		drafts[i].Channels = set[userID].Channels(drafts[i].Category)
	}
	_, err = a.store.Create(ctx, ConsumerMatches, eventID, drafts, a.now())
	return err
}

// ProjectMatched: a project newly matched saved searches (the instant
// alerts, one event a project). Each user is told once of the project,
// however many of their searches matched it: one notification titled
// after their first search, naming how many others matched. The settings
// of every user of the event are read at once.
func (a *App) ProjectMatched(ctx context.Context, eventID string, p domain.MatchedProject, matches []domain.Match) error {
	if len(matches) == 0 {
		return nil
	}
	var users []string
	names := map[string][]string{}
	seen := map[domain.Match]bool{} // a search named twice counts once
	for _, m := range matches {
		if _, ok := names[m.UserID]; !ok {
			users = append(users, m.UserID)
			names[m.UserID] = nil
		}
		k := domain.Match{UserID: m.UserID, CriteriaID: m.CriteriaID}
		if m.CriteriaID != "" && seen[k] {
			continue
		}
		seen[k] = true
		names[m.UserID] = append(names[m.UserID], m.CriteriaName)
	}
	set, err := a.store.SettingsOf(ctx, users)
	if err != nil {
		return err
	}
	drafts := make([]domain.Draft, 0, len(users))
	for _, u := range users {
		if set[u].Wants(domain.CategorySearchMatch) {
			d := domain.ProjectMatch(u, names[u], p)
			d.Channels = set[u].Channels(d.Category)
			drafts = append(drafts, d)
		}
	}
	_, err = a.store.Create(ctx, ConsumerProjectMatch, eventID, drafts, a.now())
	return err
}

// ImportMatched: an import newly matched two projects or more of each
// user's saved searches: one notification a user naming them all
// (ImportMatch), delivered once over the user's channels; the same import
// never makes a second one (its key is the import's). The users of one
// event are written together (one transaction, a few statements).
func (a *App) ImportMatched(ctx context.Context, eventID string, importID int64, users []domain.ImportUser) error {
	ids := make([]string, 0, len(users))
	for _, u := range users {
		ids = append(ids, u.UserID)
	}
	set, err := a.store.SettingsOf(ctx, ids)
	if err != nil {
		return err
	}
	drafts := make([]domain.Draft, 0, len(users))
	for _, u := range users {
		if len(u.ProjectIDs) == 0 || !set[u.UserID].Wants(domain.CategorySearchMatch) {
			continue
		}
		d := domain.ImportMatch(u.UserID, importID, u.ProjectIDs, u.Named)
		d.Channels = set[u.UserID].Channels(d.Category)
		drafts = append(drafts, d)
	}
	_, err = a.store.Create(ctx, ConsumerImportMatch, eventID, drafts, a.now())
	return err
}

// AnnouncementAdded: a project got a new step; each follower is told.
func (a *App) AnnouncementAdded(ctx context.Context, eventID, projectID, projectName, typeName, date string) error {
	// Kept for the digests of fill20 followers (idempotent on the event).
	if err := a.store.RecordStep(ctx, domain.Step{EventID: eventID, ProjectID: projectID, ProjectName: projectName,
		TypeName: typeName, Day: date, SeenAt: a.now()}); err != nil {
		return err
	}
	followers, err := a.store.Followers(ctx, projectID)
	if err != nil || len(followers) == 0 {
		return err
	}
	set, err := a.store.SettingsOf(ctx, followers)
	if err != nil {
		return err
	}
	drafts := make([]domain.Draft, 0, len(followers))
	for _, u := range followers {
		if set[u].Wants(domain.CategoryProjectUpdate) {
			d := domain.Announcement(u, eventID, projectID, projectName, typeName, date)
			d.Channels = set[u].Channels(d.Category)
			drafts = append(drafts, d)
		}
	}
	_, err = a.store.Create(ctx, ConsumerAnnouncements, eventID, drafts, a.now())
	return err
}

// DeadlineApproaching: tomorrow is a followed project's bid submission or
// hearing date; each follower is reminded once per project, kind and date
// (the dedup key), however often the reminder is published.
func (a *App) DeadlineApproaching(ctx context.Context, eventID, projectID, projectName, kind, date string) error {
	followers, err := a.store.Followers(ctx, projectID)
	if err != nil || len(followers) == 0 {
		return err
	}
	set, err := a.store.SettingsOf(ctx, followers)
	if err != nil {
		return err
	}
	drafts := make([]domain.Draft, 0, len(followers))
	for _, u := range followers {
		if set[u].Wants(domain.CategoryDeadline) {
			d := domain.DeadlineReminder(u, projectID, projectName, kind, date)
			d.Channels = set[u].Channels(d.Category)
			drafts = append(drafts, d)
		}
	}
	_, err = a.store.Create(ctx, ConsumerDeadlines, eventID, drafts, a.now())
	return err
}

// CompetitorWon: awards of competitors the user watches (once per event;
// the market tells each award once).
func (a *App) CompetitorWon(ctx context.Context, eventID, userID string, awards []domain.CompetitorAward) error {
	if len(awards) == 0 {
		return nil
	}
	set, err := a.store.SettingsOf(ctx, []string{userID})
	if err != nil {
		return err
	}
	var drafts []domain.Draft
	if set[userID].Wants(domain.CategoryCompetitorWin) {
		d := domain.CompetitorWin(userID, eventID, awards)
		d.Channels = set[userID].Channels(d.Category)
		drafts = append(drafts, d)
	}
	_, err = a.store.Create(ctx, ConsumerCompetitors, eventID, drafts, a.now())
	return err
}

// InterestChanged keeps the follower list: an active record with
// is_interestToStepChk follows its project (is_fill20: with its recent
// steps in the daily digest).
func (a *App) InterestChanged(ctx context.Context, userID, projectID string, follow, fill20, archived bool, at time.Time) error {
	following := follow && !archived
	return a.store.SetFollow(ctx, userID, projectID, following, following && fill20, at)
}

// ForgetUser erases a deleted account's notifications, follows, settings
// and pending deliveries (PDPA); run again, it finds nothing left.
func (a *App) ForgetUser(ctx context.Context, userID string) error {
	return a.store.DeleteUser(ctx, userID)
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
