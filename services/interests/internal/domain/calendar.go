package domain

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"sort"
	"time"

	"bidradar/pkg/apperr"
)

// A calendar feed is a secret link per user (calendar apps send no cookies
// or tokens of ours): 32 random bytes, URL-safe base64 without padding. The
// service keeps only the link's SHA-256 (the token is random, so a fast
// hash is enough), shows the link once when made, makes a new one on
// demand (the old one stops at once) and forgets it on revocation.
var (
	ErrFeedNotFound = apperr.New(apperr.NotFound, "calendar-feed-not-found", "Calendar feed not found: the link was revoked or replaced")
	ErrFeedToken    = apperr.New(apperr.InvalidArgument, "invalid-calendar-token", "Invalid calendar link: the token must be 43 characters of A-Z, a-z, 0-9, - and _")
)

// FeedTokenLen is the length of a token (32 bytes in base64url).
const FeedTokenLen = 43

// FeedPath is where the gateway serves a token's calendar.
func FeedPath(token string) string { return "/app/backend/api/v1/calendar/" + token + ".ics" }

// NewFeedToken returns a fresh token and its hash.
func NewFeedToken() (token string, hash []byte, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", nil, err
	}
	token = base64.RawURLEncoding.EncodeToString(b)
	h := sha256.Sum256([]byte(token))
	return token, h[:], nil
}

// FeedTokenHash checks a token's form and returns its hash.
func FeedTokenHash(token string) ([]byte, error) {
	if len(token) != FeedTokenLen {
		return nil, ErrFeedToken
	}
	if b, err := base64.RawURLEncoding.DecodeString(token); err != nil || len(b) != 32 {
		return nil, ErrFeedToken
	}
	h := sha256.Sum256([]byte(token))
	return h[:], nil
}

// Feed is a user's calendar link (its hash is never read back).
type Feed struct {
	UserID  string
	Created time.Time
}

// Feeds stores the calendar links, one per user at most.
type Feeds interface {
	Feed(ctx context.Context, userID string) (Feed, bool, error)
	// RotateFeed replaces the user's link (or makes the first one).
	RotateFeed(ctx context.Context, userID string, hash []byte, now time.Time) (Feed, error)
	// RevokeFeed deletes it; false when there was none.
	RevokeFeed(ctx context.Context, userID string) (bool, error)
	// FeedOwner finds the user of a link.
	FeedOwner(ctx context.Context, hash []byte) (userID string, ok bool, err error)
}

// Calendar event kinds: the latest announcement step, the last day to
// submit bids, the last day of the price hearing.
const (
	EventStep       = "step"
	EventSubmission = "submission"
	EventHearing    = "hearing"
)

// CalendarEvent is one all-day event of a feed.
type CalendarEvent struct {
	// UID is stable per project and event: a moved deadline updates the
	// event in the calendar instead of adding one (a new step is a new event).
	UID               string
	Date              string // ISO, a Bangkok calendar date
	Kind, ProjectID   string
	Summary, Detail   string
	ProjectName, Link string
}

// FeedEvents are the events of the followed and bidding projects among
// infos: each one's latest announcement step and its deadlines, by date
// then project. origin ("" for none) prefixes the links to the projects.
func FeedEvents(infos []ProjectInfo, origin string) []CalendarEvent {
	var out []CalendarEvent
	for _, p := range infos {
		name := p.Name
		if name == "" {
			name = p.ID
		}
		link := ""
		if origin != "" {
			link = origin + "/project-details/" + p.ID
		}
		detail := "รหัสโครงการ " + p.ID
		if p.AgencyName != "" {
			detail = p.AgencyName + "\n" + detail
		}
		add := func(kind, date, uid, summary string) {
			if _, err := time.Parse(time.DateOnly, date); err != nil {
				return
			}
			out = append(out, CalendarEvent{UID: uid + "@bidradar", Date: date, Kind: kind, ProjectID: p.ID,
				Summary: summary + ": " + name, Detail: detail, ProjectName: name, Link: link})
		}
		step := p.AnnounceTypeName
		if step == "" {
			step = "ประกาศ"
		}
		add(EventStep, p.AnnounceDate, p.ID+"-step-"+p.AnnounceDate, step)
		add(EventSubmission, p.SubmissionDue, p.ID+"-submission", "วันสุดท้ายยื่นข้อเสนอ")
		add(EventHearing, p.HearingDue, p.ID+"-hearing", "วันสุดท้ายรับฟังคำวิจารณ์")
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Date != out[j].Date {
			return out[i].Date < out[j].Date
		}
		return out[i].UID < out[j].UID
	})
	return out
}
