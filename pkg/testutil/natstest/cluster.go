package natstest

import (
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Cluster is a JetStream cluster of embedded servers routed to each other
// on 127.0.0.1, for tests of what survives the loss of a node.
type Cluster struct {
	t       testing.TB
	mu      sync.Mutex
	opts    []*server.Options
	servers []*server.Server
}

// StartCluster starts n clustered JetStream servers, their stores in
// t.TempDir(), stopped when the test ends, and waits for a meta leader.
func StartCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	ports := make([]int, 2*n)
	var lns []net.Listener
	for i := range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ports[i] = ln.Addr().(*net.TCPAddr).Port
		lns = append(lns, ln)
	}
	for _, ln := range lns {
		ln.Close()
	}
	dir := t.TempDir()
	c := &Cluster{t: t}
	for i := range n {
		var routes []*url.URL
		for j := range n {
			if j != i {
				routes = append(routes, &url.URL{Scheme: "nats", Host: fmt.Sprintf("127.0.0.1:%d", ports[n+j])})
			}
		}
		c.opts = append(c.opts, &server.Options{
			ServerName: fmt.Sprintf("n%d", i+1), Host: "127.0.0.1", Port: ports[i],
			JetStream: true, StoreDir: filepath.Join(dir, fmt.Sprintf("n%d", i+1)), NoSigs: true, NoLog: true,
			Cluster: server.ClusterOpts{Name: "test", Host: "127.0.0.1", Port: ports[n+i]},
			Routes:  routes,
		})
		c.servers = append(c.servers, nil)
	}
	for i := range n {
		c.start(i)
	}
	t.Cleanup(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, s := range c.servers {
			if s != nil {
				s.Shutdown()
				s.WaitForShutdown()
			}
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for !c.anyLeader() {
		if time.Now().After(deadline) {
			t.Fatal("natstest: no JetStream meta leader after 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return c
}

func (c *Cluster) anyLeader() bool {
	for _, s := range c.servers {
		if s != nil && s.JetStreamIsLeader() {
			return true
		}
	}
	return false
}

func (c *Cluster) start(i int) {
	c.t.Helper()
	s, err := server.NewServer(c.opts[i])
	if err != nil {
		c.t.Fatalf("natstest: node %d: %v", i+1, err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		c.t.Fatalf("natstest: node %d not ready", i+1)
	}
	c.mu.Lock()
	c.servers[i] = s
	c.mu.Unlock()
}

// URL lists every node's client URL, comma-separated (NATS_URL).
func (c *Cluster) URL() string {
	var urls []string
	for _, o := range c.opts {
		urls = append(urls, fmt.Sprintf("nats://127.0.0.1:%d", o.Port))
	}
	return strings.Join(urls, ",")
}

// Node is the index of the server named name (e.g. a stream's leader).
func (c *Cluster) Node(name string) int {
	for i, o := range c.opts {
		if o.ServerName == name {
			return i
		}
	}
	return -1
}

// Stop shuts node i down, as a lost machine.
func (c *Cluster) Stop(i int) {
	c.mu.Lock()
	s := c.servers[i]
	c.servers[i] = nil
	c.mu.Unlock()
	if s != nil {
		s.Shutdown()
		s.WaitForShutdown()
	}
}

// Restart starts node i again on its store.
func (c *Cluster) Restart(i int) { c.start(i) }
