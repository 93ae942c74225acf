package authsvc_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/gen/auth/v1/authv1connect"
	"bidradar/services/auth/linetest"
)

func (cl *client) lineAuthorize(t *testing.T, h http.Header, redirect string) (*authv1.LineAuthorizeResponse, *rpcErr) {
	res, _, err := do(t, cl, h, &authv1.LineAuthorizeRequest{RedirectTo: redirect},
		authv1connect.AuthServiceClient.LineAuthorize, authv1.AuthServiceClient.LineAuthorize)
	return res, err
}

func (cl *client) lineCallback(t *testing.T, h http.Header, req *authv1.LineCallbackRequest) (*authv1.LineCallbackResponse, http.Header, *rpcErr) {
	return do(t, cl, h, req, authv1connect.AuthServiceClient.LineCallback, authv1.AuthServiceClient.LineCallback)
}

func (cl *client) lineSendOTP(t *testing.T, link, email string) (*authv1.LineLinkSendOtpResponse, *rpcErr) {
	res, _, err := do(t, cl, nil, &authv1.LineLinkSendOtpRequest{LinkToken: link, Email: email},
		authv1connect.AuthServiceClient.LineLinkSendOtp, authv1.AuthServiceClient.LineLinkSendOtp)
	return res, err
}

func (cl *client) lineVerify(t *testing.T, link, email, otp string) (*authv1.LineLinkVerifyResponse, http.Header, *rpcErr) {
	return do(t, cl, nil, &authv1.LineLinkVerifyRequest{LinkToken: link, Email: email, Otp: otp},
		authv1connect.AuthServiceClient.LineLinkVerify, authv1.AuthServiceClient.LineLinkVerify)
}

// lineLogin runs authorize → consent on the fake → callback.
func (e *env) lineLogin(t *testing.T, cl *client, h http.Header, u linetest.User) (*authv1.LineCallbackResponse, http.Header, *rpcErr) {
	t.Helper()
	az, err := cl.lineAuthorize(t, h, "/search?keyword=ถนน")
	noErr(t, err)
	code, state, aerr := e.line.Approve(az.GetAuthorizeUrl(), u)
	if aerr != nil {
		t.Fatal(aerr)
	}
	if state != az.GetState() {
		t.Fatalf("state %q vs %q", state, az.GetState())
	}
	return cl.lineCallback(t, h, &authv1.LineCallbackRequest{Code: code, State: state})
}

func TestLineLogin(t *testing.T) {
	t.Parallel()
	e := start(t)
	for _, cl := range []*client{e.connect, e.grpc} {
		t.Run(cl.name, func(t *testing.T) { lineJourney(t, e, cl) })
	}
}

