// Package ports serves the teams RPCs (Connect, gRPC, gRPC-Web; REST
// through the gateway) on top of the use cases.
package ports

import (
	"context"
	"net/url"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	teamsv1 "bidradar/gen/teams/v1"
	"bidradar/gen/teams/v1/teamsv1connect"
	"bidradar/pkg/authn"
	"bidradar/services/teams/internal/app"
	"bidradar/services/teams/internal/domain"
)

// CalendarEncoder writes a team calendar's events as a calendar document.
type CalendarEncoder func(name string, events []domain.CalendarEvent, now time.Time) []byte

// Handler implements teamsv1connect.TeamsServiceHandler.
type Handler struct {
	teamsv1connect.UnimplementedTeamsServiceHandler
	app      *app.App
	calendar CalendarEncoder
	now      func() time.Time
}

// NewHandler returns the handler.
func NewHandler(a *app.App, enc CalendarEncoder) *Handler {
	return &Handler{app: a, calendar: enc, now: time.Now}
}

// caller is the signed-in user or the team API key of the call.
func caller(ctx context.Context) (domain.Caller, error) {
	if k, ok := authn.TeamKeyFromContext(ctx); ok {
		return domain.Caller{KeyID: k.KeyID, KeyTeam: k.TeamID, KeyScopes: k.Scopes}, nil
	}
	c, err := authn.Require(ctx)
	if err != nil {
		return domain.Caller{}, err
	}
	return domain.Caller{UserID: c.UserID, Username: c.Username, Email: c.Email}, nil
}

func ts(t time.Time) *timestamppb.Timestamp {
	if t.IsZero() {
		return nil
	}
	return timestamppb.New(t)
}

func teamPB(v app.View) *teamsv1.Team {
	return &teamsv1.Team{Id: v.Team.ID, Name: v.Team.Name, Role: string(v.Role), CreatedAt: ts(v.Team.CreatedAt),
		Seats: int32(v.Seats), SeatsUsed: int32(v.Team.SeatsUsed), ReadOnly: v.ReadOnly, OwnerUserId: v.Team.OwnerUserID,
		MemberCount: int32(v.Team.MemberCount)}
}

func memberPB(m domain.MemberRec) *teamsv1.Member {
	return &teamsv1.Member{UserId: m.UserID, Username: m.Username, Name: m.Username, Email: m.Email, Role: string(m.Role), JoinedAt: ts(m.JoinedAt)}
}

func invitationPB(i domain.Invitation) *teamsv1.Invitation {
	return &teamsv1.Invitation{Id: i.ID, Email: i.Email, Role: string(i.Role), InvitedByUserId: i.InvitedBy,
		CreatedAt: ts(i.CreatedAt), ExpiresAt: ts(i.ExpiresAt)}
}

func itemPB(v app.ItemView) *teamsv1.PipelineItem {
	it := v.Item
	out := &teamsv1.PipelineItem{ProjectId: it.ProjectID, Stage: it.Stage, OwnerUserId: it.OwnerUserID,
		DueDate: domain.DateString(it.DueDate), BidPrice: domain.PriceString(it.BidSatang), Note: it.Note,
		ProjectName: v.Project.Name, Agency: v.Project.Agency, Budget: domain.PriceString(v.Project.BudgetSatang),
		Deadline: v.Project.Deadline, UpdatedAt: ts(it.UpdatedAt), UpdatedBy: it.UpdatedBy, CreatedAt: ts(it.CreatedAt),
		OwnerUsername: it.OwnerName, CommentCount: int32(it.CommentCount)}
	return out
}

func commentPB(c domain.Comment) *teamsv1.Comment {
	return &teamsv1.Comment{Id: c.ID, UserId: c.UserID, Username: c.Username, Text: c.Text, CreatedAt: ts(c.CreatedAt), Mentions: c.Mentions}
}

func keyPB(k domain.APIKey) *teamsv1.ApiKey {
	out := &teamsv1.ApiKey{Id: k.ID, Name: k.Name, Scopes: k.Scopes, CreatedAt: ts(k.CreatedAt), CreatedByUserId: k.CreatedBy, Prefix: k.Prefix}
	if k.LastUsed != nil {
		out.LastUsedAt = ts(*k.LastUsed)
	}
	return out
}

// CreateTeam implements the RPC.
func (h *Handler) CreateTeam(ctx context.Context, req *connect.Request[teamsv1.CreateTeamRequest]) (*connect.Response[teamsv1.CreateTeamResponse], error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	v, err := h.app.CreateTeam(ctx, c, req.Msg.GetName())
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&teamsv1.CreateTeamResponse{Team: teamPB(v)}), nil
}

