// Package ports serves the interests RPCs (Connect, gRPC, gRPC-Web; REST
// through the gateway) on top of the use cases.
package ports

import (
	"context"
	"net/url"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	interestsv1 "bidradar/gen/interests/v1"
	"bidradar/gen/interests/v1/interestsv1connect"
	"bidradar/pkg/authn"
	"bidradar/services/interests/internal/app"
	"bidradar/services/interests/internal/domain"
)

// Handler implements interestsv1connect.InterestsServiceHandler.
type Handler struct {
	interestsv1connect.UnimplementedInterestsServiceHandler
	app      *app.App
	calendar CalendarEncoder
}

// CalendarEncoder writes a feed's events as a calendar document (the
// service's assembly passes the iCalendar adapter's).
type CalendarEncoder func(events []domain.CalendarEvent, now time.Time) []byte

// NewHandler returns the handler.
func NewHandler(a *app.App) *Handler { return &Handler{app: a} }

// SetCalendar sets the feed's encoder (nil: RenderCalendarFeed is unimplemented).
func (h *Handler) SetCalendar(enc CalendarEncoder) { h.calendar = enc }

func baht(satang *int64) *float64 {
	if satang == nil {
		return nil
	}
	v := float64(*satang) / 100
	return &v
}

func percent(bp *int64) *float64 {
	if bp == nil {
		return nil
	}
	v := float64(*bp) / 100
	return &v
}

func interestPB(r app.Row) *interestsv1.UserInterest {
	rec := r.Record
	out := &interestsv1.UserInterest{
		IdProject: rec.ProjectID, IsUserLike: rec.Like, IsInterestToStepChk: rec.Follow, Is_InterestToBid: rec.Bid,
		Archived: rec.Archived, IsFill20: rec.Fill20, CommentCount: int32(rec.CommentCount),
		BidPrice: baht(rec.BidSatang), BidPriceSatang: rec.BidSatang, ReductionPercent: percent(rec.ReductionBP),
		ProjectName: r.Project.Name, DeptName: r.Project.AgencyName, Budget: baht(r.Project.BudgetSatang),
		BudgetSatang: r.Project.BudgetSatang, ReferencePrice: baht(r.Project.ReferenceSatang),
		Status: r.Project.Status, StatusName: r.Project.StatusName,
		AnnounceTypeName: r.Project.AnnounceTypeName, AnnounceDate: r.Project.AnnounceDate,
		SubmissionDue: r.Project.SubmissionDue, HearingDue: r.Project.HearingDue,
		Source: "none",
	}
	if r.Known {
		out.Source = rec.Source()
		out.CreatedAt, out.UpdatedAt = timestamppb.New(rec.Created), timestamppb.New(rec.Updated)
	}
	if rec.BidUpdated != nil {
		out.LastUpdated = timestamppb.New(*rec.BidUpdated)
	}
	return out
}

func commentPB(c domain.Comment) *interestsv1.Comment {
	return &interestsv1.Comment{Id: c.ID, CommentText: c.Text, UserId: c.UserID,
		CreatedAt: timestamppb.New(c.Created), UpdatedAt: timestamppb.New(c.Updated)}
}

func commentsPB(cs []domain.Comment) []*interestsv1.Comment {
	out := make([]*interestsv1.Comment, 0, len(cs))
	for _, c := range cs {
		out = append(out, commentPB(c))
	}
	return out
}

// GetInterest implements the lookup of docs/product.md#interest-lookup.
func (h *Handler) GetInterest(ctx context.Context, req *connect.Request[interestsv1.GetInterestRequest]) (*connect.Response[interestsv1.GetInterestResponse], error) {
	user, err := authn.RequireUserID(ctx)
	if err != nil {
		return nil, err
	}
	row, err := h.app.Lookup(ctx, user, req.Msg.ProjectId)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&interestsv1.GetInterestResponse{Data: interestPB(row)}), nil
}

