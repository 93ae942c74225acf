package authsvc_test

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/gen/auth/v1/authv1connect"
	"bidradar/pkg/authn"
	"bidradar/pkg/events"
	"bidradar/pkg/testutil/smtptest"
	"bidradar/services/auth/internal/domain"
)

// The password journey over both protocols: register, code by e-mail,
// verify, login with and without two-step, GetMe, refresh rotation, logout.
func TestPasswordJourney(t *testing.T) {
	t.Parallel()
	e := start(t)
	for _, cl := range []*client{e.connect, e.grpc} {
		t.Run(cl.name, func(t *testing.T) {
			journey(t, e, cl)
		})
	}
}

func journey(t *testing.T, e *env, cl *client) {
	email := cl.name + ".somchai@example.com"
	username := cl.name + "_somchai"
	const password = "ถนนลาดยาง 2569 ยาวพอ"

	reg, err := cl.register(t, &authv1.RegisterRequest{Username: username, Email: strings.ToUpper(email), Password: password, Name: "สมชาย ใจดี"})
	noErr(t, err)
	if reg.GetExpiresIn() != 300 || reg.GetEmail() != email || reg.GetMessage() == "" {
		t.Fatalf("register answer %+v", reg)
	}
	code, m := e.codeFor(t, email)
	for _, want := range []string{"รหัสยืนยันการสมัครสมาชิก BidRadar", "Your BidRadar verification code"} {
		if !strings.Contains(m.Subject, want) {
			t.Fatalf("subject %q lacks %q", m.Subject, want)
		}
	}
	if !strings.Contains(m.Text, "5 นาที") || !strings.Contains(m.Text, "5 minutes") || !strings.Contains(m.HTML, code) ||
		strings.Index(m.Text, "5 นาที") > strings.Index(m.Text, "5 minutes") {
		t.Fatalf("mail body (Thai first, then English, with validity):\n%s", m.Text)
	}

	// Not verified yet: 403 with 'inactive'.
	_, _, err = cl.login(t, username, password)
	wantErr(t, err, 403, "inactive")

	// Validation, wrong code, right code.
	_, _, err = cl.verifyRegistration(t, email, "12345")
	wantErr(t, err, 422, "Please enter a valid 6-digit verification code")
	_, _, err = cl.verifyRegistration(t, email, wrongCode(code))
	wantErr(t, err, 400, "Invalid verification code")
	_, _, err = cl.verifyRegistration(t, "nobody@example.com", code)
	wantErr(t, err, 400, "Invalid verification code")
	v, h, err := cl.verifyRegistration(t, email, code)
	noErr(t, err)
	if !strings.Contains(v.GetMessage(), "User verified") || v.GetAccessToken() == "" || v.GetRefreshToken() == "" ||
		!v.GetUser().GetIsActive() || v.GetUser().GetName() != "สมชาย ใจดี" {
		t.Fatalf("verify answer %+v", v)
	}
	checkSessionCookies(t, h, v.GetAccessToken(), v.GetRefreshToken())
	_, _, err = cl.verifyRegistration(t, email, code)
	wantErr(t, err, 400, "Invalid verification code") // single use

	// Login: wrong password, unknown user, then by e-mail.
	_, _, err = cl.login(t, username, "wrong password!")
	wantErr(t, err, 401, "Incorrect username or password")
	_, _, err = cl.login(t, "nobody-"+username, password)
	wantErr(t, err, 401, "Incorrect username or password")
	_, _, err = cl.login(t, "", "")
	wantErr(t, err, 422, "required")
	lr, h, err := cl.login(t, strings.ToUpper(email), password)
	noErr(t, err)
	if lr.GetTwoStepVerification() != "disabled" || lr.GetAccessToken() == "" || lr.GetTokenType() != "bearer" || lr.GetExpiresIn() != 900 {
		t.Fatalf("login answer %+v", lr)
	}
	checkSessionCookies(t, h, lr.GetAccessToken(), lr.GetRefreshToken())

	me, err := cl.me(t, bearer(lr.GetAccessToken()))
	noErr(t, err)
	u := me.GetUser()
	if u.GetEmail() != email || u.GetUsername() != username || u.GetIdUser() == "" || u.GetId() != u.GetIdUser() || u.GetTwoStepVerification() != "disabled" {
		t.Fatalf("me %+v", u)
	}
	// The access cookie alone also authenticates (as the gateway forwards it).
	_, err = cl.me(t, http.Header{"Cookie": {"access_token=" + lr.GetAccessToken()}})
	noErr(t, err)
	_, err = cl.me(t, nil)
	wantErr(t, err, 401, "Authentication required")
	_, err = cl.me(t, bearer("not.a.token"))
	wantErr(t, err, 401, "")

	// Refresh rotation: new pair; the parent within grace gets the same child;
	// the refresh_token cookie works without a body.
	r1, h, err := cl.refresh(t, nil, lr.GetRefreshToken())
	noErr(t, err)
	if r1.GetRefreshToken() == lr.GetRefreshToken() || r1.GetAccessToken() == "" {
		t.Fatalf("refresh did not rotate: %+v", r1)
	}
	checkSessionCookies(t, h, r1.GetAccessToken(), r1.GetRefreshToken())
	r1b, _, err := cl.refresh(t, nil, lr.GetRefreshToken())
	noErr(t, err)
	if r1b.GetRefreshToken() != r1.GetRefreshToken() {
		t.Fatal("grace replay returned another child")
	}
	r2, _, err := cl.refresh(t, http.Header{"Cookie": {"theme=dark; refresh_token=" + r1.GetRefreshToken()}}, "")
	noErr(t, err)
	r3, _, err := cl.refresh(t, http.Header{"Grpcgateway-Cookie": {"refresh_token=" + r2.GetRefreshToken()}}, "")
	noErr(t, err)
	_, _, err = cl.refresh(t, nil, "")
	wantErr(t, err, 401, "Refresh token is missing")
	_, _, err = cl.refresh(t, nil, "garbage")
	wantErr(t, err, 401, "Invalid refresh token")

	// Two-step: enable, then login answers without tokens and mails a code.
	ts, err := cl.updateTwoStep(t, bearer(r3.GetAccessToken()), true)
	noErr(t, err)
	if ts.GetTwoStepVerification() != "enabled" {
		t.Fatalf("two-step %+v", ts)
	}
	lr2, h, err := cl.login(t, username, password)
	noErr(t, err)
	if lr2.GetTwoStepVerification() != "enabled" || lr2.GetMessage() != "OTP sent to your email" || lr2.GetAccessToken() != "" ||
		lr2.GetRefreshToken() != "" || lr2.GetEmail() != email || len(h.Values("Set-Cookie")) != 0 {
		t.Fatalf("two-step login answer %+v", lr2)
	}
	otp, m := e.codeFor(t, email)
	if !strings.Contains(m.Subject, "รหัสเข้าสู่ระบบ") {
		t.Fatalf("login code subject %q", m.Subject)
	}
	_, _, err = cl.verifyLogin(t, email, wrongCode(otp))
	wantErr(t, err, 400, "Invalid verification code")
	vl, h, err := cl.verifyLogin(t, email, otp)
	noErr(t, err)
	if vl.GetMessage() != "Login successful." || vl.GetAccessToken() == "" {
		t.Fatalf("verify login %+v", vl)
	}
	checkSessionCookies(t, h, vl.GetAccessToken(), vl.GetRefreshToken())
	// A second login within a minute reuses the live code (no 429).
	_, _, err = cl.login(t, username, password)
	noErr(t, err)
	_, err = cl.resendLogin(t, email)
	wantErr(t, err, 429, "Please wait")

	// Logout with the cookie: cookies cleared, the family is dead.
	lo, h, err := cl.logout(t, http.Header{"Cookie": {"refresh_token=" + vl.GetRefreshToken()}}, "")
	noErr(t, err)
	if lo.GetMessage() != "Logged out successfully." {
		t.Fatalf("logout %+v", lo)
	}
	for _, name := range []string{"access_token", "refresh_token"} {
		c := cookies(h)[name]
		if c == nil || c.MaxAge >= 0 || c.Value != "" {
			t.Fatalf("logout cookie %s = %+v", name, c)
		}
		if !strings.Contains(strings.Join(h.Values("Set-Cookie"), ";"), name+"=; Path=/; Max-Age=0") {
			t.Fatalf("Set-Cookie %q", h.Values("Set-Cookie"))
		}
	}
	_, _, err = cl.refresh(t, nil, vl.GetRefreshToken())
	wantErr(t, err, 401, "")
	_, _, err = cl.logout(t, nil, "")
	noErr(t, err) // idempotent

	// A taken username is 409 (it says nothing about e-mails).
	_, err = cl.register(t, &authv1.RegisterRequest{Username: strings.ToUpper(username), Email: "other." + email, Password: password})
	wantErr(t, err, 409, "Username already taken")
	_, err = cl.register(t, &authv1.RegisterRequest{Username: "x", Email: "bad", Password: "short"})
	wantErr(t, err, 422, "Username")
	_, err = cl.register(t, &authv1.RegisterRequest{Username: "fresh_" + cl.name, Email: "fresh." + email, Password: "password123"})
	wantErr(t, err, 422, "too common")
}

