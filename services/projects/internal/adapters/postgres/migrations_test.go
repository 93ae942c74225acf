package postgres_test

import (
	"context"
	"slices"
	"testing"

	"bidradar/pkg/pgdb"
	"bidradar/pkg/testutil/pgtest"
	"bidradar/pkg/thaitext"
	"bidradar/services/projects/migrations"
)

// A database that already holds projects upgrades in place: migrations 3–6
// run outside a transaction (indexes built CONCURRENTLY, the trigram
// back-fill committed in batches), every row gets the codes Go computes and
// every index ends valid.
func TestMigrationsUpgradeADatabaseHoldingProjects(t *testing.T) {
	ctx := context.Background()
	pool, err := pgdb.Open(ctx, pgtest.NewDatabase(t), "projects")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := pgdb.MigrateUpTo(ctx, pool, "projects", migrations.FS, 2); err != nil {
		t.Fatal(err)
	}
	// 12 000 rows: the back-fill commits twice (batches of 10 000).
	if _, err := pool.Exec(ctx, `INSERT INTO projects.projects (id, search_text)
		SELECT lpad(i::text, 11, '0'), CASE WHEN i % 3 = 0 THEN 'ถนนคอนกรีต สาย ' || i ELSE 'จัดซื้อคอมพิวเตอร์ ' || i END
		FROM generate_series(1, 12000) i`); err != nil {
		t.Fatal(err)
	}
	if err := pgdb.Migrate(ctx, pool, "projects", migrations.FS); err != nil {
		t.Fatal(err)
	}
	var missing, invalid int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM projects.projects WHERE search_grams = '{}'`).Scan(&missing); err != nil || missing != 0 {
		t.Fatalf("rows without trigrams: %d %v", missing, err)
	}
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
		WHERE c.relname = 'projects' AND c.relnamespace = 'projects'::regnamespace AND NOT i.indisvalid`).Scan(&invalid); err != nil || invalid != 0 {
		t.Fatalf("invalid indexes: %d %v", invalid, err)
	}
	for _, id := range []string{"00000000003", "00000000007"} {
		var text string
		var grams []int32
		if err := pool.QueryRow(ctx, `SELECT search_text, search_grams FROM projects.projects WHERE id = $1`, id).Scan(&text, &grams); err != nil {
			t.Fatal(err)
		}
		if want := thaitext.Trigrams(text); !slices.Equal(grams, want) {
			t.Fatalf("%s: SQL back-fill %v, Go %v", id, grams, want)
		}
	}
	var names []string
	rows, _ := pool.Query(ctx, `SELECT indexname FROM pg_indexes WHERE schemaname = 'projects' AND tablename = 'projects' ORDER BY 1`)
	for rows.Next() {
		var n string
		_ = rows.Scan(&n)
		names = append(names, n)
	}
	want := []string{"projects_budget_idx", "projects_date_idx", "projects_first_seen_idx", "projects_hearing_due_idx", "projects_pkey", "projects_province_date_idx", "projects_search_grams_idx", "projects_submission_due_id_idx"}
	if len(names) != len(want) {
		t.Fatalf("indexes %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("indexes %v, want %v", names, want)
		}
	}
}
