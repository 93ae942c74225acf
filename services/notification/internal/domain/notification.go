// Package domain holds the notification rules: what a notification is, the
// filters of the bell, the channel settings, and the Thai text of each alert.
package domain

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"bidradar/pkg/apperr"
)

// Categories (docs/product.md#notification) and the alerts (docs/product.md#alerts).
const (
	CategorySystemAlert   = "system_alert"
	CategoryProjectUpdate = "project_update"
	CategorySearchMatch   = "search_match"
	CategoryDeadline      = "deadline"
	CategoryPayment       = "payment"
	// A member was mentioned in a team's discussion (docs/product.md#teams).
	CategoryTeamMention = "team_mention"
	// An item a member owns in a team's pipeline moved to another stage.
	CategoryTeamUpdate = "team_update"
	// CategoryCompetitorWin: a watched competitor won an award
	// (docs/market.md#competitor-watch); the user asked for it by watching.
	CategoryCompetitorWin = "competitor_win"
)

// Categories is every category a filter may name.
var Categories = []string{CategorySystemAlert, CategoryProjectUpdate, CategorySearchMatch, CategoryDeadline, CategoryPayment,
	CategoryTeamMention, CategoryTeamUpdate, CategoryCompetitorWin}

// Priorities.
const (
	PriorityLow    = "low"
	PriorityNormal = "normal"
	PriorityHigh   = "high"
)

// TypeBell is the socket message type of every bell notification.
const TypeBell = "bell_notification"

// Limits.
const (
	DefaultPerPage   = 20
	MaxPerPage       = 100
	MaxTestBatch     = 100
	MaxClearIDs      = 1000
	MaxOlderThanDays = 3650
)

// Errors (the detail is the message: docs/product.md#error-answers).
var (
	ErrNotFound        = apperr.New(apperr.NotFound, "notification-not-found", "Notification not found")
	ErrInvalidID       = apperr.New(apperr.InvalidArgument, "invalid-notification-id", "Invalid notification id")
	ErrInvalidCategory = apperr.New(apperr.InvalidArgument, "invalid-category", "Unknown notification category")
	ErrInvalidCount    = apperr.New(apperr.InvalidArgument, "invalid-count", fmt.Sprintf("count must be between 1 and %d", MaxTestBatch))
	ErrInvalidPage     = apperr.New(apperr.InvalidArgument, "invalid-page", fmt.Sprintf("page must be at least 1 and per_page between 1 and %d", MaxPerPage))
	ErrInvalidDays     = apperr.New(apperr.InvalidArgument, "invalid-older-than-days", fmt.Sprintf("older_than_days must be between 0 and %d", MaxOlderThanDays))
	ErrTooManyIDs      = apperr.New(apperr.InvalidArgument, "too-many-ids", fmt.Sprintf("at most %d notification_ids", MaxClearIDs))
	ErrInvalidSettings = apperr.New(apperr.InvalidArgument, "invalid-settings", "Invalid notification settings")
)

var uuidRe = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// ValidID reports whether id has the form of a notification id.
func ValidID(id string) bool { return uuidRe.MatchString(id) }

// ValidCategory reports whether c is a known category ("" means any).
func ValidCategory(c string) bool {
	if c == "" {
		return true
	}
	for _, k := range Categories {
		if c == k {
			return true
		}
	}
	return false
}

// Notification is one bell notification.
type Notification struct {
	ID, UserID               string
	Category, Priority, Type string
	Title, Message           string
	ProjectID, Link          string
	// ProjectIDs: the projects a grouped alert names (ImportMatch).
	ProjectIDs []string
	IsRead     bool
	ReadAt     *time.Time
	Created    time.Time
}

// Draft is a notification to write; DedupKey makes the write idempotent per
// user (the same key never makes a second row).
type Draft struct {
	UserID, DedupKey   string
	Category, Priority string
	Title, Message     string
	ProjectID, Link    string
	ProjectIDs         []string // the projects of a grouped alert (ImportMatch)
	Channels           []string // e-mail / LINE deliveries written with it
}

// Page asks for one page.
type Page struct{ Number, Size int }

// ListFilter narrows the bell list.
type ListFilter struct {
	IsRead   *bool
	Category string
}

// ClearFilter picks the notifications to clear (all conditions together;
// none given means all). Archive keeps them stored, out of the list.
type ClearFilter struct {
	Archive       bool
	IDs           []string
	Category      string
	IsRead        *bool
	OlderThanDays *int
}