func wrongCode(code string) string {
	if code == "000000" {
		return "111111"
	}
	return "000000"
}

func checkSessionCookies(t *testing.T, h http.Header, access, refresh string) {
	t.Helper()
	// The access cookie on every path; the refresh cookie once per path that
	// reads it, and never on "/".
	byPath := map[string]*http.Cookie{}
	for _, line := range h.Values("Set-Cookie") {
		c, err := http.ParseSetCookie(line)
		if err != nil {
			t.Fatalf("Set-Cookie %q: %v", line, err)
		}
		byPath[c.Name+" "+c.Path] = c
	}
	check := func(name, path, want string) {
		t.Helper()
		c := byPath[name+" "+path]
		if c == nil || c.Value != want || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.MaxAge != 604800 || c.Secure {
			t.Fatalf("cookie %s on %s = %+v (headers %q)", name, path, c, h.Values("Set-Cookie"))
		}
	}
	check("access_token", "/", access)
	for _, p := range []string{"/app/backend/api/v1/refresh-token", "/app/backend/api/v1/logout", "/auth.v1.AuthService/RefreshToken"} {
		check("refresh_token", p, refresh)
	}
	if c := byPath["refresh_token /"]; c != nil {
		t.Fatalf("a refresh cookie for every path: %+v", c)
	}
}

