package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"connectrpc.com/connect"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	notificationv1 "bidradar/gen/notification/v1"
	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/pkg/events"

	"bidradar/services/notification/notificationsvc"
	"bidradar/services/projects/benchkit"
)

// bellSide is the notification service's side of the alerts in the bench
// process: its consumer of the projects' alerts writes the bell rows (in
// its own schema of the bench's database), its relay publishes a
// NotificationCreated a row (what the realtime service pushes to the
// user's open pages), recorded here as it reaches the bus.
type bellSide struct {
	pool   *pgxpool.Pool
	pushed *busRecord
	stop   func()
}

// replicas is how many of the service's processes read the alerts: each
// runs the durable consumer and the relay, as a replica of the service
// does (make run-cluster runs two of every service), here in one process
// over one pool.
func startBells(ctx context.Context, dbURL string, projects *pgxpool.Pool, nc *nats.Conn, js jetstream.JetStream, log *slog.Logger, replicas int) *bellSide {
	pool, err := notificationsvc.Open(ctx, dbURL)
	if err != nil {
		fail(err)
	}
	created, err := events.TypeOf(&notificationv1.NotificationCreated{})
	if err != nil {
		fail(err)
	}
	b := &bellSide{pool: pool, pushed: recordSubject(nc, created.Filter)}
	var stops []func()
	for range max(replicas, 1) {
		stop, err := notificationsvc.StartAlerts(ctx, pool, js, ownersRPC{projects}, log)
		if err != nil {
			fail(err)
		}
		stops = append(stops, stop)
	}
	b.stop = func() {
		b.pushed.stop()
		for _, stop := range stops {
			stop()
		}
		pool.Close()
	}
	return b
}

// ownersRPC answers the notification service's GetSearchOwners from the
// projects schema, as the projects service does.
type ownersRPC struct{ pool *pgxpool.Pool }

func (o ownersRPC) GetSearchOwners(ctx context.Context, req *connect.Request[projectsv1.GetSearchOwnersRequest]) (*connect.Response[projectsv1.GetSearchOwnersResponse], error) {
	raw := req.Msg.GetCriteriaKeys()
	keys := make([][16]byte, len(raw)/16)
	for i := range keys {
		keys[i] = [16]byte(raw[16*i : 16*i+16])
	}
	ids, users, names, ver, err := benchkit.SearchOwners(ctx, o.pool, keys)
	if err != nil {
		return nil, err
	}
	out := &projectsv1.GetSearchOwnersResponse{CriteriaVersion: ver}
	for i := range ids {
		out.Searches = append(out.Searches, &projectsv1.SearchOwner{CriteriaKey: ids[i][:], UserId: users[i], Name: names[i]})
	}
	return connect.NewResponse(out), nil
}

// report waits until expected bell rows are pushed (30 min at most), then
// prints when the last was written and pushed, from the import's start,
// and checks the rows: one a user and import, each user's unread count as
// last pushed equal to their rows.
func (b *bellSide) report(ctx context.Context, r *importRun, expected int) {
	for b.pushed.n.Load() < int64(expected) {
		time.Sleep(10 * time.Millisecond)
		if time.Since(r.start) > 30*time.Minute {
			fmt.Printf("!! %d of %d bell rows pushed after 30 min\n", b.pushed.n.Load(), expected)
			break
		}
	}
	time.Sleep(time.Second) // anything more than expected (there should be nothing)
	pushedLast := time.Unix(0, b.pushed.last.Load()).Sub(r.start)
	var runID int64
	if err := r.projects.QueryRow(ctx, "SELECT max(id) FROM ingest_runs").Scan(&runID); err != nil {
		fail(err)
	}
	var rows, grouped, users int
	var lastWritten time.Time
	if err := b.pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE dedup_key = $1), count(DISTINCT user_id), coalesce(max(created_at), now())
		FROM notifications`, fmt.Sprintf("import:%d", runID)).Scan(&rows, &grouped, &users, &lastWritten); err != nil {
		fail(err)
	}
	fmt.Printf("bell: %d rows (%d of them import:%d, %d users) written, the last %s after the import began; the last of %d pushed (NotificationCreated on the bus) %s after\n",
		rows, grouped, runID, users, lastWritten.Sub(r.start).Round(time.Millisecond), b.pushed.n.Load(), pushedLast.Round(time.Millisecond))
	// Each user's unread count as last pushed, against their rows.
	perUser := map[string]int64{}
	rs, err := b.pool.Query(ctx, `SELECT user_id::text, count(*) FROM notifications WHERE NOT is_read GROUP BY user_id`)
	if err != nil {
		fail(err)
	}
	var u string
	var n int64
	if _, err := pgx.ForEachRow(rs, []any{&u, &n}, func() error { perUser[u] = n; return nil }); err != nil {
		fail(err)
	}
	lastCount := map[string]int64{}
	data, _ := b.pushed.taken()
	for _, d := range data {
		var ev notificationv1.NotificationCreated
		if err := proto.Unmarshal(d, &ev); err != nil {
			fail(err)
		}
		lastCount[ev.UserId] = max(lastCount[ev.UserId], ev.UnreadCount)
	}
	bad := 0
	for u, n := range perUser {
		if lastCount[u] != n {
			bad++
		}
	}
	switch {
	case rows != expected || len(data) != expected:
		fmt.Printf("!! %d bell rows and %d pushed, %d expected (one a user and import, or of a one-project user)\n", rows, len(data), expected)
	case bad > 0:
		fmt.Printf("!! %d users' last pushed unread count differs from their rows\n", bad)
	default:
		fmt.Printf("bell: every row once (%d), and every user's last pushed unread count equals their rows\n", rows)
	}
}