// ListTeams implements the RPC.
func (h *Handler) ListTeams(ctx context.Context, _ *connect.Request[teamsv1.ListTeamsRequest]) (*connect.Response[teamsv1.ListTeamsResponse], error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	vs, err := h.app.ListTeams(ctx, c)
	if err != nil {
		return nil, err
	}
	out := &teamsv1.ListTeamsResponse{Data: []*teamsv1.Team{}}
	for _, v := range vs {
		out.Data = append(out.Data, teamPB(v))
	}
	return connect.NewResponse(out), nil
}

// AcceptInvitation implements the RPC.
func (h *Handler) AcceptInvitation(ctx context.Context, req *connect.Request[teamsv1.AcceptInvitationRequest]) (*connect.Response[teamsv1.AcceptInvitationResponse], error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	v, err := h.app.Accept(ctx, c, req.Msg.GetCode())
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&teamsv1.AcceptInvitationResponse{Team: teamPB(v)}), nil
}

// GetTeam implements the RPC.
func (h *Handler) GetTeam(ctx context.Context, req *connect.Request[teamsv1.GetTeamRequest]) (*connect.Response[teamsv1.GetTeamResponse], error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	v, err := h.app.GetTeam(ctx, c, req.Msg.GetTeamId())
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&teamsv1.GetTeamResponse{Team: teamPB(v)}), nil
}

// ListMembers implements the RPC.
func (h *Handler) ListMembers(ctx context.Context, req *connect.Request[teamsv1.ListMembersRequest]) (*connect.Response[teamsv1.ListMembersResponse], error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	ms, err := h.app.Members(ctx, c, req.Msg.GetTeamId())
	if err != nil {
		return nil, err
	}
	out := &teamsv1.ListMembersResponse{Data: []*teamsv1.Member{}}
	for _, m := range ms {
		out.Data = append(out.Data, memberPB(m))
	}
	return connect.NewResponse(out), nil
}

// UpdateMember implements the RPC.
func (h *Handler) UpdateMember(ctx context.Context, req *connect.Request[teamsv1.UpdateMemberRequest]) (*connect.Response[teamsv1.UpdateMemberResponse], error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	m, err := h.app.SetRole(ctx, c, req.Msg.GetTeamId(), req.Msg.GetUserId(), req.Msg.GetRole())
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&teamsv1.UpdateMemberResponse{Member: memberPB(m)}), nil
}

// RemoveMember implements the RPC.
func (h *Handler) RemoveMember(ctx context.Context, req *connect.Request[teamsv1.RemoveMemberRequest]) (*connect.Response[teamsv1.RemoveMemberResponse], error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.app.RemoveMember(ctx, c, req.Msg.GetTeamId(), req.Msg.GetUserId()); err != nil {
		return nil, err
	}
	return connect.NewResponse(&teamsv1.RemoveMemberResponse{Message: "Member removed"}), nil
}

// CreateInvitation implements the RPC.
func (h *Handler) CreateInvitation(ctx context.Context, req *connect.Request[teamsv1.CreateInvitationRequest]) (*connect.Response[teamsv1.CreateInvitationResponse], error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	inv, err := h.app.Invite(ctx, c, req.Msg.GetTeamId(), req.Msg.GetEmail(), req.Msg.GetRole())
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&teamsv1.CreateInvitationResponse{Invitation: invitationPB(inv)}), nil
}

// ListInvitations implements the RPC.
func (h *Handler) ListInvitations(ctx context.Context, req *connect.Request[teamsv1.ListInvitationsRequest]) (*connect.Response[teamsv1.ListInvitationsResponse], error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	is, err := h.app.Invitations(ctx, c, req.Msg.GetTeamId())
	if err != nil {
		return nil, err
	}
	out := &teamsv1.ListInvitationsResponse{Data: []*teamsv1.Invitation{}}
	for _, i := range is {
		out.Data = append(out.Data, invitationPB(i))
	}
	return connect.NewResponse(out), nil
}

// RevokeInvitation implements the RPC.
func (h *Handler) RevokeInvitation(ctx context.Context, req *connect.Request[teamsv1.RevokeInvitationRequest]) (*connect.Response[teamsv1.RevokeInvitationResponse], error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.app.RevokeInvitation(ctx, c, req.Msg.GetTeamId(), req.Msg.GetInvitationId()); err != nil {
		return nil, err
	}
	return connect.NewResponse(&teamsv1.RevokeInvitationResponse{Message: "Invitation revoked"}), nil
}

