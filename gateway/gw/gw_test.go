package gw_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"bidradar/gateway/gw"
	authv1 "bidradar/gen/auth/v1"
	"bidradar/gen/auth/v1/authv1connect"
	"bidradar/pkg/access"
	"bidradar/pkg/apperr"
	"bidradar/pkg/authn"
	"bidradar/pkg/server"
)

// fakeAuth answers Login like the real service does at its edges.
type fakeAuth struct {
	authv1connect.UnimplementedAuthServiceHandler
}

func (fakeAuth) Login(_ context.Context, req *connect.Request[authv1.LoginRequest]) (*connect.Response[authv1.LoginResponse], error) {
	switch req.Msg.GetUsername() {
	case "inactive":
		return nil, apperr.New(apperr.PermissionDenied, "account-inactive", "Account is inactive.")
	case "invalid":
		return nil, apperr.New(apperr.Validation, "invalid", "username is required")
	}
	resp := connect.NewResponse(&authv1.LoginResponse{Message: "ok", AccessToken: "a", RefreshToken: "r"})
	resp.Header().Add("Set-Cookie", "access_token=a; Path=/; HttpOnly; SameSite=Lax; Max-Age=604800")
	return resp, nil
}

func (fakeAuth) GetMe(context.Context, *connect.Request[authv1.GetMeRequest]) (*connect.Response[authv1.GetMeResponse], error) {
	return connect.NewResponse(&authv1.GetMeResponse{User: &authv1.User{Username: "somchai", IdUser: "u1"}}), nil
}

func newGateway(t *testing.T, webDir string) *httptest.Server {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	mux := http.NewServeMux()
	mux.Handle(authv1connect.NewAuthServiceHandler(fakeAuth{}, server.HandlerOptions(log)...))
	upstream := h2cServer(mux)
	t.Cleanup(upstream.Close)
	return newGatewayTo(t, webDir, strings.TrimPrefix(upstream.URL, "http://"))
}

// h2cServer serves h over HTTP/1.1 and HTTP/2 without TLS, as the services
// do.
func h2cServer(h http.Handler) *httptest.Server {
	s := httptest.NewUnstartedServer(h)
	s.Config.Protocols = new(http.Protocols)
	s.Config.Protocols.SetHTTP1(true)
	s.Config.Protocols.SetUnencryptedHTTP2(true)
	s.Start()
	return s
}