func (h *Handler) list(ctx context.Context, archived bool, page, perPage int32, q domain.ListQuery) ([]*interestsv1.UserInterest, *interestsv1.InterestPagination, *interestsv1.InterestCounts, error) {
	user, err := authn.RequireUserID(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	rows, total, p, c, err := h.app.ListBy(ctx, user, archived, int(page), int(perPage), q)
	if err != nil {
		return nil, nil, nil, err
	}
	data := make([]*interestsv1.UserInterest, 0, len(rows))
	for _, r := range rows {
		data = append(data, interestPB(r))
	}
	pages := (total + int64(p.Size) - 1) / int64(p.Size)
	return data, &interestsv1.InterestPagination{Page: int32(p.Number), PerPage: int32(p.Size), Total: total, TotalPages: int32(pages)},
		&interestsv1.InterestCounts{Active: c.Active, Archived: c.Archived, Liked: c.Liked, Following: c.Following, Bidding: c.Bidding, Commented: c.Commented}, nil
}

// ListActiveInterests lists the caller's active records.
func (h *Handler) ListActiveInterests(ctx context.Context, req *connect.Request[interestsv1.ListActiveInterestsRequest]) (*connect.Response[interestsv1.ListActiveInterestsResponse], error) {
	m := req.Msg
	data, pg, counts, err := h.list(ctx, false, m.Page, m.PerPage,
		domain.ListQuery{Sort: m.Sort, ClosingWithin: int(m.ClosingWithinDays), DueFrom: m.DueSDate_User, DueTo: m.DueEDate_User})
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&interestsv1.ListActiveInterestsResponse{Data: data, Pagination: pg, Counts: counts}), nil
}

// ListArchivedInterests lists the caller's archived records.
func (h *Handler) ListArchivedInterests(ctx context.Context, req *connect.Request[interestsv1.ListArchivedInterestsRequest]) (*connect.Response[interestsv1.ListArchivedInterestsResponse], error) {
	m := req.Msg
	data, pg, counts, err := h.list(ctx, true, m.Page, m.PerPage,
		domain.ListQuery{Sort: m.Sort, ClosingWithin: int(m.ClosingWithinDays), DueFrom: m.DueSDate_User, DueTo: m.DueEDate_User})
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&interestsv1.ListArchivedInterestsResponse{Data: data, Pagination: pg, Counts: counts}), nil
}

// UpdateInterest applies a PATCH.
func (h *Handler) UpdateInterest(ctx context.Context, req *connect.Request[interestsv1.UpdateInterestRequest]) (*connect.Response[interestsv1.UpdateInterestResponse], error) {
	user, err := authn.RequireUserID(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	row, err := h.app.Update(ctx, user, m.ProjectId, domain.Patch{
		Like: m.IsUserLike, Follow: m.IsInterestToStepChk, Fill20: m.IsFill20, Bid: m.Is_InterestToBid, Archived: m.Archived,
		BidPrice: m.BidPrice, ReductionPercent: m.ReductionPercent, ClearBid: m.ClearBid,
	})
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&interestsv1.UpdateInterestResponse{Message: "User interest updated successfully", Data: interestPB(row)}), nil
}

// ListComments lists the comments of the caller's record.
func (h *Handler) ListComments(ctx context.Context, req *connect.Request[interestsv1.ListCommentsRequest]) (*connect.Response[interestsv1.ListCommentsResponse], error) {
	user, err := authn.RequireUserID(ctx)
	if err != nil {
		return nil, err
	}
	t, err := h.app.Comments(ctx, user, req.Msg.Id)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&interestsv1.ListCommentsResponse{
		Comments: commentsPB(t.Comments), CommentCount: int32(len(t.Comments)), Source: t.Record.Source(), RecordType: "user_interest",
	}), nil
}

// AddComment adds a comment.
func (h *Handler) AddComment(ctx context.Context, req *connect.Request[interestsv1.AddCommentRequest]) (*connect.Response[interestsv1.AddCommentResponse], error) {
	user, err := authn.RequireUserID(ctx)
	if err != nil {
		return nil, err
	}
	t, c, row, err := h.app.AddComment(ctx, user, req.Msg.Id, req.Msg.UserId, req.Msg.CommentText)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&interestsv1.AddCommentResponse{
		Message: "Comment added successfully", Comments: commentsPB(t.Comments), CommentCount: int32(len(t.Comments)),
		Source: t.Record.Source(), RecordType: "user_interest", LatestComment: commentPB(c), Record: interestPB(row),
	}), nil
}

// UpdateComment edits one of the caller's comments.
func (h *Handler) UpdateComment(ctx context.Context, req *connect.Request[interestsv1.UpdateCommentRequest]) (*connect.Response[interestsv1.UpdateCommentResponse], error) {
	user, err := authn.RequireUserID(ctx)
	if err != nil {
		return nil, err
	}
	c, err := h.app.UpdateComment(ctx, user, req.Msg.Id, req.Msg.CommentId, req.Msg.CommentText)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&interestsv1.UpdateCommentResponse{Message: "Comment updated successfully", Comment: commentPB(c)}), nil
}