// Register answers the same for a new e-mail, an inactive account's and an
// active account's; the active owner gets a notice without a code.
func TestRegisterDoesNotEnumerate(t *testing.T) {
	t.Parallel()
	e := start(t)
	cl := e.connect
	e.registerVerified(t, cl, "owner", "owner@example.com", "owner password")
	_, err := cl.register(t, &authv1.RegisterRequest{Username: "pending", Email: "pending@example.com", Password: "pending password"})
	noErr(t, err)
	first, _ := e.codeFor(t, "pending@example.com")
	e.clock.Advance(61 * time.Second)

	answers := map[string]*authv1.RegisterResponse{}
	for _, email := range []string{"owner@example.com", "pending@example.com", "new@example.com"} {
		res, err := cl.register(t, &authv1.RegisterRequest{Username: "u_" + strings.Split(email, "@")[0], Email: email, Password: "an attacker's pass"})
		noErr(t, err)
		answers[email] = res
	}
	for email, res := range answers {
		if res.GetMessage() != answers["new@example.com"].GetMessage() || res.GetExpiresIn() != 300 || res.GetEmail() != email {
			t.Fatalf("answer for %s: %+v", email, res)
		}
	}
	m, err2 := e.smtp.WaitFor("owner@example.com", 5*time.Second)
	if err2 != nil {
		t.Fatal(err2)
	}
	if smtpCode(m.Text) != "" || !strings.Contains(m.Text, "already has an account") || !strings.Contains(m.Text, "มีบัญชีอยู่แล้ว") {
		t.Fatalf("notice mail %q", m.Text)
	}
	// The pending account gets a fresh code, but keeps its own password:
	// an unproven e-mail must not let anyone replace it.
	second, _ := e.codeFor(t, "pending@example.com")
	_, _, err = cl.verifyRegistration(t, "pending@example.com", first)
	if err == nil && first != second {
		t.Fatal("the first code survived the resend")
	}
	_, _, err = cl.verifyRegistration(t, "pending@example.com", second)
	noErr(t, err)
	_, _, err = cl.login(t, "pending", "an attacker's pass")
	wantErr(t, err, 401, "Incorrect username or password")
	_, _, err = cl.login(t, "pending", "pending password")
	noErr(t, err)
	_, _ = e.codeFor(t, "new@example.com")
	// Repeated attempts within a minute are answered alike, without a 429.
	res, err := cl.register(t, &authv1.RegisterRequest{Username: "u_owner2", Email: "owner@example.com", Password: "an attacker's pass"})
	noErr(t, err)
	if res.GetMessage() != answers["new@example.com"].GetMessage() {
		t.Fatal("throttled answer differs")
	}
	e.noMailFor(t, "owner@example.com")
}