// newGatewayTo is a gateway whose every service is at target.
func newGatewayTo(t *testing.T, webDir, target string) *httptest.Server {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg := gw.Config{Targets: allAt(t, target), RealtimeTarget: target, WebDir: webDir, RequestTimeout: 5e9, ServiceKey: testKey}
	g, err := gw.New(context.Background(), cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	return srv
}

// testKey is the tests' SERVICE_TOKEN_KEY.
var testKey, _ = authn.NewServiceKey([]byte("gateway-tests-service-token-key-32"))

// allAt puts every BidRadar service at target.
func allAt(t *testing.T, target string) map[string]string {
	t.Helper()
	eps, err := access.Endpoints()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range eps {
		out[e.Service] = target
	}
	return out
}

func do(t *testing.T, method, url, body string, hdr ...string) (*http.Response, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return resp, m
}

func TestRESTAnswers(t *testing.T) {
	srv := newGateway(t, "")
	api := srv.URL + "/app/backend/api/v1"
	cases := []struct {
		name, method, path, body string
		status                   int
		detail, kind, reason     string
	}{
		{"inactive is 403 with the service's detail", "POST", "/login", `{"username":"inactive","password":"x"}`, 403, "Account is inactive.", "permission_denied", "account-inactive"},
		{"validation is 422", "POST", "/login", `{"username":"invalid"}`, 422, "username is required", "validation", "invalid"},
		{"broken JSON is 400", "POST", "/login", `{"username":`, 400, "", "invalid_argument", "invalid-json"},
		{"unknown path is 404", "GET", "/nope", "", 404, "Not Found", "not_found", "not-found"},
		{"wrong method is 405", "DELETE", "/login", "", 405, "Method Not Allowed", "invalid_argument", "method-not-allowed"},
		{"unimplemented is 501", "POST", "/logout", `{}`, 501, "", "unimplemented", "unimplemented"},
		{"a query value of the wrong type is 400", "GET", "/gen-infor?page=abc", "", 400, "Invalid value for parameter page", "invalid_argument", "invalid-parameter"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, body := do(t, c.method, api+c.path, c.body)
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d (%v)", resp.StatusCode, c.status, body)
			}
			d, _ := body["detail"].(string)
			if d == "" || (c.detail != "" && d != c.detail) {
				t.Fatalf("detail %q, want %q", d, c.detail)
			}
			if body["kind"] != c.kind || body["reason"] != c.reason {
				t.Fatalf("kind, reason = %v, %v; want %s, %s", body["kind"], body["reason"], c.kind, c.reason)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Fatalf("content type %q", ct)
			}
		})
	}

	resp, body := do(t, "POST", api+"/login", `{"username":"somchai","password":"x"}`)
	if resp.StatusCode != 200 || body["access_token"] != "a" || body["two_step_verification"] != "" {
		t.Fatalf("login: %d %v", resp.StatusCode, body)
	}
	if c := resp.Header.Get("Set-Cookie"); !strings.Contains(c, "access_token=a") || !strings.Contains(c, "HttpOnly") {
		t.Fatalf("cookie not forwarded: %q", c)
	}
	for k := range resp.Header {
		if strings.HasPrefix(strings.ToLower(k), "grpc-metadata") {
			t.Fatalf("leaked gRPC metadata header %s", k)
		}
	}
	// /users/me and /users/me/ are the same call, answering the user itself.
	for _, p := range []string{"/users/me", "/users/me/"} {
		resp, body := do(t, "GET", api+p, "")
		if resp.StatusCode != 200 || body["username"] != "somchai" || body["id_user"] != "u1" {
			t.Fatalf("%s: %d %v", p, resp.StatusCode, body)
		}
	}
	if resp, body := do(t, "GET", api+"/openapi.json", ""); resp.StatusCode != 200 || body["paths"] == nil {
		t.Fatalf("openapi: %d", resp.StatusCode)
	}
}

func TestConnectForwardingAndInternalRPCs(t *testing.T) {
	srv := newGateway(t, "")
	client := authv1connect.NewAuthServiceClient(http.DefaultClient, srv.URL)
	resp, err := client.Login(context.Background(), connect.NewRequest(&authv1.LoginRequest{Username: "somchai", Password: "x"}))
	if err != nil || resp.Msg.GetAccessToken() != "a" {
		t.Fatalf("connect login through the gateway: %v %v", resp, err)
	}
	grpcWeb := authv1connect.NewAuthServiceClient(http.DefaultClient, srv.URL, connect.WithGRPCWeb())
	if _, err := grpcWeb.Login(context.Background(), connect.NewRequest(&authv1.LoginRequest{Username: "inactive"})); connect.CodeOf(err) != connect.CodePermissionDenied {
		t.Fatalf("gRPC-Web error code: %v", err)
	}
	if _, err := client.GetPublicKeys(context.Background(), connect.NewRequest(&authv1.GetPublicKeysRequest{})); connect.CodeOf(err) != connect.CodeNotFound && connect.CodeOf(err) != connect.CodeUnimplemented {
		t.Fatalf("internal RPC reachable through the gateway: %v", err)
	}
}

