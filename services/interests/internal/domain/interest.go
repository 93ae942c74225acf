// Package domain holds the rules of a user's record on a project: its marks
// (like, follow, bid, archive), the bid and its reduction, and comments.
// It knows nothing of transport or storage.
package domain

import (
	"math"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"bidradar/pkg/apperr"
	"bidradar/pkg/freetext"
)

// Errors of the interests domain (their messages become REST details).
var (
	ErrInvalidProjectID = apperr.New(apperr.InvalidArgument, "invalid-project-id", "Invalid project ID: it must be 11 digits")
	ErrProjectNotFound  = apperr.New(apperr.NotFound, "project-not-found", "Project not found")
	ErrNoRecord         = apperr.New(apperr.NotFound, "no-interest-record", "No user interest record found for comments")
	ErrCommentNotFound  = apperr.New(apperr.NotFound, "comment-not-found", "Comment not found")
	ErrNotYourUserID    = apperr.New(apperr.PermissionDenied, "user-id-mismatch", "user_id must be your own")
	ErrEmptyPatch       = apperr.New(apperr.InvalidArgument, "empty-update", "Nothing to update: send at least one field")
	ErrBidPrice         = apperr.New(apperr.InvalidArgument, "invalid-bid-price", "bidPrice must be greater than 0 with at most two decimals")
	ErrReduction        = apperr.New(apperr.InvalidArgument, "invalid-reduction-percent", "reductionPercent must be at least 0 and less than 100, with at most two decimals")
	ErrBidAboveBase     = apperr.New(apperr.InvalidArgument, "bid-above-reference", "bidPrice is above the reference price (or budget): the reduction would be negative")
	ErrBidTooSmall      = apperr.New(apperr.InvalidArgument, "bid-too-small", "reductionPercent leaves a bid price of 0")
	ErrFill20NoFollow   = apperr.New(apperr.InvalidArgument, "fill20-needs-follow", "is_fill20 needs is_interestToStepChk")
	ErrCommentEmpty     = apperr.New(apperr.InvalidArgument, "comment-empty", "comment_text must not be empty")
	ErrCommentTooLong   = apperr.New(apperr.InvalidArgument, "comment-too-long", "comment_text must be at most 2000 characters")
	ErrCommentControl   = apperr.New(apperr.InvalidArgument, "comment-control-characters", "comment_text must not contain control characters")
	ErrBadFlag          = apperr.New(apperr.InvalidArgument, "invalid-flag", "Unknown listing flag")
)

// MaxCommentLength is the longest comment, in characters after trimming.
const MaxCommentLength = 2000

// maxBidSatang keeps every amount exact as a float64 on the wire (< 2^53).
const maxBidSatang = 1_000_000_000_000_00 // one trillion baht

var projectID = regexp.MustCompile(`^[0-9]{11}$`)

// ValidProjectID reports whether id is an e-GP project id (11 digits).
func ValidProjectID(id string) bool { return projectID.MatchString(id) }

// Record is a user's record on one project. A record is active or archived,
// never both: the lookup of docs/product.md#interest-lookup (active, then archived, else nothing)
// is therefore one row.
type Record struct {
	UserID, ProjectID string
	Like              bool // is_userLike
	Follow            bool // is_interestToStepChk
	Fill20            bool // is_fill20: following, plus 20 days of step changes in the digest
	Bid               bool // is_InterestToBid
	Archived          bool
	BidSatang         *int64 // bidPrice in satang
	ReductionBP       *int64 // reductionPercent in hundredths of a percent
	BidUpdated        *time.Time
	CommentCount      int
	Created, Updated  time.Time
}

// Source is the list the record is in: "active" or "archived".
func (r Record) Source() string {
	if r.Archived {
		return "archived"
	}
	return "active"
}

// Patch is a PATCH of a record: nil fields are left as they are.
type Patch struct {
	Like, Follow, Fill20, Bid, Archived *bool
	BidPrice                            *float64 // baht
	ReductionPercent                    *float64
	ClearBid                            bool
}

// Empty reports whether the patch changes nothing.
func (p Patch) Empty() bool {
	return p.Like == nil && p.Follow == nil && p.Fill20 == nil && p.Bid == nil && p.Archived == nil &&
		p.BidPrice == nil && p.ReductionPercent == nil && !p.ClearBid
}

// Validate checks the values of a patch before any storage is touched.
func (p Patch) Validate() error {
	if p.Empty() {
		return ErrEmptyPatch
	}
	if p.BidPrice != nil {
		if _, err := BahtToSatang(*p.BidPrice); err != nil {
			return err
		}
	}
	if p.ReductionPercent != nil {
		if _, err := PercentToBP(*p.ReductionPercent); err != nil {
			return err
		}
	}
	if p.Fill20 != nil && *p.Fill20 && p.Follow != nil && !*p.Follow {
		return ErrFill20NoFollow
	}
	return nil
}

