// Command realtime benchmarks the WebSocket fan-out (issue 11): the realtime
// service's own binary in its own process, N authenticated idle sockets
// (memory per socket from the process's RSS), then events committed to a
// notification outbox at R per second and relayed to JetStream as the
// notification service does (pkg/outbox), timed from the commit to the
// frame a client receives; then the same with 100 extra sockets that never
// read, against a control run where those 100 read.
//
//	cd bench/realtime && GOWORK=off go run . -conns 15000 -rate 1000 -duration 30s
package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"connectrpc.com/connect"
	"github.com/gorilla/websocket"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/gen/auth/v1/authv1connect"
	notificationv1 "bidradar/gen/notification/v1"
	"bidradar/pkg/authn"
	"bidradar/pkg/events"
	"bidradar/pkg/outbox"
	"bidradar/pkg/pgdb"
	"bidradar/services/notification/notificationsvc"
)

// keys serves the auth service's GetPublicKeys with the bench's signer.
type keys struct {
	authv1connect.UnimplementedAuthServiceHandler
	pub ed25519.PublicKey
}

func (k keys) GetPublicKeys(context.Context, *connect.Request[authv1.GetPublicKeysRequest]) (*connect.Response[authv1.GetPublicKeysResponse], error) {
	return connect.NewResponse(&authv1.GetPublicKeysResponse{Keys: []*authv1.PublicKey{{Kid: "k1", PublicKey: base64.StdEncoding.EncodeToString(k.pub)}}}), nil
}

func serve(h http.Handler) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	go (&http.Server{Handler: h, Protocols: &p}).Serve(ln)
	return ln.Addr().String()
}

func freePort() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// procStatus reads a field of /proc/<pid>/status in kB.
func procStatus(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, field+":") {
			f := strings.Fields(l)
			v, _ := strconv.ParseInt(f[1], 10, 64)
			return v
		}
	}
	return -1
}

func fds(pid int) int {
	es, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return len(es)
}

// recorder collects the latencies of one phase.
type recorder struct {
	mu  sync.Mutex
	lat []time.Duration
	on  bool
}

func (r *recorder) add(d time.Duration) {
	r.mu.Lock()
	if r.on {
		r.lat = append(r.lat, d)
	}
	r.mu.Unlock()
}

func (r *recorder) start() {
	r.mu.Lock()
	r.lat, r.on = r.lat[:0], true
	r.mu.Unlock()
}

func (r *recorder) stop() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.on = false
	return append([]time.Duration(nil), r.lat...)
}

func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(p*float64(len(s))+0.999999) - 1
	return s[max(i, 0)]
}

// bench holds the run's shared state.
type bench struct {
	signer  *authn.Signer
	wsURL   string
	pool    *pgxpool.Pool
	js      jetstream.JetStream
	seq     atomic.Int64
	commits sync.Map // notification id → commit time (UnixNano)
	seen    sync.Map // notification id → when the bench's own NATS subscriber saw it
	rec     recorder // commit → frame
	relay   recorder // commit → on NATS (the outbox relay)
	fanout  recorder // on NATS → frame (NATS, realtime, the socket)
	got     atomic.Int64
	dialer  websocket.Dialer
	o       options
	pid     int      // realtime's
	rss0    int64    // realtime's RSS idle, kB
	users   []string // the idle sockets' users
}

func (b *bench) token(user string) string {
	now := time.Now()
	tok, err := b.signer.Sign(authn.Claims{UserID: user, Email: user + "@example.com", Provider: authn.ProviderPassword,
		ID: "jti-" + user, IssuedAt: now, ExpiresAt: now.Add(2 * time.Hour)})
	if err != nil {
		fail(err)
	}
	return tok
}

// connect opens an authenticated socket for user (auth_success received).
func (b *bench) connect(user string, src int) (*websocket.Conn, error) {
	d := b.dialer
	d.NetDialContext = (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(2+src%8))}}).DialContext
	ws, _, err := d.Dial(b.wsURL+user, nil)
	if err != nil {
		return nil, err
	}
	if err := ws.WriteJSON(map[string]string{"type": "auth", "token": b.token(user)}); err != nil {
		ws.Close()
		return nil, err
	}
	_ = ws.SetReadDeadline(time.Now().Add(30 * time.Second))
	var m struct{ Type string }
	if err := ws.ReadJSON(&m); err != nil || m.Type != "auth_success" {
		ws.Close()
		return nil, fmt.Errorf("auth: %v %q", err, m.Type)
	}
	_ = ws.SetReadDeadline(time.Time{})
	return ws, nil
}

