// Command cluster runs BidRadar on a replicated database, a three-node NATS
// cluster and two processes of every service (`make run-cluster`,
// docs/architecture.md#beyond-one-machine): the gateway on
// http://127.0.0.1:8080 (HTTP_ADDR overrides), data, logs and pid files
// under .data/cluster (CLUSTER_DIR overrides). SIGTERM or Ctrl-C stops
// everything. The same executable runs each service process.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"

	"bidradar/pkg/logging"
	"bidradar/stack/cluster"
)

func main() {
	cluster.ChildMain() // a service process of the cluster: never returns
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := logging.New("cluster", os.Getenv("LOG_LEVEL"))
	dir := os.Getenv("CLUSTER_DIR")
	if dir == "" {
		dir = filepath.Join(".data", "cluster")
	}
	c, err := cluster.Start(ctx, cluster.Options{Dir: dir, Log: log})
	if err != nil {
		log.Error("cluster failed to start", "err", err)
		os.Exit(1)
	}
	_ = os.WriteFile(filepath.Join(c.Dir(), "pids", "cluster.pid"), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644)
	fmt.Fprintf(os.Stderr, "\n  BidRadar Thailand (cluster) is running at %s  (Ctrl-C to stop)\n  pids: %s/pids, URLs: %s/cluster.env\n\n",
		c.URL, c.Dir(), c.Dir())
	<-ctx.Done()
	log.Info("stopping")
	c.Close()
	_ = os.Remove(filepath.Join(c.Dir(), "pids", "cluster.pid"))
}
