package domain

import (
	"context"
	"time"
)

// Team is a team's record.
type Team struct {
	ID          string
	Name        string
	OwnerUserID string
	CreatedAt   time.Time
	MemberCount int
	// SeatsUsed: members plus pending invitations.
	SeatsUsed int
}

// Membership is a team with the caller's role in it.
type Membership struct {
	Team Team
	Role Role
}

// MemberRec is one member.
type MemberRec struct {
	TeamID   string
	UserID   string
	Role     Role
	Username string
	Email    string
	JoinedAt time.Time
}

// Invitation is a pending invitation.
type Invitation struct {
	ID        string
	TeamID    string
	Email     string
	Role      Role
	CodeHash  []byte
	InvitedBy string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// Mail is a message the store queues in the transaction of its cause.
type Mail struct {
	To, Subject, Text string
}

// Item is a project in a team's pipeline.
type Item struct {
	TeamID       string
	ProjectID    string
	Stage        string
	OwnerUserID  string     // "" when none
	DueDate      *time.Time // nil when none
	BidSatang    *int64     // nil when none
	Note         string
	CreatedAt    time.Time
	UpdatedAt    time.Time
	UpdatedBy    string
	CommentCount int
	OwnerName    string
}

// Patch is the fields a PUT gives (nil: unchanged).
type Patch struct {
	Stage     *string
	Owner     *string
	DueDate   **time.Time
	BidSatang **int64
	Note      *string
}

// Change is one field's change.
type Change struct {
	Field, From, To string
}

// History is one recorded change.
type History struct {
	At    time.Time
	Actor string
	Change
}

// Apply applies p to old (a zero Item with created for a new one) and
// returns the new item and its changes, field by field in a fixed order.
func Apply(old Item, created bool, p Patch) (Item, []Change) {
	n := old
	var cs []Change
	if created {
		n.Stage = Stages[0]
		cs = append(cs, Change{Field: "item", From: "", To: "added"})
	}
	if p.Stage != nil && *p.Stage != n.Stage {
		cs = append(cs, Change{Field: "stage", From: n.Stage, To: *p.Stage})
		n.Stage = *p.Stage
	} else if created {
		cs = append(cs, Change{Field: "stage", From: "", To: n.Stage})
	}
	if p.Owner != nil && *p.Owner != n.OwnerUserID {
		cs = append(cs, Change{Field: "owner_user_id", From: n.OwnerUserID, To: *p.Owner})
		n.OwnerUserID = *p.Owner
	}
	if p.DueDate != nil && dateStr(*p.DueDate) != dateStr(n.DueDate) {
		cs = append(cs, Change{Field: "due_date", From: dateStr(n.DueDate), To: dateStr(*p.DueDate)})
		n.DueDate = *p.DueDate
	}
	if p.BidSatang != nil && priceStr(*p.BidSatang) != priceStr(n.BidSatang) {
		cs = append(cs, Change{Field: "bid_price", From: priceStr(n.BidSatang), To: priceStr(*p.BidSatang)})
		n.BidSatang = *p.BidSatang
	}
	if p.Note != nil && *p.Note != n.Note {
		cs = append(cs, Change{Field: "note", From: n.Note, To: *p.Note})
		n.Note = *p.Note
	}
	return n, cs
}

func dateStr(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.Format(time.DateOnly)
}

// DateString writes a due date ("" when none).
func DateString(t *time.Time) string { return dateStr(t) }

func priceStr(v *int64) string {
	if v == nil {
		return ""
	}
	return FormatBaht(*v)
}

// PriceString writes a bid price ("" when none).
func PriceString(v *int64) string { return priceStr(v) }

// Comment is one message of an item's discussion.
type Comment struct {
	ID        string
	TeamID    string
	ProjectID string
	UserID    string
	Username  string
	Text      string
	Mentions  []string // user ids
	CreatedAt time.Time
}

// MentionEvent tells a member they were mentioned.
type MentionEvent struct {
	Team        Team
	Project     ProjectInfo
	Comment     Comment
	UserID      string
	AuthorName  string
	Excerpt     string
	OccurredAt  time.Time
	EventIDSeed string
}

// StageEvent tells an item's owner it moved.
type StageEvent struct {
	Team       Team
	Project    ProjectInfo
	Owner      string
	Actor      string
	From, To   string
	OccurredAt time.Time
}

// APIKey is a team API key without its secret.
type APIKey struct {
	ID        string
	TeamID    string
	Name      string
	Scopes    []string
	Prefix    string
	CreatedBy string
	CreatedAt time.Time
	LastUsed  *time.Time
}

// HasScope reports whether the key has scope (write includes read).
func (k APIKey) HasScope(scope string) bool {
	for _, s := range k.Scopes {
		if s == scope || s == ScopeWrite {
			return true
		}
	}
	return false
}

// ProjectInfo is what the pipeline shows of a project.
type ProjectInfo struct {
	ID           string
	Name         string
	Agency       string
	BudgetSatang *int64
	// Deadline is the last day to submit bids (ISO), "" when unknown.
	Deadline string
}

// ItemFilter narrows a pipeline listing.
type ItemFilter struct {
	Stage, Owner  string
	Page, PerPage int
}

// Store keeps teams and everything in them. Each write that others must
// hear of queues its event or mail in its own transaction.
type Store interface {
	CreateTeam(ctx context.Context, t Team, owner MemberRec) error
	TeamsOf(ctx context.Context, userID string, now time.Time) ([]Membership, error)
	// Membership is ErrNotFound when the user is not a member.
	Membership(ctx context.Context, teamID, userID string, now time.Time) (Membership, error)
	Team(ctx context.Context, teamID string, now time.Time) (Team, error)
	Members(ctx context.Context, teamID string) ([]MemberRec, error)
	MemberByUsername(ctx context.Context, teamID string, usernames []string) ([]MemberRec, error)
	// SetRole fails with ErrLastOwner when it would leave no owner.
	SetRole(ctx context.Context, teamID, userID string, role Role) (MemberRec, error)
	// RemoveMember fails with ErrLastOwner for the last owner.
	RemoveMember(ctx context.Context, teamID, userID string, now time.Time) error
	// CreateInvitation replaces a pending invitation to the same address,
	// fails with ErrAlreadyMember or ErrSeatLimit (seats counted under the
	// team's lock), and queues m.
	CreateInvitation(ctx context.Context, inv Invitation, seats int, m Mail, now time.Time) error
	Invitations(ctx context.Context, teamID string, now time.Time) ([]Invitation, error)
	RevokeInvitation(ctx context.Context, teamID, id string, now time.Time) error
	// AcceptInvitation joins u to the team of the pending invitation to
	// email whose code matches; ok is false when none matched (every
	// pending invitation to email then counts a wrong try, and is burnt at
	// MaxCodeTries). found is false when email has no pending invitation.
	AcceptInvitation(ctx context.Context, email, code string, u MemberRec, now time.Time, check func(teamID string) error) (teamID string, found, ok bool, err error)
	// PutItem applies p under the item's row lock, records every change
	// and queues the stage event when the stage moved.
	PutItem(ctx context.Context, teamID, projectID string, p Patch, actor string, now time.Time, ev func(old, n Item) *StageEvent) (Item, bool, error)
	DeleteItem(ctx context.Context, teamID, projectID, actor string, now time.Time) error
	Item(ctx context.Context, teamID, projectID string) (Item, error)
	Items(ctx context.Context, teamID string, f ItemFilter) ([]Item, int64, error)
	// History is ErrItemNotFound when the project was never in the pipeline.
	History(ctx context.Context, teamID, projectID string) ([]History, error)
	Comments(ctx context.Context, teamID, projectID string) ([]Comment, error)
	AddComment(ctx context.Context, c Comment, mentions []MentionEvent) error
	CreateKey(ctx context.Context, k APIKey, hash []byte) error
	Keys(ctx context.Context, teamID string) ([]APIKey, error)
	RevokeKey(ctx context.Context, teamID, id string, now time.Time) error
	// UseKey finds the live key of hash and counts one call in its window
	// of limit calls per window; wait > 0 when it is over the limit.
	UseKey(ctx context.Context, hash []byte, now time.Time, limit int, window time.Duration) (k APIKey, wait time.Duration, err error)
	Feed(ctx context.Context, teamID string) (time.Time, bool, error)
	RotateFeed(ctx context.Context, teamID string, hash []byte, now time.Time) error
	RevokeFeed(ctx context.Context, teamID string) error
	FeedTeam(ctx context.Context, hash []byte) (string, error)
	// AllItems is every item of a team (the calendar).
	AllItems(ctx context.Context, teamID string) ([]Item, error)
	ForgetUser(ctx context.Context, userID string) error
}

// Projects reads projects from the projects service; a missing id is
// absent from the map.
type Projects interface {
	Info(ctx context.Context, ids []string) (map[string]ProjectInfo, error)
}

// Plans reads the team seats of users' tiers (0: cannot own a team; -1
// unlimited) from the subscription service.
type Plans interface {
	TeamSeats(ctx context.Context, userIDs []string) (map[string]int, error)
}