// ListPipeline implements the RPC.
func (h *Handler) ListPipeline(ctx context.Context, req *connect.Request[teamsv1.ListPipelineRequest]) (*connect.Response[teamsv1.ListPipelineResponse], error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	vs, total, f, err := h.app.Pipeline(ctx, c, m.GetTeamId(), domain.ItemFilter{Stage: m.GetStage(), Owner: m.GetOwnerUserId(),
		Page: int(m.GetPage()), PerPage: int(m.GetPerPage())})
	if err != nil {
		return nil, err
	}
	out := &teamsv1.ListPipelineResponse{Data: []*teamsv1.PipelineItem{}, Pagination: &teamsv1.Pagination{
		Page: int32(f.Page), PerPage: int32(f.PerPage), Total: total, TotalPages: int32((total + int64(f.PerPage) - 1) / int64(f.PerPage))}}
	for _, v := range vs {
		out.Data = append(out.Data, itemPB(v))
	}
	return connect.NewResponse(out), nil
}

// GetPipelineItem implements the RPC.
func (h *Handler) GetPipelineItem(ctx context.Context, req *connect.Request[teamsv1.GetPipelineItemRequest]) (*connect.Response[teamsv1.GetPipelineItemResponse], error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	v, err := h.app.Item(ctx, c, req.Msg.GetTeamId(), req.Msg.GetProjectId())
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&teamsv1.GetPipelineItemResponse{Item: itemPB(v)}), nil
}

// PutPipelineItem implements the RPC.
func (h *Handler) PutPipelineItem(ctx context.Context, req *connect.Request[teamsv1.PutPipelineItemRequest]) (*connect.Response[teamsv1.PutPipelineItemResponse], error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	v, created, err := h.app.Put(ctx, c, m.GetTeamId(), m.GetProjectId(), app.PutInput{
		Stage: m.Stage, Owner: m.OwnerUserId, DueDate: m.DueDate, BidPrice: m.BidPrice, Note: m.Note})
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&teamsv1.PutPipelineItemResponse{Item: itemPB(v), Created: created}), nil
}

// DeletePipelineItem implements the RPC.
func (h *Handler) DeletePipelineItem(ctx context.Context, req *connect.Request[teamsv1.DeletePipelineItemRequest]) (*connect.Response[teamsv1.DeletePipelineItemResponse], error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.app.Delete(ctx, c, req.Msg.GetTeamId(), req.Msg.GetProjectId()); err != nil {
		return nil, err
	}
	return connect.NewResponse(&teamsv1.DeletePipelineItemResponse{Message: "Removed from the pipeline"}), nil
}

// ListItemHistory implements the RPC.
func (h *Handler) ListItemHistory(ctx context.Context, req *connect.Request[teamsv1.ListItemHistoryRequest]) (*connect.Response[teamsv1.ListItemHistoryResponse], error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	hs, err := h.app.History(ctx, c, req.Msg.GetTeamId(), req.Msg.GetProjectId())
	if err != nil {
		return nil, err
	}
	out := &teamsv1.ListItemHistoryResponse{Data: make([]*teamsv1.HistoryEntry, 0, len(hs))}
	for _, x := range hs {
		out.Data = append(out.Data, &teamsv1.HistoryEntry{At: ts(x.At), UserId: x.Actor, Field: x.Field, From: x.From, To: x.To})
	}
	return connect.NewResponse(out), nil
}

// ListComments implements the RPC.
func (h *Handler) ListComments(ctx context.Context, req *connect.Request[teamsv1.ListCommentsRequest]) (*connect.Response[teamsv1.ListCommentsResponse], error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	cs, err := h.app.Comments(ctx, c, req.Msg.GetTeamId(), req.Msg.GetProjectId())
	if err != nil {
		return nil, err
	}
	out := &teamsv1.ListCommentsResponse{Data: []*teamsv1.Comment{}}
	for _, x := range cs {
		out.Data = append(out.Data, commentPB(x))
	}
	return connect.NewResponse(out), nil
}

// AddComment implements the RPC.
func (h *Handler) AddComment(ctx context.Context, req *connect.Request[teamsv1.AddCommentRequest]) (*connect.Response[teamsv1.AddCommentResponse], error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	cm, err := h.app.AddComment(ctx, c, req.Msg.GetTeamId(), req.Msg.GetProjectId(), req.Msg.GetText())
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&teamsv1.AddCommentResponse{Comment: commentPB(cm)}), nil
}

