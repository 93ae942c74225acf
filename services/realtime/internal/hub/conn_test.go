package hub_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nats-io/nats.go"
	"google.golang.org/protobuf/proto"

	notificationv1 "bidradar/gen/notification/v1"
	"bidradar/pkg/authn"
	"bidradar/pkg/events"
	"bidradar/pkg/testutil/natstest"
	"bidradar/services/realtime/internal/hub"
)

type fixture struct {
	h      *hub.Handler
	srv    *httptest.Server
	nc     *nats.Conn
	signer *authn.Signer
}

func setup(t *testing.T) fixture {
	t.Helper()
	nc, err := nats.Connect(natstest.Start(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer := authn.NewSigner(priv, "k1")
	v := authn.NewVerifier(authn.StaticKeys{"k1": signer.PublicKey()})
	h := hub.NewHandler(nc, v, slog.New(slog.NewTextHandler(io.Discard, nil)))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return fixture{h: h, srv: srv, nc: nc, signer: signer}
}

// publish sends ev on its subject, as the notification service's relay does.
func (f fixture) publish(t *testing.T, ev proto.Message) {
	t.Helper()
	subject, err := events.SubjectOf(ev)
	if err != nil {
		t.Fatal(err)
	}
	data, err := proto.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.nc.Publish(subject, data); err != nil {
		t.Fatal(err)
	}
}

func (f fixture) token(t *testing.T, user string) string {
	t.Helper()
	now := time.Now()
	tok, err := f.signer.Sign(authn.Claims{UserID: user, Email: user + "@example.com", Provider: authn.ProviderPassword, ID: "j", IssuedAt: now, ExpiresAt: now.Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func (f fixture) dial(t *testing.T, user, origin string) (*websocket.Conn, *http.Response, error) {
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	ws, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(f.srv.URL, "http")+"/ws/notifications/"+user, h)
	if err == nil {
		t.Cleanup(func() { ws.Close() })
	}
	return ws, resp, err
}

func read(t *testing.T, ws *websocket.Conn) hub.Message {
	t.Helper()
	_ = ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	var m hub.Message
	if err := ws.ReadJSON(&m); err != nil {
		t.Fatalf("read: %v", err)
	}
	return m
}

func TestPushAfterAuth(t *testing.T) {
	f := setup(t)
	ws, _, err := f.dial(t, "u1", f.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	_ = ws.WriteJSON(map[string]string{"type": "auth", "token": f.token(t, "u1")})
	if m := read(t, ws); m.Type != "auth_success" {
		t.Fatalf("got %+v, want auth_success", m)
	}
	// Another user's events never reach this socket.
	other := &notificationv1.NotificationCreated{UserId: "u2", Notification: &notificationv1.Notification{Id: "x"}}
	f.publish(t, other)
	ev := &notificationv1.NotificationCreated{EventId: "e1", UserId: "u1", UnreadCount: 3,
		Notification: &notificationv1.Notification{Id: "n1", Title: "มีประกาศใหม่", Category: "project_update", Type: "bell_notification"}}
	f.publish(t, ev)
	m := read(t, ws)
	if m.Type != "bell_notification" || m.UnreadCount == nil || *m.UnreadCount != 3 {
		t.Fatalf("got %+v", m)
	}
	var n map[string]any
	_ = json.Unmarshal(m.Data, &n)
	if n["id"] != "n1" || n["title"] != "มีประกาศใหม่" {
		t.Fatalf("data %s", m.Data)
	}
	cnt := &notificationv1.UnreadCountChanged{UserId: "u1", UnreadCount: 0}
	f.publish(t, cnt)
	if m := read(t, ws); m.Type != "unread_count_update" || *m.UnreadCount != 0 {
		t.Fatalf("got %+v", m)
	}
}

func TestAuthErrors(t *testing.T) {
	f := setup(t)
	for name, tok := range map[string]string{"other user": f.token(t, "u2"), "garbage": "nope"} {
		ws, _, err := f.dial(t, "u1", "")
		if err != nil {
			t.Fatal(err)
		}
		_ = ws.WriteMessage(websocket.TextMessage, []byte(tok))
		if m := read(t, ws); m.Type != "auth_error" {
			t.Fatalf("%s: got %+v, want auth_error", name, m)
		}
		_ = ws.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, _, err := ws.ReadMessage(); !websocket.IsCloseError(err, 4401) {
			t.Fatalf("%s: want close 4401, got %v", name, err)
		}
	}
}

// The first message comes before any authentication: more than 4 KiB of it
// closes the socket (1009) instead of being read.
func TestFirstMessageIsSmall(t *testing.T) {
	f := setup(t)
	ws, _, err := f.dial(t, "u1", "")
	if err != nil {
		t.Fatal(err)
	}
	_ = ws.WriteMessage(websocket.TextMessage, []byte(strings.Repeat("x", 4<<10+1)))
	_ = ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, _, err := ws.ReadMessage(); !websocket.IsCloseError(err, websocket.CloseMessageTooBig) {
		t.Fatalf("5 KiB first message: %v, want close 1009", err)
	}
	ws2, _, err := f.dial(t, "u1", "")
	if err != nil {
		t.Fatal(err)
	}
	tok := `{"type":"auth","token":"` + f.token(t, "u1") + `"}`
	if len(tok) > 4<<10 {
		t.Fatalf("a real token message is %d bytes", len(tok))
	}
	_ = ws2.WriteMessage(websocket.TextMessage, []byte(tok))
	if m := read(t, ws2); m.Type != "auth_success" {
		t.Fatalf("token message: %+v", m)
	}
}

func TestCrossOriginRefused(t *testing.T) {
	f := setup(t)
	_, resp, err := f.dial(t, "u1", "https://evil.example")
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-origin upgrade: err %v resp %v", err, resp)
	}
}

// Every socket of a user gets the user's events (two tabs open).
func TestTwoSocketsOfOneUser(t *testing.T) {
	f := setup(t)
	var socks []*websocket.Conn
	for range 2 {
		ws, _, err := f.dial(t, "u1", "")
		if err != nil {
			t.Fatal(err)
		}
		_ = ws.WriteJSON(map[string]string{"type": "auth", "token": f.token(t, "u1")})
		if m := read(t, ws); m.Type != "auth_success" {
			t.Fatalf("got %+v", m)
		}
		socks = append(socks, ws)
	}
	cnt := &notificationv1.UnreadCountChanged{UserId: "u1", UnreadCount: 7}
	f.publish(t, cnt)
	for i, ws := range socks {
		if m := read(t, ws); m.Type != "unread_count_update" || *m.UnreadCount != 7 {
			t.Fatalf("socket %d: %+v", i, m)
		}
	}
}

// Closing the handler (service shutdown) closes its sockets with 1001.
func TestCloseSaysGoingAway(t *testing.T) {
	f := setup(t)
	ws, _, err := f.dial(t, "u1", "")
	if err != nil {
		t.Fatal(err)
	}
	_ = ws.WriteJSON(map[string]string{"type": "auth", "token": f.token(t, "u1")})
	if m := read(t, ws); m.Type != "auth_success" {
		t.Fatalf("got %+v", m)
	}
	f.h.Close()
	_ = ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, _, err := ws.ReadMessage(); !websocket.IsCloseError(err, websocket.CloseGoingAway) {
		t.Fatalf("want close 1001, got %v", err)
	}
}

// A client that stops reading is closed by the server while its user's
// events keep coming, instead of being written to for ever.
func TestClientThatNeverReadsIsClosed(t *testing.T) {
	f := setup(t)
	var raw *net.TCPConn
	d := websocket.Dialer{NetDial: func(network, addr string) (net.Conn, error) {
		c, err := net.Dial(network, addr)
		if err == nil {
			raw = c.(*net.TCPConn)
			_ = raw.SetReadBuffer(64 << 10)
		}
		return c, err
	}}
	ws, _, err := d.Dial("ws"+strings.TrimPrefix(f.srv.URL, "http")+"/ws/notifications/u1", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	_ = ws.WriteJSON(map[string]string{"type": "auth", "token": f.token(t, "u1")})
	if m := read(t, ws); m.Type != "auth_success" {
		t.Fatalf("got %+v", m)
	}
	ev := &notificationv1.NotificationCreated{UserId: "u1", UnreadCount: 1,
		Notification: &notificationv1.Notification{Id: "n", Title: strings.Repeat("ประกาศ", 300)}} // ~5 KB a frame
	// Far more than the socket's buffers and queue hold; the client reads nothing.
	for range 2000 {
		f.publish(t, ev)
	}
	_ = f.nc.Flush()
	// Once closed by the server, reading what was buffered ends in an
	// error, not in a wait.
	deadline := time.Now().Add(30 * time.Second)
	_ = raw.SetReadDeadline(deadline)
	_, err = io.Copy(io.Discard, raw)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("the server still held the socket open 30 s after its client stopped reading")
	}
}
