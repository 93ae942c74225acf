package ports

import (
	"context"
	"net/http"
	"strconv"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/pkg/authn"
	"bidradar/services/auth/internal/app"
)

func (s *Server) refresh(ctx context.Context, procedure, body string, h http.Header) (app.Session, http.Header, error) {
	sess, err := s.app.Refresh.Handle(ctx, app.Refresh{Token: refreshFrom(procedure, body, h, s.opts.SecureCookies)})
	if err != nil {
		return app.Session{}, nil, rpcErr(err)
	}
	out := http.Header{}
	s.setSessionCookies(out, sess)
	return sess, out, nil
}

// RefreshToken implements authv1connect.AuthServiceHandler.
func (s *Server) RefreshToken(ctx context.Context, req *connect.Request[authv1.RefreshTokenRequest]) (*connect.Response[authv1.RefreshTokenResponse], error) {
	sess, h, err := s.refresh(ctx, req.Spec().Procedure, req.Msg.GetRefreshToken(), req.Header())
	if err != nil {
		return nil, err
	}
	res := connect.NewResponse(&authv1.RefreshTokenResponse{
		Message: app.RefreshMessage, AccessToken: sess.AccessToken, RefreshToken: sess.RefreshToken,
		TokenType: tokenType, ExpiresIn: int32(sess.ExpiresIn),
	})
	copyHeader(res.Header(), h)
	return res, nil
}

// RefreshLineToken implements authv1connect.AuthServiceHandler. Sessions
// started with LINE rotate exactly like password sessions.
func (s *Server) RefreshLineToken(ctx context.Context, req *connect.Request[authv1.RefreshLineTokenRequest]) (*connect.Response[authv1.RefreshLineTokenResponse], error) {
	sess, h, err := s.refresh(ctx, req.Spec().Procedure, req.Msg.GetRefreshToken(), req.Header())
	if err != nil {
		return nil, err
	}
	res := connect.NewResponse(&authv1.RefreshLineTokenResponse{
		Message: app.RefreshMessage, AccessToken: sess.AccessToken, RefreshToken: sess.RefreshToken,
		TokenType: tokenType, ExpiresIn: int32(sess.ExpiresIn),
	})
	copyHeader(res.Header(), h)
	return res, nil
}

func copyHeader(dst, src http.Header) {
	for k, vs := range src {
		for _, v := range vs {
			dst.Add(k, v)
		}
	}
}

// Logout implements authv1connect.AuthServiceHandler.
func (s *Server) Logout(ctx context.Context, req *connect.Request[authv1.LogoutRequest]) (*connect.Response[authv1.LogoutResponse], error) {
	cmd := app.Logout{Token: refreshFrom(req.Spec().Procedure, req.Msg.GetRefreshToken(), req.Header(), s.opts.SecureCookies)}
	if c, ok := authn.FromContext(ctx); ok {
		cmd.AccessFamily, cmd.UserID = authn.FamilyID(c), c.UserID
	}
	msg, err := s.app.Logout.Handle(ctx, cmd)
	if err != nil {
		return nil, rpcErr(err)
	}
	res := connect.NewResponse(&authv1.LogoutResponse{Message: msg})
	s.clearCookies(res.Header())
	return res, nil
}

// ListSessions implements authv1connect.AuthServiceHandler.
func (s *Server) ListSessions(ctx context.Context, _ *connect.Request[authv1.ListSessionsRequest]) (*connect.Response[authv1.ListSessionsResponse], error) {
	c, err := authn.Require(ctx)
	if err != nil {
		return nil, err
	}
	list, err := s.app.ListSessions.Handle(ctx, c.UserID, authn.FamilyID(c))
	if err != nil {
		return nil, rpcErr(err)
	}
	res := &authv1.ListSessionsResponse{Sessions: make([]*authv1.Session, len(list))}
	for i, v := range list {
		res.Sessions[i] = &authv1.Session{
			SessionId: v.ID, Provider: string(v.Provider), Device: v.Device, Current: v.Current,
			CreatedAt: timestamppb.New(v.CreatedAt), LastUsedAt: timestamppb.New(v.LastUsedAt), ExpiresAt: timestamppb.New(v.ExpiresAt),
		}
	}
	return connect.NewResponse(res), nil
}

// EndSession implements authv1connect.AuthServiceHandler.
func (s *Server) EndSession(ctx context.Context, req *connect.Request[authv1.EndSessionRequest]) (*connect.Response[authv1.EndSessionResponse], error) {
	c, err := authn.Require(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.app.EndSession.Handle(ctx, c.UserID, req.Msg.GetSessionId()); err != nil {
		return nil, rpcErr(err)
	}
	res := connect.NewResponse(&authv1.EndSessionResponse{Message: "Session ended"})
	if req.Msg.GetSessionId() == authn.FamilyID(c) {
		s.clearCookies(res.Header())
	}
	return res, nil
}

// EndAllSessions implements authv1connect.AuthServiceHandler.
func (s *Server) EndAllSessions(ctx context.Context, req *connect.Request[authv1.EndAllSessionsRequest]) (*connect.Response[authv1.EndAllSessionsResponse], error) {
	c, err := authn.Require(ctx)
	if err != nil {
		return nil, err
	}
	n, err := s.app.EndAllSessions.Handle(ctx, c.UserID, authn.FamilyID(c), req.Msg.GetKeepCurrent())
	if err != nil {
		return nil, rpcErr(err)
	}
	res := connect.NewResponse(&authv1.EndAllSessionsResponse{Message: "Signed out of " + strconv.Itoa(n) + " sessions", Ended: int32(n)})
	if !req.Msg.GetKeepCurrent() {
		s.clearCookies(res.Header())
	}
	return res, nil
}