// Connect clients read the kind and reason from the error's metadata, for
// the services' errors and the gateway's own alike.
func TestConnectErrorsCarryReasons(t *testing.T) {
	srv := newGateway(t, "")
	client := authv1connect.NewAuthServiceClient(http.DefaultClient, srv.URL)
	check := func(name string, err error, code connect.Code, message, kind, reason string) {
		t.Helper()
		var ce *connect.Error
		if !errors.As(err, &ce) {
			t.Fatalf("%s: %v", name, err)
		}
		if ce.Code() != code || ce.Message() != message {
			t.Fatalf("%s: %v %q, want %v %q", name, ce.Code(), ce.Message(), code, message)
		}
		if k, r := ce.Meta().Get(apperr.MetaKind), ce.Meta().Get(apperr.MetaReason); k != kind || r != reason {
			t.Fatalf("%s: kind, reason = %q, %q; want %q, %q", name, k, r, kind, reason)
		}
	}
	_, err := client.Login(context.Background(), connect.NewRequest(&authv1.LoginRequest{Username: "inactive"}))
	check("service error", err, connect.CodePermissionDenied, "Account is inactive.", "permission_denied", "account-inactive")
	_, err = client.GetPublicKeys(context.Background(), connect.NewRequest(&authv1.GetPublicKeysRequest{}))
	check("internal RPC", err, connect.CodeNotFound, "Not Found", "not_found", "not-found")
	evil := authv1connect.NewAuthServiceClient(&http.Client{Transport: headerTransport{"Origin": "https://evil.example"}}, srv.URL)
	_, err = evil.Login(context.Background(), connect.NewRequest(&authv1.LoginRequest{Username: "somchai"}))
	check("CSRF", err, connect.CodePermissionDenied, "CSRF check failed", "permission_denied", "csrf")

	down := newGatewayTo(t, "", "127.0.0.1:1")
	_, err = authv1connect.NewAuthServiceClient(http.DefaultClient, down.URL).Login(context.Background(),
		connect.NewRequest(&authv1.LoginRequest{Username: "somchai"}))
	check("service down", err, connect.CodeUnavailable, gw.UnavailableMessage, "unavailable", "unavailable")
}

// headerTransport adds headers to every request.
type headerTransport map[string]string

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// Every error the gateway raises itself has its own stable reason, in the
// REST body and in the X-Error-Reason header.
func TestGatewayErrorsCarryReasons(t *testing.T) {
	srv := newGateway(t, "")
	down := newGatewayTo(t, "", "127.0.0.1:1")
	api := srv.URL + "/app/backend/api/v1"
	big := `{"username":"` + strings.Repeat("a", gw.DefaultMaxBody) + `"}`
	cases := []struct {
		name, method, url, body string
		hdr                     []string
		status                  int
		detail, kind, reason    string
	}{
		{"URL with invalid UTF-8", "GET", api + "/gen-infor?keyword=%FF", "", nil, 400,
			"The request URL contains invalid characters (invalid UTF-8 or NUL)", "invalid_argument", "invalid-characters"},
		{"body with NUL", "POST", api + "/login", `{"username":"\u0000"}`, nil, 400,
			"The request body contains invalid characters (invalid UTF-8 or NUL)", "invalid_argument", "invalid-characters"},
		{"body too large", "POST", api + "/login", big, nil, 413, "Request body too large", "invalid_argument", "body-too-large"},
		{"not JSON", "POST", api + "/login", "x", []string{"Content-Type", "text/plain"}, 415,
			"Content-Type must be application/json", "invalid_argument", "unsupported-media-type"},
		{"CSRF", "POST", api + "/login", `{}`, []string{"Origin", "https://evil.example"}, 403, "CSRF check failed", "permission_denied", "csrf"},
		{"internal RPC", "POST", srv.URL + "/auth.v1.AuthService/GetPublicKeys", `{}`, nil, 404, "Not Found", "not_found", "not-found"},
		{"no frontend", "GET", srv.URL + "/search", "", nil, 404, "Not Found", "not_found", "not-found"},
		{"write to a page", "PUT", srv.URL + "/search", "", nil, 405, "Method Not Allowed", "invalid_argument", "method-not-allowed"},
		{"other WebSocket path", "GET", srv.URL + "/ws/other", "", nil, 404, "Not Found", "not_found", "not-found"},
		{"webhook without signature", "POST", srv.URL + "/app/backend/api/v1/payment/webhook/stripe", `{}`, nil, 400,
			"Missing Stripe-Signature header", "invalid_argument", "webhook-signature-missing"},
		{"service down over REST", "POST", down.URL + "/app/backend/api/v1/login", `{"username":"a","password":"b"}`, nil, 503,
			gw.UnavailableMessage, "unavailable", "unavailable"},
		{"service down over Connect's proxy", "POST", down.URL + "/auth.v1.AuthService/Login", `{}`, nil, 503,
			gw.UnavailableMessage, "unavailable", "unavailable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, body := do(t, c.method, c.url, c.body, c.hdr...)
			if resp.StatusCode != c.status || body["detail"] != c.detail || body["kind"] != c.kind || body["reason"] != c.reason {
				t.Fatalf("got %d %v, want %d %q %s %s", resp.StatusCode, body, c.status, c.detail, c.kind, c.reason)
			}
			if resp.Header.Get("X-Error-Reason") != c.reason || resp.Header.Get("X-Error-Kind") != c.kind {
				t.Fatalf("headers %v", resp.Header)
			}
		})
	}
}