// Validate checks the filter's values.
func (f ClearFilter) Validate() error {
	if len(f.IDs) > MaxClearIDs {
		return ErrTooManyIDs
	}
	for _, id := range f.IDs {
		if !ValidID(id) {
			return ErrInvalidID
		}
	}
	if !ValidCategory(f.Category) {
		return ErrInvalidCategory
	}
	if f.OlderThanDays != nil && (*f.OlderThanDays < 0 || *f.OlderThanDays > MaxOlderThanDays) {
		return ErrInvalidDays
	}
	return nil
}

// Settings are a user's channel choices.
type Settings struct {
	BellEnabled, EmailEnabled, LineEnabled                   bool
	EmailDigest                                              string // instant | daily | off
	LineUserID                                               string // not kept: LINE alerts go to auth's line_id1
	NotifyAnnouncements, NotifySearchMatches, NotifyPayments bool
	// NotifyDeadlines: the reminder the day before a followed project's
	// last day to submit bids or of its hearing.
	NotifyDeadlines bool
	// Webhook: the user has an outgoing webhook (set apart from the rest).
	Webhook bool
}

// DefaultSettings: the bell on for every kind of alert, other channels off
// until the user chooses them.
var DefaultSettings = Settings{
	BellEnabled: true, EmailDigest: "daily",
	NotifyAnnouncements: true, NotifySearchMatches: true, NotifyPayments: true, NotifyDeadlines: true,
}

var lineUserRe = regexp.MustCompile(`^U[0-9a-f]{32}$`)

// Validate checks the settings' values.
func (s Settings) Validate() error {
	switch s.EmailDigest {
	case "instant", "daily", "off":
	default:
		return apperr.New(apperr.InvalidArgument, ErrInvalidSettings.Slug, "email_digest must be instant, daily or off")
	}
	if s.LineUserID != "" && !lineUserRe.MatchString(s.LineUserID) {
		return apperr.New(apperr.InvalidArgument, ErrInvalidSettings.Slug, "line_user_id must be a LINE user id (U followed by 32 hex digits)")
	}
	return nil
}

// Wants reports whether the user takes bell alerts of category.
func (s Settings) Wants(category string) bool {
	if !s.BellEnabled {
		return category == CategorySystemAlert
	}
	switch category {
	case CategoryProjectUpdate:
		return s.NotifyAnnouncements
	case CategoryDeadline:
		return s.NotifyDeadlines
	case CategorySearchMatch:
		return s.NotifySearchMatches
	case CategoryPayment:
		return s.NotifyPayments
	}
	return true
}

// Store keeps the notifications of every user; every call is scoped to one
// user, except the follower lookups of the event handlers. Every write
// that changes a user's rows publishes, in the same transaction, the
// events the realtime service pushes (created, unread count).
type Store interface {
	List(ctx context.Context, userID string, f ListFilter, p Page) (ns []Notification, total, unread int64, err error)
	UnreadCount(ctx context.Context, userID string) (int64, error)
	MarkRead(ctx context.Context, userID, id string, now time.Time) (Notification, int64, error)
	MarkAllRead(ctx context.Context, userID string, now time.Time) (int64, error)
	Delete(ctx context.Context, userID, id string, now time.Time) error
	Clear(ctx context.Context, userID string, f ClearFilter, now time.Time) (int64, error)
	// Create writes the drafts whose (user, dedup key) is new and returns
	// them; consumer/eventID (when set) record the event as processed in the
	// same transaction, so a redelivered event writes nothing.
	Create(ctx context.Context, consumer, eventID string, drafts []Draft, now time.Time) ([]Notification, error)

	// SetFollow records that userID follows (or stopped following)
	// projectID, with or without fill20, as of at; an older change than the
	// stored one is ignored.
	SetFollow(ctx context.Context, userID, projectID string, following, fill20 bool, at time.Time) error
	// DeleteUser erases every notification, follow, setting, delivery and
	// webhook of a user (account deleted).
	DeleteUser(ctx context.Context, userID string) error
	Followers(ctx context.Context, projectID string) ([]string, error)
	// SettingsOf returns each user's settings (defaults for users without a row).
	SettingsOf(ctx context.Context, userIDs []string) (map[string]Settings, error)
	PutSettings(ctx context.Context, userID string, s Settings, now time.Time) error

	// Delivery returns a delivery with its notification (ok false when it
	// is gone: its user was deleted). Create queues each delivery as a job
	// of the queue (pkg/queue, JobDelivery, keyed by its id), which keeps
	// its attempts, its state and its error.
	Delivery(ctx context.Context, id int64) (d Delivery, ok bool, err error)
	// DigestDue returns, per user who chose the daily e-mail and has no
	// digest for day yet, the notifications created in [from, to).
	DigestDue(ctx context.Context, day, from, to time.Time) (map[string][]Notification, error)
	// ClaimDigest records the user's digest of day and queues its e-mail
	// (JobDigest) in the same transaction; false when another replica (or
	// an earlier run) already did.
	ClaimDigest(ctx context.Context, userID string, day time.Time, count int, now time.Time, m DigestMail) (bool, error)
	// RecordStep keeps a project's new step (once per event).
	RecordStep(ctx context.Context, s Step) error
	// Fill20Steps returns, per user among userIDs, the steps dated on or
	// after since of the projects they follow with fill20.
	Fill20Steps(ctx context.Context, userIDs []string, since time.Time) (map[string][]Step, error)
	// PruneSteps drops the steps seen before.
	PruneSteps(ctx context.Context, before time.Time) error

	// PutWebhook sets the user's webhook (replacing one); its pending
	// deliveries go to the new one.
	PutWebhook(ctx context.Context, w Webhook, now time.Time) error
	// DeleteWebhook removes it and gives up its pending deliveries; false
	// when there was none.
	DeleteWebhook(ctx context.Context, userID string, now time.Time) (bool, error)
	GetWebhook(ctx context.Context, userID string) (Webhook, bool, error)
	// WebhookDeliveries is the user's delivery log, newest first.
	WebhookDeliveries(ctx context.Context, userID string, limit int) ([]WebhookDelivery, error)
	// DeliveryStatus records the HTTP status of a delivery's last attempt.
	DeliveryStatus(ctx context.Context, id int64, status int) error

	RateStore
}