// CreateApiKey implements the RPC.
func (h *Handler) CreateApiKey(ctx context.Context, req *connect.Request[teamsv1.CreateApiKeyRequest]) (*connect.Response[teamsv1.CreateApiKeyResponse], error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	k, secret, err := h.app.CreateKey(ctx, c, req.Msg.GetTeamId(), req.Msg.GetName(), req.Msg.GetScopes())
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&teamsv1.CreateApiKeyResponse{Key: keyPB(k), Secret: secret}), nil
}

// ListApiKeys implements the RPC.
func (h *Handler) ListApiKeys(ctx context.Context, req *connect.Request[teamsv1.ListApiKeysRequest]) (*connect.Response[teamsv1.ListApiKeysResponse], error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	ks, err := h.app.Keys(ctx, c, req.Msg.GetTeamId())
	if err != nil {
		return nil, err
	}
	out := &teamsv1.ListApiKeysResponse{Data: []*teamsv1.ApiKey{}}
	for _, k := range ks {
		out.Data = append(out.Data, keyPB(k))
	}
	return connect.NewResponse(out), nil
}

// RevokeApiKey implements the RPC.
func (h *Handler) RevokeApiKey(ctx context.Context, req *connect.Request[teamsv1.RevokeApiKeyRequest]) (*connect.Response[teamsv1.RevokeApiKeyResponse], error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.app.RevokeKey(ctx, c, req.Msg.GetTeamId(), req.Msg.GetKeyId()); err != nil {
		return nil, err
	}
	return connect.NewResponse(&teamsv1.RevokeApiKeyResponse{Message: "API key revoked"}), nil
}

// GetCalendarFeed implements the RPC.
func (h *Handler) GetCalendarFeed(ctx context.Context, req *connect.Request[teamsv1.GetCalendarFeedRequest]) (*connect.Response[teamsv1.GetCalendarFeedResponse], error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	at, ok, err := h.app.Feed(ctx, c, req.Msg.GetTeamId())
	if err != nil {
		return nil, err
	}
	f := &teamsv1.CalendarFeed{Active: ok}
	if ok {
		f.CreatedAt = ts(at)
	}
	return connect.NewResponse(&teamsv1.GetCalendarFeedResponse{Feed: f}), nil
}

// RotateCalendarFeed implements the RPC.
func (h *Handler) RotateCalendarFeed(ctx context.Context, req *connect.Request[teamsv1.RotateCalendarFeedRequest]) (*connect.Response[teamsv1.RotateCalendarFeedResponse], error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	tok, at, err := h.app.RotateFeed(ctx, c, req.Msg.GetTeamId())
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&teamsv1.RotateCalendarFeedResponse{Feed: &teamsv1.CalendarFeed{Active: true, CreatedAt: ts(at)},
		Token: tok, Path: domain.FeedPath(tok)}), nil
}

// RevokeCalendarFeed implements the RPC.
func (h *Handler) RevokeCalendarFeed(ctx context.Context, req *connect.Request[teamsv1.RevokeCalendarFeedRequest]) (*connect.Response[teamsv1.RevokeCalendarFeedResponse], error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.app.RevokeFeed(ctx, c, req.Msg.GetTeamId()); err != nil {
		return nil, err
	}
	return connect.NewResponse(&teamsv1.RevokeCalendarFeedResponse{Message: "Calendar link revoked"}), nil
}

// RenderCalendarFeed implements the internal RPC.
func (h *Handler) RenderCalendarFeed(ctx context.Context, req *connect.Request[teamsv1.RenderCalendarFeedRequest]) (*connect.Response[teamsv1.RenderCalendarFeedResponse], error) {
	name, evs, err := h.app.CalendarEvents(ctx, req.Msg.GetToken(), origin(req.Msg.GetOrigin()))
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&teamsv1.RenderCalendarFeedResponse{Body: h.calendar(name, evs, h.now())}), nil
}

// VerifyApiKey implements the internal RPC (the gateway's key check).
func (h *Handler) VerifyApiKey(ctx context.Context, req *connect.Request[teamsv1.VerifyApiKeyRequest]) (*connect.Response[teamsv1.VerifyApiKeyResponse], error) {
	k, err := h.app.VerifyKey(ctx, req.Msg.GetSecret())
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&teamsv1.VerifyApiKeyResponse{KeyId: k.ID, TeamId: k.TeamID, Scopes: k.Scopes}), nil
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
