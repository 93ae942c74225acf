package ports

import (
	"context"

	"connectrpc.com/connect"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/services/auth/internal/app"
)

// Register implements authv1connect.AuthServiceHandler.
func (s *Server) Register(ctx context.Context, req *connect.Request[authv1.RegisterRequest]) (*connect.Response[authv1.RegisterResponse], error) {
	r, err := s.app.Register.Handle(ctx, app.Register{
		Username: req.Msg.GetUsername(), Email: req.Msg.GetEmail(), Password: req.Msg.GetPassword(), Name: req.Msg.GetName(),
	})
	if err != nil {
		return nil, rpcErr(err)
	}
	return connect.NewResponse(&authv1.RegisterResponse{Message: r.Message, Email: r.Email, ExpiresIn: int32(r.ExpiresIn)}), nil
}

// VerifyRegistration implements authv1connect.AuthServiceHandler.
func (s *Server) VerifyRegistration(ctx context.Context, req *connect.Request[authv1.VerifyRegistrationRequest]) (*connect.Response[authv1.VerifyRegistrationResponse], error) {
	ctx = withDevice(ctx, req.Header())
	sess, err := s.app.VerifyRegistration.Handle(ctx, app.VerifyRegistration{Email: req.Msg.GetEmail(), OTP: req.Msg.GetOtp()})
	if err != nil {
		return nil, rpcErr(err)
	}
	res := connect.NewResponse(&authv1.VerifyRegistrationResponse{
		Message: app.VerifyRegistrationMessage, AccessToken: sess.AccessToken, RefreshToken: sess.RefreshToken,
		TokenType: tokenType, ExpiresIn: int32(sess.ExpiresIn), User: userPB(sess.User),
	})
	s.setSessionCookies(res.Header(), sess)
	return res, nil
}

// ResendRegistrationOtp implements authv1connect.AuthServiceHandler.
func (s *Server) ResendRegistrationOtp(ctx context.Context, req *connect.Request[authv1.ResendRegistrationOtpRequest]) (*connect.Response[authv1.ResendRegistrationOtpResponse], error) {
	exp, msg, err := s.app.ResendRegistrationOTP.Handle(ctx, app.ResendRegistrationOTP{Email: req.Msg.GetEmail()})
	if err != nil {
		return nil, rpcErr(err)
	}
	return connect.NewResponse(&authv1.ResendRegistrationOtpResponse{Message: msg, ExpiresIn: int32(exp)}), nil
}
