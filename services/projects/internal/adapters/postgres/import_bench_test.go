package postgres_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"bidradar/pkg/outbox"
	"bidradar/services/projects/internal/adapters/eventproto"
	"bidradar/services/projects/internal/adapters/opendatacsv"
	"bidradar/services/projects/internal/adapters/postgres"
	"bidradar/services/projects/internal/app"
	"bidradar/services/projects/internal/demo"
	"bidradar/services/projects/internal/domain"
)

// importCSV renders n generated projects as a data.go.th contract CSV (the
// 32 columns of opendatacsv.Columns; Thai dates, Thai province names).
func importCSV(n int) []byte {
	g := demo.New(7, time.Date(2026, 9, 30, 0, 0, 0, 0, domain.Bangkok))
	provinces := []string{"กรุงเทพมหานคร", "ขอนแก่น", "เชียงใหม่", "ตาก", "นครราชสีมา", "ภูเก็ต", "สงขลา", "อุบลราชธานี"}
	months := []string{"ม.ค.", "ก.พ.", "มี.ค.", "เม.ย.", "พ.ค.", "มิ.ย.", "ก.ค.", "ส.ค.", "ก.ย.", "ต.ค.", "พ.ย.", "ธ.ค."}
	var buf bytes.Buffer
	buf.WriteString(strings.Join(opendatacsv.Columns, ",") + "\n")
	for i := 0; i < n; i++ {
		p := g.Project(i)
		name := strings.ReplaceAll(p.Name, ",", " ")
		agency := strings.ReplaceAll(p.AgencyName, ",", " ")
		d := p.LastAnnounced
		if d.IsZero() {
			d = domain.Date(2024, 1, 1)
		}
		date := fmt.Sprintf("%d %s %02d", d.Day(), months[d.Month()-1], (d.Year()+543)%100)
		fmt.Fprintf(&buf, "%d,%d,%s,%s,จ้างก่อสร้าง,%s,-,เฉพาะเจาะจง,เฉพาะเจาะจง,%s,%d.0,-,%d.0,%d,-,%s,-,-,-,-,-,ระหว่างดำเนินการ,-,-,-,0105552%06d,บริษัท ก จำกัด,%d/2567,%s,-,%d.0,ระหว่างดำเนินการ\n",
			i, i, p.ID, name, agency, date, 100000+i%900000, 90000+i%800000, p.BudgetYear, provinces[i%len(provinces)], i%1000000, i, date, 90000+i%800000)
	}
	return buf.Bytes()
}

// BenchmarkImportCSV measures the CSV adapter end to end as `projects
// ingest --csv` runs it: parse, app.Ingest batches, merge, upsert, index
// maintenance and outbox events (protobuf) into a fresh projects table.
// IMPORT_ROWS sets the file size (default 100 000). For measuring what a
// part costs: IMPORT_NO_EVENTS=1 writes no outbox events, and
// IMPORT_SETUP_SQL runs ;-separated statements first (e.g. "DROP INDEX
// projects_date_idx"). IMPORT_CSV_OUT=FILE also writes the generated CSV,
// to time the command line on the same file.
//
//	go test ./internal/adapters/postgres -run '^$' -bench ImportCSV -benchtime 1x
func BenchmarkImportCSV(b *testing.B) {
	n := 100000
	if v, err := strconv.Atoi(os.Getenv("IMPORT_ROWS")); err == nil && v > 0 {
		n = v
	}
	pool, _ := setup(b)
	ctx := context.Background()
	data := importCSV(n)
	if out := os.Getenv("IMPORT_CSV_OUT"); out != "" { // to time `projects ingest --csv` on the same file
		if err := os.WriteFile(out, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, q := range strings.Split(os.Getenv("IMPORT_SETUP_SQL"), ";") {
		if strings.TrimSpace(q) != "" {
			if _, err := pool.Exec(ctx, q); err != nil {
				b.Fatal(err)
			}
		}
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, phase := range []string{"new", "replay"} {
		b.Run(phase, func(b *testing.B) {
			var el time.Duration
			for i := 0; i < b.N; i++ {
				if phase == "new" || i == 0 {
					if _, err := pool.Exec(ctx, "TRUNCATE projects, outbox"); err != nil {
						b.Fatal(err)
					}
				}
				var enc postgres.Encoder = eventproto.Encoder{}
				if os.Getenv("IMPORT_NO_EVENTS") != "" {
					enc = nil
				}
				repo := postgres.New(pool, enc, postgres.Options{})
				a, err := app.New(repo, repo, log)
				if err != nil {
					b.Fatal(err)
				}
				if phase == "replay" && i == 0 {
					if _, err := a.Ingest(ctx, &opendatacsv.Source{Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}, "bench.csv", nil); err != nil {
						b.Fatal(err)
					}
				}
				src := &opendatacsv.Source{Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}
				start := time.Now()
				run, err := a.Ingest(ctx, src, "bench.csv", nil)
				el += time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				if run.Errors > 0 || run.Stats.Seen != n {
					b.Fatalf("run: %+v", run)
				}
				if phase == "new" && run.Stats.Created != n {
					b.Fatalf("created %d of %d", run.Stats.Created, n)
				}
			}
			stored, err := outbox.Stored(ctx, pool)
			if err != nil {
				b.Fatal(err)
			}
			events := len(stored)
			b.ReportMetric(float64(n*b.N)/el.Seconds(), "rows/s")
			b.ReportMetric(float64(events)/float64(n), "events/row")
		})
	}
}
