// Package cluster runs BidRadar on one machine the way it runs on several
// (`make run-cluster`, docs/architecture.md#beyond-one-machine): a
// PostgreSQL primary and a hot-standby streaming replica, a three-node
// NATS JetStream cluster, two processes of every service of
// stack.Services (each its own process, reached through a round-robin
// TCP balancer standing in for a Kubernetes Service) and the gateway,
// all under a supervisor that restarts whatever dies and keeps
// <dir>/pids/<name>.pid current, so a tester can kill any of them.
package cluster

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"bidradar/gateway/gw"
	"bidradar/pkg/pgcluster"
	"bidradar/pkg/pgdb"
	"bidradar/pkg/runner"
	"bidradar/stack"
)

// childEnv names the service a child process runs (ChildMain).
const childEnv = "BIDRADAR_CLUSTER_SERVICE"

// natsChild is the name under which ChildMain runs a NATS server.
const natsChild = "nats-server"

// natsMain is nats-server's main: the options from the command line, its
// own signal handling (SIGTERM stops it), until it shuts down.
func natsMain() {
	fs := flag.NewFlagSet("nats-server", flag.ExitOnError)
	opts, err := natsserver.ConfigureOptions(fs, os.Args[1:], natsserver.PrintServerAndExit, fs.Usage, natsserver.PrintTLSHelpAndDie)
	if err != nil {
		natsserver.PrintAndDie(err.Error())
	}
	s, err := natsserver.NewServer(opts)
	if err != nil {
		natsserver.PrintAndDie(err.Error())
	}
	s.ConfigureLogger()
	if err := natsserver.Run(s); err != nil {
		natsserver.PrintAndDie(err.Error())
	}
	s.WaitForShutdown()
	os.Exit(0)
}

// NATSNodes is the size of the NATS cluster, and the replicas of its
// streams and durable consumers.
const NATSNodes = 3

// Replicas is the number of processes of each service.
const Replicas = 2

// RestartDelay is the supervisor's pause before restarting a process that
// died (doubling up to 2 s while it keeps dying at once).
const RestartDelay = 200 * time.Millisecond

// ChildMain runs the service named by the environment when this process
// is one of a cluster's children (the cluster starts its own executable):
// it never returns then. Otherwise it returns at once.
func ChildMain() {
	name := os.Getenv(childEnv)
	if name == "" {
		return
	}
	if name == natsChild {
		natsMain()
	}
	spec, ok := specs()[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "cluster: no service %q\n", name)
		os.Exit(2)
	}
	os.Args = os.Args[:1] // serve
	runner.Main(spec)
	os.Exit(0)
}

func specs() map[string]runner.Spec {
	out := map[string]runner.Spec{gw.Spec.Name: gw.Spec}
	for _, s := range stack.Services() {
		out[s.Spec.Name] = s.Spec
	}
	return out
}

// Options configure a cluster.
type Options struct {
	// Dir holds the data, logs and pid files (default .data/cluster).
	Dir string
	// Env is set over this process's environment for every child (tests:
	// the mail catcher, DEMO_DATA); the cluster sets the addresses,
	// databases and NATS over both.
	Env map[string]string
	// Self starts a child: an executable calling ChildMain first
	// (default: this one).
	Self string
	// Log reports the supervisor's work (default: discarded).
	Log *slog.Logger
}

// Cluster is a running cluster.
type Cluster struct {
	// URL is the gateway's origin.
	URL string
	// PrimaryURL and ReplicaURL are the superuser's URLs of the product's
	// database on the primary and on the replica.
	PrimaryURL, ReplicaURL string
	// NATSURL lists the NATS nodes' client URLs, comma-separated.
	NATSURL string

	dir       string
	log       *slog.Logger
	mu        sync.Mutex
	procs     map[string]*proc
	order     []string // start order; stopped in reverse
	balancers []*balancer
}