// Thai text of the alerts.

// Baht formats satang as "1,250,000.50 บาท".
func Baht(satang int64) string {
	neg := satang < 0
	if neg {
		satang = -satang
	}
	whole, frac := satang/100, satang%100
	s := fmt.Sprintf("%d", whole)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	out := fmt.Sprintf("%s.%02d บาท", b.String(), frac)
	if neg {
		out = "-" + out
	}
	return out
}

// MatchedProject is a project a saved search found.
type MatchedProject struct {
	ID, Name, Agency string
	BudgetSatang     *int64
}

// Match is a saved search that matched a project: its owner, id and name.
type Match struct{ UserID, CriteriaID, CriteriaName string }

// SearchOwner is a saved search's owner and name, as the projects service
// keeps them.
type SearchOwner struct{ UserID, Name string }

// SearchOwners looks saved searches up by their 16-byte ids: the instant
// alerts name their searches by key only.
type SearchOwners interface {
	// Owners returns the searches among keys that exist (a deleted one is
	// left out), as they were at version asOf of the saved searches or
	// later (0: any recent answer will do).
	Owners(ctx context.Context, keys [][16]byte, asOf int64) (map[[16]byte]SearchOwner, error)
}

// ProjectLink is the app's page of a project.
func ProjectLink(id string) string { return "/project-details/" + id }

// SearchMatch is the alert of one project matching one saved search (an
// instant criteria.matched of an older producer).
func SearchMatch(userID, criteriaID, criteriaName string, p MatchedProject) Draft {
	return Draft{
		UserID: userID, DedupKey: "match:" + criteriaID + ":" + p.ID,
		Category: CategorySearchMatch, Priority: PriorityNormal,
		Title: matchTitle(criteriaName, 0), Message: matchMessage(p),
		ProjectID: p.ID, Link: ProjectLink(p.ID),
	}
}

// ProjectMatch is the one alert to a user of a project that several of
// their saved searches may match (projects.v1.project.matched): titled
// after the first search, naming how many others matched. Its dedup key is
// the user's and project's, so a redelivered event, or the next event of a
// project split over several, never alerts the user twice of the project.
func ProjectMatch(userID string, criteriaNames []string, p MatchedProject) Draft {
	first := ""
	if len(criteriaNames) > 0 {
		first = criteriaNames[0]
	}
	return Draft{
		UserID: userID, DedupKey: "match:" + p.ID,
		Category: CategorySearchMatch, Priority: PriorityNormal,
		Title: matchTitle(first, max(len(criteriaNames)-1, 0)), Message: matchMessage(p),
		ProjectID: p.ID, Link: ProjectLink(p.ID),
	}
}

// matchTitle: โครงการใหม่ตรงกับ "name", and " และอีก N การค้นหา" when
// others of the user's searches matched too.
func matchTitle(criteriaName string, others int) string {
	name := strings.TrimSpace(criteriaName)
	if name == "" {
		name = "การค้นหาที่บันทึกไว้"
	}
	t := "โครงการใหม่ตรงกับ \"" + name + "\""
	if others > 0 {
		t += fmt.Sprintf(" และอีก %d การค้นหา", others)
	}
	return t
}

