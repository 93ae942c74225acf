package ports

import (
	"context"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/pkg/authn"
	"bidradar/services/auth/internal/app"
	"bidradar/services/auth/internal/domain"
)

// GetMe implements authv1connect.AuthServiceHandler.
func (s *Server) GetMe(ctx context.Context, _ *connect.Request[authv1.GetMeRequest]) (*connect.Response[authv1.GetMeResponse], error) {
	c, err := authn.Require(ctx)
	if err != nil {
		return nil, err
	}
	u, err := s.app.GetUser.Handle(ctx, c.UserID)
	if err != nil {
		return nil, rpcErr(err)
	}
	return connect.NewResponse(&authv1.GetMeResponse{User: userPB(u)}), nil
}

// GetSecuritySettings implements authv1connect.AuthServiceHandler.
func (s *Server) GetSecuritySettings(ctx context.Context, _ *connect.Request[authv1.GetSecuritySettingsRequest]) (*connect.Response[authv1.GetSecuritySettingsResponse], error) {
	c, err := authn.Require(ctx)
	if err != nil {
		return nil, err
	}
	st, err := s.app.SecuritySettings.Handle(ctx, c.UserID)
	if err != nil {
		return nil, rpcErr(err)
	}
	res := &authv1.GetSecuritySettingsResponse{
		TwoStepVerification: twoStep(st.TwoStep), HasPassword: st.HasPassword, LineLinked: st.LineLinked,
	}
	if !st.PasswordChangedAt.IsZero() {
		res.PasswordChangedAt = timestamppb.New(st.PasswordChangedAt)
	}
	return connect.NewResponse(res), nil
}

// UpdateTwoStep implements authv1connect.AuthServiceHandler.
func (s *Server) UpdateTwoStep(ctx context.Context, req *connect.Request[authv1.UpdateTwoStepRequest]) (*connect.Response[authv1.UpdateTwoStepResponse], error) {
	c, err := authn.Require(ctx)
	if err != nil {
		return nil, err
	}
	if req.Msg.Enabled == nil {
		return nil, rpcErr(domain.ErrTwoStepEnabledRequired)
	}
	msg, err := s.app.UpdateTwoStep.Handle(ctx, app.UpdateTwoStep{UserID: c.UserID, Enabled: req.Msg.GetEnabled(), CurrentPassword: req.Msg.GetCurrentPassword()})
	if err != nil {
		return nil, rpcErr(err)
	}
	return connect.NewResponse(&authv1.UpdateTwoStepResponse{Message: msg, TwoStepVerification: twoStep(req.Msg.GetEnabled())}), nil
}

// UpdateProfile implements authv1connect.AuthServiceHandler.
func (s *Server) UpdateProfile(ctx context.Context, req *connect.Request[authv1.UpdateProfileRequest]) (*connect.Response[authv1.UpdateProfileResponse], error) {
	c, err := authn.Require(ctx)
	if err != nil {
		return nil, err
	}
	u, err := s.app.UpdateProfile.Handle(ctx, app.UpdateProfile{UserID: c.UserID, Name: req.Msg.GetName(), Picture: req.Msg.PictureUrl})
	if err != nil {
		return nil, rpcErr(err)
	}
	return connect.NewResponse(&authv1.UpdateProfileResponse{Message: "Profile updated", User: userPB(u)}), nil
}

// RequestAccountDeletion implements authv1connect.AuthServiceHandler.
func (s *Server) RequestAccountDeletion(ctx context.Context, _ *connect.Request[authv1.RequestAccountDeletionRequest]) (*connect.Response[authv1.RequestAccountDeletionResponse], error) {
	c, err := authn.Require(ctx)
	if err != nil {
		return nil, err
	}
	email, err := s.app.RequestDeletion.Handle(ctx, c.UserID)
	if err != nil {
		return nil, rpcErr(err)
	}
	return connect.NewResponse(&authv1.RequestAccountDeletionResponse{
		Message: "A confirmation code has been sent to your email.", Email: email, ExpiresIn: int32(domain.OTPTTL / time.Second),
	}), nil
}

// DeleteAccount implements authv1connect.AuthServiceHandler.
func (s *Server) DeleteAccount(ctx context.Context, req *connect.Request[authv1.DeleteAccountRequest]) (*connect.Response[authv1.DeleteAccountResponse], error) {
	c, err := authn.Require(ctx)
	if err != nil {
		return nil, err
	}
	msg, err := s.app.DeleteAccount.Handle(ctx, c.UserID, req.Msg.GetOtp())
	if err != nil {
		return nil, rpcErr(err)
	}
	res := connect.NewResponse(&authv1.DeleteAccountResponse{Message: msg})
	s.clearCookies(res.Header())
	return res, nil
}

// SubmitContact implements authv1connect.AuthServiceHandler.
func (s *Server) SubmitContact(ctx context.Context, req *connect.Request[authv1.SubmitContactRequest]) (*connect.Response[authv1.SubmitContactResponse], error) {
	c, err := authn.Require(ctx)
	if err != nil {
		return nil, err
	}
	msg, err := s.app.SubmitContact.Handle(ctx, c.UserID, req.Msg.GetTopic(), req.Msg.GetMessage())
	if err != nil {
		return nil, rpcErr(err)
	}
	return connect.NewResponse(&authv1.SubmitContactResponse{Message: msg}), nil
}

// RequestEmailChange implements authv1connect.AuthServiceHandler.
func (s *Server) RequestEmailChange(ctx context.Context, req *connect.Request[authv1.RequestEmailChangeRequest]) (*connect.Response[authv1.RequestEmailChangeResponse], error) {
	c, err := authn.Require(ctx)
	if err != nil {
		return nil, err
	}
	email, err := s.app.RequestEmailChange.Handle(ctx, app.RequestEmailChange{
		UserID: c.UserID, NewEmail: req.Msg.GetNewEmail(), CurrentPassword: req.Msg.GetCurrentPassword(),
	})
	if err != nil {
		return nil, rpcErr(err)
	}
	return connect.NewResponse(&authv1.RequestEmailChangeResponse{
		Message: "A verification code has been sent to the new email.", Email: email, ExpiresIn: int32(domain.OTPTTL / time.Second),
	}), nil
}

// ConfirmEmailChange implements authv1connect.AuthServiceHandler.
func (s *Server) ConfirmEmailChange(ctx context.Context, req *connect.Request[authv1.ConfirmEmailChangeRequest]) (*connect.Response[authv1.ConfirmEmailChangeResponse], error) {
	c, err := authn.Require(ctx)
	if err != nil {
		return nil, err
	}
	ctx = withDevice(ctx, req.Header())
	sess, err := s.app.ConfirmEmailChange.Handle(ctx, app.ConfirmEmailChange{
		UserID: c.UserID, NewEmail: req.Msg.GetNewEmail(), OTP: req.Msg.GetOtp(), Provider: domain.Provider(c.Provider),
	})
	if err != nil {
		return nil, rpcErr(err)
	}
	res := connect.NewResponse(&authv1.ConfirmEmailChangeResponse{
		Message: "Email changed", User: userPB(sess.User), AccessToken: sess.AccessToken, RefreshToken: sess.RefreshToken,
		TokenType: tokenType, ExpiresIn: int32(sess.ExpiresIn),
	})
	s.setSessionCookies(res.Header(), sess)
	return res, nil
}
