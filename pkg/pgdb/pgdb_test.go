package pgdb_test

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"bidradar/pkg/pgdb"
	"bidradar/pkg/testutil/pgtest"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
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

func sqlFile(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }

func TestMigrate(t *testing.T) {
	dbURL := pgtest.NewDatabase(t)
	ctx := context.Background()
	pool, err := pgdb.Open(ctx, dbURL, "projects")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()

	v1 := fstest.MapFS{
		"00001_create_items.sql": sqlFile("-- +goose Up\nCREATE TABLE items (id int PRIMARY KEY, title text);\nCREATE INDEX items_title ON items (title);\n-- +goose Down\nDROP TABLE items;"),
		"00002_seed.sql":         sqlFile("-- +goose Up\nINSERT INTO items VALUES (1, 'ถนนลาดยาง');"),
		"README.md":              sqlFile("ignored"),
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
	// NO TRANSACTION lets it build an index CONCURRENTLY.
	v2 := fstest.MapFS{}
	for k, v := range v1 {
		v2["migrations/"+k] = v
	}
	v2["migrations/00003_more.sql"] = sqlFile("-- +goose NO TRANSACTION\n-- +goose Up\nINSERT INTO items VALUES (2, 'คอมพิวเตอร์');\nCREATE INDEX CONCURRENTLY items_id_title ON items (id, title);\n-- +goose Down\nDROP INDEX CONCURRENTLY items_id_title;")
	if err := pgdb.Migrate(ctx, pool, "projects", v2); err != nil {
		t.Fatal(err)
	}
	if got := appliedVersions(t, pool, "projects"); got != "1,2,3" {
		t.Fatalf("goose_db_version: %v", got)
	}
	var valid bool
	if err := pool.QueryRow(ctx, "SELECT indisvalid FROM pg_index WHERE indexrelid = 'projects.items_id_title'::regclass").Scan(&valid); err != nil || !valid {
		t.Fatalf("concurrent index: %v %v", valid, err)
	}

	// A failing migration is rolled back and not recorded.
	bad := fstest.MapFS{}
	for k, v := range v2 {
		bad[k] = v
	}
	bad["migrations/00004_bad.sql"] = sqlFile("-- +goose Up\nCREATE TABLE half (id int); SELECT nosuchcolumn FROM items;")
	if err := pgdb.Migrate(ctx, pool, "projects", bad); err == nil {
		t.Fatal("bad migration: no error")
	}
	var exists bool
	if err := pool.QueryRow(ctx, "SELECT to_regclass('projects.half') IS NOT NULL OR EXISTS (SELECT 1 FROM projects.goose_db_version WHERE version_id = 4)").Scan(&exists); err != nil || exists {
		t.Fatalf("bad migration left traces: %v %v", exists, err)
	}
	// A file without the goose annotation is refused before anything runs.
	unmarked := fstest.MapFS{"00001_x.sql": sqlFile("CREATE TABLE x (id int);")}
	if err := pgdb.Migrate(ctx, pool, "unmarked", unmarked); err == nil {
		t.Fatal("unannotated migration accepted")
	}

	// Down migrations where they exist.
	if err := pgdb.MigrateDownTo(ctx, pool, "projects", v2, 2); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, "SELECT to_regclass('projects.items_id_title') IS NOT NULL").Scan(&exists); err != nil || exists {
		t.Fatalf("down left the index: %v %v", exists, err)
	}
	if got := appliedVersions(t, pool, "projects"); got != "1,2" {
		t.Fatalf("after down: %v", got)
	}
}

// A schema migrated by the earlier runner (schema_migrations) is adopted:
// nothing re-runs, later versions apply.
func TestMigrateAdoptsLegacyHistory(t *testing.T) {
	dbURL := pgtest.NewDatabase(t)
	ctx := context.Background()
	pool, err := pgdb.Open(ctx, dbURL, "legacy")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS legacy;
		CREATE TABLE legacy.schema_migrations (version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());
		CREATE TABLE legacy.items (id int PRIMARY KEY);
		INSERT INTO legacy.items VALUES (1);
		INSERT INTO legacy.schema_migrations (version, name) VALUES (1, 'create_items'), (2, 'seed')`); err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{
		// Re-running 1 or 2 would fail (table exists, duplicate key).
		"00001_create_items.sql": sqlFile("-- +goose Up\nCREATE TABLE items (id int PRIMARY KEY);"),
		"00002_seed.sql":         sqlFile("-- +goose Up\nINSERT INTO items VALUES (1);"),
		"00003_more.sql":         sqlFile("-- +goose Up\nINSERT INTO items VALUES (3);"),
	}
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Go(func() { errs[i] = pgdb.Migrate(ctx, pool, "legacy", fsys) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := appliedVersions(t, pool, "legacy"); got != "1,2,3" {
		t.Fatalf("versions %s", got)
	}
	var n int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM legacy.items").Scan(&n); err != nil || n != 2 {
		t.Fatalf("items %d %v", n, err)
	}
}

func appliedVersions(t *testing.T, pool *pgxpool.Pool, schema string) string {
	t.Helper()
	rows, err := pool.Query(context.Background(),
		"SELECT version_id FROM "+schema+".goose_db_version WHERE version_id > 0 AND is_applied ORDER BY version_id")
	if err != nil {
		t.Fatal(err)
	}
	vs, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		t.Fatal(err)
	}
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = strconv.FormatInt(v, 10)
	}
	return strings.Join(s, ",")
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
