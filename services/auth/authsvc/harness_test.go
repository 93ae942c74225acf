package authsvc_test

import (
	"context"
	"encoding/base64"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/jackc/pgx/v5"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/gen/auth/v1/authv1connect"
	"bidradar/pkg/authn"
	"bidradar/pkg/mail"
	"bidradar/pkg/runner"
	"bidradar/pkg/testutil/natstest"
	"bidradar/pkg/testutil/pgtest"
	"bidradar/pkg/testutil/smtptest"
	"bidradar/services/auth/authsvc"
	"bidradar/services/auth/linetest"
)

// clock is the service's clock: real time plus an offset tests advance,
// or, once frozen, a time that moves only when a test advances it.
type clock struct {
	off    atomic.Int64
	frozen atomic.Int64 // Unix nanoseconds; 0: real time
}

func (c *clock) Now() time.Time {
	if at := c.frozen.Load(); at != 0 {
		return time.Unix(0, at+c.off.Load())
	}
	return time.Now().Add(time.Duration(c.off.Load()))
}

func (c *clock) Advance(d time.Duration) { c.off.Add(int64(d)) }

// Freeze stops the clock at an hour from now, for tests whose outcome
// depends on how much time passes (a busy machine must not move it). It
// stays ahead of the database's clock, which dates queued mail: mail is
// sent when due by the service clock.
func (c *clock) Freeze() {
	c.frozen.Store(time.Now().Add(time.Hour).UnixNano())
	c.off.Store(0)
}

// env is one running auth service with its real dependencies.
type env struct {
	addr    string
	natsURL string
	db      string // the service's DATABASE_URL
	smtp    *smtptest.Server
	line    *linetest.Fake
	clock   *clock
	connect *client
	grpc    *client
}

const (
	lineChannel  = "1653000000"
	lineSecret   = "test-line-channel-secret"
	lineRedirect = "http://127.0.0.1:8080/auth/line/callback"
)

// serviceKey is the tests' SERVICE_TOKEN_KEY.
const serviceKeyText = "service-token-key-of-the-tests-32b"

var serviceKey, _ = authn.NewServiceKey([]byte(serviceKeyText))

// asService is the header of another service's call to auth (an internal RPC).
func asService(t testing.TB, caller string) http.Header {
	t.Helper()
	tok, err := serviceKey.Sign(caller, authv1connect.AuthServiceName, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return http.Header{authn.ServiceTokenHeader: {tok}}
}

// start runs the service as the runner does, configured through its
// environment (edit changes it) with the test clock.
func start(t testing.TB, edit ...func(vars map[string]string)) *env {
	t.Helper()
	e := &env{
		natsURL: natstest.Start(t),
		db:      pgtest.NewDatabase(t),
		smtp:    smtptest.Start(t),
		line:    linetest.Start(t, lineChannel, lineSecret, lineRedirect),
		clock:   &clock{},
	}
	vars := map[string]string{
		"DATABASE_URL": e.db,
		"NATS_URL":     e.natsURL,
		"APP_ENV":      "development",
		"SMTP_HOST":    e.smtp.Host(), "SMTP_PORT": strconv.Itoa(e.smtp.Port()), "SMTP_TLS": mail.TLSNone,
		"MAIL_FROM":       "BidRadar <no-reply@bidradar.test>",
		"LINE_CHANNEL_ID": lineChannel, "LINE_CHANNEL_SECRET": lineSecret, "LINE_REDIRECT_URI": lineRedirect,
		"LINE_AUTHORIZE_URL": e.line.AuthorizeURL(), "LINE_TOKEN_URL": e.line.TokenURL(), "LINE_PROFILE_URL": e.line.ProfileURL(),
		"SERVICE_TOKEN_KEY": base64.StdEncoding.EncodeToString([]byte(serviceKeyText)),
		"LOGIN_CONCURRENCY": "4",
		// Cheap hashing for tests; production uses m=19 MiB, t=2.
		"AUTH_ARGON2_MEMORY_KIB": "64", "AUTH_ARGON2_ITERATIONS": "1", "AUTH_ARGON2_THREADS": "1",
	}
	for _, f := range edit {
		f(vars)
	}
	log := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	e.addr, _ = run(t, authsvc.NewSpec(authsvc.Options{Now: e.clock.Now}), vars, log)

	e.connect = &client{name: "connect", c: authv1connect.NewAuthServiceClient(http.DefaultClient, "http://"+e.addr)}
	cc, err := grpc.NewClient(e.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cc.Close() })
	e.grpc = &client{name: "grpc", g: authv1.NewAuthServiceClient(cc)}
	return e
}

