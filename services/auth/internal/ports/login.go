package ports

import (
	"context"

	"connectrpc.com/connect"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/services/auth/internal/app"
)

// Login implements authv1connect.AuthServiceHandler.
func (s *Server) Login(ctx context.Context, req *connect.Request[authv1.LoginRequest]) (*connect.Response[authv1.LoginResponse], error) {
	ctx = withDevice(ctx, req.Header())
	r, err := s.app.Login.Handle(ctx, app.Login{Login: req.Msg.GetUsername(), Password: req.Msg.GetPassword(), Client: clientIP(req.Header(), req.Peer().Addr)})
	if err != nil {
		return nil, rpcErr(err)
	}
	if r.TwoStep {
		return connect.NewResponse(&authv1.LoginResponse{
			Message: r.Message, TwoStepVerification: "enabled", Email: r.Email,
		}), nil
	}
	res := connect.NewResponse(&authv1.LoginResponse{
		Message: r.Message, TwoStepVerification: "disabled", AccessToken: r.Session.AccessToken,
		RefreshToken: r.Session.RefreshToken, TokenType: tokenType, ExpiresIn: int32(r.Session.ExpiresIn),
		Email: r.Email, User: userPB(r.Session.User),
	})
	s.setSessionCookies(res.Header(), r.Session)
	return res, nil
}

// VerifyLoginOtp implements authv1connect.AuthServiceHandler.
func (s *Server) VerifyLoginOtp(ctx context.Context, req *connect.Request[authv1.VerifyLoginOtpRequest]) (*connect.Response[authv1.VerifyLoginOtpResponse], error) {
	ctx = withDevice(ctx, req.Header())
	sess, err := s.app.VerifyLoginOTP.Handle(ctx, app.VerifyLoginOTP{Email: req.Msg.GetEmail(), OTP: req.Msg.GetOtp()})
	if err != nil {
		return nil, rpcErr(err)
	}
	res := connect.NewResponse(&authv1.VerifyLoginOtpResponse{
		Message: app.LoginSuccessMessage, AccessToken: sess.AccessToken, RefreshToken: sess.RefreshToken,
		TokenType: tokenType, ExpiresIn: int32(sess.ExpiresIn), User: userPB(sess.User),
	})
	s.setSessionCookies(res.Header(), sess)
	return res, nil
}

// ResendLoginOtp implements authv1connect.AuthServiceHandler.
func (s *Server) ResendLoginOtp(ctx context.Context, req *connect.Request[authv1.ResendLoginOtpRequest]) (*connect.Response[authv1.ResendLoginOtpResponse], error) {
	exp, msg, err := s.app.ResendLoginOTP.Handle(ctx, app.ResendLoginOTP{Email: req.Msg.GetEmail()})
	if err != nil {
		return nil, rpcErr(err)
	}
	return connect.NewResponse(&authv1.ResendLoginOtpResponse{Message: msg, ExpiresIn: int32(exp)}), nil
}

// GetLoginOptions implements authv1connect.AuthServiceHandler.
func (s *Server) GetLoginOptions(context.Context, *connect.Request[authv1.GetLoginOptionsRequest]) (*connect.Response[authv1.GetLoginOptionsResponse], error) {
	return connect.NewResponse(&authv1.GetLoginOptionsResponse{LineLogin: s.app.LoginOptions.Handle().Line}), nil
}