func lineJourney(t *testing.T, e *env, cl *client) {
	// The authorize URL carries everything LINE needs.
	az, err := cl.lineAuthorize(t, nil, "")
	noErr(t, err)
	q := mustQuery(t, az.GetAuthorizeUrl())
	for k, want := range map[string]string{"response_type": "code", "client_id": lineChannel, "redirect_uri": lineRedirect,
		"scope": "openid profile email", "code_challenge_method": "S256", "state": az.GetState()} {
		if q.Get(k) != want {
			t.Fatalf("%s = %q, want %q", k, q.Get(k), want)
		}
	}
	if q.Get("nonce") == "" || len(q.Get("code_challenge")) != 43 {
		t.Fatalf("nonce/challenge in %s", az.GetAuthorizeUrl())
	}
	_, err = cl.lineAuthorize(t, nil, "https://evil.example/")
	wantErr(t, err, 422, "redirect_to")

	// A new LINE identity: never merged by e-mail, link_required instead.
	newcomer := linetest.User{Sub: "U-new-" + cl.name, Name: "น้องใหม่", Picture: "https://profile.line-scdn.net/p", Email: "newcomer." + cl.name + "@example.com"}
	cb, h, err := e.lineLogin(t, cl, nil, newcomer)
	noErr(t, err)
	if cb.GetStatus() != "link_required" || cb.GetLinkToken() == "" || cb.GetAccessToken() != "" || cb.GetEmail() != newcomer.Email ||
		cb.GetLineName() != "น้องใหม่" || cb.GetRedirectTo() != "/search?keyword=ถนน" || len(h.Values("Set-Cookie")) != 0 {
		t.Fatalf("callback %+v", cb)
	}
	// The state is single use.
	_, _, err = cl.lineCallback(t, nil, &authv1.LineCallbackRequest{Code: "x", State: az.GetState() + "x"})
	wantErr(t, err, 400, "Invalid or expired LINE login request")

	_, err = cl.lineSendOTP(t, "bogus", newcomer.Email)
	wantErr(t, err, 400, "LINE link session expired")
	_, err = cl.lineSendOTP(t, cb.GetLinkToken(), newcomer.Email)
	noErr(t, err)
	code, m := e.codeFor(t, newcomer.Email)
	if m.Subject == "" || smtpCode(m.Text) != code {
		t.Fatal("link mail")
	}
	_, _, err = cl.lineVerify(t, cb.GetLinkToken(), newcomer.Email, wrongCode(code))
	wantErr(t, err, 400, "Invalid verification code")
	lv, h, err := cl.lineVerify(t, cb.GetLinkToken(), newcomer.Email, code)
	noErr(t, err)
	if lv.GetAccessToken() == "" || lv.GetUser().GetLineId1() != newcomer.Sub || !lv.GetUser().GetIsActive() || lv.GetUser().GetEmail() != newcomer.Email {
		t.Fatalf("link verify %+v", lv)
	}
	checkSessionCookies(t, h, lv.GetAccessToken(), lv.GetRefreshToken())
	_, _, err = cl.lineVerify(t, cb.GetLinkToken(), newcomer.Email, code)
	wantErr(t, err, 400, "") // link token and code both used up

	// Next time the same LINE identity signs straight in.
	cb2, h, err := e.lineLogin(t, cl, nil, newcomer)
	noErr(t, err)
	if cb2.GetStatus() != "logged_in" || cb2.GetAccessToken() == "" || cb2.GetUser().GetId() != lv.GetUser().GetId() {
		t.Fatalf("second LINE login %+v", cb2)
	}
	checkSessionCookies(t, h, cb2.GetAccessToken(), cb2.GetRefreshToken())
	rl, _, err := do(t, cl, nil, &authv1.RefreshLineTokenRequest{RefreshToken: cb2.GetRefreshToken()},
		authv1connect.AuthServiceClient.RefreshLineToken, authv1.AuthServiceClient.RefreshLineToken)
	noErr(t, err)
	if rl.GetRefreshToken() == cb2.GetRefreshToken() {
		t.Fatal("LINE refresh did not rotate")
	}
	sec, _, err := do(t, cl, bearer(rl.GetAccessToken()), &authv1.GetSecuritySettingsRequest{},
		authv1connect.AuthServiceClient.GetSecuritySettings, authv1.AuthServiceClient.GetSecuritySettings)
	noErr(t, err)
	if sec.GetHasPassword() || !sec.GetLineLinked() {
		t.Fatalf("security of a LINE-only account %+v", sec)
	}

	// An existing account links by a code sent to its e-mail (the LINE
	// e-mail is not trusted for merging); an inactive one is activated.
	owner := cl.name + ".owner@example.com"
	_, err = cl.register(t, &authv1.RegisterRequest{Username: cl.name + "_owner", Email: owner, Password: "owner's password"})
	noErr(t, err)
	_, _ = e.codeFor(t, owner)
	other := linetest.User{Sub: "U-owner-" + cl.name, Name: "Owner", Email: owner}
	cb3, _, err := e.lineLogin(t, cl, nil, other)
	noErr(t, err)
	if cb3.GetStatus() != "link_required" {
		t.Fatalf("existing e-mail merged without proof: %+v", cb3)
	}
	_, err = cl.lineSendOTP(t, cb3.GetLinkToken(), owner)
	noErr(t, err)
	code, _ = e.codeFor(t, owner)
	// A code for one link request is useless with another.
	cb4, _, err := e.lineLogin(t, cl, nil, linetest.User{Sub: "U-attacker-" + cl.name, Name: "x"})
	noErr(t, err)
	_, _, err = cl.lineVerify(t, cb4.GetLinkToken(), owner, code)
	wantErr(t, err, 400, "Invalid verification code")
	lv2, _, err := cl.lineVerify(t, cb3.GetLinkToken(), owner, code)
	noErr(t, err)
	if lv2.GetUser().GetUsername() != cl.name+"_owner" || lv2.GetUser().GetLineId1() != other.Sub || !lv2.GetUser().GetIsActive() {
		t.Fatalf("linked existing account %+v", lv2.GetUser())
	}

	// Signed in, a user links LINE from the settings page.
	member := e.registerVerified(t, cl, cl.name+"_member", cl.name+".member@example.com", "member password")
	auth := bearer(member.GetAccessToken())
	// The session alone is not enough: the e-mailed code confirms the link.
	memberEmail := cl.name + ".member@example.com"
	cb5, _, err := e.lineLogin(t, cl, auth, linetest.User{Sub: "U-member-" + cl.name, Name: "Member"})
	noErr(t, err)
	if cb5.GetStatus() != "link_required" || cb5.GetEmail() != memberEmail || cb5.GetAccessToken() != "" {
		t.Fatalf("link while signed in %+v", cb5)
	}
	_, err = cl.lineSendOTP(t, cb5.GetLinkToken(), memberEmail)
	noErr(t, err)
	code5, _ := e.codeFor(t, memberEmail)
	lv5, _, err := cl.lineVerify(t, cb5.GetLinkToken(), memberEmail, code5)
	noErr(t, err)
	if lv5.GetUser().GetLineId1() != "U-member-"+cl.name || lv5.GetUser().GetUsername() != cl.name+"_member" {
		t.Fatalf("linked while signed in %+v", lv5.GetUser())
	}
	// The owner is told.
	if m, err := e.smtp.WaitFor(memberEmail, 5*time.Second); err != nil || !strings.Contains(m.Subject, "LINE") {
		t.Fatalf("no LINE-linked notice: %v %q", err, m.Subject)
	}
	// The LINE identity of someone else cannot be linked a second time.
	_, _, err = e.lineLogin(t, cl, auth, newcomer)
	wantErr(t, err, 409, "")
	// A flow started anonymously does not link to whoever completes it.
	az6, err := cl.lineAuthorize(t, nil, "/")
	noErr(t, err)
	code6, state6, _ := e.line.Approve(az6.GetAuthorizeUrl(), linetest.User{Sub: "U-planted-" + cl.name})
	cb6, _, err := cl.lineCallback(t, bearer(lv2.GetAccessToken()), &authv1.LineCallbackRequest{Code: code6, State: state6})
	noErr(t, err)
	if cb6.GetStatus() != "link_required" {
		t.Fatalf("anonymous flow linked to the caller: %+v", cb6)
	}

	// Cancelled on LINE: 400, and the state is gone.
	az7, err := cl.lineAuthorize(t, nil, "/")
	noErr(t, err)
	_, _, err = cl.lineCallback(t, nil, &authv1.LineCallbackRequest{State: az7.GetState(), Error: "access_denied", ErrorDescription: "user cancelled"})
	wantErr(t, err, 400, "cancelled")
	_, _, err = cl.lineCallback(t, nil, &authv1.LineCallbackRequest{})
	wantErr(t, err, 422, "code and state are required")
}