// run builds spec from vars and serves it on a loopback port until stop
// or the test's end; it returns once /readyz answers 200.
func run(t testing.TB, spec runner.Spec, vars map[string]string, log *slog.Logger) (addr string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	comp, err := spec.Build(ctx, func(k string) string { return vars[k] }, log)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- comp.Run(ctx, ln) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	// The listener is bound: the request waits for Run to serve it.
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get("http://" + ln.Addr().String() + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/readyz answered %d", resp.StatusCode)
	}
	return ln.Addr().String(), stop
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// client calls AuthService over Connect (c) or over gRPC with grpc-go (g).
type client struct {
	name string
	c    authv1connect.AuthServiceClient
	g    authv1.AuthServiceClient
}

// rpcErr is a failed call as the gateway would see it.
type rpcErr struct {
	HTTP int    // x-http-code
	Msg  string // the REST "detail"
	Meta http.Header
}

func (e *rpcErr) Error() string { return strconv.Itoa(e.HTTP) + " " + e.Msg }

// do calls one RPC with request headers h over the client's protocol and
// returns the response, its headers and a normalised error.
func do[Req, Res any](t *testing.T, cl *client, h http.Header, req *Req,
	cf func(authv1connect.AuthServiceClient, context.Context, *connect.Request[Req]) (*connect.Response[Res], error),
	gf func(authv1.AuthServiceClient, context.Context, *Req, ...grpc.CallOption) (*Res, error),
) (*Res, http.Header, *rpcErr) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if cl.c != nil {
		r := connect.NewRequest(req)
		for k, vs := range h {
			for _, v := range vs {
				r.Header().Add(k, v)
			}
		}
		res, err := cf(cl.c, ctx, r)
		if err != nil {
			var ce *connect.Error
			if !errors.As(err, &ce) {
				t.Fatalf("connect call: %v", err)
			}
			code, _ := strconv.Atoi(ce.Meta().Get("x-http-code"))
			return nil, nil, &rpcErr{HTTP: code, Msg: ce.Message(), Meta: ce.Meta()}
		}
		return res.Msg, res.Header(), nil
	}
	md := metadata.MD{}
	for k, vs := range h {
		md.Append(strings.ToLower(k), vs...)
	}
	var header, trailer metadata.MD
	res, err := gf(cl.g, metadata.NewOutgoingContext(ctx, md), req, grpc.Header(&header), grpc.Trailer(&trailer))
	if err != nil {
		st, ok := status.FromError(err)
		if !ok {
			t.Fatalf("grpc call: %v", err)
		}
		code := 0
		if v := trailer.Get("x-http-code"); len(v) > 0 {
			code, _ = strconv.Atoi(v[0])
		}
		return nil, nil, &rpcErr{HTTP: code, Msg: st.Message(), Meta: mdHeader(trailer)}
	}
	return res, mdHeader(header), nil
}