// read receives frames until the socket closes, timing the measured ones.
func (b *bench) read(ws *websocket.Conn) {
	for {
		_, data, err := ws.ReadMessage()
		if err != nil {
			return
		}
		now := time.Now().UnixNano()
		var m struct {
			Data struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		if json.Unmarshal(data, &m) != nil {
			continue
		}
		if t, ok := b.commits.LoadAndDelete(m.Data.ID); ok {
			b.rec.add(time.Duration(now - t.(int64)))
			if s, ok := b.seen.LoadAndDelete(m.Data.ID); ok {
				b.relay.add(time.Duration(s.(int64) - t.(int64)))
				b.fanout.add(time.Duration(now - s.(int64)))
			}
			b.got.Add(1)
		}
	}
}

const message = "จ้างเหมาบริการดูแลระบบคอมพิวเตอร์และเครือข่าย โดยวิธีเฉพาะเจาะจง"

// bigMessage fills the never-readers' buffers faster (~2 KB a frame).
var bigMessage = strings.Repeat(message+" ", 10)

func event(user, id string, unread int64) *notificationv1.NotificationCreated {
	return eventWith(user, id, unread, message)
}

func eventWith(user, id string, unread int64, msg string) *notificationv1.NotificationCreated {
	return &notificationv1.NotificationCreated{EventId: id, UserId: user, UnreadCount: unread,
		Notification: &notificationv1.Notification{Id: id, Title: "พบโครงการใหม่ตรงกับการค้นหาที่บันทึกไว้: คอมพิวเตอร์",
			Message: msg, Category: "project_update",
			Priority: "normal", Type: "bell_notification", ProjectId: "67010000123", Link: "/gen-infor/67010000123",
			CreatedAt: timestamppb.Now()}}
}

// commit writes one event to the notification outbox in its own
// transaction, as the notification service does with a new notification,
// and remembers when the commit returned.
func (b *bench) commit(ctx context.Context, user string) error {
	id := "n" + strconv.FormatInt(b.seq.Add(1), 10)
	return pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		if err := outbox.EnqueueEvent(ctx, tx, event(user, id, 1)); err != nil {
			return err
		}
		// Stored before the commit returns; the frame cannot arrive earlier.
		b.commits.Store(id, time.Now().UnixNano())
		return nil
	})
}

