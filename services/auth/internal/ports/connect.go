// Package ports serves the auth use cases over Connect, gRPC and gRPC-Web
// (one connect-go handler). Protobuf types stay here: requests are mapped
// to app commands, results to responses, and session results also set the
// access_token and refresh_token cookies through Set-Cookie headers, which
// the gateway passes on to browsers for both Connect and REST.
package ports

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/gen/auth/v1/authv1connect"
	"bidradar/pkg/access"
	"bidradar/pkg/apperr"
	"bidradar/pkg/authn"
	"bidradar/services/auth/internal/app"
	"bidradar/services/auth/internal/domain"
)

// Cookie names (SPEC §9: both live 604800 s).
const (
	AccessCookie  = "access_token"
	RefreshCookie = "refresh_token"
	tokenType     = "bearer"
)

// PublicKey is one access-token verification key.
type PublicKey struct {
	KID string
	Key ed25519.PublicKey
}

// Options configure the RPC server.
type Options struct {
	// SecureCookies adds the Secure attribute (APP_ENV=production).
	SecureCookies bool
	// PublicKeys returns the keys served by GetPublicKeys.
	PublicKeys func() []PublicKey
}

// Server implements authv1connect.AuthServiceHandler.
type Server struct {
	app  *app.App
	opts Options
}

var _ authv1connect.AuthServiceHandler = (*Server)(nil)

// NewServer returns the RPC server.
func NewServer(a *app.App, opts Options) (*Server, error) {
	if a == nil {
		return nil, errors.New("ports: nil app")
	}
	if opts.PublicKeys == nil {
		return nil, errors.New("ports: nil PublicKeys")
	}
	return &Server{app: a, opts: opts}, nil
}

// MaxRequestBytes bounds request messages: nothing of ours is larger.
const MaxRequestBytes = 64 << 10

// ---- errors ----

// rpcErr converts a use-case error; rate limits also carry Retry-After.
func rpcErr(err error) error {
	var re *domain.RetryError
	if errors.As(err, &re) {
		ce := apperr.ToConnect(err)
		ce.Meta().Set("Retry-After", strconv.Itoa(int((re.RetryAfter+time.Second-1)/time.Second)))
		return ce
	}
	return err
}

// clientIP is the caller's address as the gateway saw it: the last
// X-Forwarded-For entry (the gateway appends its peer; entries before it
// are the client's own claims), else the connection's peer.
func clientIP(h http.Header, peer string) string {
	if xff := h.Values("X-Forwarded-For"); len(xff) > 0 {
		parts := strings.Split(xff[len(xff)-1], ",")
		if ip := strings.TrimSpace(parts[len(parts)-1]); ip != "" {
			return ip
		}
	}
	if host, _, err := net.SplitHostPort(peer); err == nil {
		return host
	}
	return peer
}

// ---- cookies ----

// HostPrefix marks a cookie the browser keeps only when Secure, Path=/ and
// without Domain: no subdomain or plain-http page can plant or overwrite it
// (production only: development runs on plain http).
const HostPrefix = "__Host-"

// SecurePrefix marks a cookie the browser keeps only when Secure. The refresh
// cookie cannot be __Host- (that needs Path=/): it is scoped to the paths
// that read it instead.
const SecurePrefix = "__Secure-"

// RefreshPaths are the only paths the refresh cookie is sent to: the Connect
// and REST paths of the RPCs whose access rule says refresh_cookie
// (RefreshToken, RefreshLineToken, Logout; REST paths as
// gateway/http_rules.yaml maps them). A page load, an asset or any other
// call never carries it. Cookie paths match by prefix, so each path gets
// its own cookie of the same name.
var RefreshPaths = refreshPolicy().Paths(func(r access.Rule) bool { return r.RefreshCookie })

func refreshPolicy() access.Policy {
	p, err := access.ForService(authv1connect.AuthServiceName)
	if err != nil {
		panic("auth: access rules: " + err.Error()) // a build defect (pkg/access tests)
	}
	return p
}

// readsRefreshCookie are the procedures that read the refresh cookie: those
// whose rule says refresh_cookie, the only ones the browser sends it to.
var readsRefreshCookie = func() map[string]bool {
	out := map[string]bool{}
	for _, p := range refreshPolicy().Procedures(func(r access.Rule) bool { return r.RefreshCookie }) {
		out[p] = true
	}
	return out
}()

func (s *Server) cookie(name, path, value string, maxAge int) string {
	if s.opts.SecureCookies {
		if path == "/" {
			name = HostPrefix + name
		} else {
			name = SecurePrefix + name
		}
	}
	c := &http.Cookie{
		Name: name, Value: value, Path: path, MaxAge: maxAge,
		HttpOnly: true, Secure: s.opts.SecureCookies, SameSite: http.SameSiteLaxMode,
	}
	if maxAge == 0 {
		c.MaxAge = -1 // "Max-Age=0": delete now
	}
	return c.String()
}

