package main

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bidradar/pkg/testutil/pgtest"
)

// A few requests at a low rate against the whole stack in this process
// (demo projects, two users registered through the REST API with their
// mailed codes): every offered kind is sent at its rate, answered without
// error, and reported with its percentiles; the market kind is measured
// or, while no market service answers, left out with a note.
func TestSmokeOpenLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the whole stack: skipped with -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	mail := filepath.Join(dir, "mail")
	s, err := startStack(ctx, dir, map[string]string{"DATABASE_URL": pgtest.NewDatabase(t), "MAIL_DIR": mail, "DEMO_DATA": "400", "NATS_URL": ""})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fx, err := Setup(ctx, SetupConfig{BaseURL: s.URL, Users: 2, Prefix: "smoke", Password: "smoke test password 2569", MailDir: mail, Marks: 3, Market: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(fx.Users) != 2 || len(fx.Users[0].Marked) != 3 || len(fx.Projects) == 0 {
		t.Fatalf("fixture: %d users, %d project ids", len(fx.Users), len(fx.Projects))
	}
	rates := map[string]float64{KindSearch: 20, KindListing: 5, KindDetails: 5, KindMarket: 5, KindMark: 5}
	const secs = 2
	rep := Run(ctx, Config{BaseURL: s.URL, Rates: rates, Duration: secs * time.Second, Warmup: 500 * time.Millisecond, Seed: 1}, fx)
	var out strings.Builder
	rep.Print(&out)
	t.Log("\n" + out.String())
	for _, kind := range Kinds {
		k := rep.Kind(kind)
		if why := fx.Skip[kind]; why != "" {
			if kind != KindMarket || k.Sent != 0 || !strings.Contains(out.String(), "note: market: ") {
				t.Fatalf("%s skipped (%s) but sent %d or not noted", kind, why, k.Sent)
			}
			continue
		}
		want := rates[kind] * secs
		if math.Abs(float64(k.Sent)-want) > 1 || k.Offered != rates[kind] {
			t.Errorf("%s: sent %d at %.0f/s, want %.0f in %d s", kind, k.Sent, k.Offered, want, secs)
		}
		if k.OK != k.Sent || len(k.Errors) != 0 || k.Dropped != 0 {
			t.Errorf("%s: %d of %d answered 2xx, errors %v, dropped %d", kind, k.OK, k.Sent, k.Errors, k.Dropped)
		}
		if k.P50 <= 0 || k.P50 > k.P95 || k.P95 > k.P99 || k.P99 > k.Max || math.Abs(k.Achieved-k.Offered) > 1 {
			t.Errorf("%s: p50 %s p95 %s p99 %s max %s, achieved %.1f/s", kind, k.P50, k.P95, k.P99, k.Max, k.Achieved)
		}
	}
	// Latency is from the scheduled time: never below the generator's lag.
	for _, smp := range rep.Samples {
		if smp.Status > 0 && smp.Latency < smp.Lag {
			t.Fatalf("%s: latency %s below its lag %s", smp.Kind, smp.Latency, smp.Lag)
		}
	}
	if _, err := parseRates("search=1,nope=2"); err == nil {
		t.Error("an unknown kind in -rate is refused")
	}
}
