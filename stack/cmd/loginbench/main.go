// Command loginbench fires a burst of concurrent logins at a freshly started
// stack and reports admitted latency, how many were shed with 429, and the
// process's peak memory (`make bench-login`; results in bench/README.md).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"time"

	"bidradar/stack"
)

func main() {
	n := flag.Int("n", 500, "concurrent logins in the burst")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the burst to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			_ = pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	if err := run(*n); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "loginbench:", err)
		os.Exit(1)
	}
}

func run(n int) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tmp, err := os.MkdirTemp("", "loginbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	mailDir := filepath.Join(tmp, "mail")
	vars := map[string]string{
		"HTTP_ADDR": "127.0.0.1:0", "DEMO_DATA": "0", "MAIL_DIR": mailDir, "LOG_LEVEL": "error", "LOGIN_CONCURRENCY": os.Getenv("LOGIN_CONCURRENCY"), "GATEWAY_PASSWORD_INFLIGHT": os.Getenv("GATEWAY_PASSWORD_INFLIGHT"),
		"DATABASE_URL": os.Getenv("DATABASE_URL"), "NATS_URL": os.Getenv("NATS_URL"),
	}
	if vars["DATABASE_URL"] == "" {
		vars["DATABASE_URL"] = "postgres://postgres@127.0.0.1:5432/bidradar_loginbench?sslmode=disable"
	}
	s, err := stack.Start(ctx, stack.Options{Getenv: func(k string) string { return vars[k] }, DataDir: tmp, Quiet: true})
	if err != nil {
		return err
	}
	defer s.Close()

	user := fmt.Sprintf("bench%d", time.Now().UnixNano()%1e9)
	email := user + "@example.com"
	const password = "benchmark password 2569"
	if _, err := post(s.URL+"/app/backend/api/v1/register", map[string]string{"username": user, "email": email, "password": password}); err != nil {
		return err
	}
	code, err := waitCode(mailDir, email)
	if err != nil {
		return err
	}
	if st, err := post(s.URL+"/app/backend/api/v1/verify-otp?email="+email+"&otp="+code, nil); err != nil || st != 200 {
		return fmt.Errorf("verify: %d %v", st, err)
	}

	type result struct {
		status int
		took   time.Duration
	}
	results := make([]result, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			t0 := time.Now()
			st, err := post(s.URL+"/app/backend/api/v1/login", map[string]string{"username": user, "password": password})
			if err != nil {
				st = -1
			}
			results[i] = result{st, time.Since(t0)}
		}()
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	wall := time.Since(t0)

	var ok, shed []time.Duration
	counts := map[int]int{}
	for _, r := range results {
		counts[r.status]++
		switch r.status {
		case 200:
			ok = append(ok, r.took)
		case 429:
			shed = append(shed, r.took)
		}
	}
	pct := func(p float64) time.Duration { return percentile(ok, p) }
	fmt.Printf("burst of %d logins on %d CPUs, wall %s\n", n, runtime.NumCPU(), wall.Round(time.Millisecond))
	fmt.Printf("admitted (200): %d  p50 %s  p99 %s  max %s\n", len(ok), pct(0.50).Round(time.Millisecond), pct(0.99).Round(time.Millisecond), pct(1).Round(time.Millisecond))
	fmt.Printf("shed (429): %d  p50 %s  p99 %s;  other: %v\n", counts[429], percentile(shed, 0.5).Round(time.Millisecond), percentile(shed, 0.99).Round(time.Millisecond), otherStatuses(counts))
	fmt.Printf("peak RSS of the whole stack process: %s\n", peakRSS())
	return nil
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[min(len(d)-1, int(p*float64(len(d))))]
}

func post(url string, body any) (int, error) {
	var buf bytes.Buffer
	if body != nil {
		_ = json.NewEncoder(&buf).Encode(body)
	}
	resp, err := http.Post(url, "application/json", &buf)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

var sixDigits = regexp.MustCompile(`\b\d{6}\b`)

// waitCode reads the code from the dev mail sender's .eml files.
func waitCode(dir, email string) (string, error) {
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		files, _ := filepath.Glob(filepath.Join(dir, "*.eml"))
		for _, f := range files {
			raw, _ := os.ReadFile(f)
			head, body, _ := strings.Cut(string(raw), "\r\n\r\n") // skip headers (dates, ids)
			if strings.Contains(head, email) {
				if m := sixDigits.FindString(body); m != "" {
					return m, nil
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return "", fmt.Errorf("no code mailed to %s", email)
}

func otherStatuses(c map[int]int) string {
	var parts []string
	for k, v := range c {
		if k != 200 && k != 429 {
			parts = append(parts, fmt.Sprintf("%d×%d", v, k))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// peakRSS reads VmHWM (the resident set's high-water mark) from /proc.
func peakRSS() string {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:"))
		}
	}
	return "unknown"
}
