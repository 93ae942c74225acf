// Command nolost checks that no notification is lost or doubled while the
// notification and realtime services are killed (SIGKILL) and restarted at
// random (issue 11). Their own binaries run as separate processes; NATS
// JetStream (embedded here, so it outlives the kills) and PostgreSQL stay
// up. The driver publishes N projects.v1.criteria.matched events, each one
// new project for one of U users, into the PROJECTS stream as the projects
// service's outbox relay does (Nats-Msg-Id = event id). Then it checks:
// exactly N notification rows, one per event; for every user, the unread
// count last published to them (notification.v1.user.<id>.created, what the
// bell shows live) equals COUNT(*) of their unread rows.
//
//	cd bench/nolost && GOWORK=off go run . -events 10000
package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"connectrpc.com/connect"
	"github.com/google/uuid"
	"github.com/gorilla/websocket"
	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/gen/auth/v1/authv1connect"
	notificationv1 "bidradar/gen/notification/v1"
	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/pkg/authn"
	"bidradar/pkg/events"
)

type keys struct {
	authv1connect.UnimplementedAuthServiceHandler
	pub ed25519.PublicKey
}

func (k keys) GetPublicKeys(context.Context, *connect.Request[authv1.GetPublicKeysRequest]) (*connect.Response[authv1.GetPublicKeysResponse], error) {
	return connect.NewResponse(&authv1.GetPublicKeysResponse{Keys: []*authv1.PublicKey{{Kid: "k1", PublicKey: base64.StdEncoding.EncodeToString(k.pub)}}}), nil
}

func listen() net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	return ln
}

func freePort() string {
	ln := listen()
	defer ln.Close()
	return ln.Addr().String()
}

// service is one binary run, killed and restarted by the driver.
type service struct {
	name string
	bin  string
	env  []string

	mu       sync.Mutex
	cmd      *exec.Cmd
	starts   int
	kills    int
	logFile  *os.File
	exited   chan struct{}
	stopping bool
}

func (s *service) start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	cmd := exec.Command(s.bin, "serve")
	cmd.Env = append(os.Environ(), s.env...)
	cmd.Stdout, cmd.Stderr = s.logFile, s.logFile
	if err := cmd.Start(); err != nil {
		fail(fmt.Errorf("start %s: %w", s.name, err))
	}
	s.cmd, s.starts = cmd, s.starts+1
	exited := make(chan struct{})
	s.exited = exited
	go func() { _ = cmd.Wait(); close(exited) }()
}

func (s *service) kill() {
	s.mu.Lock()
	cmd, exited := s.cmd, s.exited
	s.kills++
	s.mu.Unlock()
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-exited
}

// options are the command line's.
type options struct {
	events, users, rate, sockets int
	every, downMax               time.Duration
	targets                      string
}

func parseFlags() options {
	var o options
	flag.IntVar(&o.events, "events", 10000, "events published")
	flag.IntVar(&o.users, "users", 500, "users the events are for")
	flag.IntVar(&o.rate, "rate", 250, "events published per second")
	flag.IntVar(&o.sockets, "sockets", 200, "users with a WebSocket open to realtime (reconnecting after each kill)")
	flag.DurationVar(&o.every, "kill-every", 2500*time.Millisecond, "mean time between kills (uniform over 0.4–1.6 of it)")
	flag.DurationVar(&o.downMax, "down-max", 1500*time.Millisecond, "longest time a killed service stays down (uniform from 0)")
	flag.StringVar(&o.targets, "kill", "notification,realtime", "services killed at random (comma-separated; empty: none)")
	flag.Parse()
	return o
}

