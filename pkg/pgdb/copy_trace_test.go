package pgdb_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"bidradar/pkg/pgdb"
	"bidradar/pkg/testutil/pgtest"
)

// COPY (bulk ingestion) shows in traces with its table and row count.
func TestCopyFromIsTraced(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev) })

	ctx := context.Background()
	pool, err := pgdb.Open(ctx, pgtest.NewDatabase(t), "copytrace")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS copytrace; CREATE TABLE copytrace.items (id int, title text)`); err != nil {
		t.Fatal(err)
	}
	n, err := pool.CopyFrom(ctx, pgx.Identifier{"copytrace", "items"}, []string{"id", "title"},
		pgx.CopyFromRows([][]any{{1, "ถนน"}, {2, "สะพาน"}, {3, "อาคาร"}}))
	if err != nil || n != 3 {
		t.Fatalf("copy: %d %v", n, err)
	}
	for _, s := range rec.Ended() {
		if s.Name() != "COPY" {
			continue
		}
		attrs := map[string]string{}
		for _, a := range s.Attributes() {
			attrs[string(a.Key)] = a.Value.String()
		}
		if attrs["db.sql.table"] != `"copytrace"."items"` || attrs["db.rows_affected"] != "3" {
			t.Fatalf("COPY span attributes %v", attrs)
		}
		return
	}
	t.Fatal("no COPY span")
}