func matchMessage(p MatchedProject) string {
	msg := p.Name
	if p.Agency != "" {
		msg += " — " + p.Agency
	}
	if p.BudgetSatang != nil {
		msg += " งบประมาณ " + Baht(*p.BudgetSatang)
	}
	return msg
}

// Digest is the one alert of an overnight search naming its projects: the
// first few by name and id, the count of all (total, at least len(ps)).
func Digest(userID, criteriaID, criteriaName, runKey string, ps []MatchedProject, total int) Draft {
	name := strings.TrimSpace(criteriaName)
	if name == "" {
		name = "การค้นหาข้ามคืน"
	}
	total = max(total, len(ps))
	const named = 5
	names := make([]string, 0, min(len(ps), named))
	for _, p := range ps[:min(len(ps), named)] {
		names = append(names, p.Name+" ("+p.ID+")")
	}
	msg := strings.Join(names, ", ")
	if total > len(names) {
		msg += fmt.Sprintf(" และอีก %d โครงการ", total-len(names))
	}
	d := Draft{
		UserID: userID, DedupKey: "digest:" + criteriaID + ":" + runKey,
		Category: CategorySearchMatch, Priority: PriorityNormal,
		Title:   fmt.Sprintf("การค้นหาข้ามคืน \"%s\" พบโครงการใหม่ %d โครงการ", name, total),
		Message: msg, Link: "/search",
	}
	if len(ps) > 0 {
		// The first project's page; the message names the others.
		d.ProjectID, d.Link = ps[0].ID, ProjectLink(ps[0].ID)
	}
	return d
}

// ImportUser is one user's part of an import's alerts: every project the
// import newly matched of their searches, by id, and the first few
// (ImportShown) with what the alert shows.
type ImportUser struct {
	UserID     string
	ProjectIDs []string
	Named      []MatchedProject
}

// ImportShown is how many projects an import's alert names.
const ImportShown = 3

// ImportMatch is the one alert of a user for one import (an ingestion run)
// whose projects newly matched their saved searches, two or more: it names
// every project by id (ProjectIDs, the bell links each) and the first few
// by name. Its key is the import's, so a replay makes no second one.
func ImportMatch(userID string, importID int64, ids []string, named []MatchedProject) Draft {
	names := make([]string, 0, ImportShown)
	for _, p := range named[:min(len(named), ImportShown)] {
		names = append(names, p.Name)
	}
	msg := strings.Join(names, ", ")
	if len(ids) > len(names) {
		msg += fmt.Sprintf(" และอีก %d โครงการ", len(ids)-len(names))
	}
	return Draft{
		UserID: userID, DedupKey: fmt.Sprintf("import:%d", importID),
		Category: CategorySearchMatch, Priority: PriorityNormal,
		Title:   ImportMatchTitle(len(ids)),
		Message: msg, Link: "/notifications", ProjectIDs: slices.Clone(ids),
	}
}

// ImportMatchTitle is the title of an import's grouped alert.
func ImportMatchTitle(n int) string {
	return fmt.Sprintf("%d โครงการใหม่ตรงกับการค้นหาที่บันทึกไว้", n)
}

// Announcement is the alert to a follower of a project's new step.
func Announcement(userID, eventID, projectID, projectName, typeName, date string) Draft {
	msg := projectName
	if typeName != "" {
		msg = typeName + ": " + projectName
	}
	if d := ThaiDate(date); d != "" {
		msg += " (" + d + ")"
	}
	return Draft{
		UserID: userID, DedupKey: "step:" + eventID,
		Category: CategoryProjectUpdate, Priority: PriorityHigh,
		Title: "โครงการที่ติดตามมีประกาศใหม่", Message: msg,
		ProjectID: projectID, Link: ProjectLink(projectID),
	}
}

// TeamMention is the bell of a member mentioned by @username in a team's
// discussion of a project: it names the project and the author.
func TeamMention(userID, eventID, teamID, teamName, projectID, projectName, author, excerpt string) Draft {
	return Draft{
		UserID: userID, DedupKey: "team-mention:" + eventID,
		Category: CategoryTeamMention, Priority: PriorityHigh,
		Title:     author + " กล่าวถึงคุณในทีม " + teamName,
		Message:   projectName + ": " + excerpt,
		ProjectID: projectID, Link: TeamItemLink(teamID, projectID),
	}
}

