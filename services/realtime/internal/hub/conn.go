// Package hub pushes a user's notification events to their WebSocket connections.
// PostgreSQL is the truth; the socket is only a hint
// (docs/architecture.md#notifications-and-realtime), so nothing is replayed and a
// slow client is dropped, never waited for.
package hub

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nats-io/nats.go"
	"google.golang.org/protobuf/encoding/protojson"

	authv1 "bidradar/gen/auth/v1"
	notificationv1 "bidradar/gen/notification/v1"
	"bidradar/pkg/authn"
	"bidradar/pkg/events"
)

const (
	authTimeout  = 10 * time.Second
	pingInterval = 25 * time.Second
	pongTimeout  = 8 * time.Second
	writeTimeout = 5 * time.Second
	// queueSize frames wait for a socket at most; one more closes it.
	queueSize  = 64
	maxInbound = 8 << 10
	// maxFirstMessage bounds the unauthenticated first message (the token).
	maxFirstMessage = 4 << 10
	// natsProbeTimeout bounds the round trip to NATS before an upgrade: a
	// socket without NATS behind it would only ever say "error".
	natsProbeTimeout = 3 * time.Second
	// sendBuffer is the kernel's send buffer of a socket. A client that
	// stops reading is found out once this much is unsent (its queue then
	// fills, and it is closed) and holds no more kernel memory than this:
	// autotuning lets a send buffer grow to megabytes, which 100 clients
	// that never read filled for half a minute (bench/realtime).
	sendBuffer = 64 << 10
)

var errNATSDisconnected = errors.New("not connected to NATS")

// unavailableBody is the answer (docs/product.md#session-and-connection) when a
// dependency does not answer.
const unavailableBody = `{"detail":"Service is currently unavailable. Please try again later.","kind":"unavailable","reason":"unavailable"}`

// Message is what the client receives (the message types of docs/product.md#websocket).
type Message struct {
	Type        string          `json:"type"`
	Data        json.RawMessage `json:"data,omitempty"`
	UnreadCount *int64          `json:"unread_count,omitempty"`
	Message     string          `json:"message,omitempty"`
}

// Handler serves /ws/notifications/{userId}.
//
// One NATS subscription (the users' notification events) feeds every socket,
// through a registry of the sockets of each user: a subscription per socket
// cost a goroutine and a server round trip each (≈ 10 KB of a 41 KB idle
// socket at 15 000 sockets, bench/realtime).
type Handler struct {
	nc       *nats.Conn
	verifier *authn.Verifier
	log      *slog.Logger
	upgrader websocket.Upgrader
	sub      *nats.Subscription

	mu   sync.Mutex
	open map[string]map[chan struct{}]struct{} // session (token family) → its sockets' end signals

	usersMu sync.RWMutex
	users   map[string]map[*socket]struct{} // user id → its authenticated sockets

	done      chan struct{} // closed by Close
	closeOnce sync.Once
}

// socket is the fan-out's side of one authenticated connection.
type socket struct {
	queue    chan *Message
	overflow chan struct{}
	once     sync.Once
}

// offer queues m without blocking; a full queue marks the socket to close
// (a slow client is dropped rather than waited for).
func (s *socket) offer(m *Message) {
	select {
	case s.queue <- m:
	default:
		s.once.Do(func() { close(s.overflow) })
	}
}

// NewHandler serves sockets fed by the users' notification events
// (notification.v1.NotificationCreated, UnreadCountChanged: one subject per
// user), and closes the sockets of sessions auth ends (auth.v1.SessionEnded).
// Both are core NATS subscriptions: a socket is a hint of what PostgreSQL
// holds, so nothing is kept for a replica that was not listening.
func NewHandler(nc *nats.Conn, v *authn.Verifier, log *slog.Logger) *Handler {
	h := &Handler{nc: nc, verifier: v, log: log, open: map[string]map[chan struct{}]struct{}{}, users: map[string]map[*socket]struct{}{}, done: make(chan struct{})}
	// Idle sockets hold no write buffer: one is taken from the pool per write.
	h.upgrader = websocket.Upgrader{CheckOrigin: sameOrigin, ReadBufferSize: 1024, WriteBufferSize: 4096, WriteBufferPool: &sync.Pool{}}
	if _, err := events.Subscribe(nc, log, events.On(h.sessionEnded)); err != nil {
		log.Error("subscribe to ended sessions", "err", err)
	}
	// One subscription for both events, so a user's count never overtakes
	// the notification it counts.
	sub, err := events.Subscribe(nc, log, events.On(h.notificationCreated), events.On(h.unreadCountChanged))
	if err != nil {
		log.Error("subscribe to users' events", "err", err)
	} else {
		// A full NATS buffer drops messages for every socket: allow a
		// burst (the per-socket queues bound each client).
		_ = sub.SetPendingLimits(1<<20, 256<<20)
		h.sub = sub
		// The server knows the subscription before any socket is told it
		// is connected.
		if err := nc.FlushTimeout(writeTimeout); err != nil {
			log.Warn("flush the users' subscription", "err", err)
		}
	}
	return h
}

