// Package pgreplica gives a test a PostgreSQL primary and a hot-standby
// streaming replica of its own: two private clusters in a temporary folder,
// made with initdb and pg_basebackup from the machine's PostgreSQL
// binaries (pkg/pgcluster), stopped and removed when the test ends.
package pgreplica

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"bidradar/pkg/pgcluster"
)

// Pair is a running primary and its replica.
type Pair struct {
	t                testing.TB
	Primary, Replica pgcluster.Node
	mu               sync.Mutex
	procs            map[int]*exec.Cmd // by port
}

// Start makes and starts a primary and its replica. It skips the test
// under -short, and when the binaries are missing outside CI.
func Start(t testing.TB) *Pair {
	t.Helper()
	if testing.Short() {
		t.Skip("pgreplica: integration test skipped in -short mode")
	}
	if _, err := pgcluster.BinDir(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	root, err := os.MkdirTemp("", "pgreplica-")
	if err != nil {
		t.Fatal(err)
	}
	p := &Pair{t: t, procs: map[int]*exec.Cmd{},
		Primary: pgcluster.Node{Dir: filepath.Join(root, "primary"), Port: freePort(t)},
		Replica: pgcluster.Node{Dir: filepath.Join(root, "replica"), Port: freePort(t)}}
	t.Cleanup(func() {
		p.mu.Lock()
		for _, c := range p.procs {
			_ = c.Process.Signal(syscall.SIGQUIT) // immediate shutdown
			_ = c.Wait()
		}
		p.mu.Unlock()
		_ = os.RemoveAll(root)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := pgcluster.InitPrimary(ctx, p.Primary); err != nil {
		t.Fatal(err)
	}
	p.start(p.Primary)
	if err := pgcluster.BaseBackup(ctx, p.Primary, p.Replica); err != nil {
		t.Fatal(err)
	}
	p.start(p.Replica)
	return p
}

func (p *Pair) start(n pgcluster.Node) {
	p.t.Helper()
	var primary *pgcluster.Node
	if n == p.Replica {
		primary = &p.Primary
	}
	cmd, err := pgcluster.Command(n, primary)
	if err != nil {
		p.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	p.mu.Lock()
	p.procs[n.Port] = cmd
	p.mu.Unlock()
	if err := pgcluster.WaitReady(context.Background(), n, time.Minute); err != nil {
		p.t.Fatal(err)
	}
}

// PrimaryURL and ReplicaURL are the superuser's URLs of database db.
func (p *Pair) PrimaryURL(db string) string { return p.Primary.URL(db) }

// ReplicaURL is the replica's superuser URL of database db.
func (p *Pair) ReplicaURL(db string) string { return p.Replica.URL(db) }

// PauseReplay holds the replica back: it keeps receiving WAL but applies
// none until ResumeReplay.
func (p *Pair) PauseReplay() { p.exec(p.Replica, "SELECT pg_wal_replay_pause()") }

// ResumeReplay lets the replica catch up again.
func (p *Pair) ResumeReplay() { p.exec(p.Replica, "SELECT pg_wal_replay_resume()") }

// KillReplica stops the replica at once (SIGKILL of its postmaster).
func (p *Pair) KillReplica() {
	p.mu.Lock()
	c := p.procs[p.Replica.Port]
	delete(p.procs, p.Replica.Port)
	p.mu.Unlock()
	if c != nil {
		_ = c.Process.Kill()
		_ = c.Wait()
	}
}

// StartReplica starts the replica again after KillReplica; a killed
// postmaster's backends may hold its shared memory a moment, so it retries.
func (p *Pair) StartReplica() {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		cmd, err := pgcluster.Command(p.Replica, &p.Primary)
		if err != nil {
			p.t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			p.t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = pgcluster.WaitReady(ctx, p.Replica, 5*time.Second)
		cancel()
		if err == nil {
			p.mu.Lock()
			p.procs[p.Replica.Port] = cmd
			p.mu.Unlock()
			return
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if time.Now().After(deadline) {
			p.t.Fatalf("pgreplica: replica did not start again: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (p *Pair) exec(n pgcluster.Node, sql string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, n.URL("postgres"))
	if err != nil {
		p.t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, sql); err != nil {
		p.t.Fatal(err)
	}
}

func freePort(t testing.TB) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