// load commits rate events/s to random users of users for d, and (when
// extra is set) publishes extraRate events/s straight to JetStream for the
// extra users, as the relay would; it returns the events committed.
func (b *bench) load(ctx context.Context, users []string, rate int, d time.Duration, extra []string, extraRate int) int {
	const workers = 8
	jobs := make(chan string, rate)
	var wg sync.WaitGroup
	var errs atomic.Int64
	for range workers {
		wg.Go(func() {
			for u := range jobs {
				if err := b.commit(ctx, u); err != nil && errs.Add(1) == 1 {
					fmt.Fprintln(os.Stderr, "commit:", err)
				}
			}
		})
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	end := time.Now().Add(d)
	start := time.Now()
	sent, sentExtra := 0, 0
	r := mrand.New(mrand.NewPCG(uint64(time.Now().UnixNano()), 1))
	for now := range tick.C {
		if now.After(end) {
			break
		}
		el := now.Sub(start).Seconds()
		for ; float64(sent) < el*float64(rate); sent++ {
			jobs <- users[r.IntN(len(users))]
		}
		for ; len(extra) > 0 && float64(sentExtra) < el*float64(extraRate); sentExtra++ {
			u := extra[sentExtra%len(extra)]
			id := "x" + strconv.Itoa(sentExtra)
			ev := eventWith(u, id, 1, bigMessage)
			subject, _ := events.SubjectOf(ev)
			data, _ := proto.Marshal(ev)
			if _, err := b.js.PublishAsync(subject, data); err != nil {
				fmt.Fprintln(os.Stderr, "publish:", err)
			}
		}
	}
	close(jobs)
	wg.Wait()
	if n := errs.Load(); n > 0 {
		fmt.Fprintf(os.Stderr, "%d commits failed\n", n)
	}
	return sent
}

// options are the command line's.
type options struct {
	conns, rate, slow, rounds, slowRate int
	dur, memWait                        time.Duration
	bin, childEnv                       string
	memOnly                             bool
}

func parseFlags() options {
	var o options
	flag.IntVar(&o.conns, "conns", 15000, "idle authenticated sockets")
	flag.IntVar(&o.rate, "rate", 1000, "events per second committed")
	flag.DurationVar(&o.dur, "duration", 30*time.Second, "length of each timed phase")
	flag.IntVar(&o.slow, "slow", 100, "sockets that never read (0: skip that phase)")
	flag.IntVar(&o.rounds, "rounds", 2, "control / never-reading phase pairs (order alternates)")
	flag.IntVar(&o.slowRate, "slow-rate", 1000, "events per second (~2 KB frames) to the extra sockets, over and above -rate")
	flag.StringVar(&o.bin, "realtime-bin", "", "realtime binary (built from services/realtime when empty)")
	flag.BoolVar(&o.memOnly, "mem-only", false, "stop after the memory figure")
	flag.DurationVar(&o.memWait, "mem-wait", 10*time.Second, "how long the idle sockets are watched before the memory figure")
	flag.StringVar(&o.childEnv, "realtime-env", "", "extra environment for realtime, comma-separated (e.g. GODEBUG=gctrace=1)")
	flag.Parse()
	return o
}

func main() {
	o := parseFlags()
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	raiseFileLimit(uint64(o.conns + 2*o.slow + 500))
	dir, err := os.MkdirTemp("", "bench-realtime")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	if o.bin == "" {
		o.bin = buildRealtime(dir)
	}
	ns, natsURL, err := events.StartEmbedded(events.EmbeddedOptions{StoreDir: filepath.Join(dir, "js"), Port: -1})
	if err != nil {
		fail(err)
	}
	defer ns.Shutdown()
	nc, js, err := events.Connect(natsURL, "bench-realtime")
	if err != nil {
		fail(err)
	}
	defer nc.Close()
	if err := events.EnsureStreams(ctx, js, "NOTIFICATION"); err != nil {
		fail(err)
	}
	pool := notificationDatabase(ctx)
	defer pool.Close()
	rctx, stopRelay := context.WithCancel(ctx)
	defer stopRelay()
	go func() { _ = outbox.NewRelay(pool, js, log, outbox.RelayOptions{}).Run(rctx) }()

	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer := authn.NewSigner(priv, "k1")
	mux := http.NewServeMux()
	mux.Handle(authv1connect.NewAuthServiceHandler(keys{pub: signer.PublicKey()}))
	authAddr := serve(mux)
	addr := freePort()
	cmd := startRealtime(o, natsURL, authAddr, addr)
	defer func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() }()

	b := &bench{signer: signer, wsURL: "ws://" + addr + "/ws/notifications/", pool: pool, js: js, o: o, pid: cmd.Process.Pid,
		dialer: websocket.Dialer{HandshakeTimeout: 30 * time.Second, ReadBufferSize: 1024, WriteBufferSize: 1024}}
	b.followRelay(nc)
	b.waitReady()
	conns := b.idleSockets()
	if o.memOnly {
		return
	}
	base := b.phase(ctx, "latency", nil, 0)
	if o.slow > 0 {
		b.rounds(ctx, base)
	}
	for _, ws := range conns {
		ws.Close()
	}
}

// raiseFileLimit raises the soft descriptor limit to the hard one (one
// socket per connection in each process: the client ends here, the server
// ends in realtime; the child inherits it) and fails below need.
func raiseFileLimit(need uint64) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		fail(err)
	}
	lim.Cur = lim.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		fail(err)
	}
	if lim.Cur < need {
		fail(fmt.Errorf("open-file limit %d < %d needed (ulimit -Hn)", lim.Cur, need))
	}
}