// BahtToSatang converts a bid in baht to exact satang: > 0, two decimals at most.
func BahtToSatang(v float64) (int64, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return 0, ErrBidPrice
	}
	s := math.Round(v * 100)
	if math.Abs(v*100-s) > 1e-6*math.Max(1, s) || s < 1 || s > maxBidSatang {
		return 0, ErrBidPrice
	}
	return int64(s), nil
}

// PercentToBP converts a reduction percent to hundredths: [0, 100), two decimals at most.
func PercentToBP(v float64) (int64, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, ErrReduction
	}
	bp := math.Round(v * 100)
	if math.Abs(v*100-bp) > 1e-6 || bp >= 10000 {
		return 0, ErrReduction
	}
	return int64(bp), nil
}

// Apply changes r by p. base is the price the reduction is taken from (the
// reference price, else the budget; nil when the project has neither).
// Entering one of bid price and reduction computes the other; when a patch
// carries both, the bid price wins and the percent is recomputed.
func (r *Record) Apply(p Patch, base *int64, now time.Time) error {
	if err := p.Validate(); err != nil {
		return err
	}
	set := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	set(&r.Like, p.Like)
	set(&r.Bid, p.Bid)
	set(&r.Archived, p.Archived)
	set(&r.Follow, p.Follow)
	if p.Fill20 != nil {
		r.Fill20 = *p.Fill20
		if r.Fill20 {
			r.Follow = true
		}
	}
	if !r.Follow {
		r.Fill20 = false
	}
	bidChanged := false
	switch {
	case p.BidPrice != nil:
		bid, _ := BahtToSatang(*p.BidPrice)
		var bp *int64
		if base != nil && *base > 0 {
			if bid > *base {
				return ErrBidAboveBase
			}
			v := roundDiv((*base-bid)*10000, *base)
			if v >= 10000 {
				v = 9999
			}
			bp = &v
		} else if p.ReductionPercent != nil {
			v, _ := PercentToBP(*p.ReductionPercent)
			bp = &v
		}
		r.BidSatang, r.ReductionBP, bidChanged = &bid, bp, true
	case p.ReductionPercent != nil:
		bp, _ := PercentToBP(*p.ReductionPercent)
		var bid *int64
		if base != nil && *base > 0 {
			v := roundDiv(*base*(10000-bp), 10000)
			if v < 1 {
				return ErrBidTooSmall
			}
			bid = &v
		}
		r.BidSatang, r.ReductionBP, bidChanged = bid, &bp, true
	case p.ClearBid:
		r.BidSatang, r.ReductionBP, bidChanged = nil, nil, true
	}
	if bidChanged {
		t := now
		r.BidUpdated = &t
	}
	r.Updated = now
	return nil
}

// roundDiv is a/b rounded half up, for a >= 0 and b > 0.
func roundDiv(a, b int64) int64 { return (2*a + b) / (2 * b) }

// NormalizeComment trims a comment and checks it: 1 to 2,000 characters,
// Thai and emoji kept, no control characters other than line breaks and tabs,
// no bidirectional overrides (pkg/freetext, the one check of typed text).
func NormalizeComment(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", ErrCommentControl
	}
	s = strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n"))
	if s == "" {
		return "", ErrCommentEmpty
	}
	if utf8.RuneCountInString(s) > MaxCommentLength {
		return "", ErrCommentTooLong
	}
	if !freetext.Valid(s, freetext.MultiLine) {
		return "", ErrCommentControl
	}
	return s, nil
}

// Flag names a listing filter (docs/product.md#listing-filter-state) that
// selects a user's projects.
type Flag string

// The listing flags.
const (
	FlagBid     Flag = "is_InterestToBid"
	FlagArchive Flag = "is_archived"
	FlagFollow  Flag = "is_interestToStepChk"
	FlagLike    Flag = "is_userLike"
	FlagFill20  Flag = "is_fill20"
	FlagComment Flag = "is_comment"
)

// ParseFlag validates a flag name.
func ParseFlag(s string) (Flag, error) {
	switch f := Flag(s); f {
	case FlagBid, FlagArchive, FlagFollow, FlagLike, FlagFill20, FlagComment:
		return f, nil
	}
	return "", ErrBadFlag
}

// Comment is a note of a user on their record.
type Comment struct {
	ID, UserID, ProjectID, Text string
	Created, Updated            time.Time
}

// Counts are a user's records per list and mark.
type Counts struct {
	Active, Archived, Liked, Following, Bidding, Commented int64
}

// ProjectInfo is what a list row shows of a project, from the projects service.
type ProjectInfo struct {
	ID, Name, AgencyName, Status, StatusName string
	AnnounceTypeName, AnnounceDate           string
	SubmissionDue, HearingDue                string // ISO dates, when known
	BudgetSatang, ReferenceSatang            *int64
}

// Base is the price a reduction is taken from: the reference price, else the budget.
func (p ProjectInfo) Base() *int64 {
	if p.ReferenceSatang != nil && *p.ReferenceSatang > 0 {
		return p.ReferenceSatang
	}
	return p.BudgetSatang
}