func TestCSRF(t *testing.T) {
	srv := newGateway(t, "")
	url := srv.URL + "/app/backend/api/v1/login"
	body := `{"username":"somchai","password":"x"}`
	cookie := "refresh_token=r"
	cases := []struct {
		name   string
		hdr    []string
		status int
	}{
		{"login from another site is refused (login CSRF)", []string{"Origin", "https://evil.example"}, 403},
		{"same host, other scheme is another origin", []string{"Origin", strings.Replace(srv.URL, "http://", "https://", 1)}, 403},
		{"same host, other port is another origin", []string{"Origin", srv.URL + "1"}, 403},
		{"no cookie, same origin passes", []string{"Origin", srv.URL}, 200},
		{"cookie from another site is refused", []string{"Cookie", cookie, "Origin", "https://evil.example", "X-Requested-With", "BidRadar"}, 403},
		{"cookie, same origin, no app header is refused", []string{"Cookie", cookie, "Origin", srv.URL}, 403},
		{"cookie, same origin, app header passes", []string{"Cookie", cookie, "Origin", srv.URL, "X-Requested-With", "BidRadar"}, 200},
		{"cross-site fetch metadata is refused", []string{"Cookie", cookie, "Sec-Fetch-Site", "cross-site", "X-Requested-With", "BidRadar"}, 403},
		{"bearer token: not cookie-authenticated", []string{"Cookie", cookie, "Origin", "https://evil.example", "Authorization", "Bearer x"}, 200},
		{"non-browser client with cookie passes", []string{"Cookie", cookie}, 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, b := do(t, "POST", url, body, c.hdr...)
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d (%v)", resp.StatusCode, c.status, b)
			}
		})
	}
	// A form or text/plain post needs no CORS preflight: refused whatever its origin.
	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", ct)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnsupportedMediaType {
			t.Fatalf("%s login: %d, want 415", ct, resp.StatusCode)
		}
	}
}

func TestSPAFallback(t *testing.T) {
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "index.html"), []byte("<html>app</html>"), 0o644)
	_ = os.MkdirAll(filepath.Join(dir, "assets"), 0o755)
	_ = os.WriteFile(filepath.Join(dir, "assets", "app-1234.js"), []byte("js"), 0o644)
	srv := newGateway(t, dir)
	get := func(p string) (int, string, http.Header) {
		resp, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	for _, p := range []string{"/", "/search", "/user-settings/user-info", "/forgot-password/a%40b.co.th", "/forgot-password/%2Flogin",
		"/project-details/69099722203", "/my-projects", "/search/"} {
		if st, body, _ := get(p); st != 200 || body != "<html>app</html>" {
			t.Fatalf("%s: %d %q", p, st, body)
		}
	}
	// Unknown paths: the app (its Thai 404 page) with status 404, not a soft 200.
	for _, p := range []string{"/no-such-page", "/user-settings/nope", "/search/extra/segments", "/project-details/1/2"} {
		if st, body, _ := get(p); st != 404 || body != "<html>app</html>" {
			t.Fatalf("%s: %d %q, want 404 with the app", p, st, body)
		}
	}
	if st, body, h := get("/assets/app-1234.js"); st != 200 || body != "js" || !strings.Contains(h.Get("Cache-Control"), "immutable") {
		t.Fatalf("asset: %d %q %v", st, body, h)
	}
	if st, _, _ := get("/assets/missing.js"); st != 404 {
		t.Fatalf("missing asset: %d", st)
	}
}

