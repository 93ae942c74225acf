package app

import (
	"context"
	"errors"
	"fmt"

	"bidradar/services/projects/internal/domain"
)

// SetInterests sets the reader of users' marks (nil: no marks, and the
// listing flags answer unavailable).
func (a *App) SetInterests(i domain.Interests) { a.interests = i }

// Listing is a search page with the caller's marks on its rows.
type Listing struct {
	domain.ResultPage
	Marks map[string]domain.Marks
}

// List runs a listing search for userID ("" for a visitor): the listing
// flags restrict it to the user's marked projects, and each row gets the
// user's marks and bid. They are read from their owner on every call, so a
// change is visible in the very next listing.
func (a *App) List(ctx context.Context, userID string, flags domain.ListingFlags, c domain.Criteria, p domain.PageRequest) (Listing, error) {
	names := flags.Names()
	if len(names) > 0 {
		if userID == "" {
			return Listing{}, domain.ErrFlagsNeedUser
		}
		if a.interests == nil {
			return Listing{}, domain.ErrInterestsUnavailable
		}
		for _, f := range names {
			ids, err := a.interests.ProjectIDs(ctx, userID, f)
			if err != nil {
				return Listing{}, errors.Join(domain.ErrInterestsUnavailable, fmt.Errorf("%s: %w", f, err))
			}
			c.ProjectIDs = intersect(c.ProjectIDs, ids, len(c.ProjectIDs) > 0)
			if len(c.ProjectIDs) == 0 {
				return Listing{ResultPage: domain.ResultPage{Page: max(p.Page, 1), PerPage: p.PerPage}}, nil
			}
		}
	}
	res, err := a.repo.Search(ctx, c, p)
	if err != nil {
		return Listing{}, err
	}
	out := Listing{ResultPage: res}
	if userID == "" || a.interests == nil || len(res.Items) == 0 {
		return out, nil
	}
	ids := make([]string, len(res.Items))
	for i := range res.Items {
		ids[i] = res.Items[i].ID
	}
	if out.Marks, err = a.interests.Marks(ctx, userID, ids); err != nil {
		// The rows are still right; only the marks are missing.
		a.log.WarnContext(ctx, "listing without marks: interests unavailable", "err", err)
		out.Marks = nil
	}
	return out, nil
}

// intersect keeps the ids of have that are in want; when have is not a
// filter yet (filtered false) it is want itself.
func intersect(have, want []string, filtered bool) []string {
	if !filtered {
		return want
	}
	in := make(map[string]bool, len(want))
	for _, id := range want {
		in[id] = true
	}
	var out []string
	for _, id := range have {
		if in[id] {
			out = append(out, id)
		}
	}
	return out
}
