package pgtest_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"bidradar/pkg/testutil/pgtest"

	"github.com/jackc/pgx/v5"
)

func TestNewDatabaseCreatesAndDrops(t *testing.T) {
	ctx := context.Background()
	var name string
	var leaked *pgx.Conn
	t.Run("inner", func(t *testing.T) {
		dbURL := pgtest.NewDatabase(t)
		u, err := url.Parse(dbURL)
		if err != nil {
			t.Fatal(err)
		}
		name = strings.TrimPrefix(u.Path, "/")
		conn, err := pgx.Connect(ctx, dbURL)
		if err != nil {
			t.Fatal(err)
		}
		leaked = conn // still open when the database is dropped: WITH (FORCE)
		var ctype, db string
		if err := conn.QueryRow(ctx, "SELECT datctype, current_database() FROM pg_database WHERE datname = current_database()").Scan(&ctype, &db); err != nil {
			t.Fatal(err)
		}
		if ctype != "C.UTF-8" || db != name {
			t.Fatalf("ctype %q db %q", ctype, db)
		}
	})
	if leaked != nil {
		_ = leaked.Close(ctx)
	}
	if name == "" {
		t.Skip("inner test skipped")
	}
	admin, err := pgx.Connect(ctx, pgtest.AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil || exists {
		t.Fatalf("database %s still exists (%v)", name, err)
	}
}