func main() {
	o := parseFlags()
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "bench-nolost")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	bins := buildServices(dir, "notification", "realtime")
	ns, natsURL, err := events.StartEmbedded(events.EmbeddedOptions{StoreDir: filepath.Join(dir, "js"), Port: -1})
	if err != nil {
		fail(err)
	}
	defer ns.Shutdown()
	nc, js, err := events.Connect(natsURL, "bench-nolost")
	if err != nil {
		fail(err)
	}
	defer nc.Close()
	if err := events.EnsureStreams(ctx, js, "PROJECTS", "NOTIFICATION"); err != nil {
		fail(err)
	}
	admin, err := pgx.Connect(ctx, "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable")
	if err != nil {
		fail(err)
	}
	_, _ = admin.Exec(ctx, "DROP DATABASE IF EXISTS bench_nolost WITH (FORCE)")
	admin.Close(ctx)
	dbURL := "postgres://postgres@127.0.0.1:5432/bench_nolost?sslmode=disable"

	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer := authn.NewSigner(priv, "k1")
	authAddr := fakeAuth(signer)
	logs, err := os.Create(filepath.Join(os.TempDir(), "bench-nolost-services.log"))
	if err != nil {
		fail(err)
	}
	defer logs.Close()
	rtAddr := freePort()
	// PROJECTS_TARGET is required with NATS_URL but not called here: a
	// criteria.matched event names its search's owner and name itself.
	notif := &service{name: "notification", bin: bins["notification"], logFile: logs, env: []string{
		"DATABASE_URL=" + dbURL, "AUTH_TARGET=" + authAddr, "NATS_URL=" + natsURL,
		"PROJECTS_TARGET=" + authAddr, "NOTIFICATION_ADDR=" + freePort(), "LOG_LEVEL=warn", benchServiceKey}}
	rt := &service{name: "realtime", bin: bins["realtime"], logFile: logs, env: []string{
		"AUTH_TARGET=" + authAddr, "NATS_URL=" + natsURL, "REALTIME_ADDR=" + rtAddr, "LOG_LEVEL=warn", benchServiceKey}}
	notif.start()
	rt.start()
	defer func() {
		for _, s := range []*service{notif, rt} {
			s.mu.Lock()
			_ = s.cmd.Process.Kill()
			s.mu.Unlock()
		}
	}()

	users := make([]string, o.users)
	for i := range users {
		users[i] = uuid.NewString()
	}
	w := watch(users[:min(o.sockets, len(users))], rtAddr, signer)
	start := time.Now()
	k := startKilling(start, o, notif, rt)
	sent := publish(ctx, js, users, o.events, o.rate, start)
	published := time.Since(start)
	fmt.Printf("published %d events for %d users in %s\n", o.events, o.users, published.Round(time.Millisecond))

	pool, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		fail(err)
	}
	defer pool.Close(ctx)
	killLog, done := drain(ctx, pool, o.events, start, published, k)
	fmt.Printf("kills: notification %d, realtime %d: %v\n", notif.kills, rt.kills, killLog)

	rowsOK := checkRows(ctx, pool, sent, done)
	counts, countsOK := checkUnread(ctx, pool, js, users)
	w.report(counts)
	if !rowsOK || !countsOK {
		fmt.Println("FAIL")
		os.Exit(1)
	}
	fmt.Println("OK: no notification lost or doubled; every published unread count equals its COUNT(*)")
}

// drain waits until the n events have their rows: killing on for 20 s
// after the publishing ended, then for up to 3 minutes without kills, then
// 3 s more in which nothing should arrive. It returns the kills and the
// time from the start.
func drain(ctx context.Context, pool *pgx.Conn, n int, start time.Time, published time.Duration, k *killer) ([]string, time.Duration) {
	count := func() int {
		var c int
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM notification.notifications").Scan(&c); err != nil {
			return -1
		}
		return c
	}
	for count() < n && time.Since(start) < published+20*time.Second {
		time.Sleep(500 * time.Millisecond)
	}
	killLog := k.stop()
	deadline := time.Now().Add(3 * time.Minute)
	for count() < n && time.Now().Before(deadline) {
		time.Sleep(500 * time.Millisecond)
	}
	time.Sleep(3 * time.Second) // nothing more arrives
	return killLog, time.Since(start)
}

// buildServices builds the services' binaries into dir.
func buildServices(dir string, names ...string) map[string]string {
	bins := map[string]string{}
	for _, name := range names {
		bins[name] = filepath.Join(dir, name)
		build := exec.Command("go", "build", "-o", bins[name], "./cmd/"+name)
		build.Dir = "../../services/" + name
		// The services build in the workspace (go.work), not with this
		// module's GOWORK=off: their own go.sum lacks what pkg needs.
		build.Env = append(os.Environ(), "GOWORK=")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fail(fmt.Errorf("build %s: %w", name, err))
		}
	}
	return bins
}

// fakeAuth serves the verification key of signer as auth does and returns
// its address.
func fakeAuth(signer *authn.Signer) string {
	mux := http.NewServeMux()
	mux.Handle(authv1connect.NewAuthServiceHandler(keys{pub: signer.PublicKey()}))
	ln := listen()
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	go (&http.Server{Handler: mux, Protocols: &p}).Serve(ln)
	return ln.Addr().String()
}

// watchers are the users' sockets: each reconnects whenever realtime goes
// away, and remembers the last unread count it was pushed.
type watchers struct {
	users              []string
	frames, reconnects atomic.Int64
	lastPushed         []atomic.Int64
	stop               chan struct{}
	wg                 sync.WaitGroup
}

