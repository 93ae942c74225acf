package stack_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// TestLogoutEndsTheTokenEverywhere: after POST /logout the access token is
// refused by every service within a second (not after its 15 minutes), an
// open socket of that session is closed and a new one refused; password
// reset ends the user's other sessions the same way.
func TestLogoutEndsTheTokenEverywhere(t *testing.T) {
	e := startStack(t, map[string]string{"DEMO_DATA": "3"})
	e.registerVerified("leaver", "leaver@example.com", "long enough pass")
	tok := e.login("leaver", "long enough pass").str("access_token")
	me := e.call("GET", "/users/me", nil, bearer(tok)...)
	expect(t, me, 200, "me")
	userID, _ := me.Body["id_user"].(string)
	if userID == "" {
		userID, _ = me.Body["id"].(string)
	}
	probes := func(tok string) map[string]int {
		return map[string]int{
			"subscription": e.call("GET", "/users/me/subscription", nil, bearer(tok)...).Status,
			"to_do_search": e.call("POST", "/to_do_search", map[string]any{"keyWord_Incl_Or": []string{"ถนน"}, "search_type": "normal"}, bearer(tok)...).Status,
			"gen-infor":    e.call("GET", "/gen-infor?is_userLike=true", nil, bearer(tok)...).Status,
			"interests":    e.call("GET", "/userInterests/active", nil, bearer(tok)...).Status,
			"users/me":     e.call("GET", "/users/me", nil, bearer(tok)...).Status,
		}
	}
	for name, st := range probes(tok) {
		if st >= 400 && name != "to_do_search" {
			t.Fatalf("%s before logout: %d", name, st)
		}
	}
	ws := dialSocket(t, e, userID, tok)
	if m := readSocket(t, ws); m["type"] != "auth_success" {
		t.Fatalf("socket before logout: %v", m)
	}

	// Logout with the access token only (no refresh token sent).
	expect(t, e.call("POST", "/logout", map[string]any{}, bearer(tok)...), 200, "logout")
	deadline := time.Now().Add(time.Second)
	for {
		bad := map[string]int{}
		for name, st := range probes(tok) {
			if st != 401 {
				bad[name] = st
			}
		}
		if len(bad) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("1 s after logout, still accepted: %v", bad)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if m := readSocket(t, ws); m["type"] != "auth_error" {
		t.Fatalf("open socket after logout: %v", m)
	}
	ws2 := dialSocket(t, e, userID, tok)
	if m := readSocket(t, ws2); m["type"] != "auth_error" {
		t.Fatalf("new socket with a logged-out token: %v", m)
	}

	// Password reset ends every other session.
	other := e.login("leaver", "long enough pass").str("access_token")
	expect(t, e.call("POST", "/users/forgot-password", map[string]string{"email": "leaver@example.com"}), 200, "forgot")
	code := e.code("leaver@example.com")
	expect(t, e.call("POST", "/users/reset-password", map[string]string{"email": "leaver@example.com", "otp": code, "newPassword": "a new long password"}), 200, "reset")
	deadline = time.Now().Add(time.Second)
	for e.call("GET", "/userInterests/active", nil, bearer(other)...).Status != 401 {
		if time.Now().After(deadline) {
			t.Fatal("a session survived the password reset")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func dialSocket(t *testing.T, e *env, userID, tok string) *websocket.Conn {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(e.url, "http")+"/ws/notifications/"+userID, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	if err := ws.WriteJSON(map[string]string{"type": "auth", "token": tok}); err != nil {
		t.Fatal(err)
	}
	return ws
}

func readSocket(t *testing.T, ws *websocket.Conn) map[string]any {
	t.Helper()
	_ = ws.SetReadDeadline(time.Now().Add(3 * time.Second))
	var m map[string]any
	if err := ws.ReadJSON(&m); err != nil {
		t.Fatalf("socket: %v", err)
	}
	return m
}