// Precompressed assets: brotli or gzip by Accept-Encoding, under the
// original's Content-Type, with Vary; hashed assets cached for a year,
// index.html revalidated on every visit (also as the app's 404 page).
func TestStaticPrecompressed(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		_ = os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("index.html", "<html>app</html>")
	write("index.html.br", "BR-index")
	write("index.html.gz", "GZ-index")
	write("assets/app-1234.js", "js")
	write("assets/app-1234.js.br", "BR-js")
	write("assets/app-1234.js.gz", "GZ-js")
	write("assets/app-1234.css", "css")
	write("assets/app-1234.css.gz", "GZ-css")
	write("favicon.svg", "<svg/>")
	srv := newGateway(t, dir)
	get := func(p, accept string) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+p, nil)
		// Set explicitly, so the transport neither adds gzip nor decodes.
		req.Header.Set("Accept-Encoding", accept)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	cases := []struct {
		path, accept, body, encoding, ctype, cache string
		status                                     int
	}{
		{"/assets/app-1234.js", "gzip, deflate, br, zstd", "BR-js", "br", "text/javascript", "immutable", 200},
		{"/assets/app-1234.js", "gzip", "GZ-js", "gzip", "text/javascript", "immutable", 200},
		{"/assets/app-1234.js", "br;q=0, gzip;q=0.5", "GZ-js", "gzip", "text/javascript", "immutable", 200},
		{"/assets/app-1234.js", "identity", "js", "", "text/javascript", "immutable", 200},
		{"/assets/app-1234.js", "*", "BR-js", "br", "text/javascript", "immutable", 200},
		{"/assets/app-1234.css", "br, gzip", "GZ-css", "gzip", "text/css", "immutable", 200},
		{"/", "br, gzip", "BR-index", "br", "text/html", "no-cache", 200},
		{"/index.html", "gzip", "GZ-index", "gzip", "text/html", "no-cache", 200},
		{"/search", "", "<html>app</html>", "", "text/html", "no-cache", 200},
		{"/no-such-page", "br", "BR-index", "br", "text/html", "no-cache", 404},
		{"/favicon.svg", "br, gzip", "<svg/>", "", "image/svg+xml", "", 200},
	}
	for _, c := range cases {
		resp, body := get(c.path, c.accept)
		h := resp.Header
		if resp.StatusCode != c.status || body != c.body || h.Get("Content-Encoding") != c.encoding ||
			!strings.HasPrefix(h.Get("Content-Type"), c.ctype) || !strings.Contains(h.Get("Cache-Control"), c.cache) {
			t.Errorf("%s (Accept-Encoding %q): %d %q encoding=%q type=%q cache=%q", c.path, c.accept, resp.StatusCode, body,
				h.Get("Content-Encoding"), h.Get("Content-Type"), h.Get("Cache-Control"))
		}
		if c.cache == "" && h.Get("Cache-Control") != "" {
			t.Errorf("%s: unexpected Cache-Control %q", c.path, h.Get("Cache-Control"))
		}
		if variants := c.path != "/favicon.svg"; variants != (h.Get("Vary") == "Accept-Encoding") {
			t.Errorf("%s: Vary %q", c.path, h.Get("Vary"))
		}
		if c.status == 200 && h.Get("Content-Length") != strconv.Itoa(len(c.body)) {
			t.Errorf("%s: Content-Length %q for %d bytes", c.path, h.Get("Content-Length"), len(c.body))
		}
	}
}

// A route's lazy chunks (frontend/dist/route-preload.json) go out as Link
// headers with index.html for that route, and only for it.
func TestStaticRoutePreload(t *testing.T) {
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "index.html"), []byte("<html>app</html>"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "route-preload.json"), []byte(`{
		"/search": ["/assets/search-page-1.js", "/assets/marks-2.js", "/assets/search-page-3.css"],
		"/project-details/:projectId": ["/assets/project-pages-4.js"],
		"/": ["/assets/home-5.js", "https://evil.example/x.js", "/assets/a>b.js"]
	}`), 0o644)
	srv := newGateway(t, dir)
	link := func(p string) (int, string) {
		resp, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Link")
	}
	cases := map[string]string{
		"/search": "</assets/search-page-1.js>; rel=modulepreload; crossorigin, </assets/marks-2.js>; rel=modulepreload; crossorigin, " +
			"</assets/search-page-3.css>; rel=preload; as=style; crossorigin",
		"/project-details/69099722203": "</assets/project-pages-4.js>; rel=modulepreload; crossorigin",
		"/":                            "</assets/home-5.js>; rel=modulepreload; crossorigin", // foreign and malformed entries dropped
		"/login":                       "",
		"/project-details":             "",
	}
	for p, want := range cases {
		if st, got := link(p); st != 200 || got != want {
			t.Errorf("%s: %d Link %q, want %q", p, st, got, want)
		}
	}
	if st, got := link("/no-such-page"); st != 404 || got != "" {
		t.Errorf("404 page: %d Link %q", st, got)
	}
	// A new build replaces the file: the new chunks are announced.
	later := time.Now().Add(time.Second)
	_ = os.WriteFile(filepath.Join(dir, "route-preload.json"), []byte(`{"/search": ["/assets/search-page-9.js"]}`), 0o644)
	_ = os.Chtimes(filepath.Join(dir, "route-preload.json"), later, later)
	if _, got := link("/search"); got != "</assets/search-page-9.js>; rel=modulepreload; crossorigin" {
		t.Errorf("after a rebuild: Link %q", got)
	}
}