func watch(users []string, rtAddr string, signer *authn.Signer) *watchers {
	w := &watchers{users: users, lastPushed: make([]atomic.Int64, len(users)), stop: make(chan struct{})}
	for i, u := range users {
		w.lastPushed[i].Store(-1)
		w.wg.Go(func() {
			for first := true; ; first = false {
				select {
				case <-w.stop:
					return
				default:
				}
				if !first {
					w.reconnects.Add(1)
					time.Sleep(200 * time.Millisecond)
				}
				ws, _, err := websocket.DefaultDialer.Dial("ws://"+rtAddr+"/ws/notifications/"+u, nil)
				if err != nil {
					continue
				}
				now := time.Now()
				tok, _ := signer.Sign(authn.Claims{UserID: u, Email: "x@example.com", Provider: authn.ProviderPassword, ID: "j" + u, IssuedAt: now, ExpiresAt: now.Add(time.Hour)})
				_ = ws.WriteJSON(map[string]string{"type": "auth", "token": tok})
				go func() { <-w.stop; ws.Close() }()
				for {
					var m struct {
						Type        string `json:"type"`
						UnreadCount *int64 `json:"unread_count"`
					}
					if err := ws.ReadJSON(&m); err != nil {
						break
					}
					if m.UnreadCount != nil {
						w.frames.Add(1)
						w.lastPushed[i].Store(*m.UnreadCount)
					}
				}
				ws.Close()
			}
		})
	}
	return w
}

// report closes the sockets and prints how many last pushed their user's
// final count (a hint only: frames sent while realtime was down are gone;
// the app refetches on reconnect).
func (w *watchers) report(counts map[string]int64) {
	time.Sleep(2 * time.Second)
	close(w.stop)
	w.wg.Wait()
	same := 0
	for i, u := range w.users {
		if w.lastPushed[i].Load() == counts[u] {
			same++
		} else if os.Getenv("DEBUG_SOCKETS") != "" {
			fmt.Printf("  socket %d: last pushed %d, COUNT %d\n", i, w.lastPushed[i].Load(), counts[u])
		}
	}
	fmt.Printf("sockets: %d users, %d reconnects, %d frames; %d of them last pushed their final count\n",
		len(w.users), w.reconnects.Load(), w.frames.Load(), same)
}

// killer kills and restarts the services at random until stopped.
type killer struct {
	stopCh chan struct{}
	done   chan struct{}
	log    []string
}

func startKilling(start time.Time, o options, services ...*service) *killer {
	k := &killer{stopCh: make(chan struct{}), done: make(chan struct{})}
	r := mrand.New(mrand.NewPCG(uint64(time.Now().UnixNano()), 2))
	var pick []*service
	for _, s := range services {
		if strings.Contains(o.targets, s.name) {
			pick = append(pick, s)
		}
	}
	go func() {
		defer close(k.done)
		for {
			select {
			case <-k.stopCh:
				return
			case <-time.After(time.Duration(float64(o.every) * (0.4 + 1.2*r.Float64()))):
			}
			if len(pick) == 0 {
				continue
			}
			s := pick[r.IntN(len(pick))]
			s.kill()
			down := time.Duration(r.Int64N(int64(o.downMax) + 1))
			k.log = append(k.log, fmt.Sprintf("%s@%.1fs(down %s)", s.name, time.Since(start).Seconds(), down.Round(100*time.Millisecond)))
			time.Sleep(down)
			s.start()
		}
	}()
	return k
}

// stop ends the kills (the service down is started again first) and
// returns what was killed when.
func (k *killer) stop() []string {
	close(k.stopCh)
	<-k.done
	return k.log
}

// sentEvent is the user and project of a published event.
type sentEvent struct{ user, project string }

