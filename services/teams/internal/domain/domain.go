// Package domain holds the rules of teams (docs/product.md#teams): roles and
// what each may do, pipeline stages and values, invitations, API keys; and
// the interfaces of everything outside the service.
package domain

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"bidradar/pkg/apperr"
)

// Role is a member's role in a team.
type Role string

// The roles, strongest first.
const (
	Owner  Role = "owner"
	Admin  Role = "admin"
	Member Role = "member"
	Viewer Role = "viewer"
)

// Roles is every role.
var Roles = []Role{Owner, Admin, Member, Viewer}

// ParseRole returns the role named s.
func ParseRole(s string) (Role, bool) {
	for _, r := range Roles {
		if string(r) == s {
			return r, true
		}
	}
	return "", false
}

// Action is something a member may try on a team.
type Action string

// The actions of docs/product.md#teams.
const (
	ActRead           Action = "read"            // the team, its members, its pipeline, history, comments
	ActWritePipeline  Action = "write_pipeline"  // put and delete items
	ActComment        Action = "comment"         // add to a discussion
	ActInvite         Action = "invite"          // create, list and revoke invitations
	ActManageMembers  Action = "manage_members"  // change others' roles, remove others
	ActLeave          Action = "leave"           // remove oneself
	ActManageKeys     Action = "manage_keys"     // create, list, revoke API keys
	ActManageCalendar Action = "manage_calendar" // make or end the calendar link
	ActGrantOwner     Action = "grant_owner"     // make or unmake owners and admins
)

// Actions is every action.
var Actions = []Action{ActRead, ActWritePipeline, ActComment, ActInvite, ActManageMembers, ActLeave, ActManageKeys, ActManageCalendar, ActGrantOwner}

// permissions is the role × action table: a missing entry is a refusal.
var permissions = map[Role]map[Action]bool{
	Owner: {ActRead: true, ActWritePipeline: true, ActComment: true, ActInvite: true, ActManageMembers: true,
		ActLeave: true, ActManageKeys: true, ActManageCalendar: true, ActGrantOwner: true},
	Admin: {ActRead: true, ActWritePipeline: true, ActComment: true, ActInvite: true, ActManageMembers: true,
		ActLeave: true, ActManageKeys: true, ActManageCalendar: true},
	Member: {ActRead: true, ActWritePipeline: true, ActComment: true, ActLeave: true},
	Viewer: {ActRead: true, ActLeave: true},
}

// Can reports whether role may do action.
func Can(r Role, a Action) bool { return permissions[r][a] }

// Errors (the detail is the message: docs/product.md#error-answers).
var (
	ErrNotFound        = apperr.New(apperr.NotFound, "team-not-found", "Team not found")
	ErrItemNotFound    = apperr.New(apperr.NotFound, "pipeline-item-not-found", "This project is not in the team's pipeline")
	ErrProjectNotFound = apperr.New(apperr.NotFound, "project-not-found", "Project not found")
	ErrMemberNotFound  = apperr.New(apperr.NotFound, "member-not-found", "Member not found")
	ErrInviteNotFound  = apperr.New(apperr.NotFound, "invitation-not-found", "Invitation not found")
	ErrKeyNotFound     = apperr.New(apperr.NotFound, "api-key-not-found", "API key not found")
	ErrFeedNotFound    = apperr.New(apperr.NotFound, "calendar-feed-not-found", "Calendar link not found")
	ErrForbidden       = apperr.New(apperr.PermissionDenied, "team-role-forbidden", "Your role in this team does not allow this")
	ErrReadOnly        = apperr.New(apperr.PermissionDenied, "team-read-only", "The team is read-only: its owner's plan does not include teams")
	ErrUpgrade         = apperr.New(apperr.PermissionDenied, "upgrade_required", "Your plan does not include teams")
	ErrKeyScope        = apperr.New(apperr.PermissionDenied, "api-key-scope", "This API key's scopes do not allow this")
	ErrSeatLimit       = apperr.New(apperr.AlreadyExists, "seat_limit", "The team has no free seat on its owner's plan")
	ErrAlreadyMember   = apperr.New(apperr.AlreadyExists, "already-member", "This address is already a member of the team")
	ErrLastOwner       = apperr.New(apperr.AlreadyExists, "last-owner", "The team's last owner cannot leave or stop being owner")
	ErrBadName         = apperr.New(apperr.InvalidArgument, "invalid-name", "name must be 1 to 100 characters")
	ErrBadRole         = apperr.New(apperr.InvalidArgument, "invalid-role", "role must be owner, admin, member or viewer")
	ErrBadInviteRole   = apperr.New(apperr.InvalidArgument, "invalid-role", "role must be admin, member or viewer")
	ErrBadEmail        = apperr.New(apperr.InvalidArgument, "invalid-email", "email must be an e-mail address")
	ErrBadCode         = apperr.New(apperr.InvalidArgument, "invalid-invitation-code", "code must be the 6 digits of the invitation e-mail")
	ErrUnavailable     = apperr.New(apperr.Unavailable, "dependency-unavailable", "A service BidRadar needs is unavailable, try again")
	ErrBadProjectID    = apperr.New(apperr.InvalidArgument, "invalid-project-id", "Invalid project id: it must be 11 digits")
	ErrBadStage        = apperr.New(apperr.InvalidArgument, "invalid-stage", "stage must be triage, preparing, submitted, won, lost or abandoned")
	ErrBadOwner        = apperr.New(apperr.InvalidArgument, "invalid-owner", "owner_user_id must be a member of the team")
	ErrBadDue          = apperr.New(apperr.InvalidArgument, "invalid-due-date", "due_date must be a date YYYY-MM-DD")
	ErrBadPrice        = apperr.New(apperr.InvalidArgument, "invalid-bid-price", "bid_price must be baht > 0 with at most two decimals")
	ErrBadNote         = apperr.New(apperr.InvalidArgument, "invalid-note", fmt.Sprintf("note must be at most %d characters", MaxText))
	ErrBadText         = apperr.New(apperr.InvalidArgument, "invalid-text", fmt.Sprintf("text must be 1 to %d characters", MaxText))
	ErrBadScopes       = apperr.New(apperr.InvalidArgument, "invalid-scopes", "scopes must be read and/or write")
	ErrBadPage         = apperr.New(apperr.InvalidArgument, "invalid-page", fmt.Sprintf("page must be at least 1 and per_page between 1 and %d", MaxPerPage))
	ErrKeyLimited      = apperr.New(apperr.ResourceExhausted, "api-key-rate-limited", "Too many requests with this API key")
	ErrBadKey          = apperr.New(apperr.Unauthenticated, "invalid-api-key", "Invalid API key")
)