// buildRealtime builds the realtime binary into dir.
func buildRealtime(dir string) string {
	bin := filepath.Join(dir, "realtime")
	build := exec.Command("go", "build", "-o", bin, "./cmd/realtime")
	build.Dir = "../../services/realtime"
	// The service builds in the workspace (go.work), not with this
	// module's GOWORK=off: its own go.sum lacks what pkg needs.
	build.Env = append(os.Environ(), "GOWORK=")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fail(fmt.Errorf("build realtime: %w", err))
	}
	return bin
}

// notificationDatabase creates bench_realtime afresh with the notification
// service's schema and outbox, and connects to it.
func notificationDatabase(ctx context.Context) *pgxpool.Pool {
	admin, err := pgx.Connect(ctx, "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable")
	if err != nil {
		fail(err)
	}
	_, _ = admin.Exec(ctx, "DROP DATABASE IF EXISTS bench_realtime WITH (FORCE)")
	admin.Close(ctx)
	dbURL := "postgres://postgres@127.0.0.1:5432/bench_realtime?sslmode=disable"
	mig, err := notificationsvc.Open(ctx, dbURL) // the service's schema and outbox
	if err != nil {
		fail(err)
	}
	mig.Close()
	pool, err := pgdb.Open(ctx, dbURL+"&pool_max_conns=12", notificationsvc.Schema)
	if err != nil {
		fail(err)
	}
	return pool
}

// startRealtime starts the realtime binary on addr.
func startRealtime(o options, natsURL, authAddr, addr string) *exec.Cmd {
	cmd := exec.Command(o.bin, "serve")
	// The fake auth checks no service token; the service requires the key.
	cmd.Env = append(os.Environ(), "NATS_URL="+natsURL, "AUTH_TARGET="+authAddr, "REALTIME_ADDR="+addr, "LOG_LEVEL=warn",
		"SERVICE_TOKEN_KEY=YmVuY2gtc2VydmljZS10b2tlbi1rZXktMzItYnl0ZXM=")
	if o.childEnv != "" {
		cmd.Env = append(cmd.Env, strings.Split(o.childEnv, ",")...)
	}
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	return cmd
}

// followRelay notes when each measured event is on NATS: the split of the
// latency between the relay and the fan-out.
func (b *bench) followRelay(nc *nats.Conn) {
	created, err := events.TypeOf(&notificationv1.NotificationCreated{})
	if err != nil {
		fail(err)
	}
	if _, err := nc.Subscribe(created.Filter, func(m *nats.Msg) {
		now := time.Now().UnixNano()
		var ev notificationv1.NotificationCreated
		if proto.Unmarshal(m.Data, &ev) == nil && strings.HasPrefix(ev.GetEventId(), "n") {
			b.seen.Store(ev.GetEventId(), now)
		}
	}); err != nil {
		fail(err)
	}
}

// waitReady waits for the service and its keys (one socket authenticates)
// and prints its idle figures.
func (b *bench) waitReady() {
	var probe *websocket.Conn
	var err error
	for i := 0; ; i++ {
		if probe, err = b.connect("probe", 0); err == nil {
			break
		}
		if i > 300 {
			fail(fmt.Errorf("realtime did not come up: %w", err))
		}
		time.Sleep(100 * time.Millisecond)
	}
	probe.Close()
	time.Sleep(2 * time.Second)
	b.rss0 = procStatus(b.pid, "VmRSS")
	fmt.Printf("realtime (pid %d) idle: RSS %d kB, %d fds, %d threads\n", b.pid, b.rss0, fds(b.pid), procStatus(b.pid, "Threads"))
}

