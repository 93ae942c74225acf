// Package hub pushes a user's notification events to their WebSocket connections.
// PostgreSQL is the truth; the socket is only a hint (DESIGN §7), so nothing is
// replayed and a slow client is dropped, never waited for.
package hub

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nats-io/nats.go"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	authv1 "bidradar/gen/auth/v1"
	notificationv1 "bidradar/gen/notification/v1"
	"bidradar/pkg/authn"
)

const (
	authTimeout  = 10 * time.Second
	pingInterval = 25 * time.Second
	pongTimeout  = 8 * time.Second
	writeTimeout = 5 * time.Second
	queueSize    = 64
	maxInbound   = 8 << 10
	// maxFirstMessage bounds the unauthenticated first message (the token).
	maxFirstMessage = 4 << 10
	// natsProbeTimeout bounds the round trip to NATS before an upgrade: a
	// socket without NATS behind it would only ever say "error".
	natsProbeTimeout = 3 * time.Second
)

var errNATSDisconnected = errors.New("not connected to NATS")

// unavailableBody is SPEC §8's answer when a dependency does not answer.
const unavailableBody = `{"detail":"Service is currently unavailable. Please try again later."}`

// Message is what the client receives (SPEC §7 message types).
type Message struct {
	Type        string          `json:"type"`
	Data        json.RawMessage `json:"data,omitempty"`
	UnreadCount *int64          `json:"unread_count,omitempty"`
	Message     string          `json:"message,omitempty"`
}

// Handler serves /ws/notifications/{userId}.
type Handler struct {
	nc       *nats.Conn
	verifier *authn.Verifier
	log      *slog.Logger
	upgrader websocket.Upgrader

	mu   sync.Mutex
	open map[string]map[chan struct{}]struct{} // session (token family) → its sockets' end signals
}

// SubjectSessionEnded is where auth announces ended sessions (logout,
// password reset, refresh-token reuse).
const SubjectSessionEnded = "auth.v1.session.ended"

// NewHandler serves sockets fed by NATS subjects notification.v1.user.<id>.>,
// and closes the sockets of sessions auth ends.
func NewHandler(nc *nats.Conn, v *authn.Verifier, log *slog.Logger) *Handler {
	h := &Handler{nc: nc, verifier: v, log: log, open: map[string]map[chan struct{}]struct{}{}}
	h.upgrader = websocket.Upgrader{CheckOrigin: sameOrigin, ReadBufferSize: 1024, WriteBufferSize: 4096}
	if _, err := nc.Subscribe(SubjectSessionEnded, h.sessionEnded); err != nil {
		log.Error("subscribe to ended sessions", "err", err)
	}
	return h
}

