package ports

import (
	"context"

	"connectrpc.com/connect"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/services/auth/internal/app"
)

// LineAuthorize implements authv1connect.AuthServiceHandler. A caller with a
// valid access token starts a link of LINE to that account.
func (s *Server) LineAuthorize(ctx context.Context, req *connect.Request[authv1.LineAuthorizeRequest]) (*connect.Response[authv1.LineAuthorizeResponse], error) {
	r, err := s.app.LineAuthorize.Handle(ctx, app.LineAuthorize{RedirectTo: req.Msg.GetRedirectTo(), CallerUserID: callerID(ctx)})
	if err != nil {
		return nil, rpcErr(err)
	}
	return connect.NewResponse(&authv1.LineAuthorizeResponse{AuthorizeUrl: r.URL, State: r.State}), nil
}

// LineCallback implements authv1connect.AuthServiceHandler.
func (s *Server) LineCallback(ctx context.Context, req *connect.Request[authv1.LineCallbackRequest]) (*connect.Response[authv1.LineCallbackResponse], error) {
	ctx = withDevice(ctx, req.Header())
	r, err := s.app.LineCallback.Handle(ctx, app.LineCallback{
		Code: req.Msg.GetCode(), State: req.Msg.GetState(), Error: req.Msg.GetError(), CallerUserID: callerID(ctx),
	})
	if err != nil {
		return nil, rpcErr(err)
	}
	msg := &authv1.LineCallbackResponse{
		Message: r.Message, Status: r.Status, User: userPB(r.User), LinkToken: r.LinkToken,
		Email: r.Identity.Email, LineName: r.Identity.Name, LinePictureUrl: r.Identity.PictureURL, RedirectTo: r.RedirectTo,
	}
	if r.Status == app.LineStatusLoggedIn {
		msg.AccessToken, msg.RefreshToken = r.Session.AccessToken, r.Session.RefreshToken
		msg.TokenType, msg.ExpiresIn = tokenType, int32(r.Session.ExpiresIn)
	}
	res := connect.NewResponse(msg)
	if r.Status == app.LineStatusLoggedIn {
		s.setSessionCookies(res.Header(), r.Session)
	}
	return res, nil
}

// LineLinkSendOtp implements authv1connect.AuthServiceHandler.
func (s *Server) LineLinkSendOtp(ctx context.Context, req *connect.Request[authv1.LineLinkSendOtpRequest]) (*connect.Response[authv1.LineLinkSendOtpResponse], error) {
	exp, msg, err := s.app.LineLinkSendOTP.Handle(ctx, app.LineLinkSendOTP{LinkToken: req.Msg.GetLinkToken(), Email: req.Msg.GetEmail()})
	if err != nil {
		return nil, rpcErr(err)
	}
	return connect.NewResponse(&authv1.LineLinkSendOtpResponse{Message: msg, ExpiresIn: int32(exp)}), nil
}

// LineLinkVerify implements authv1connect.AuthServiceHandler.
func (s *Server) LineLinkVerify(ctx context.Context, req *connect.Request[authv1.LineLinkVerifyRequest]) (*connect.Response[authv1.LineLinkVerifyResponse], error) {
	ctx = withDevice(ctx, req.Header())
	sess, err := s.app.LineLinkVerify.Handle(ctx, app.LineLinkVerify{
		LinkToken: req.Msg.GetLinkToken(), Email: req.Msg.GetEmail(), OTP: req.Msg.GetOtp(),
	})
	if err != nil {
		return nil, rpcErr(err)
	}
	res := connect.NewResponse(&authv1.LineLinkVerifyResponse{
		Message: "LINE account linked successfully.", AccessToken: sess.AccessToken, RefreshToken: sess.RefreshToken,
		TokenType: tokenType, ExpiresIn: int32(sess.ExpiresIn), User: userPB(sess.User),
	})
	s.setSessionCookies(res.Header(), sess)
	return res, nil
}