// idleSockets opens o.conns authenticated sockets, 64 handshakes at a time,
// reading in the background, and prints the memory they take.
func (b *bench) idleSockets() []*websocket.Conn {
	n := b.o.conns
	b.users = make([]string, n)
	conns := make([]*websocket.Conn, n)
	start := time.Now()
	sem := make(chan struct{}, 64)
	var wg sync.WaitGroup
	var failed atomic.Int64
	for i := range b.users {
		b.users[i] = fmt.Sprintf("u%05d", i)
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			ws, err := b.connect(b.users[i], i)
			if err != nil {
				if failed.Add(1) <= 3 {
					fmt.Fprintln(os.Stderr, "connect:", err)
				}
				return
			}
			conns[i] = ws
			go b.read(ws)
		})
	}
	wg.Wait()
	if f := failed.Load(); f > 0 {
		fail(fmt.Errorf("%d of %d sockets failed to connect", f, n))
	}
	fmt.Printf("%d sockets authenticated in %s\n", n, time.Since(start).Round(time.Millisecond))
	var rssSeries []int64
	for t := time.Now(); time.Since(t) < b.o.memWait; {
		time.Sleep(b.o.memWait / 10)
		rssSeries = append(rssSeries, procStatus(b.pid, "VmRSS"))
	}
	rss1 := rssSeries[len(rssSeries)-1]
	fmt.Printf("realtime with %d idle sockets: RSS %d kB (every %s: %v), %d fds, %d threads\n", n, rss1, b.o.memWait/10, rssSeries, fds(b.pid), procStatus(b.pid, "Threads"))
	fmt.Printf("memory per socket: %.1f KB (RSS delta %d kB / %d)\n", float64(rss1-b.rss0)*1024/1000/float64(n), rss1-b.rss0, n)
	return conns
}

// phase commits o.rate events/s to the idle users for o.dur (and extraRate
// events/s to the extra users), waits for their frames and prints the
// latencies and realtime's memory; it returns the commit → frame latencies.
func (b *bench) phase(ctx context.Context, name string, extra []string, extraRate int) []time.Duration {
	b.got.Store(0)
	b.rec.start()
	b.relay.start()
	b.fanout.start()
	rssStart := procStatus(b.pid, "VmRSS")
	stopMem := make(chan struct{})
	var peak atomic.Int64
	go func() {
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stopMem:
				return
			case <-t.C:
				if v := procStatus(b.pid, "VmRSS"); v > peak.Load() {
					peak.Store(v)
				}
			}
		}
	}()
	sent := b.load(ctx, b.users, b.o.rate, b.o.dur, extra, extraRate)
	deadline := time.Now().Add(10 * time.Second)
	for b.got.Load() < int64(sent) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	lat := b.rec.stop()
	rl, fo := b.relay.stop(), b.fanout.stop()
	close(stopMem)
	dur := b.o.dur
	fmt.Printf("%s: %d events in %s (%.0f/s) + %d/s to %d extra sockets; received %d; commit → frame p50 %s p95 %s p99 %s max %s; realtime RSS %d → peak %d → %d kB\n",
		name, sent, dur, float64(sent)/dur.Seconds(), extraRate, len(extra), len(lat),
		pct(lat, .5).Round(100*time.Microsecond), pct(lat, .95).Round(100*time.Microsecond),
		pct(lat, .99).Round(100*time.Microsecond), pct(lat, 1).Round(100*time.Microsecond),
		rssStart, peak.Load(), procStatus(b.pid, "VmRSS"))
	fmt.Printf("    of which commit → on NATS (relay) p50 %s p99 %s; on NATS → frame p50 %s p99 %s\n",
		pct(rl, .5).Round(100*time.Microsecond), pct(rl, .99).Round(100*time.Microsecond),
		pct(fo, .5).Round(100*time.Microsecond), pct(fo, .99).Round(100*time.Microsecond))
	return lat
}

// rounds runs the control and never-reading phases, alternating their order
// so that a change of the machine's other load falls on both sides, and
// compares them with base (no extra load).
func (b *bench) rounds(ctx context.Context, base []time.Duration) {
	var allControl, allNever []time.Duration
	for round := 1; round <= b.o.rounds; round++ {
		var c, n []time.Duration
		if round%2 == 1 {
			c, n = b.control(ctx, round), b.never(ctx, round)
		} else {
			n, c = b.never(ctx, round), b.control(ctx, round)
		}
		allControl, allNever = append(allControl, c...), append(allNever, n...)
		fmt.Printf("round %d: p99 with never-readers %s vs control %s (Δ %s)\n", round,
			pct(n, .99).Round(100*time.Microsecond), pct(c, .99).Round(100*time.Microsecond), (pct(n, .99) - pct(c, .99)).Round(100*time.Microsecond))
	}
	fmt.Printf("all rounds: p99 with never-readers %s vs control %s (Δ %s) vs no extra load %s\n",
		pct(allNever, .99).Round(100*time.Microsecond), pct(allControl, .99).Round(100*time.Microsecond),
		(pct(allNever, .99) - pct(allControl, .99)).Round(100*time.Microsecond), pct(base, .99).Round(100*time.Microsecond))
}