func (h *Handler) sessionEnded(m *nats.Msg) {
	var ev authv1.SessionEnded
	if proto.Unmarshal(m.Data, &ev) != nil {
		return
	}
	if e := h.verifier.EndedSessions(); e != nil {
		e.End(time.Now(), ev.FamilyIds...)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, fam := range ev.FamilyIds {
		for end := range h.open[fam] {
			select {
			case <-end:
			default:
				close(end)
			}
		}
	}
}

// track registers a socket of session family; the returned channel closes
// when the session ends.
func (h *Handler) track(family string) (end chan struct{}, untrack func()) {
	end = make(chan struct{})
	h.mu.Lock()
	if h.open[family] == nil {
		h.open[family] = map[chan struct{}]struct{}{}
	}
	h.open[family][end] = struct{}{}
	h.mu.Unlock()
	return end, func() {
		h.mu.Lock()
		delete(h.open[family], end)
		if len(h.open[family]) == 0 {
			delete(h.open, family)
		}
		h.mu.Unlock()
	}
}

// sameOrigin accepts browsers only from the page's own origin (the gateway keeps Host).
func sameOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true // not a browser
	}
	u, err := url.Parse(origin)
	return err == nil && strings.EqualFold(u.Host, r.Host)
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	userID := strings.TrimPrefix(r.URL.Path, "/ws/notifications/")
	if userID == "" || strings.Contains(userID, "/") || strings.ContainsAny(userID, ".*> ") {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"detail":"Not Found","kind":"not_found","reason":"not-found"}` + "\n"))
		return
	}
	// NATS down or too slow to answer: refuse the upgrade with a 503 the
	// app understands (it retries), rather than a socket that cannot stream.
	if err := h.natsAnswers(r.Context()); err != nil {
		h.log.WarnContext(r.Context(), "socket refused: NATS does not answer", "err", err)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "5")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(unavailableBody))
		return
	}
	ws, err := h.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader already answered
	}
	defer ws.Close()
	ws.SetReadLimit(maxFirstMessage)
	claims, ok := h.authenticate(ws, userID)
	if !ok {
		return
	}
	ws.SetReadLimit(maxInbound)
	ended, untrack := h.track(authn.FamilyID(claims))
	defer untrack()
	h.stream(r.Context(), ws, userID, ended)
}

// natsAnswers makes one round trip to the NATS server (a PING), within
// natsProbeTimeout.
func (h *Handler) natsAnswers(ctx context.Context) error {
	if !h.nc.IsConnected() {
		return errNATSDisconnected
	}
	ctx, cancel := context.WithTimeout(ctx, natsProbeTimeout)
	defer cancel()
	return h.nc.FlushWithContext(ctx)
}

// authenticate waits for {"type":"auth","token":"..."} (or a bare token) and checks
// that the token belongs to the path's user. auth_success is sent by stream,
// once the user's events are subscribed.
func (h *Handler) authenticate(ws *websocket.Conn, userID string) (authn.Claims, bool) {
	_ = ws.SetReadDeadline(time.Now().Add(authTimeout))
	_, data, err := ws.ReadMessage()
	if err != nil {
		return authn.Claims{}, false
	}
	claims, err := h.verifier.Verify(TokenOf(data), time.Now())
	if err != nil || claims.UserID != userID {
		_ = h.write(ws, Message{Type: "auth_error", Message: "Authentication failed"})
		_ = ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(4401, "unauthorized"), time.Now().Add(writeTimeout))
		return authn.Claims{}, false
	}
	return claims, true
}

// TokenOf reads the first message: {"type":"auth","token":"…"} or a bare
// token, with or without "Bearer ".
func TokenOf(data []byte) string {
	var in struct {
		Type  string `json:"type"`
		Token string `json:"token"`
	}
	token := strings.TrimSpace(string(data))
	if json.Unmarshal(data, &in) == nil && in.Token != "" {
		token = in.Token
	}
	return strings.TrimPrefix(token, "Bearer ")
}

func (h *Handler) stream(ctx context.Context, ws *websocket.Conn, userID string, ended <-chan struct{}) {
	queue := make(chan Message, queueSize)
	overflow := make(chan struct{})
	sub, err := h.nc.Subscribe("notification.v1.user."+userID+".>", func(m *nats.Msg) {
		out, ok := translate(m.Subject, m.Data)
		if !ok {
			return
		}
		select {
		case queue <- out:
		default: // slow consumer: close it rather than block NATS
			select {
			case <-overflow:
			default:
				close(overflow)
			}
		}
	})
	if err != nil {
		_ = h.write(ws, Message{Type: "error", Message: "Connection error"})
		return
	}
	defer func() { _ = sub.Unsubscribe() }()
	// The server must have the subscription before the client hears it is
	// connected: an event published right after auth_success was lost
	// otherwise (core NATS keeps nothing for late subscribers).
	if err := h.nc.FlushTimeout(writeTimeout); err != nil {
		_ = h.write(ws, Message{Type: "error", Message: "Connection error"})
		return
	}
	if h.write(ws, Message{Type: "auth_success"}) != nil {
		return
	}

	closed := make(chan struct{})
	go func() { // reader: pongs and client closes
		defer close(closed)
		_ = ws.SetReadDeadline(time.Now().Add(pingInterval + pongTimeout))
		ws.SetPongHandler(func(string) error { return ws.SetReadDeadline(time.Now().Add(pingInterval + pongTimeout)) })
		for {
			if _, _, err := ws.ReadMessage(); err != nil {
				return
			}
		}
	}()
	ping := time.NewTicker(pingInterval)
	defer ping.Stop()
	for {
		select {
		case <-ctx.Done():
			_ = ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "shutdown"), time.Now().Add(writeTimeout))
			return
		case <-closed:
			return
		case <-ended:
			_ = h.write(ws, Message{Type: "auth_error", Message: "Session ended"})
			_ = ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(4401, "session ended"), time.Now().Add(writeTimeout))
			return
		case <-overflow:
			_ = ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseTryAgainLater, "slow consumer"), time.Now().Add(writeTimeout))
			return
		case <-ping.C:
			if err := ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(writeTimeout)); err != nil {
				return
			}
		case m := <-queue:
			if err := h.write(ws, m); err != nil {
				return
			}
		}
	}
}

func (h *Handler) write(ws *websocket.Conn, m Message) error {
	_ = ws.SetWriteDeadline(time.Now().Add(writeTimeout))
	return ws.WriteJSON(m)
}

var jsonOpts = protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}

// translate turns a NATS event into the client's message.
func translate(subject string, data []byte) (Message, bool) {
	switch {
	case strings.HasSuffix(subject, ".created"):
		var ev notificationv1.NotificationCreated
		if proto.Unmarshal(data, &ev) != nil || ev.GetNotification() == nil {
			return Message{}, false
		}
		raw, err := jsonOpts.Marshal(ev.GetNotification())
		if err != nil {
			return Message{}, false
		}
		n := ev.GetUnreadCount()
		kind := ev.GetNotification().GetType()
		if kind != "notification" {
			kind = "bell_notification"
		}
		return Message{Type: kind, Data: raw, UnreadCount: &n}, true
	case strings.HasSuffix(subject, ".unread"):
		var ev notificationv1.UnreadCountChanged
		if proto.Unmarshal(data, &ev) != nil {
			return Message{}, false
		}
		n := ev.GetUnreadCount()
		return Message{Type: "unread_count_update", UnreadCount: &n}, true
	}
	return Message{}, false
}
