package domain

import (
	"crypto/rand"
	"encoding/base64"
	"sort"
)

// The team calendar is a secret link per team, made as the personal one is
// (interests' calendar feed): 32 random bytes in base64url, kept as their
// SHA-256 only, shown once, replaced on demand.

// FeedTokenLen is the length of a token.
const FeedTokenLen = 43

// FeedPath is where the gateway serves a token's calendar.
func FeedPath(token string) string { return "/app/backend/api/v1/team-calendar/" + token + ".ics" }

// NewSecret returns 32 random bytes in base64url.
func NewSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// ValidFeedToken reports whether token has a token's form.
func ValidFeedToken(token string) bool {
	if len(token) != FeedTokenLen {
		return false
	}
	b, err := base64.RawURLEncoding.DecodeString(token)
	return err == nil && len(b) == 32
}

// Calendar event kinds: the team's own due date of an item, the project's
// last day to submit bids.
const (
	EventDue      = "due"
	EventDeadline = "deadline"
)

// CalendarEvent is one all-day event of a feed.
type CalendarEvent struct {
	UID, Date, Kind, ProjectID string
	Summary, Detail, Link      string
}

// FeedEvents are the team calendar's events: each item's due date and its
// project's deadline, by date then UID.
func FeedEvents(items []Item, infos map[string]ProjectInfo, origin string) []CalendarEvent {
	var out []CalendarEvent
	for _, it := range items {
		p := infos[it.ProjectID]
		name := p.Name
		if name == "" {
			name = it.ProjectID
		}
		link := ""
		if origin != "" {
			link = origin + "/project-details/" + it.ProjectID
		}
		detail := "รหัสโครงการ " + it.ProjectID + "\nขั้นตอน: " + it.Stage
		if p.Agency != "" {
			detail = p.Agency + "\n" + detail
		}
		if d := DateString(it.DueDate); d != "" {
			out = append(out, CalendarEvent{UID: it.TeamID + "-" + it.ProjectID + "-due@bidradar", Date: d, Kind: EventDue,
				ProjectID: it.ProjectID, Summary: "กำหนดส่งของทีม: " + name, Detail: detail, Link: link})
		}
		if p.Deadline != "" {
			out = append(out, CalendarEvent{UID: it.TeamID + "-" + it.ProjectID + "-deadline@bidradar", Date: p.Deadline, Kind: EventDeadline,
				ProjectID: it.ProjectID, Summary: "วันสุดท้ายยื่นข้อเสนอ: " + name, Detail: detail, Link: link})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Date != out[j].Date {
			return out[i].Date < out[j].Date
		}
		return out[i].UID < out[j].UID
	})
	return out
}

// Caller is who calls: a signed-in user, or a team API key.
type Caller struct {
	UserID, Username, Email string
	// KeyID, KeyTeam and KeyScopes name an API key's call.
	KeyID     string
	KeyTeam   string
	KeyScopes []string
}

// IsKey reports whether the caller is an API key.
func (c Caller) IsKey() bool { return c.KeyID != "" }

// Actor is how history names the caller.
func (c Caller) Actor() string {
	if c.IsKey() {
		return KeyActor(c.KeyID)
	}
	return c.UserID
}

// KeyAllows reports whether an API key's scopes allow action (read for
// reading, write for the pipeline's writes and comments; nothing else).
func KeyAllows(scopes []string, a Action) bool {
	need := ""
	switch a {
	case ActRead:
		need = ScopeRead
	case ActWritePipeline, ActComment:
		need = ScopeWrite
	default:
		return false
	}
	for _, s := range scopes {
		if s == need || s == ScopeWrite {
			return true
		}
	}
	return false
}