// Limits.
const (
	MaxName        = 100
	MaxText        = 2000
	MaxPerPage     = 200
	DefPerPage     = 50
	InviteTTL      = 72 * time.Hour
	MaxCodeTries   = 5
	MaxMentionsOut = 20
)

// Stages of a pipeline item, in board order.
var Stages = []string{"triage", "preparing", "submitted", "won", "lost", "abandoned"}

// ValidStage reports whether s is a stage.
func ValidStage(s string) bool {
	for _, x := range Stages {
		if x == s {
			return true
		}
	}
	return false
}

var (
	uuidRe      = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	projectIDRe = regexp.MustCompile(`^\d{11}$`)
	codeRe      = regexp.MustCompile(`^\d{6}$`)
	emailRe     = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s]+$`)
	priceRe     = regexp.MustCompile(`^\d{1,13}(\.\d{1,2})?$`)
	mentionRe   = regexp.MustCompile(`(?:^|[^A-Za-z0-9_.@])@([A-Za-z0-9_.\-]+)`)
)

// ValidID reports whether s is a lower-case UUID.
func ValidID(s string) bool { return uuidRe.MatchString(s) }

// ValidProjectID reports whether s is an e-GP project id (11 digits).
func ValidProjectID(s string) bool { return projectIDRe.MatchString(s) }

// ValidCode reports whether s is 6 digits.
func ValidCode(s string) bool { return codeRe.MatchString(s) }

// NormEmail trims and lower-cases an address; ok is false when it is none.
func NormEmail(s string) (string, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	return s, len(s) <= 254 && emailRe.MatchString(s)
}

// CleanName trims a team or key name and checks its length.
func CleanName(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" || utf8.RuneCountInString(s) > MaxName || !utf8.ValidString(s) {
		return "", ErrBadName
	}
	// A name goes into mail subjects and calendar titles: one line only.
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return "", ErrBadName
	}
	return s, nil
}

// ParseBaht reads a bid price in baht ("1234.5", at most two decimals, >
// 0) into satang exactly, without floating point.
func ParseBaht(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if !priceRe.MatchString(s) {
		return 0, ErrBadPrice
	}
	whole, frac, _ := strings.Cut(s, ".")
	for len(frac) < 2 {
		frac += "0"
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, ErrBadPrice
	}
	f, _ := strconv.ParseInt(frac, 10, 64)
	v := w*100 + f
	if v <= 0 {
		return 0, ErrBadPrice
	}
	return v, nil
}

// FormatBaht writes satang as baht with two decimals ("1234.50").
func FormatBaht(satang int64) string {
	return fmt.Sprintf("%d.%02d", satang/100, satang%100)
}

// ParseDate reads a YYYY-MM-DD date.
func ParseDate(s string) (time.Time, error) {
	t, err := time.Parse(time.DateOnly, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}, ErrBadDue
	}
	return t, nil
}

// Mentions returns the distinct @usernames of a text, in order (at most
// MaxMentionsOut).
func Mentions(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range mentionRe.FindAllStringSubmatch(text, -1) {
		u := strings.ToLower(strings.TrimRight(m[1], ".-"))
		if u == "" || seen[u] {
			continue
		}
		seen[u] = true
		out = append(out, u)
		if len(out) == MaxMentionsOut {
			break
		}
	}
	return out
}

// HashSecret is the stored form of a key or calendar token.
func HashSecret(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// CodeHash is the stored form of an invitation's code, salted with its id.
func CodeHash(invitationID, code string) []byte {
	h := sha256.Sum256([]byte(invitationID + ":" + code))
	return h[:]
}

// CodeMatches compares a code with a stored hash in constant time.
func CodeMatches(invitationID, code string, hash []byte) bool {
	return subtle.ConstantTimeCompare(CodeHash(invitationID, code), hash) == 1
}

// Scopes of team API keys.
const (
	ScopeRead  = "read"
	ScopeWrite = "write"
)

// NormScopes checks and orders a key's scopes.
func NormScopes(in []string) ([]string, error) {
	var r, w bool
	for _, s := range in {
		switch strings.TrimSpace(s) {
		case ScopeRead:
			r = true
		case ScopeWrite:
			w = true
		default:
			return nil, ErrBadScopes
		}
	}
	var out []string
	if r {
		out = append(out, ScopeRead)
	}
	if w {
		out = append(out, ScopeWrite)
	}
	if len(out) == 0 {
		return nil, ErrBadScopes
	}
	return out, nil
}

// KeyActor is how history names a change made with an API key.
func KeyActor(keyID string) string { return "api-key:" + keyID }
