package domain

import (
	"context"

	"bidradar/pkg/apperr"
)

// Marks are a user's marks on one project, owned by the interests service.
type Marks struct {
	Like, Follow, Fill20, Bid, Archived bool
	CommentCount                        int
	// The user's bid, when they set one: the price (nil when only a
	// reduction is known, for a project with neither reference price nor
	// budget) and the reduction from the reference price, else the budget,
	// in hundredths of a percent (nil when only a price is known, for the
	// same projects).
	BidPrice    *Money
	ReductionBP *int64
}

// ListingFlags are the per-user listing filters of gen-infor
// (docs/product.md#listing-filter-state).
type ListingFlags struct {
	Bid, Archived, Like, Follow, Fill20, Comment bool
}

// Names returns the set flags by their API names (docs/product.md#listing-filter-state).
func (f ListingFlags) Names() []string {
	var out []string
	for _, x := range []struct {
		on   bool
		name string
	}{{f.Bid, "is_InterestToBid"}, {f.Archived, "is_archived"}, {f.Like, "is_userLike"},
		{f.Follow, "is_interestToStepChk"}, {f.Fill20, "is_fill20"}, {f.Comment, "is_comment"}} {
		if x.on {
			out = append(out, x.name)
		}
	}
	return out
}

// Interests reads a user's marks from their owner.
type Interests interface {
	// Marks returns the user's marks among ids (projects without a record are absent).
	Marks(ctx context.Context, userID string, ids []string) (map[string]Marks, error)
	// ProjectIDs returns the ids of the user's projects carrying a listing flag.
	ProjectIDs(ctx context.Context, userID, flag string) ([]string, error)
}

// ErrInterestsUnavailable: the interests service did not answer (a 503:
// docs/product.md#session-and-connection).
var ErrInterestsUnavailable = apperr.New(apperr.Unavailable, "interests-unavailable", "Service is currently unavailable. Please try again later.")

// ErrFlagsNeedUser: listing flags are for signed-in users.
var ErrFlagsNeedUser = apperr.New(apperr.Unauthenticated, "authentication-required", "Authentication required")