// extraUsers names the o.slow extra sockets of a phase.
func (b *bench) extraUsers(prefix string) []string {
	out := make([]string, b.o.slow)
	for i := range out {
		out[i] = fmt.Sprintf("%s%03d", prefix, i)
	}
	return out
}

// control: o.slow extra sockets that read, receiving o.slowRate events/s.
func (b *bench) control(ctx context.Context, round int) []time.Duration {
	readers := b.extraUsers(fmt.Sprintf("r%d-", round))
	var readerConns []*websocket.Conn
	for i, u := range readers {
		ws, err := b.connect(u, i)
		if err != nil {
			fail(err)
		}
		readerConns = append(readerConns, ws)
		go func() {
			for {
				if _, _, err := ws.NextReader(); err != nil {
					return
				}
			}
		}()
	}
	lat := b.phase(ctx, fmt.Sprintf("round %d, control (%d extra sockets that read)", round, b.o.slow), readers, b.o.slowRate)
	for _, ws := range readerConns {
		ws.Close()
	}
	time.Sleep(2 * time.Second)
	return lat
}

// never: o.slow sockets that never read after auth_success, with a small
// receive buffer, receiving o.slowRate events/s.
func (b *bench) never(ctx context.Context, round int) []time.Duration {
	slow := b.extraUsers(fmt.Sprintf("s%d-", round))
	slowConns := b.neverReaders(slow)
	fdsBefore := fds(b.pid)
	closedAt := make(chan time.Duration, 1)
	slowStart := time.Now()
	go func() { // when the server has closed them all
		for time.Since(slowStart) < b.o.dur+time.Minute {
			if fds(b.pid) <= fdsBefore-b.o.slow {
				closedAt <- time.Since(slowStart)
				return
			}
			// Listing 15 000 descriptors is not free: once a second.
			time.Sleep(time.Second)
		}
		closedAt <- -1
	}()
	lat := b.phase(ctx, fmt.Sprintf("round %d, with %d sockets that never read", round, b.o.slow), slow, b.o.slowRate)
	closed := <-closedAt
	// A socket the server closed ends in an error once the buffered
	// frames are read, not in a wait.
	ended := 0
	for _, c := range slowConns {
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err := io.Copy(io.Discard, c)
		var ne net.Error
		if !(errors.As(err, &ne) && ne.Timeout()) {
			ended++
		}
		c.Close()
	}
	fmt.Printf("    never-reading sockets: %d of %d closed by the server (all gone %s after the phase began); realtime fds %d → %d\n",
		ended, len(slowConns), closed.Round(100*time.Millisecond), fdsBefore, fds(b.pid))
	return lat
}

// neverReaders opens an authenticated socket for each of users that reads
// nothing after auth_success, and returns their connections.
func (b *bench) neverReaders(users []string) []net.Conn {
	var slowConns []net.Conn
	var slowMu sync.Mutex
	for i, u := range users {
		d := b.dialer
		d.NetDialContext = func(ctx context.Context, network, a string) (net.Conn, error) {
			nd := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(2+i%8))}}
			c, err := nd.DialContext(ctx, network, a)
			if err == nil {
				// Small, but not below the loopback MSS (64 KB): a receive
				// window that never opens a full segment stalls even reads.
				_ = c.(*net.TCPConn).SetReadBuffer(64 << 10)
				slowMu.Lock()
				slowConns = append(slowConns, c)
				slowMu.Unlock()
			}
			return c, err
		}
		ws, _, err := d.Dial(b.wsURL+u, nil)
		if err != nil {
			fail(err)
		}
		if err := ws.WriteJSON(map[string]string{"type": "auth", "token": b.token(u)}); err != nil {
			fail(err)
		}
		// auth_success is read; nothing after it ever is.
		var m struct{ Type string }
		if err := ws.ReadJSON(&m); err != nil || m.Type != "auth_success" {
			fail(fmt.Errorf("slow auth: %v %q", err, m.Type))
		}
	}
	return slowConns
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "realtime bench:", err)
	os.Exit(1)
}
