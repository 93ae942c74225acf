package gw

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestPasswordSlotsShareAmongClients(t *testing.T) {
	p := newPasswordSlots(8) // a client may hold 2
	var releases []func()
	take := func(client string) bool {
		r, ok := p.acquire(client)
		if ok {
			releases = append(releases, r)
		}
		return ok
	}
	first, second, third := take("a"), take("a"), take("a")
	if !first || !second || third {
		t.Fatal("client a: want 2 slots, then refused")
	}
	for i, c := range []string{"b", "b", "c", "c", "d", "d"} {
		if !take(c) {
			t.Fatalf("slot %d for %s refused while a is capped", i, c)
		}
	}
	if take("e") {
		t.Fatal("a ninth slot")
	}
	releases[0]()
	if !take("e") {
		t.Fatal("a released slot is not reusable")
	}
	if take("a") {
		t.Fatal("a got a third slot back")
	}
	if !passwordProcedures["/auth.v1.AuthService/Login"] || passwordProcedures["/auth.v1.AuthService/GetMe"] {
		t.Fatalf("password procedures from the protos: %v", passwordProcedures)
	}
}

// A shed password call is 429 with reason login-busy and Retry-After 1,
// over REST (restError) and over Connect (the proxy's front).
func TestShedAnswersCarryTheirReason(t *testing.T) {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "http://x"+apiPrefix+"login", nil)
	restError(context.Background(), nil, nil, rec, req, errShed)
	var body apiError
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if rec.Code != 429 || rec.Header().Get("Retry-After") != "1" ||
		body != (apiError{Detail: shedMessage, Kind: "resource_exhausted", Reason: "login-busy"}) {
		t.Fatalf("REST shed: %d %v %+v", rec.Code, rec.Header(), body)
	}

	p := newPasswordSlots(1)
	release, _ := p.acquire("192.0.2.1")
	defer release()
	h := p.connect(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { t.Fatal("not shed") }))
	rec = httptest.NewRecorder()
	req = httptest.NewRequest("POST", "http://x/auth.v1.AuthService/Login", strings.NewReader("{}"))
	req.RemoteAddr = "192.0.2.1:5000"
	req.Header.Set("Connect-Protocol-Version", "1")
	h.ServeHTTP(rec, req)
	var ce connectError
	if err := json.Unmarshal(rec.Body.Bytes(), &ce); err != nil {
		t.Fatal(err)
	}
	if rec.Code != 429 || ce != (connectError{Code: "resource_exhausted", Message: shedMessage}) ||
		rec.Header().Get("X-Error-Reason") != "login-busy" || rec.Header().Get("X-Error-Kind") != "resource_exhausted" {
		t.Fatalf("Connect shed: %d %v %s", rec.Code, rec.Header(), rec.Body)
	}
}