// DeleteComment deletes one of the caller's comments.
func (h *Handler) DeleteComment(ctx context.Context, req *connect.Request[interestsv1.DeleteCommentRequest]) (*connect.Response[interestsv1.DeleteCommentResponse], error) {
	user, err := authn.RequireUserID(ctx)
	if err != nil {
		return nil, err
	}
	rec, err := h.app.DeleteComment(ctx, user, req.Msg.Id, req.Msg.CommentId)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&interestsv1.DeleteCommentResponse{Message: "Comment deleted successfully", CommentCount: int32(rec.CommentCount)}), nil
}

// GetFlags is internal: the user's records among a page of projects.
func (h *Handler) GetFlags(ctx context.Context, req *connect.Request[interestsv1.GetFlagsRequest]) (*connect.Response[interestsv1.GetFlagsResponse], error) {
	recs, err := h.app.Flags(ctx, req.Msg.UserId, req.Msg.ProjectIds)
	if err != nil {
		return nil, err
	}
	out := &interestsv1.GetFlagsResponse{Interests: make([]*interestsv1.UserInterest, 0, len(recs))}
	for _, r := range recs {
		out.Interests = append(out.Interests, interestPB(app.Row{Record: r, Known: true}))
	}
	return connect.NewResponse(out), nil
}

// ListProjectIdsByFlag is internal: the user's project ids carrying a flag.
func (h *Handler) ListProjectIdsByFlag(ctx context.Context, req *connect.Request[interestsv1.ListProjectIdsByFlagRequest]) (*connect.Response[interestsv1.ListProjectIdsByFlagResponse], error) {
	ids, truncated, err := h.app.ProjectIDs(ctx, req.Msg.UserId, req.Msg.Flag, int(req.Msg.Limit))
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&interestsv1.ListProjectIdsByFlagResponse{ProjectIds: ids, Truncated: truncated}), nil
}

func feedPB(f domain.Feed, ok bool) *interestsv1.CalendarFeed {
	if !ok {
		return &interestsv1.CalendarFeed{}
	}
	return &interestsv1.CalendarFeed{Active: true, CreatedAt: timestamppb.New(f.Created)}
}

// GetCalendarFeed tells whether the caller has a calendar link.
func (h *Handler) GetCalendarFeed(ctx context.Context, _ *connect.Request[interestsv1.GetCalendarFeedRequest]) (*connect.Response[interestsv1.GetCalendarFeedResponse], error) {
	user, err := authn.RequireUserID(ctx)
	if err != nil {
		return nil, err
	}
	f, ok, err := h.app.FeedState(ctx, user)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&interestsv1.GetCalendarFeedResponse{Feed: feedPB(f, ok)}), nil
}

// RotateCalendarFeed makes the caller a new calendar link.
func (h *Handler) RotateCalendarFeed(ctx context.Context, _ *connect.Request[interestsv1.RotateCalendarFeedRequest]) (*connect.Response[interestsv1.RotateCalendarFeedResponse], error) {
	user, err := authn.RequireUserID(ctx)
	if err != nil {
		return nil, err
	}
	f, token, err := h.app.RotateFeed(ctx, user)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&interestsv1.RotateCalendarFeedResponse{Feed: feedPB(f, true), Token: token, Path: domain.FeedPath(token)}), nil
}

// RevokeCalendarFeed ends the caller's calendar link.
func (h *Handler) RevokeCalendarFeed(ctx context.Context, _ *connect.Request[interestsv1.RevokeCalendarFeedRequest]) (*connect.Response[interestsv1.RevokeCalendarFeedResponse], error) {
	user, err := authn.RequireUserID(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.app.RevokeFeed(ctx, user); err != nil {
		return nil, err
	}
	return connect.NewResponse(&interestsv1.RevokeCalendarFeedResponse{Message: "Calendar link revoked"}), nil
}

// RenderCalendarFeed is internal: a calendar link's document.
func (h *Handler) RenderCalendarFeed(ctx context.Context, req *connect.Request[interestsv1.RenderCalendarFeedRequest]) (*connect.Response[interestsv1.RenderCalendarFeedResponse], error) {
	if h.calendar == nil {
		return nil, connect.NewError(connect.CodeUnimplemented, nil)
	}
	events, err := h.app.FeedEvents(ctx, req.Msg.Token, origin(req.Msg.Origin))
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&interestsv1.RenderCalendarFeedResponse{Body: h.calendar(events, h.app.Now())}), nil
}

// origin keeps an http(s) origin (scheme and host only), else "".
func origin(s string) string {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}
