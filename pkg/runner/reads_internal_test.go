package runner

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/protobuf/types/known/emptypb"

	"bidradar/pkg/authn"
	"bidradar/pkg/pgdb"
	"bidradar/pkg/testutil/pgtest"
)

// A user's call that writes answers with the br_lsn cookie (the primary's
// position after it); one that only reads sets none; the next call's
// session carries the cookie's position, from a browser's Cookie or the
// grpc-gateway's forwarded line; a service's call may not read on the
// replica.
func TestReadsInterceptorCarriesTheWritePosition(t *testing.T) {
	ctx := context.Background()
	pool, err := pgdb.Open(ctx, pgtest.NewDatabase(t), "reads")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, "CREATE TABLE marks (id int)"); err != nil {
		t.Fatal(err)
	}
	// The "replica" is a second pool on the primary (never healthy: not in
	// recovery); what is tested here is the session and the cookie.
	replica, err := pgxpool.New(ctx, pool.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	reads := pgdb.NewReads(pool, replica, pgdb.ReadsOptions{})
	defer reads.Close()

	var seen *pgdb.Session
	call := func(sql string, header http.Header) http.Header {
		t.Helper()
		h := readsInterceptor(reads, false)(func(ctx context.Context, _ connect.AnyRequest) (connect.AnyResponse, error) {
			seen = pgdb.SessionFrom(ctx)
			if _, err := pool.Exec(ctx, sql); err != nil {
				return nil, err
			}
			return connect.NewResponse(&emptypb.Empty{}), nil
		})
		req := connect.NewRequest(&emptypb.Empty{})
		for k, v := range header {
			req.Header()[k] = v
		}
		resp, err := h(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return resp.Header()
	}
	if c := call("SELECT count(*) FROM marks", nil).Get("Set-Cookie"); c != "" {
		t.Fatalf("a read set %q", c)
	}
	cookie := call("INSERT INTO marks VALUES (1)", nil).Get("Set-Cookie")
	if !strings.HasPrefix(cookie, pgdb.LSNCookie+"=") || !strings.Contains(cookie, "HttpOnly") {
		t.Fatalf("a write set %q", cookie)
	}
	lsn := strings.TrimPrefix(strings.Split(cookie, ";")[0], pgdb.LSNCookie+"=")
	if _, err := pgdb.ParseLSN(lsn); err != nil {
		t.Fatalf("cookie value %q: %v", lsn, err)
	}
	for _, name := range []string{"Cookie", "Grpcgateway-Cookie"} {
		if got := lsnCookie(http.Header{name: {"access_token=x; " + pgdb.LSNCookie + "=" + lsn}}); got != lsn {
			t.Fatalf("%s: position %q, want %q", name, got, lsn)
		}
	}
	call("SELECT 1", nil)
	if !seen.MayReadReplica() {
		t.Fatal("a user's call may not read on the replica")
	}
	call("SELECT 1", http.Header{authn.ServiceTokenHeader: {"t"}})
	if seen.MayReadReplica() || seen.Wrote() {
		t.Fatal("a service's call may read on the replica")
	}
}
