package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"
)

// KindRate is a kind's offered rate.
type KindRate struct {
	Kind string
	Rate float64
}

// Report is a run's outcome, per kind.
type Report struct {
	Config  Config
	Offered []KindRate
	Samples []Sample
	Dropped map[string]int // scheduled but not sent: the generator's in-flight bound
	Notes   []string
	Kinds   []KindStats
	// Answered counts every answered request, warm-up included, and CPU
	// the CPU time spent meanwhile (filled by the caller: this process,
	// with the stack when it runs in it, and the database's backends): CPU
	// per request does not depend on how much of the machine others use.
	Answered int
	CPU      []CPUUse
}

// CPUUse is the CPU time one part used during the run.
type CPUUse struct {
	Who string
	CPU time.Duration
}

// KindStats summarise one kind's requests of the measured window.
type KindStats struct {
	Kind          string
	Offered       float64 // requests/s the clock asked for
	Sent          int
	OK            int     // 2xx
	Achieved      float64 // OK answers per second of the window
	Errors        map[string]int
	Dropped       int
	P50, P95, P99 time.Duration // of every answered request (2xx or not), from its scheduled time
	Max           time.Duration
	LagP99        time.Duration // the generator's own delay in sending
}

func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	i := int(p*float64(len(ds))+0.999999) - 1
	return ds[max(0, min(i, len(ds)-1))]
}

func (r *Report) summarise() {
	by := map[string][]Sample{}
	for _, s := range r.Samples {
		by[s.Kind] = append(by[s.Kind], s)
	}
	secs := r.Config.Duration.Seconds()
	for _, o := range r.Offered {
		ks := KindStats{Kind: o.Kind, Offered: o.Rate, Errors: map[string]int{}, Dropped: r.Dropped[o.Kind]}
		var lat, lag []time.Duration
		for _, s := range by[o.Kind] {
			ks.Sent++
			lag = append(lag, s.Lag)
			if s.Status >= 200 && s.Status < 300 {
				ks.OK++
			} else {
				key := s.Err
				if s.Status > 0 {
					key = fmt.Sprintf("%d", s.Status)
				} else if strings.Contains(key, "Timeout") || strings.Contains(key, "deadline") {
					key = "timeout"
				} else {
					key = "transport"
				}
				ks.Errors[key]++
			}
			if s.Status > 0 {
				lat = append(lat, s.Latency)
			}
		}
		slices.Sort(lat)
		slices.Sort(lag)
		ks.P50, ks.P95, ks.P99, ks.Max = pct(lat, .5), pct(lat, .95), pct(lat, .99), pct(lat, 1)
		ks.LagP99 = pct(lag, .99)
		if secs > 0 {
			ks.Achieved = float64(ks.OK) / secs
		}
		r.Kinds = append(r.Kinds, ks)
	}
}

// Kind returns the stats of kind (zero when it was not offered).
func (r *Report) Kind(kind string) KindStats {
	for _, k := range r.Kinds {
		if k.Kind == kind {
			return k
		}
	}
	return KindStats{}
}

// Print writes the report as a table.
func (r *Report) Print(w io.Writer) {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond)) }
	fmt.Fprintf(w, "open loop against %s for %s (after %s warm-up); latency from each request's scheduled time, ms\n",
		r.Config.BaseURL, r.Config.Duration, r.Config.Warmup)
	fmt.Fprintf(w, "%-8s %9s %9s %7s %7s %7s %7s %7s %8s %8s  %s\n", "kind", "offered/s", "achieved", "sent", "p50", "p95", "p99", "max", "lag p99", "dropped", "errors")
	for _, k := range r.Kinds {
		var errs []string
		for e, n := range k.Errors {
			errs = append(errs, fmt.Sprintf("%s×%d", e, n))
		}
		sort.Strings(errs)
		e := "none"
		if len(errs) > 0 {
			e = strings.Join(errs, " ")
		}
		fmt.Fprintf(w, "%-8s %9.1f %9.1f %7d %7s %7s %7s %7s %8s %8d  %s\n", k.Kind, k.Offered, k.Achieved, k.Sent,
			ms(k.P50), ms(k.P95), ms(k.P99), ms(k.Max), ms(k.LagP99), k.Dropped, e)
	}
	for _, c := range r.CPU {
		fmt.Fprintf(w, "cpu: %s %.1f s, %.2f ms per answered request (%d, warm-up included)\n", c.Who, c.CPU.Seconds(),
			float64(c.CPU)/float64(time.Millisecond)/float64(max(r.Answered, 1)), r.Answered)
	}
	for _, n := range r.Notes {
		fmt.Fprintln(w, "note:", n)
	}
	// A sample of the distinct error texts, to tell a 403 from a 404.
	seen := map[string]bool{}
	for _, s := range r.Samples {
		if s.Err != "" && !seen[s.Kind+s.Err] && len(seen) < 8 {
			seen[s.Kind+s.Err] = true
			fmt.Fprintf(w, "error: %s: %s\n", s.Kind, s.Err)
		}
	}
}