func mdHeader(md metadata.MD) http.Header {
	h := http.Header{}
	for k, vs := range md {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	return h
}

func bearer(tok string) http.Header { return http.Header{"Authorization": {"Bearer " + tok}} }

func (cl *client) register(t *testing.T, r *authv1.RegisterRequest) (*authv1.RegisterResponse, *rpcErr) {
	res, _, err := do(t, cl, nil, r, authv1connect.AuthServiceClient.Register, authv1.AuthServiceClient.Register)
	return res, err
}

func (cl *client) verifyRegistration(t *testing.T, email, otp string) (*authv1.VerifyRegistrationResponse, http.Header, *rpcErr) {
	return do(t, cl, nil, &authv1.VerifyRegistrationRequest{Email: email, Otp: otp},
		authv1connect.AuthServiceClient.VerifyRegistration, authv1.AuthServiceClient.VerifyRegistration)
}

func (cl *client) resendRegistration(t *testing.T, email string) (*authv1.ResendRegistrationOtpResponse, *rpcErr) {
	res, _, err := do(t, cl, nil, &authv1.ResendRegistrationOtpRequest{Email: email},
		authv1connect.AuthServiceClient.ResendRegistrationOtp, authv1.AuthServiceClient.ResendRegistrationOtp)
	return res, err
}

func (cl *client) login(t *testing.T, username, password string) (*authv1.LoginResponse, http.Header, *rpcErr) {
	return do(t, cl, nil, &authv1.LoginRequest{Username: username, Password: password},
		authv1connect.AuthServiceClient.Login, authv1.AuthServiceClient.Login)
}

func (cl *client) verifyLogin(t *testing.T, email, otp string) (*authv1.VerifyLoginOtpResponse, http.Header, *rpcErr) {
	return do(t, cl, nil, &authv1.VerifyLoginOtpRequest{Email: email, Otp: otp},
		authv1connect.AuthServiceClient.VerifyLoginOtp, authv1.AuthServiceClient.VerifyLoginOtp)
}

func (cl *client) resendLogin(t *testing.T, email string) (*authv1.ResendLoginOtpResponse, *rpcErr) {
	res, _, err := do(t, cl, nil, &authv1.ResendLoginOtpRequest{Email: email},
		authv1connect.AuthServiceClient.ResendLoginOtp, authv1.AuthServiceClient.ResendLoginOtp)
	return res, err
}

func (cl *client) me(t *testing.T, h http.Header) (*authv1.GetMeResponse, *rpcErr) {
	res, _, err := do(t, cl, h, &authv1.GetMeRequest{}, authv1connect.AuthServiceClient.GetMe, authv1.AuthServiceClient.GetMe)
	return res, err
}

func (cl *client) refresh(t *testing.T, h http.Header, tok string) (*authv1.RefreshTokenResponse, http.Header, *rpcErr) {
	return do(t, cl, h, &authv1.RefreshTokenRequest{RefreshToken: tok},
		authv1connect.AuthServiceClient.RefreshToken, authv1.AuthServiceClient.RefreshToken)
}

func (cl *client) logout(t *testing.T, h http.Header, tok string) (*authv1.LogoutResponse, http.Header, *rpcErr) {
	return do(t, cl, h, &authv1.LogoutRequest{RefreshToken: tok},
		authv1connect.AuthServiceClient.Logout, authv1.AuthServiceClient.Logout)
}

func (cl *client) updateTwoStep(t *testing.T, h http.Header, on bool, currentPassword ...string) (*authv1.UpdateTwoStepResponse, *rpcErr) {
	req := &authv1.UpdateTwoStepRequest{Enabled: &on}
	if len(currentPassword) > 0 {
		req.CurrentPassword = currentPassword[0]
	}
	res, _, err := do(t, cl, h, req,
		authv1connect.AuthServiceClient.UpdateTwoStep, authv1.AuthServiceClient.UpdateTwoStep)
	return res, err
}

// wantErr fails unless err has the HTTP status and a detail containing msg.
func wantErr(t *testing.T, err *rpcErr, status int, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %d %q", status, msg)
	}
	if err.HTTP != status || !strings.Contains(err.Msg, msg) {
		t.Fatalf("error %d %q, want %d containing %q", err.HTTP, err.Msg, status, msg)
	}
}

func noErr(t *testing.T, err *rpcErr) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

// codeFor waits for the next mail to addr and returns its 6-digit code.
// Security notices (no code) may come in between, as mail is sent after the
// answer: they are skipped.
func (e *env) codeFor(t *testing.T, addr string) (string, smtptest.Message) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		m, err := e.smtp.WaitFor(addr, time.Until(deadline))
		if err != nil {
			t.Fatal(err)
		}
		if code := smtptest.ExtractCode(m.Text); code != "" {
			return code, m
		}
	}
}

// noMailFor checks that nothing new was sent to addr: once the queue holds
// no unsent mail, whatever the calls so far queued is with the catcher.
func (e *env) noMailFor(t *testing.T, addr string) {
	t.Helper()
	e.mailSent(t)
	if m, err := e.smtp.WaitFor(addr, 0); err == nil {
		t.Fatalf("unexpected mail to %s: %q", addr, m.Subject)
	}
}

// mailSent waits until every queued mail has been sent (the tests' mail
// server accepts everything, so nothing waits for a retry).
func (e *env) mailSent(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, e.db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		var unsent int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM auth.queue_jobs WHERE kind = $1 AND done_at IS NULL AND failed_at IS NULL`, mail.JobKind).Scan(&unsent); err != nil {
			t.Fatalf("mail queue: %v", err)
		}
		if unsent == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%d mails still unsent", unsent)
		case <-tick.C:
		}
	}
}

// cookies parses Set-Cookie headers by name.
func cookies(h http.Header) map[string]*http.Cookie {
	out := map[string]*http.Cookie{}
	for _, c := range (&http.Response{Header: http.Header{"Set-Cookie": h.Values("Set-Cookie")}}).Cookies() {
		out[c.Name] = c
	}
	return out
}

// registerVerified registers and verifies an account and returns its tokens.
func (e *env) registerVerified(t *testing.T, cl *client, username, email, password string) *authv1.VerifyRegistrationResponse {
	t.Helper()
	_, err := cl.register(t, &authv1.RegisterRequest{Username: username, Email: email, Password: password})
	noErr(t, err)
	code, _ := e.codeFor(t, email)
	res, _, err := cl.verifyRegistration(t, email, code)
	noErr(t, err)
	return res
}

var smtpCode = smtptest.ExtractCode

// deleteUser removes an account behind the service's back.
func deleteUser(t *testing.T, e *env, id string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, e.db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `DELETE FROM auth.users WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
}