// notificationCreated hands a new notification to the sockets of its user.
func (h *Handler) notificationCreated(_ context.Context, ev *notificationv1.NotificationCreated, _ events.Meta) error {
	if ev.GetNotification() == nil || !h.connected(ev.GetUserId()) {
		return nil
	}
	raw, err := jsonOpts.Marshal(ev.GetNotification())
	if err != nil {
		return err
	}
	n := ev.GetUnreadCount()
	kind := ev.GetNotification().GetType()
	if kind != "notification" {
		kind = "bell_notification"
	}
	h.fanOut(ev.GetUserId(), &Message{Type: kind, Data: raw, UnreadCount: &n})
	return nil
}

// unreadCountChanged hands a user's new unread count to their sockets.
func (h *Handler) unreadCountChanged(_ context.Context, ev *notificationv1.UnreadCountChanged, _ events.Meta) error {
	if !h.connected(ev.GetUserId()) {
		return nil
	}
	n := ev.GetUnreadCount()
	h.fanOut(ev.GetUserId(), &Message{Type: "unread_count_update", UnreadCount: &n})
	return nil
}

// connected reports whether user has a socket here (most events are for
// users connected elsewhere, or not at all: they cost no encoding).
func (h *Handler) connected(user string) bool {
	h.usersMu.RLock()
	defer h.usersMu.RUnlock()
	return len(h.users[user]) > 0
}

// fanOut offers m to every socket of user.
func (h *Handler) fanOut(user string, m *Message) {
	h.usersMu.RLock()
	defer h.usersMu.RUnlock()
	for s := range h.users[user] {
		s.offer(m)
	}
}

// register adds an authenticated socket of user to the fan-out.
func (h *Handler) register(user string) (*socket, func()) {
	s := &socket{queue: make(chan *Message, queueSize), overflow: make(chan struct{})}
	h.usersMu.Lock()
	if h.users[user] == nil {
		h.users[user] = map[*socket]struct{}{}
	}
	h.users[user][s] = struct{}{}
	h.usersMu.Unlock()
	return s, func() {
		h.usersMu.Lock()
		delete(h.users[user], s)
		if len(h.users[user]) == 0 {
			delete(h.users, user)
		}
		h.usersMu.Unlock()
	}
}

// sessionEnded closes the sockets of the sessions auth ended, and makes
// the verifier refuse their tokens at once.
func (h *Handler) sessionEnded(_ context.Context, ev *authv1.SessionEnded, _ events.Meta) error {
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
	return nil
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
	// The socket lives on in goroutines of its own: returning lets net/http
	// drop the connection's request state and its 8 KB of read and write
	// buffers, which a handler running for the socket's life would keep
	// (the upgrader has its own).
	go h.serveSocket(ws, userID)
}

func (h *Handler) serveSocket(ws *websocket.Conn, userID string) {
	defer ws.Close()
	if tc, ok := ws.NetConn().(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(sendBuffer)
	}
	ws.SetReadLimit(maxFirstMessage)
	claims, ok := h.authenticate(ws, userID)
	if !ok {
		return
	}
	ws.SetReadLimit(maxInbound)
	ended, untrack := h.track(authn.FamilyID(claims))
	defer untrack()
	h.stream(ws, userID, ended)
}

// Close tells every socket the service is going away (close code 1001).
func (h *Handler) Close() {
	h.closeOnce.Do(func() { close(h.done) })
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

func (h *Handler) stream(ws *websocket.Conn, userID string, ended <-chan struct{}) {
	if h.sub == nil || !h.sub.IsValid() {
		_ = h.write(ws, Message{Type: "error", Message: "Connection error"})
		return
	}
	// Registered before the client hears it is connected, so an event
	// published right after auth_success reaches it (core NATS keeps
	// nothing for late subscribers; the shared subscription exists already).
	s, unregister := h.register(userID)
	defer unregister()
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
		case <-h.done:
			_ = ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "shutdown"), time.Now().Add(writeTimeout))
			return
		case <-closed:
			return
		case <-ended:
			_ = h.write(ws, Message{Type: "auth_error", Message: "Session ended"})
			_ = ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(4401, "session ended"), time.Now().Add(writeTimeout))
			return
		case <-s.overflow:
			_ = ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseTryAgainLater, "slow consumer"), time.Now().Add(writeTimeout))
			return
		case <-ping.C:
			if err := ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(writeTimeout)); err != nil {
				return
			}
		case m := <-s.queue:
			if err := h.write(ws, *m); err != nil {
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