// publish sends n criteria.matched events at rate, each one new project for
// a random user, as the projects relay does (Nats-Msg-Id = event id).
func publish(ctx context.Context, js jetstream.JetStream, users []string, n, rate int, start time.Time) []sentEvent {
	r := mrand.New(mrand.NewPCG(uint64(time.Now().UnixNano()), 3))
	sent := make([]sentEvent, n)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	i := 0
	for now := range tick.C {
		for ; i < n && float64(i) < now.Sub(start).Seconds()*float64(rate); i++ {
			u := users[r.IntN(len(users))]
			pid := fmt.Sprintf("67%09d", i)
			id := uuid.NewString()
			ev := &projectsv1.CriteriaMatched{EventId: id, OccurredAt: timestamppb.Now(), UserId: u,
				CriteriaId: uuid.NewString(), CriteriaName: "คอมพิวเตอร์ เชียงใหม่",
				Projects:     []*projectsv1.MatchedProject{{ProjectId: pid, ProjectName: "ซื้อครุภัณฑ์คอมพิวเตอร์ โดยวิธีเฉพาะเจาะจง", AgencyName: "องค์การบริหารส่วนตำบลหนองบัว"}},
				ProjectCount: 1}
			data, _ := proto.Marshal(ev)
			subject, err := events.SubjectOf(ev)
			if err != nil {
				fail(err)
			}
			msg := nats.NewMsg(subject)
			msg.Data = data
			for {
				if _, err := js.PublishMsg(ctx, msg, jetstream.WithMsgID(id)); err == nil {
					break
				} else {
					fmt.Fprintln(os.Stderr, "publish (retrying):", err)
					time.Sleep(100 * time.Millisecond)
				}
			}
			sent[i] = sentEvent{u, pid}
		}
		if i == n {
			break
		}
	}
	return sent
}

// checkRows checks exactly one notification row per event.
func checkRows(ctx context.Context, pool *pgx.Conn, sent []sentEvent, took time.Duration) bool {
	var rows, distinct, dup int
	_ = pool.QueryRow(ctx, "SELECT count(*) FROM notification.notifications").Scan(&rows)
	_ = pool.QueryRow(ctx, "SELECT count(DISTINCT (user_id, project_id)) FROM notification.notifications").Scan(&distinct)
	_ = pool.QueryRow(ctx, "SELECT count(*) FROM (SELECT 1 FROM notification.notifications GROUP BY user_id, project_id HAVING count(*) > 1) d").Scan(&dup)
	want := map[[2]string]bool{}
	for _, s := range sent {
		want[[2]string{s.user, s.project}] = true
	}
	q, err := pool.Query(ctx, "SELECT user_id::text, project_id FROM notification.notifications")
	if err != nil {
		fail(err)
	}
	got := map[[2]string]bool{}
	for q.Next() {
		var k [2]string
		_ = q.Scan(&k[0], &k[1])
		got[k] = true
	}
	q.Close()
	missing := 0
	for k := range want {
		if !got[k] {
			missing++
		}
	}
	fmt.Printf("rows: %d for %d events (%d distinct, %d doubled, %d events without a row), all in %s\n",
		rows, len(sent), distinct, dup, missing, took.Round(time.Millisecond))
	return rows == len(sent) && dup == 0 && missing == 0
}

// checkUnread checks that the unread count last published to each user
// (what the bell shows live) equals COUNT(*) of their unread rows, and
// returns those counts.
func checkUnread(ctx context.Context, pool *pgx.Conn, js jetstream.JetStream, users []string) (map[string]int64, bool) {
	counts := map[string]int64{}
	q, err := pool.Query(ctx, "SELECT user_id::text, count(*) FROM notification.notifications WHERE NOT is_read AND archived_at IS NULL GROUP BY 1")
	if err != nil {
		fail(err)
	}
	for q.Next() {
		var u string
		var c int64
		_ = q.Scan(&u, &c)
		counts[u] = c
	}
	q.Close()
	stream, err := js.Stream(ctx, "NOTIFICATION")
	if err != nil {
		fail(err)
	}
	wrong, noEvent := 0, 0
	for _, u := range users {
		subject, err := events.SubjectOf(&notificationv1.NotificationCreated{UserId: u})
		if err != nil {
			fail(err)
		}
		m, err := stream.GetLastMsgForSubject(ctx, subject)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			if counts[u] != 0 {
				noEvent++
			}
			continue
		}
		if err != nil {
			fail(err)
		}
		var ev notificationv1.NotificationCreated
		if proto.Unmarshal(m.Data, &ev) != nil || ev.GetUnreadCount() != counts[u] {
			wrong++
			if wrong <= 3 {
				fmt.Printf("  user %s: last published unread %d, COUNT %d\n", u, ev.GetUnreadCount(), counts[u])
			}
		}
	}
	fmt.Printf("unread counts: %d users, %d whose last published count differs from COUNT(*), %d with rows but no event\n", len(users), wrong, noEvent)
	return counts, wrong == 0 && noEvent == 0
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "nolost bench:", err)
	os.Exit(1)
}

// benchServiceKey is the services' SERVICE_TOKEN_KEY here (the fake auth
// checks no service token; the services require the variable).
const benchServiceKey = "SERVICE_TOKEN_KEY=YmVuY2gtc2VydmljZS10b2tlbi1rZXktMzItYnl0ZXM="