// Start makes what is missing under Dir, starts every process and returns
// when the gateway's /healthz and /readyz answer 200.
func Start(ctx context.Context, o Options) (*Cluster, error) {
	if o.Dir == "" {
		o.Dir = filepath.Join(".data", "cluster")
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, err
	}
	if o.Self == "" {
		if o.Self, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	c := &Cluster{dir: dir, log: o.Log, procs: map[string]*proc{}}
	for _, d := range []string{"pids", "logs"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	ok := false
	defer func() {
		if !ok {
			c.Close()
		}
	}()
	if err := c.startPostgres(ctx); err != nil {
		return nil, err
	}
	if err := c.startNATS(ctx, o.Self); err != nil {
		return nil, err
	}
	if err := c.startServices(ctx, o); err != nil {
		return nil, err
	}
	if err := c.writeEnv(); err != nil {
		return nil, err
	}
	ok = true
	return c, nil
}

// startPostgres makes the primary (initdb) and the replica (pg_basebackup)
// when missing and runs both.
func (c *Cluster) startPostgres(ctx context.Context) error {
	ports, err := freePorts(2)
	if err != nil {
		return err
	}
	primary := pgcluster.Node{Dir: filepath.Join(c.dir, "pg-primary"), Port: ports[0]}
	replica := pgcluster.Node{Dir: filepath.Join(c.dir, "pg-replica"), Port: ports[1]}
	if !primary.Exists() {
		_ = os.RemoveAll(primary.Dir)
		_ = os.RemoveAll(replica.Dir)
		c.log.Info("making the PostgreSQL primary (initdb)", "dir", primary.Dir)
		if err := pgcluster.InitPrimary(ctx, primary); err != nil {
			return err
		}
	}
	c.add("pg-primary", syscall.SIGINT, func() (*exec.Cmd, error) { return pgcluster.Command(primary, nil) })
	if err := pgcluster.WaitReady(ctx, primary, 2*time.Minute); err != nil {
		return err
	}
	c.PrimaryURL = primary.URL("procurement")
	if err := pgdb.EnsureDatabase(ctx, c.PrimaryURL); err != nil {
		return err
	}
	if !replica.Exists() {
		c.log.Info("making the PostgreSQL replica (pg_basebackup)", "dir", replica.Dir)
		if err := pgcluster.BaseBackup(ctx, primary, replica); err != nil {
			return err
		}
	}
	c.add("pg-replica", syscall.SIGINT, func() (*exec.Cmd, error) { return pgcluster.Command(replica, &primary) })
	if err := pgcluster.WaitReady(ctx, replica, 2*time.Minute); err != nil {
		return err
	}
	c.ReplicaURL = replica.URL("procurement")
	return nil
}

// startNATS runs NATSNodes nats-server processes routed to each other
// and waits for JetStream's meta leader.
func (c *Cluster) startNATS(ctx context.Context, self string) error {
	bin, env := natsServer(self)
	ports, err := freePorts(2 * NATSNodes)
	if err != nil {
		return err
	}
	var urls, routes []string
	for i := range NATSNodes {
		urls = append(urls, fmt.Sprintf("nats://127.0.0.1:%d", ports[i]))
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", ports[NATSNodes+i]))
	}
	for i := range NATSNodes {
		name := fmt.Sprintf("nats-%d", i+1)
		args := []string{"-n", name, "-a", "127.0.0.1", "-p", strconv.Itoa(ports[i]),
			"-js", "-sd", filepath.Join(c.dir, name),
			"--cluster_name", "bidradar", "--cluster", routes[i],
			"--routes", strings.Join(append(append([]string{}, routes[:i]...), routes[i+1:]...), ",")}
		c.add(name, syscall.SIGTERM, func() (*exec.Cmd, error) {
			cmd := exec.Command(bin, args...)
			cmd.Env = append(os.Environ(), env...)
			return cmd, nil
		})
	}
	c.NATSURL = strings.Join(urls, ",")
	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for {
		if err := jetStreamReady(wctx, c.NATSURL); err == nil {
			return nil
		} else if wctx.Err() != nil {
			return fmt.Errorf("cluster: NATS JetStream not ready: %w", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func jetStreamReady(ctx context.Context, url string) error {
	nc, err := nats.Connect(url, nats.Timeout(2*time.Second))
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	actx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err = js.AccountInfo(actx)
	return err
}

// natsServer is how a NATS node starts: NATS_SERVER when set (a
// nats-server binary), else this executable as nats-server (ChildMain):
// the server of the version go.mod pins, in a process of its own.
func natsServer(self string) (string, []string) {
	if p := os.Getenv("NATS_SERVER"); p != "" {
		return p, nil
	}
	return self, []string{childEnv + "=" + natsChild}
}

func repoRoot() (string, error) {
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("cluster: go.work not found above the working directory")
		}
		dir = parent
	}
}

// startServices runs Replicas processes of every service behind a
// balancer each, then the gateway.
func (c *Cluster) startServices(ctx context.Context, o Options) error {
	services := stack.Services()
	getenv := func(k string) string {
		if v, ok := o.Env[k]; ok {
			return v
		}
		return os.Getenv(k)
	}
	env := map[string]string{
		"DATABASE_URL":      c.PrimaryURL,
		"DATABASE_READ_URL": c.ReplicaURL,
		"NATS_URL":          c.NATSURL,
		"NATS_REPLICAS":     strconv.Itoa(NATSNodes),
	}
	// The same defaults as `make run` (stack/cmd/stack).
	defaults := map[string]string{"DEMO_DATA": "3000", "WEBHOOK_ALLOW_PRIVATE": "true"}
	if getenv("APP_ENV") == "production" {
		delete(defaults, "WEBHOOK_ALLOW_PRIVATE")
	}
	for k, v := range defaults {
		if getenv(k) == "" {
			env[k] = v
		}
	}
	if getenv(runner.ServiceKeyEnv) == "" {
		var b [32]byte
		_, _ = rand.Read(b[:])
		env[runner.ServiceKeyEnv] = base64.StdEncoding.EncodeToString(b[:])
	}
	addr := getenv(gw.Spec.AddrEnv)
	if addr == "" {
		addr = gw.Spec.DefaultAddr
	}
	gwLn, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("cluster: gateway address %s: %w", addr, err)
	}
	gwAddr := gwLn.Addr().String()
	c.URL = "http://" + gwAddr
	if getenv("PUBLIC_URL") == "" {
		env["PUBLIC_URL"] = c.URL
	}
	if getenv("WEB_DIR") == "" {
		if root, err := repoRoot(); err == nil {
			if _, err := os.Stat(filepath.Join(root, "frontend", "dist")); err == nil {
				env["WEB_DIR"] = filepath.Join(root, "frontend", "dist")
			}
		}
	}
	// The balancers listen, and the gateway's address is held, before the
	// services' ports are picked: the system hands none of them out twice.
	for range services {
		b, err := listenBalancer()
		if err != nil {
			gwLn.Close()
			return err
		}
		c.balancers = append(c.balancers, b)
	}
	ports, err := freePorts(len(services) * Replicas)
	gwLn.Close()
	if err != nil {
		return err
	}
	backends := map[string][]string{}
	for i, s := range services {
		var addrs []string
		for r := range Replicas {
			addrs = append(addrs, fmt.Sprintf("127.0.0.1:%d", ports[i*Replicas+r]))
		}
		c.balancers[i].start(addrs)
		backends[s.Spec.Name] = addrs
		env[s.TargetEnv] = c.balancers[i].Addr()
	}
	child := func(spec runner.Spec, listen string) func() (*exec.Cmd, error) {
		vars := []string{childEnv + "=" + spec.Name, spec.AddrEnv + "=" + listen}
		for k, v := range env {
			vars = append(vars, k+"="+v)
		}
		sort.Strings(vars)
		return func() (*exec.Cmd, error) {
			cmd := exec.Command(o.Self)
			cmd.Env = append(baseEnv(o.Env), vars...)
			return cmd, nil
		}
	}
	// The first process of each, in order (auth first: the others fetch
	// its keys; one process migrates and seeds before its twin starts),
	// then the second ones together.
	for r := range Replicas {
		for _, s := range services {
			name := fmt.Sprintf("%s-%d", s.Spec.Name, r+1)
			listen := backends[s.Spec.Name][r]
			c.add(name, syscall.SIGTERM, child(s.Spec, listen))
			if r == 0 {
				if err := waitHTTP(ctx, "http://"+listen+"/readyz", 3*time.Minute, c.procs[name]); err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
			}
		}
	}
	for _, s := range services {
		name := fmt.Sprintf("%s-%d", s.Spec.Name, Replicas)
		if err := waitHTTP(ctx, "http://"+backends[s.Spec.Name][Replicas-1]+"/readyz", 3*time.Minute, c.procs[name]); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	c.add("gateway", syscall.SIGTERM, child(gw.Spec, gwAddr))
	for _, path := range []string{"/healthz", "/readyz"} {
		if err := waitHTTP(ctx, c.URL+path, time.Minute, c.procs["gateway"]); err != nil {
			return fmt.Errorf("gateway: %w", err)
		}
	}
	return nil
}

// baseEnv is the environment children inherit: this process's with env
// over it.
func baseEnv(env map[string]string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != childEnv {
			out = append(out, kv)
		}
	}
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

func waitHTTP(ctx context.Context, url string, limit time.Duration, p *proc) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		resp, err := client.Get(url)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("%s: %s", url, resp.Status)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not ready after %s (%v); its log: %s", limit, err, p.logTail())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// writeEnv writes cluster.env: the URLs a tester needs.
func (c *Cluster) writeEnv() error {
	text := fmt.Sprintf("URL=%s\nPRIMARY_URL=%s\nREPLICA_URL=%s\nNATS_URL=%s\nPIDS=%s\n",
		c.URL, c.PrimaryURL, c.ReplicaURL, c.NATSURL, filepath.Join(c.dir, "pids"))
	return os.WriteFile(filepath.Join(c.dir, "cluster.env"), []byte(text), 0o644)
}

// Names lists the supervised processes in start order.
func (c *Cluster) Names() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.order...)
}

// Pid is the current pid of a process (0 when it is not running).
func (c *Cluster) Pid(name string) int {
	c.mu.Lock()
	p := c.procs[name]
	c.mu.Unlock()
	if p == nil {
		return 0
	}
	return p.pid()
}

// Restarts counts the restarts of a process.
func (c *Cluster) Restarts(name string) int {
	c.mu.Lock()
	p := c.procs[name]
	c.mu.Unlock()
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.restarts
}

// Dir is the cluster's folder.
func (c *Cluster) Dir() string { return c.dir }

// Close stops every process, the gateway first and PostgreSQL last.
func (c *Cluster) Close() {
	c.mu.Lock()
	order := append([]string(nil), c.order...)
	c.mu.Unlock()
	// Gateway and services together, then NATS, then PostgreSQL.
	var groups [3][]*proc
	for _, name := range order {
		p := c.procs[name]
		switch {
		case strings.HasPrefix(name, "pg-"):
			groups[2] = append(groups[2], p)
		case strings.HasPrefix(name, "nats-"):
			groups[1] = append(groups[1], p)
		default:
			groups[0] = append(groups[0], p)
		}
	}
	for _, g := range groups {
		var wg sync.WaitGroup
		for _, p := range g {
			wg.Go(p.stop)
		}
		wg.Wait()
	}
	for _, b := range c.balancers {
		b.Close()
	}
}

// add starts name under supervision and waits for its first start.
func (c *Cluster) add(name string, stopSig syscall.Signal, build func() (*exec.Cmd, error)) {
	p := &proc{name: name, build: build, stopSig: stopSig, log: c.log,
		pidFile: filepath.Join(c.dir, "pids", name+".pid"),
		logFile: filepath.Join(c.dir, "logs", name+".log"),
		started: make(chan struct{}), done: make(chan struct{})}
	c.mu.Lock()
	c.procs[name] = p
	c.order = append(c.order, name)
	c.mu.Unlock()
	go p.supervise()
	<-p.started
}

func freePorts(n int) ([]int, error) {
	var lns []net.Listener
	defer func() {
		for _, l := range lns {
			l.Close()
		}
	}()
	var out []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}

// lastLines is the end of a log file, for an error message.
func lastLines(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	return strings.Join(lines, "\n")
}