func TestEventsArriveOnNATS(t *testing.T) {
	t.Parallel()
	e := start(t)
	v := e.registerVerified(t, e.connect, "eventful", "events@example.com", "events are published")
	nc, err := nats.Connect(e.natsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cons, err := js.OrderedConsumer(ctx, "AUTH", jetstream.OrderedConsumerConfig{FilterSubjects: []string{"auth.v1.>"}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]jetstream.Msg{}
	for len(got) < 2 {
		msg, err := cons.Next(jetstream.FetchMaxWait(5 * time.Second))
		if err != nil {
			t.Fatalf("waiting for events (got %d): %v", len(got), err)
		}
		got[msg.Subject()] = msg
	}
	registered, _ := events.SubjectOf(&authv1.UserRegistered{})
	verified, _ := events.SubjectOf(&authv1.UserVerified{})
	var reg authv1.UserRegistered
	if err := proto.Unmarshal(got[registered].Data(), &reg); err != nil {
		t.Fatal(err)
	}
	if reg.GetUserId() != v.GetUser().GetId() || reg.GetEmail() != "events@example.com" || reg.GetUsername() != "eventful" || reg.GetEventId() == "" {
		t.Fatalf("registered %+v", &reg)
	}
	if got[registered].Headers().Get("Nats-Msg-Id") != reg.GetEventId() {
		t.Fatal("Nats-Msg-Id is not the event id")
	}
	var ver authv1.UserVerified
	if err := proto.Unmarshal(got[verified].Data(), &ver); err != nil {
		t.Fatal(err)
	}
	if ver.GetUserId() != v.GetUser().GetId() || ver.GetOccurredAt() == nil {
		t.Fatalf("verified %+v", &ver)
	}
}

func TestForgotResetAndChangePassword(t *testing.T) {
	t.Parallel()
	e := start(t)
	cl := e.connect
	v := e.registerVerified(t, cl, "forgetful", "forget@example.com", "original password")
	other, _, err := cl.login(t, "forgetful", "original password")
	noErr(t, err)

	forgot := func(email string) *authv1.ForgotPasswordResponse {
		res, _, err := do(t, cl, nil, &authv1.ForgotPasswordRequest{Email: email},
			authv1connect.AuthServiceClient.ForgotPassword, authv1.AuthServiceClient.ForgotPassword)
		noErr(t, err)
		return res
	}
	reset := func(email, otp, pw string) (*authv1.ResetPasswordResponse, *rpcErr) {
		res, _, err := do(t, cl, nil, &authv1.ResetPasswordRequest{Email: email, Otp: otp, NewPassword: pw},
			authv1connect.AuthServiceClient.ResetPassword, authv1.AuthServiceClient.ResetPassword)
		return res, err
	}
	unknown, known := forgot("ghost@example.com"), forgot("forget@example.com")
	if unknown.GetMessage() != known.GetMessage() || unknown.GetExpiresIn() != known.GetExpiresIn() {
		t.Fatalf("forgot answers differ: %+v vs %+v", unknown, known)
	}
	e.noMailFor(t, "ghost@example.com")
	code, m := e.codeFor(t, "forget@example.com")
	if !strings.Contains(m.Subject, "password reset") {
		t.Fatalf("subject %q", m.Subject)
	}
	_, err = reset("forget@example.com", code, "short")
	wantErr(t, err, 422, "at least 8")
	_, err = reset("forget@example.com", "abc", "a new long password")
	wantErr(t, err, 422, "6-digit")
	res, err := reset("forget@example.com", code, "a new long password")
	noErr(t, err)
	if res.GetMessage() != "Password reset successfully" {
		t.Fatalf("reset %+v", res)
	}
	// Every session is revoked; the old password is gone.
	for _, tok := range []string{v.GetRefreshToken(), other.GetRefreshToken()} {
		_, _, err = cl.refresh(t, nil, tok)
		wantErr(t, err, 401, "")
	}
	_, _, err = cl.login(t, "forgetful", "original password")
	wantErr(t, err, 401, "Incorrect username or password")
	a, _, err := cl.login(t, "forgetful", "a new long password")
	noErr(t, err)
	b, _, err := cl.login(t, "forget@example.com", "a new long password")
	noErr(t, err)

	// Change password: wrong current → 400; success keeps this session only.
	change := func(h http.Header, cur, next string) (*authv1.ChangePasswordResponse, *rpcErr) {
		res, _, err := do(t, cl, h, &authv1.ChangePasswordRequest{CurrentPassword: cur, NewPassword: next},
			authv1connect.AuthServiceClient.ChangePassword, authv1.AuthServiceClient.ChangePassword)
		return res, err
	}
	_, err = change(bearer(a.GetAccessToken()), "not it", "third long password")
	wantErr(t, err, 400, "Current password is incorrect")
	_, err = change(nil, "a new long password", "third long password")
	wantErr(t, err, 401, "")
	_, err = change(bearer(a.GetAccessToken()), "a new long password", "third long password")
	noErr(t, err)
	_, _, err = cl.refresh(t, nil, a.GetRefreshToken())
	noErr(t, err)
	_, _, err = cl.refresh(t, nil, b.GetRefreshToken())
	wantErr(t, err, 401, "")

	sec, _, err := do(t, cl, bearer(a.GetAccessToken()), &authv1.GetSecuritySettingsRequest{},
		authv1connect.AuthServiceClient.GetSecuritySettings, authv1.AuthServiceClient.GetSecuritySettings)
	noErr(t, err)
	if !sec.GetHasPassword() || sec.GetTwoStepVerification() != "disabled" || sec.GetLineLinked() || sec.GetPasswordChangedAt() == nil {
		t.Fatalf("security settings %+v", sec)
	}
}

// Attempt limits, expiry and resend throttling over the wire, with the
// service clock moved forward.
func TestCodeLimits(t *testing.T) {
	t.Parallel()
	e := start(t)
	cl := e.grpc
	_, err := cl.register(t, &authv1.RegisterRequest{Username: "limited", Email: "limits@example.com", Password: "limits are good"})
	noErr(t, err)
	code, _ := e.codeFor(t, "limits@example.com")

	// Resend too soon: 429 with a retry hint.
	_, err = cl.resendRegistration(t, "limits@example.com")
	wantErr(t, err, 429, "Please wait")
	if err.Meta.Get("Retry-After") == "" {
		t.Fatalf("no Retry-After in %v", err.Meta)
	}

	// Fifty concurrent wrong codes: five evaluated, the rest 429, and the
	// code is dead even for the right value.
	var wg sync.WaitGroup
	var mu sync.Mutex
	counts := map[int]int{}
	for range 50 {
		wg.Go(func() {
			_, _, err := cl.verifyRegistration(t, "limits@example.com", wrongCode(code))
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				counts[200]++
				return
			}
			counts[err.HTTP]++
		})
	}
	wg.Wait()
	if counts[400] != 5 || counts[429] != 45 {
		t.Fatalf("statuses %v: want 5×400 and 45×429", counts)
	}
	_, _, err = cl.verifyRegistration(t, "limits@example.com", code)
	wantErr(t, err, 429, "Too many attempts. Please request a new code.")

	// A resend after a minute gives a fresh code; it expires after 300 s.
	e.clock.Advance(61 * time.Second)
	res, err := cl.resendRegistration(t, "limits@example.com")
	noErr(t, err)
	if res.GetExpiresIn() != 300 {
		t.Fatalf("resend %+v", res)
	}
	code2, _ := e.codeFor(t, "limits@example.com")
	e.clock.Advance(301 * time.Second)
	_, _, err = cl.verifyRegistration(t, "limits@example.com", code2)
	wantErr(t, err, 400, "OTP has expired. Please request a new one.")

	// Resends for unknown and active e-mails answer the same, without mail.
	unknown, err := cl.resendRegistration(t, "nobody@example.com")
	noErr(t, err)
	if unknown.GetMessage() != res.GetMessage() {
		t.Fatal("resend answers differ")
	}
	e.noMailFor(t, "nobody@example.com")

	// Five sends per hour (2 so far): the fifth passes, the sixth is refused.
	for range 3 {
		e.clock.Advance(61 * time.Second)
		_, err = cl.resendRegistration(t, "limits@example.com")
		noErr(t, err)
		_, _ = e.codeFor(t, "limits@example.com")
	}
	e.clock.Advance(61 * time.Second)
	_, err = cl.resendRegistration(t, "limits@example.com")
	wantErr(t, err, 429, "Too many codes requested. Please try again in")
}

func TestLoginShedsWhenPoolIsFull(t *testing.T) {
	t.Parallel()
	e := start(t, func(vars map[string]string) {
		vars["LOGIN_CONCURRENCY"], vars["LOGIN_QUEUE"] = "1", "1"
		vars["AUTH_ARGON2_MEMORY_KIB"], vars["AUTH_ARGON2_ITERATIONS"] = "8192", "4"
	})
	var wg sync.WaitGroup
	var mu sync.Mutex
	counts := map[int]int{}
	for i := range 16 {
		wg.Go(func() {
			// Sixteen accounts: the per-account limit stays out of the way.
			_, _, err := e.connect.login(t, fmt.Sprintf("nobody%d", i), "some password")
			mu.Lock()
			defer mu.Unlock()
			counts[err.HTTP]++
			if err.HTTP == 429 && err.Msg != "Too many login attempts. Please try again shortly." {
				t.Errorf("429 detail %q", err.Msg)
			}
		})
	}
	wg.Wait()
	if counts[429] == 0 || counts[401] == 0 || counts[429]+counts[401] != 16 {
		t.Fatalf("statuses %v: want both 401 and 429", counts)
	}
}

// Ten wrong passwords per account, then a delay that doubles (capped at a
// minute): the owner is slowed, never locked out; checking and counting are
// one step, so fifty concurrent guesses get ten evaluations. The clock
// stands still but for the test's steps: however long the fifty take on a
// busy machine, none of them outlasts the first one-second delay.
func TestLoginLimitPerAccount(t *testing.T) {
	t.Parallel()
	e := start(t)
	e.clock.Freeze()
	cl := e.connect
	e.registerVerified(t, cl, "target", "target@example.com", "the right password")
	var wg sync.WaitGroup
	var mu sync.Mutex
	counts := map[int]int{}
	for range 50 {
		wg.Go(func() {
			_, _, err := cl.login(t, "target", "wrong password")
			mu.Lock()
			counts[err.HTTP]++
			mu.Unlock()
			if err.HTTP == 429 && err.Meta.Get("Retry-After") == "" {
				t.Error("429 without Retry-After")
			}
		})
	}
	wg.Wait()
	if counts[401] != 10 || counts[429] != 40 {
		t.Fatalf("50 concurrent wrong passwords: %v, want 10×401 and 40×429", counts)
	}
	// The e-mail names the same account; the right password waits too.
	_, _, err := cl.login(t, "target@example.com", "the right password")
	wantErr(t, err, 429, "Too many failed login attempts")
	// After the delay, one more guess is evaluated and the delay doubles.
	e.clock.Advance(1100 * time.Millisecond)
	_, _, err = cl.login(t, "target", "wrong again")
	wantErr(t, err, 401, "")
	_, _, err = cl.login(t, "target", "the right password")
	wantErr(t, err, 429, "in 2 seconds")
	// However many guesses, the owner waits at most a minute.
	for range 20 {
		e.clock.Advance(domain.AccountMaxDelay)
		_, _, _ = cl.login(t, "target", "still guessing")
	}
	e.clock.Advance(domain.AccountMaxDelay)
	if _, _, err := cl.login(t, "target", "the right password"); err != nil {
		t.Fatalf("owner after a minute: %v", err)
	}
	// A success forgets the failures.
	for range 9 {
		_, _, err = cl.login(t, "target", "wrong")
		wantErr(t, err, 401, "")
	}
	// Other accounts are not affected by any of this.
	e.registerVerified(t, cl, "bystander", "bystander@example.com", "another password")
	if _, _, err := cl.login(t, "bystander", "another password"); err != nil {
		t.Fatalf("bystander: %v", err)
	}
}

func TestUsersAndKeys(t *testing.T) {
	t.Parallel()
	e := start(t)
	cl := e.connect
	a := e.registerVerified(t, cl, "alice", "alice@example.com", "alice password")
	b := e.registerVerified(t, cl, "bob", "bob@example.com", "bob's password")

	getUser := func(h http.Header, id string) (*authv1.GetUserResponse, *rpcErr) {
		res, _, err := do(t, e.grpc, h, &authv1.GetUserRequest{UserId: id},
			authv1connect.AuthServiceClient.GetUser, authv1.AuthServiceClient.GetUser)
		return res, err
	}
	// GetUser is internal: a service token, and nothing else, lets a call in.
	_, err := getUser(bearer(a.GetAccessToken()), a.GetUser().GetId())
	wantErr(t, err, 401, "")
	_, err = getUser(nil, b.GetUser().GetId())
	wantErr(t, err, 401, "")
	_, err = getUser(http.Header{authn.ServiceTokenHeader: {a.GetAccessToken()}}, b.GetUser().GetId())
	wantErr(t, err, 401, "") // a user's access token is no service token
	other, _ := authn.NewServiceKey([]byte("another-key-another-key-another-k"))
	forged, _ := other.Sign("notification", authv1connect.AuthServiceName, time.Now())
	_, err = getUser(http.Header{authn.ServiceTokenHeader: {forged}}, b.GetUser().GetId())
	wantErr(t, err, 401, "")
	elsewhere, _ := serviceKey.Sign("notification", "projects.v1.ProjectsService", time.Now())
	_, err = getUser(http.Header{authn.ServiceTokenHeader: {elsewhere}}, b.GetUser().GetId())
	wantErr(t, err, 401, "") // addressed to another service
	stale, _ := serviceKey.Sign("notification", authv1connect.AuthServiceName, time.Now().Add(-2*time.Minute))
	_, err = getUser(http.Header{authn.ServiceTokenHeader: {stale}}, b.GetUser().GetId())
	wantErr(t, err, 401, "")
	got, err := getUser(asService(t, "notification"), b.GetUser().GetId())
	noErr(t, err)
	if got.GetUser().GetUsername() != "bob" {
		t.Fatalf("internal %+v", got)
	}
	_, err = getUser(asService(t, "notification"), "00000000-0000-7000-8000-000000000000")
	wantErr(t, err, 404, "User not found")
	_, err = getUser(asService(t, "notification"), "'; DROP TABLE users; --")
	wantErr(t, err, 422, "user_id")

	// The published key verifies the access tokens.
	_, _, err = do(t, cl, nil, &authv1.GetPublicKeysRequest{},
		authv1connect.AuthServiceClient.GetPublicKeys, authv1.AuthServiceClient.GetPublicKeys)
	wantErr(t, err, 401, "")
	keys, _, err := do(t, cl, asService(t, "projects"), &authv1.GetPublicKeysRequest{},
		authv1connect.AuthServiceClient.GetPublicKeys, authv1.AuthServiceClient.GetPublicKeys)
	noErr(t, err)
	if len(keys.GetKeys()) != 1 {
		t.Fatalf("keys %+v", keys)
	}
	raw, _ := base64.StdEncoding.DecodeString(keys.GetKeys()[0].GetPublicKey())
	ver := authn.NewVerifier(authn.StaticKeys{keys.GetKeys()[0].GetKid(): ed25519.PublicKey(raw)})
	claims, verr := ver.Verify(a.GetAccessToken(), time.Now())
	if verr != nil || claims.UserID != a.GetUser().GetId() || claims.Provider != "password" || claims.ExpiresAt.Sub(claims.IssuedAt) != 15*time.Minute {
		t.Fatalf("claims %+v %v", claims, verr)
	}

	// A deleted user: GetMe answers 404 'User not found'.
	deleteUser(t, e, b.GetUser().GetId())
	_, err = cl.me(t, bearer(b.GetAccessToken()))
	wantErr(t, err, 404, "User not found")
}

// At most 30 wrong codes per account and purpose a day: after six dead
// codes even a right one is refused until the day has passed.
func TestDailyFailureCap(t *testing.T) {
	t.Parallel()
	e := start(t)
	cl := e.connect
	email := "unlucky@example.com"
	_, err := cl.register(t, &authv1.RegisterRequest{Username: "unlucky", Email: email, Password: "unlucky password"})
	noErr(t, err)
	code, _ := e.codeFor(t, email)
	for i := range 7 {
		if i > 0 {
			e.clock.Advance(13 * time.Minute)
			_, err := cl.resendRegistration(t, email)
			noErr(t, err)
			code, _ = e.codeFor(t, email)
		}
		if i == 6 {
			break
		}
		for range 5 {
			_, _, err := cl.verifyRegistration(t, email, wrongCode(code))
			wantErr(t, err, 400, "Invalid verification code")
		}
	}
	_, _, err = cl.verifyRegistration(t, email, code)
	wantErr(t, err, 429, "Too many failed attempts today")
	e.clock.Advance(24 * time.Hour)
	_, err = cl.resendRegistration(t, email)
	noErr(t, err)
	code, _ = e.codeFor(t, email)
	// A day later the account can be verified (the access token is not
	// checked here: the service clock is a day ahead of the verifier's).
	v, _, err := cl.verifyRegistration(t, email, code)
	noErr(t, err)
	if !v.GetUser().GetIsActive() {
		t.Fatal("not activated")
	}
}

// Mail leaves the request path (issue 12): with a mail server that takes
// 300 ms per message, forgot-password answers as fast for an account's
// e-mail as for an unknown one (before, known took the 300 ms), and the
// code still arrives.
func TestMailTimingRevealsNoAccount(t *testing.T) {
	// Not parallel: a timing comparison wants the package's other tests idle.
	slow := smtptest.Start(t, smtptest.WithDelay(300*time.Millisecond))
	e := start(t, func(vars map[string]string) {
		vars["SMTP_HOST"], vars["SMTP_PORT"] = slow.Host(), strconv.Itoa(slow.Port())
	})
	e.smtp = slow
	cl := e.connect
	const n = 40
	for i := range n {
		_, err := cl.register(t, &authv1.RegisterRequest{Username: fmt.Sprintf("known%d", i), Email: fmt.Sprintf("known%d@example.com", i), Password: "a long password"})
		noErr(t, err)
	}
	forgot := func(email string) time.Duration {
		start := time.Now()
		_, _, err := do(t, cl, nil, &authv1.ForgotPasswordRequest{Email: email},
			authv1connect.AuthServiceClient.ForgotPassword, authv1.AuthServiceClient.ForgotPassword)
		noErr(t, err)
		return time.Since(start)
	}
	var known, unknown []time.Duration
	for i := range n { // interleaved, so that load affects both alike
		known = append(known, forgot(fmt.Sprintf("known%d@example.com", i)))
		unknown = append(unknown, forgot(fmt.Sprintf("nobody%d@example.com", i)))
	}
	median := func(ds []time.Duration) time.Duration {
		s := append([]time.Duration(nil), ds...)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		return s[len(s)/2]
	}
	mk, mu := median(known), median(unknown)
	t.Logf("forgot-password medians: known %v, unknown %v", mk, mu)
	if d := mk - mu; d > 10*time.Millisecond || d < -10*time.Millisecond {
		t.Fatalf("known %v vs unknown %v: timing tells accounts apart", mk, mu)
	}
	// The mail is still sent, by the worker.
	if _, err := slow.WaitFor("known0@example.com", 30*time.Second); err != nil {
		t.Fatalf("no mail: %v", err)
	}
}

// Weakening the account needs the current password, and every sensitive
// change is told to the owner by mail (issue 12: two-step was turned off
// with an empty body, and nobody was told).
func TestSensitiveChangesNeedThePasswordAndNotifyTheOwner(t *testing.T) {
	t.Parallel()
	e := start(t)
	cl := e.connect
	reg := e.registerVerified(t, cl, "careful", "careful@example.com", "the current password")
	tok := bearer(reg.GetAccessToken())
	notice := func(subject string) {
		t.Helper()
		m, err := e.smtp.WaitFor("careful@example.com", 10*time.Second)
		if err != nil || !strings.Contains(m.Subject, subject) {
			t.Fatalf("notice %q: %v %q", subject, err, m.Subject)
		}
	}
	_, err := cl.updateTwoStep(t, tok, true)
	noErr(t, err)
	notice("เปิดการยืนยันตัวตนสองขั้นตอน")

	// An empty body is not "off".
	_, _, err = do(t, cl, tok, &authv1.UpdateTwoStepRequest{}, authv1connect.AuthServiceClient.UpdateTwoStep, authv1.AuthServiceClient.UpdateTwoStep)
	wantErr(t, err, 422, "enabled is required")
	_, err = cl.updateTwoStep(t, tok, false)
	wantErr(t, err, 400, "Current password is incorrect")
	_, err = cl.updateTwoStep(t, tok, false, "a wrong password")
	wantErr(t, err, 400, "Current password is incorrect")
	sec, _, err := do(t, cl, tok, &authv1.GetSecuritySettingsRequest{},
		authv1connect.AuthServiceClient.GetSecuritySettings, authv1.AuthServiceClient.GetSecuritySettings)
	noErr(t, err)
	if sec.GetTwoStepVerification() != "enabled" {
		t.Fatal("two-step turned off without the password")
	}
	_, err = cl.updateTwoStep(t, tok, false, "the current password")
	noErr(t, err)
	notice("ปิดการยืนยันตัวตนสองขั้นตอน")

	_, _, err = do(t, cl, tok, &authv1.ChangePasswordRequest{CurrentPassword: "the current password", NewPassword: "a brand new password"},
		authv1connect.AuthServiceClient.ChangePassword, authv1.AuthServiceClient.ChangePassword)
	noErr(t, err)
	notice("รหัสผ่าน BidRadar ของคุณถูกเปลี่ยน")
}