// Slow clients trickling login bodies hold no password slot: the body is
// read whole (and timed) before a slot is taken, so real logins pass.
func TestTricklingBodiesDoNotStarveLogins(t *testing.T) {
	srv := newGateway(t, "")
	addr := strings.TrimPrefix(srv.URL, "http://")
	for i := 0; i < 40; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		// Expect: 100-continue makes the server say when the gateway starts
		// reading the body: each of the 40 is being read before the logins.
		fmt.Fprintf(c, "POST /app/backend/api/v1/login HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"+
			"Content-Length: 100000\r\nExpect: 100-continue\r\n\r\n{", addr)
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if line, err := bufio.NewReader(c).ReadString('\n'); err != nil || !strings.HasPrefix(line, "HTTP/1.1 100 ") {
			t.Fatalf("trickling client %d: the gateway is not reading its body: %q %v", i, line, err)
		}
	}
	for i := 0; i < 5; i++ {
		resp, body := do(t, "POST", srv.URL+"/app/backend/api/v1/login", `{"username":"somchai","password":"x"}`)
		if resp.StatusCode != 200 {
			t.Fatalf("login beside 40 trickling clients: %d %v", resp.StatusCode, body)
		}
	}
}

// A client trickling its body has its connection closed by the server
// within a minute of opening it, so slow clients cannot hold sockets: a
// buffered body is answered 408 after BodyReadTimeout, a streamed one (gRPC
// content types are not buffered) is cut by the server's ReadTimeout. It
// runs on server.Run as the gateway does in production.
func TestTricklingBodyConnectionIsClosed(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	g, err := gw.New(context.Background(), gw.Config{Targets: allAt(t, "127.0.0.1:1"), RealtimeTarget: "127.0.0.1:1", RequestTimeout: 5e9, ServiceKey: testKey}, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	ln, err := server.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- server.Run(ctx, ln, g, server.WithLogger(log)) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})

	for _, tt := range []struct{ name, contentType, answer string }{
		{"buffered JSON", "application/json", "HTTP/1.1 408 "},
		{"streamed gRPC", "application/grpc", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opened := time.Now()
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			fmt.Fprintf(c, "POST /app/backend/api/v1/login HTTP/1.1\r\nHost: x\r\nContent-Type: %s\r\nContent-Length: 100000\r\n\r\n{", tt.contentType)
			// One byte a second, until the server hangs up (a write then fails).
			stop := make(chan struct{})
			defer close(stop)
			go func() {
				for {
					select {
					case <-stop:
						return
					case <-time.After(time.Second):
						if _, err := c.Write([]byte(" ")); err != nil {
							return
						}
					}
				}
			}()
			_ = c.SetReadDeadline(opened.Add(60 * time.Second))
			got, err := io.ReadAll(c) // returns at EOF: the server closed the connection
			var reset *net.OpError
			closed := err == nil || errors.As(err, &reset) && !reset.Timeout()
			if !closed {
				t.Fatalf("after %s the connection is still open (%v); read so far: %q", time.Since(opened).Round(time.Second), err, got)
			}
			if !strings.HasPrefix(string(got), tt.answer) {
				t.Fatalf("answer: %q", got)
			}
			t.Logf("closed %s after opening (%q)", time.Since(opened).Round(100*time.Millisecond), strings.SplitN(string(got), "\r\n", 2)[0])
		})
	}
}
