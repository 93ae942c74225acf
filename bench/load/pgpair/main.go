// Command pgpair runs a private PostgreSQL primary and a hot-standby
// streaming replica of it for bench/load's replica runs (bench/README.md,
// "With the replica serving reads"): both made with the machine's own
// binaries by pkg/pgcluster, the same way `make run-cluster` makes its pair,
// so a benchmark compares one database against a replica serving reads on
// the same settings. The replica is made from the empty primary, so a load
// into the primary reaches it by streaming replication, as in production.
//
//	go run ./bench/load/pgpair -dir .data/benchpair &
//	cd bench/search && GOWORK=off go run . -n 1000000 -load-only \
//	    -db 'postgres://postgres@127.0.0.1:5442/bench_search_1000000?sslmode=disable'
//
// It prints both URLs, and stops both servers on SIGINT or SIGTERM.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"bidradar/pkg/pgcluster"
)

func main() {
	dir := flag.String("dir", ".data/benchpair", "where the two data directories live")
	primaryPort := flag.Int("primary-port", 5442, "the primary's port on 127.0.0.1")
	replicaPort := flag.Int("replica-port", 5443, "the replica's port on 127.0.0.1")
	flag.Parse()
	if err := run(*dir, *primaryPort, *replicaPort); err != nil {
		fmt.Fprintln(os.Stderr, "pgpair:", err)
		os.Exit(1)
	}
}

// run starts the pair and keeps it until a signal; every server it started
// is stopped before it returns, on an error too.
func run(dir string, primaryPort, replicaPort int) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	primary := pgcluster.Node{Dir: filepath.Join(abs, "primary"), Port: primaryPort}
	replica := pgcluster.Node{Dir: filepath.Join(abs, "replica"), Port: replicaPort}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if !primary.Exists() {
		if err := pgcluster.InitPrimary(ctx, primary); err != nil {
			return err
		}
	}
	p, err := start(ctx, primary, nil)
	if err != nil {
		return err
	}
	defer halt(p)
	if !replica.Exists() {
		if err := pgcluster.BaseBackup(ctx, primary, replica); err != nil {
			return err
		}
	}
	r, err := start(ctx, replica, &primary)
	if err != nil {
		return err
	}
	defer halt(r)
	fmt.Printf("PRIMARY_URL=%s\nREPLICA_URL=%s\n", primary.URL("postgres"), replica.URL("postgres"))
	<-ctx.Done()
	return nil
}

func start(ctx context.Context, n pgcluster.Node, primary *pgcluster.Node) (*exec.Cmd, error) {
	cmd, err := pgcluster.Command(n, primary)
	if err != nil {
		return nil, err
	}
	log, err := os.Create(n.Dir + ".log")
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	if err := pgcluster.WaitReady(ctx, n, 60*time.Second); err != nil {
		halt(cmd)
		return nil, err
	}
	return cmd, nil
}

// halt stops a postmaster with a fast shutdown (SIGINT) and waits for it.
func halt(cmd *exec.Cmd) {
	_ = cmd.Process.Signal(syscall.SIGINT)
	_ = cmd.Wait()
}
