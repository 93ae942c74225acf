package outbox_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"bidradar/pkg/events"
	"bidradar/pkg/outbox"
	"bidradar/pkg/pgdb"
	"bidradar/pkg/testutil/eventually"
	"bidradar/pkg/testutil/natstest"
	"bidradar/pkg/testutil/pgtest"
)

// On a three-node cluster the stream is kept by three servers, and the
// relay publishing through the loss of the stream's leader keeps its
// order and its exactly-once effect: every event in the stream once, in
// the order of the outbox, and every one delivered to a durable consumer
// (docs/architecture.md#beyond-one-machine).
func TestRelayAcrossANodeLoss(t *testing.T) {
	if testing.Short() {
		t.Skip("a NATS cluster")
	}
	events.SetStreamReplicas(3)
	t.Cleanup(func() { events.SetStreamReplicas(1) })
	cl := natstest.StartCluster(t, 3)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pool, err := pgdb.Open(ctx, pgtest.NewDatabase(t), "projects")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := outbox.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	nc, js, err := events.Connect(cl.URL(), t.Name())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if err := events.EnsureStreams(ctx, js, "PROJECTS"); err != nil {
		t.Fatal(err)
	}
	st, err := js.Stream(ctx, "PROJECTS")
	if err != nil {
		t.Fatal(err)
	}
	if r := st.CachedInfo().Config.Replicas; r != 3 {
		t.Fatalf("stream on %d servers, want 3", r)
	}

	var mu sync.Mutex
	seen := map[string]int{}
	stop, err := events.Consume(ctx, js, "PROJECTS", "cluster-test", nil, func(_ context.Context, _, id string, _ []byte) error {
		mu.Lock()
		seen[id]++
		mu.Unlock()
		return nil
	}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	go func() {
		_ = outbox.NewRelay(pool, js, quiet, outbox.RelayOptions{Batch: 10, PollInterval: 100 * time.Millisecond}).Run(ctx)
	}()

	const n = 200
	ids := make([]string, n)
	for i := range n {
		ids[i] = fmt.Sprintf("ev-%03d", i)
		enqueue(t, ctx, pool, true, ids[i])
		if i == n/3 {
			info, err := st.Info(ctx)
			if err != nil || info.Cluster == nil {
				t.Fatalf("stream info: %v", err)
			}
			leader := cl.Node(info.Cluster.Leader)
			t.Logf("stopping the stream's leader %s", info.Cluster.Leader)
			cl.Stop(leader)
			defer cl.Restart(leader)
		}
		time.Sleep(5 * time.Millisecond)
	}
	eventually.True(t, 60*time.Second, "every event published and consumed", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return unpublished(t, env{pool: pool}) == 0 && len(seen) == n
	})
	// The stream: each event once, in the outbox's order.
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != n {
		t.Fatalf("stream holds %d messages, want %d", info.State.Msgs, n)
	}
	for seq := uint64(1); seq <= n; seq++ {
		m, err := st.GetMsg(ctx, seq)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Header.Get("Nats-Msg-Id"); got != ids[seq-1] {
			t.Fatalf("message %d is %s, want %s", seq, got, ids[seq-1])
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, id := range ids {
		if seen[id] == 0 {
			t.Errorf("%s never delivered", id)
		}
	}
}
