package pgdb_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"bidradar/pkg/pgdb"
	"bidradar/pkg/testutil/pgtest"

	"github.com/jackc/pgx/v5"
)

func TestEnsureDatabaseCreatesUTF8Database(t *testing.T) {
	base := pgtest.NewDatabase(t) // proves the server is there; we create a sibling
	u, _ := url.Parse(base)
	name := strings.TrimPrefix(u.Path, "/") + "_ens"
	u.Path = "/" + name
	target := u.String()
	ctx := context.Background()
	t.Cleanup(func() {
		c, err := pgx.Connect(ctx, pgtest.AdminURL())
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`); err != nil {
			t.Error(err)
		}
	})

	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Go(func() { errs[i] = pgdb.EnsureDatabase(ctx, target) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatalf("EnsureDatabase (concurrent): %v", err)
		}
	}
	if err := pgdb.EnsureDatabase(ctx, target); err != nil {
		t.Fatalf("EnsureDatabase again: %v", err)
	}
	c, err := pgx.Connect(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var ctype, enc string
	if err := c.QueryRow(ctx, `SELECT datctype, pg_encoding_to_char(encoding) FROM pg_database WHERE datname = current_database()`).Scan(&ctype, &enc); err != nil {
		t.Fatal(err)
	}
	if ctype != "C.UTF-8" || enc != "UTF8" {
		t.Fatalf("ctype %q encoding %q", ctype, enc)
	}
}

func TestOpenSetsSearchPathAndCreatesSchema(t *testing.T) {
	dbURL := pgtest.NewDatabase(t)
	ctx := context.Background()
	pool, err := pgdb.Open(ctx, dbURL, "auth")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var sp, cur string
	if err := pool.QueryRow(ctx, "SELECT current_setting('search_path'), current_schema()").Scan(&sp, &cur); err != nil {
		t.Fatal(err)
	}
	if sp != `"auth", public` || cur != "auth" {
		t.Fatalf("search_path %q current_schema %q", sp, cur)
	}
	// A second Open on the same schema is fine.
	p2, err := pgdb.Open(ctx, dbURL, "auth")
	if err != nil {
		t.Fatal(err)
	}
	p2.Close()
}

func TestErrorHelpers(t *testing.T) {
	dbURL := pgtest.NewDatabase(t)
	ctx := context.Background()
	pool, err := pgdb.Open(ctx, dbURL, "x")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, "CREATE TABLE t (id int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, "INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	_, err = pool.Exec(ctx, "INSERT INTO t VALUES (1)")
	if !pgdb.IsUniqueViolation(err) {
		t.Fatalf("IsUniqueViolation(%v) = false", err)
	}
	var id int
	err = pool.QueryRow(ctx, "SELECT id FROM t WHERE id = 2").Scan(&id)
	if !pgdb.IsNoRows(err) {
		t.Fatalf("IsNoRows(%v) = false", err)
	}
	if pgdb.IsNoRows(errors.New("x")) || pgdb.IsUniqueViolation(nil) {
		t.Fatal("false positives")
	}
}

func TestMigrate(t *testing.T) {
	dbURL := pgtest.NewDatabase(t)
	ctx := context.Background()
	pool, err := pgdb.Open(ctx, dbURL, "projects")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()

	v1 := fstest.MapFS{
		"00001_create_items.sql": {Data: []byte("CREATE TABLE items (id int PRIMARY KEY, title text);\nCREATE INDEX items_title ON items (title);")},
		"00002_seed.sql":         {Data: []byte("INSERT INTO items VALUES (1, 'ถนนลาดยาง');")},
		"README.md":              {Data: []byte("ignored")},
	}
	// Several replicas at once: serialized by the advisory lock.
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() { errs[i] = pgdb.Migrate(ctx, pool, "projects", v1) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatalf("Migrate: %v", err)
		}
	}
	var n int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM projects.items").Scan(&n); err != nil || n != 1 {
		t.Fatalf("items: %d %v", n, err)
	}
	// Idempotent.
	if err := pgdb.Migrate(ctx, pool, "projects", v1); err != nil {
		t.Fatal(err)
	}

	// A new migration is applied; //go:embed-style "migrations/" directory.
	v2 := fstest.MapFS{}
	for k, v := range v1 {
		v2["migrations/"+k] = v
	}
	v2["migrations/00003_more.sql"] = &fstest.MapFile{Data: []byte("INSERT INTO items VALUES (2, 'คอมพิวเตอร์');")}
	if err := pgdb.Migrate(ctx, pool, "projects", v2); err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, "SELECT version, name FROM projects.schema_migrations ORDER BY version")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var v int
		var name string
		if err := rows.Scan(&v, &name); err != nil {
			t.Fatal(err)
		}
		got = append(got, name)
	}
	if strings.Join(got, ",") != "create_items,seed,more" {
		t.Fatalf("schema_migrations: %v", got)
	}

	// Renamed applied migration: rejected.
	renamed := fstest.MapFS{
		"00001_create_items.sql": v1["00001_create_items.sql"],
		"00002_seed_renamed.sql": v1["00002_seed.sql"],
	}
	if err := pgdb.Migrate(ctx, pool, "projects", renamed); err == nil || !strings.Contains(err.Error(), "seed_renamed") {
		t.Fatalf("renamed migration: err = %v", err)
	}
	// Gap: rejected before anything runs.
	gap := fstest.MapFS{
		"00001_create_items.sql": v1["00001_create_items.sql"],
		"00003_more.sql":         v2["migrations/00003_more.sql"],
	}
	if err := pgdb.Migrate(ctx, pool, "projects", gap); err == nil || !strings.Contains(err.Error(), "gap") {
		t.Fatalf("gap: err = %v", err)
	}
	// A failing migration is rolled back and not recorded.
	bad := fstest.MapFS{}
	for k, v := range v2 {
		bad[k] = v
	}
	bad["migrations/00004_bad.sql"] = &fstest.MapFile{Data: []byte("CREATE TABLE half (id int); SELECT nosuchcolumn FROM items;")}
	if err := pgdb.Migrate(ctx, pool, "projects", bad); err == nil {
		t.Fatal("bad migration: no error")
	}
	var exists bool
	if err := pool.QueryRow(ctx, "SELECT to_regclass('projects.half') IS NOT NULL OR EXISTS (SELECT 1 FROM projects.schema_migrations WHERE version = 4)").Scan(&exists); err != nil || exists {
		t.Fatalf("bad migration left traces: %v %v", exists, err)
	}
}

func TestTruncateStatement(t *testing.T) {
	long := strings.Repeat("ก", 600) // 3 bytes each
	got := pgdb.TruncateStatement(long)
	if len(got) > 1024+len("…") || !strings.HasSuffix(got, "…") {
		t.Fatalf("len %d", len(got))
	}
	if s := pgdb.TruncateStatement("SELECT 1"); s != "SELECT 1" {
		t.Fatal(s)
	}
}