// TeamStage is the bell of a member whose pipeline item moved to another stage.
func TeamStage(userID, eventID, teamID, teamName, projectID, projectName, from, to string) Draft {
	return Draft{
		UserID: userID, DedupKey: "team-stage:" + eventID,
		Category: CategoryTeamUpdate, Priority: PriorityNormal,
		Title:     "งานของคุณในทีม " + teamName + " เปลี่ยนขั้นตอน",
		Message:   projectName + ": " + from + " → " + to,
		ProjectID: projectID, Link: TeamItemLink(teamID, projectID),
	}
}

// TeamItemLink is the app's page of a team's pipeline item.
func TeamItemLink(teamID, projectID string) string {
	return "/teams/" + teamID + "/pipeline?project=" + projectID
}

// Deadline kinds (projects.v1.deadline.approaching).
const (
	DeadlineSubmission = "submission"
	DeadlineHearing    = "hearing"
)

// DeadlineReminder is the alert to a follower the day before a project's
// bid submission or hearing date; one per project, kind and date.
func DeadlineReminder(userID, projectID, projectName, kind, date string) Draft {
	what := "วันสุดท้ายของการยื่นข้อเสนอ"
	if kind == DeadlineHearing {
		what = "วันสุดท้ายของการรับฟังคำวิจารณ์ร่างเอกสารและราคากลาง"
	}
	msg := projectName
	if d := ThaiDate(date); d != "" {
		msg += " — " + what + " " + d
	}
	return Draft{
		UserID: userID, DedupKey: "deadline:" + projectID + ":" + kind + ":" + date,
		Category: CategoryDeadline, Priority: PriorityHigh,
		Title: "พรุ่งนี้เป็น" + what, Message: msg,
		ProjectID: projectID, Link: ProjectLink(projectID),
	}
}

// Test is the notification of POST /bell/notifications/test (docs/product.md#notification:
// category system_alert, priority normal).
func Test(userID, key string, n int) Draft {
	title := "การแจ้งเตือนทดสอบ"
	if n > 0 {
		title = fmt.Sprintf("การแจ้งเตือนทดสอบ #%d", n)
	}
	return Draft{
		UserID: userID, DedupKey: "test:" + key,
		Category: CategorySystemAlert, Priority: PriorityNormal,
		Title: title, Message: "ระบบแจ้งเตือนทำงานปกติ",
	}
}

var thaiMonths = [...]string{"ม.ค.", "ก.พ.", "มี.ค.", "เม.ย.", "พ.ค.", "มิ.ย.", "ก.ค.", "ส.ค.", "ก.ย.", "ต.ค.", "พ.ย.", "ธ.ค."}

// ThaiDate shows an ISO date (2026-11-20) in the Buddhist era (20 พ.ย. 2569);
// anything else is returned as it is.
func ThaiDate(iso string) string {
	t, err := time.Parse(time.DateOnly, iso)
	if err != nil {
		return iso
	}
	return fmt.Sprintf("%d %s %d", t.Day(), thaiMonths[t.Month()-1], t.Year()+543)
}

// CompetitorAward is one award of a watched competitor (market.v1.CompetitorWon).
type CompetitorAward struct {
	ProjectID, ProjectName, TaxID, WinnerName string
	AgreedSatang                              int64
}

// CompetitorWin is the alert of a watched competitor's new awards
// (docs/market.md#competitor-watch): one notification naming each project,
// its winner and agreed price; one award links to its project.
func CompetitorWin(userID, eventID string, awards []CompetitorAward) Draft {
	d := Draft{UserID: userID, DedupKey: "competitor:" + eventID, Category: CategoryCompetitorWin, Priority: PriorityHigh}
	var b strings.Builder
	for i, a := range awards {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s ชนะโครงการ %s (%s)", a.WinnerName, a.ProjectName, a.ProjectID)
		if a.AgreedSatang > 0 {
			b.WriteString(" ราคาที่ตกลง " + Baht(a.AgreedSatang))
		}
	}
	d.Message = b.String()
	if len(awards) == 1 {
		d.Title = "คู่แข่งที่ติดตามชนะการเสนอราคา: " + awards[0].WinnerName
		d.ProjectID, d.Link = awards[0].ProjectID, ProjectLink(awards[0].ProjectID)
	} else {
		d.Title = fmt.Sprintf("คู่แข่งที่ติดตามชนะการเสนอราคา %d โครงการ", len(awards))
		d.Link = "/user-settings/watchlist" // the watchlist section of settings (gateway/gw/spa_routes.txt)
	}
	return d
}