func TestLineRejectsBadIDTokens(t *testing.T) {
	t.Parallel()
	e := start(t)
	e.line.Tamper = func(c linetest.Claims) { c["aud"] = "someone-else" }
	_, _, err := e.lineLogin(t, e.connect, nil, linetest.User{Sub: "U1"})
	wantErr(t, err, 400, "LINE login failed")
}

func TestLineNotConfigured(t *testing.T) {
	t.Parallel()
	e := start(t, func(vars map[string]string) {
		for _, k := range []string{"LINE_CHANNEL_ID", "LINE_CHANNEL_SECRET", "LINE_REDIRECT_URI", "LINE_AUTHORIZE_URL", "LINE_TOKEN_URL", "LINE_PROFILE_URL"} {
			delete(vars, k)
		}
	})
	_, err := e.connect.lineAuthorize(t, nil, "/")
	wantErr(t, err, 503, "LINE Login is not available")
	for _, cl := range []*client{e.connect, e.grpc} {
		if opts := cl.loginOptions(t); opts.GetLineLogin() {
			t.Fatalf("%s: login options offer LINE without a channel", cl.name)
		}
	}
}

// The sign-in pages learn from GetLoginOptions whether to show LINE's button.
func TestLoginOptionsOfferLineWhenConfigured(t *testing.T) {
	t.Parallel()
	e := start(t)
	for _, cl := range []*client{e.connect, e.grpc} {
		if opts := cl.loginOptions(t); !opts.GetLineLogin() {
			t.Fatalf("%s: login options hide LINE with a configured channel", cl.name)
		}
	}
}

func (cl *client) loginOptions(t *testing.T) *authv1.GetLoginOptionsResponse {
	res, _, err := do(t, cl, nil, &authv1.GetLoginOptionsRequest{},
		authv1connect.AuthServiceClient.GetLoginOptions, authv1.AuthServiceClient.GetLoginOptions)
	if err != nil {
		t.Fatalf("%s: GetLoginOptions: %+v", cl.name, err)
	}
	return res
}

func mustQuery(t *testing.T, raw string) url.Values {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query()
}
