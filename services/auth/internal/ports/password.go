package ports

import (
	"context"

	"connectrpc.com/connect"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/pkg/authn"
	"bidradar/services/auth/internal/app"
)

// ForgotPassword implements authv1connect.AuthServiceHandler.
func (s *Server) ForgotPassword(ctx context.Context, req *connect.Request[authv1.ForgotPasswordRequest]) (*connect.Response[authv1.ForgotPasswordResponse], error) {
	exp, msg, err := s.app.ForgotPassword.Handle(ctx, app.ForgotPassword{Email: req.Msg.GetEmail()})
	if err != nil {
		return nil, rpcErr(err)
	}
	return connect.NewResponse(&authv1.ForgotPasswordResponse{Message: msg, ExpiresIn: int32(exp)}), nil
}

// ResetPassword implements authv1connect.AuthServiceHandler.
func (s *Server) ResetPassword(ctx context.Context, req *connect.Request[authv1.ResetPasswordRequest]) (*connect.Response[authv1.ResetPasswordResponse], error) {
	msg, err := s.app.ResetPassword.Handle(ctx, app.ResetPassword{
		Email: req.Msg.GetEmail(), OTP: req.Msg.GetOtp(), NewPassword: req.Msg.GetNewPassword(),
	})
	if err != nil {
		return nil, rpcErr(err)
	}
	return connect.NewResponse(&authv1.ResetPasswordResponse{Message: msg}), nil
}

// ChangePassword implements authv1connect.AuthServiceHandler.
func (s *Server) ChangePassword(ctx context.Context, req *connect.Request[authv1.ChangePasswordRequest]) (*connect.Response[authv1.ChangePasswordResponse], error) {
	c, err := authn.Require(ctx)
	if err != nil {
		return nil, err
	}
	msg, err := s.app.ChangePassword.Handle(ctx, app.ChangePassword{
		UserID: c.UserID, FamilyID: authn.FamilyID(c),
		CurrentPassword: req.Msg.GetCurrentPassword(), NewPassword: req.Msg.GetNewPassword(),
	})
	if err != nil {
		return nil, rpcErr(err)
	}
	return connect.NewResponse(&authv1.ChangePasswordResponse{Message: msg}), nil
}