func (s *Server) setSessionCookies(h http.Header, sess app.Session) {
	h.Add("Set-Cookie", s.cookie(AccessCookie, "/", sess.AccessToken, domain.CookieMaxAge))
	for _, p := range RefreshPaths {
		h.Add("Set-Cookie", s.cookie(RefreshCookie, p, sess.RefreshToken, domain.CookieMaxAge))
	}
}

// clearCookies also deletes a refresh cookie of earlier versions (Path=/).
func (s *Server) clearCookies(h http.Header) {
	h.Add("Set-Cookie", s.cookie(AccessCookie, "/", "", 0))
	for _, p := range append([]string{"/"}, RefreshPaths...) {
		h.Add("Set-Cookie", s.cookie(RefreshCookie, p, "", 0))
	}
}

// refreshFrom returns the refresh token of the body, else of the
// refresh_token cookie (Cookie, or Grpcgateway-Cookie as grpc-gateway
// forwards it) when procedure's rule says refresh_cookie: the cookie is
// scoped to those paths, so an RPC reading it without the rule would never
// get it from a browser (its tests fail here rather than in production).
// With secureOnly (production) only the prefixed cookies count: a plain
// refresh_token may have been planted by a sibling subdomain or a
// plain-http page, which cannot set a __Secure- or __Host- one.
func refreshFrom(procedure, body string, h http.Header, secureOnly bool) string {
	if t := strings.TrimSpace(body); t != "" {
		return t
	}
	if !readsRefreshCookie[procedure] {
		return ""
	}
	names := []string{SecurePrefix + RefreshCookie, HostPrefix + RefreshCookie, RefreshCookie}
	if secureOnly {
		names = names[:2]
	}
	for _, name := range []string{"Cookie", "Grpcgateway-Cookie"} {
		if lines := h.Values(name); len(lines) > 0 {
			r := http.Request{Header: http.Header{"Cookie": lines}}
			for _, n := range names {
				if c, err := r.Cookie(n); err == nil && c.Value != "" {
					return c.Value
				}
			}
		}
	}
	return ""
}

// ---- mapping ----

func twoStep(enabled bool) string {
	if enabled {
		return "enabled"
	}
	return "disabled"
}

func userPB(u domain.User) *authv1.User {
	if u.ID == "" {
		return nil
	}
	pb := &authv1.User{
		IdUser: u.ID, Id: u.ID, Name: u.Name, Username: u.Username, Email: u.Email,
		PictureUrl: u.PictureURL, LineId1: u.LineID, TwoStepVerification: twoStep(u.TwoStep), IsActive: u.Active,
	}
	if !u.CreatedAt.IsZero() {
		pb.CreatedAt = timestamppb.New(u.CreatedAt)
	}
	return pb
}

func callerID(ctx context.Context) string {
	if c, ok := authn.FromContext(ctx); ok {
		return c.UserID
	}
	return ""
}

// ---- RPCs ----

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

// GetLoginOptions implements authv1connect.AuthServiceHandler.
func (s *Server) GetLoginOptions(context.Context, *connect.Request[authv1.GetLoginOptionsRequest]) (*connect.Response[authv1.GetLoginOptionsResponse], error) {
	return connect.NewResponse(&authv1.GetLoginOptionsResponse{LineLogin: s.app.LoginOptions.Handle().Line}), nil
}

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

// GetPublicKeys implements authv1connect.AuthServiceHandler.
func (s *Server) GetPublicKeys(context.Context, *connect.Request[authv1.GetPublicKeysRequest]) (*connect.Response[authv1.GetPublicKeysResponse], error) {
	res := &authv1.GetPublicKeysResponse{}
	for _, k := range s.opts.PublicKeys() {
		res.Keys = append(res.Keys, &authv1.PublicKey{Kid: k.KID, PublicKey: base64.StdEncoding.EncodeToString(k.Key)})
	}
	return connect.NewResponse(res), nil
}

// GetUser implements authv1connect.AuthServiceHandler. It is internal:
// only other services call it (the interceptor has checked their service
// token), for any user.
func (s *Server) GetUser(ctx context.Context, req *connect.Request[authv1.GetUserRequest]) (*connect.Response[authv1.GetUserResponse], error) {
	u, err := s.app.GetUser.Handle(ctx, strings.TrimSpace(req.Msg.GetUserId()))
	if err != nil {
		return nil, rpcErr(err)
	}
	return connect.NewResponse(&authv1.GetUserResponse{User: userPB(u)}), nil
}

// withDevice passes the browser's User-Agent to a use case that may start a
// session: REST calls carry it as grpc-gateway's metadata, Connect calls as is.
func withDevice(ctx context.Context, h http.Header) context.Context {
	ua := h.Get("Grpcgateway-User-Agent")
	if ua == "" {
		ua = h.Get("User-Agent")
	}
	return app.WithDevice(ctx, ua)
}

// ---- the account's self-service ----

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
