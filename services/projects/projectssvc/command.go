package projectssvc

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"bidradar/pkg/config"
	"bidradar/pkg/runner"
	"bidradar/services/projects/internal/adapters/egprss"
	"bidradar/services/projects/internal/adapters/ocds"
	"bidradar/services/projects/internal/adapters/opendatacsv"
	"bidradar/services/projects/internal/adapters/postgres"
	"bidradar/services/projects/internal/app"
	"bidradar/services/projects/internal/domain"
)

// Command runs the batch commands of the projects binary: "seed-demo N",
// "overnight-run" (today's overnight searches, now) and "ingest --rss URL | --csv FILE | --ocds FILE", on DATABASE_URL (the
// local database by default) with EGP_RSS_URL for --rss.
func Command(ctx context.Context, cmd string, args []string, getenv runner.Getenv, log *slog.Logger) error {
	env := config.FromGetenv(getenv)
	url := env.String("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/procurement?sslmode=disable")
	rssBase := env.String("EGP_RSS_URL", "")
	if err := env.Err(); err != nil {
		return err
	}
	pool, err := Open(ctx, url)
	if err != nil {
		return err
	}
	defer pool.Close()
	d, err := NewDeps(pool, log, postgres.Options{})
	if err != nil {
		return err
	}
	if cmd == "overnight-run" {
		if len(args) != 0 {
			return errors.New("usage: projects overnight-run")
		}
		// The digests' events wait in the outbox for the service's relay.
		st, err := app.NewOvernight(d.Repo, log, nil).RunNow(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "overnight run %s: %d searches over %d projects first seen %s – %s, %d digests\n",
			st.Day.Format(time.DateOnly), st.Criteria, st.ProjectsSeen, st.From.Format(time.RFC3339), st.To.Format(time.RFC3339), st.Digests)
		return nil
	}
	if cmd == "seed-demo" {
		if len(args) != 1 {
			return errors.New("usage: projects seed-demo N")
		}
		n, err := strconv.Atoi(args[0])
		if err != nil || n < 0 {
			return errors.New("seed-demo: N must be a non-negative integer")
		}
		return SeedDemo(ctx, d, n, log)
	}
	fs := flag.NewFlagSet("ingest", flag.ContinueOnError)
	rss := fs.String("rss", "", "e-GP RSS feed URL")
	csvFile := fs.String("csv", "", "data.go.th contract CSV file")
	ocdsFile := fs.String("ocds", "", "OCDS release package (JSON)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var src domain.ObservationSource
	var target string
	var bar *progressBar
	switch {
	case *rss != "":
		src, target = egprss.Source{Client: egprss.NewClient(rssBase), URL: *rss}, *rss
	case *csvFile != "":
		f, err := os.Open(*csvFile)
		if err != nil {
			return err
		}
		defer f.Close()
		st, _ := f.Stat()
		cr := &opendatacsv.CountingReader{R: f}
		bar = &progressBar{total: st.Size(), read: func() int64 { return cr.N }, start: time.Now()}
		src, target = &opendatacsv.Source{Open: func() (io.ReadCloser, error) { return io.NopCloser(cr), nil }}, *csvFile
	case *ocdsFile != "":
		src, target = ocds.Source{Open: func() (io.ReadCloser, error) { return os.Open(*ocdsFile) }}, *ocdsFile
	default:
		return errors.New("usage: projects ingest --rss URL | --csv FILE | --ocds FILE")
	}
	var progress func(int)
	if bar != nil {
		progress = bar.update
	}
	run, err := d.App.Ingest(ctx, src, target, progress)
	if bar != nil {
		bar.done()
	}
	el := run.FinishedAt.Sub(run.StartedAt)
	fmt.Fprintf(os.Stderr, "run %d %s: %d read, %d created, %d updated, %d unchanged, %d announcements added, %d saved-search alerts, %d errors in %s (%.0f rows/s)\n",
		run.ID, run.Status, run.Stats.Seen, run.Stats.Created, run.Stats.Updated, run.Stats.Unchanged,
		run.Stats.AnnouncementsAdded, run.Stats.Alerted, run.Errors, el.Round(time.Millisecond), float64(run.Stats.Seen)/max(el.Seconds(), 1e-9))
	for i, e := range run.ErrorLog {
		if i == 10 {
			break
		}
		fmt.Fprintln(os.Stderr, "  ", e)
	}
	return err
}

// progressBar draws a progress bar on stderr from the bytes read.
type progressBar struct {
	total int64
	read  func() int64
	start time.Time
	rows  int
}

func (p *progressBar) update(rows int) {
	p.rows = rows
	frac := 0.0
	if p.total > 0 {
		frac = float64(p.read()) / float64(p.total)
	}
	if frac > 1 {
		frac = 1
	}
	const width = 30
	n := int(frac * width)
	rate := float64(rows) / max(time.Since(p.start).Seconds(), 1e-9)
	fmt.Fprintf(os.Stderr, "\r[%s%s] %5.1f%% %d rows %.0f rows/s", strings.Repeat("█", n), strings.Repeat("░", width-n), frac*100, rows, rate)
}

func (p *progressBar) done() { fmt.Fprintln(os.Stderr) }
