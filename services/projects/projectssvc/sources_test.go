package projectssvc

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"bidradar/services/projects/internal/domain"
)

func TestIngestFetchesOnlyAllowlistedHosts(t *testing.T) {
	s := newIngestSources("", DefaultIngestHosts)
	for _, u := range []string{
		"file:///etc/passwd", "http://127.0.0.1:9002/healthz", "http://localhost/", "gopher://process.gprocurement.go.th/",
		"http://user:pw@process.gprocurement.go.th/x", "http://process.gprocurement.go.th.evil.example/", "//process3.gprocurement.go.th/x",
		"http://[::1]/", "%zz",
	} {
		if _, err := s.Open("rss", u, nil); !errors.Is(err, errIngestURL) {
			t.Errorf("%q: %v, want refused", u, err)
		}
	}
	if _, err := s.Open("rss", "https://process3.gprocurement.go.th/EPROCRssFeedWeb/egpannouncerss.xml?deptId=1509900857", nil); err != nil {
		t.Errorf("e-GP feed refused: %v", err)
	}
}

func TestIngestFetchIsShortAndStaysOnTheAllowlist(t *testing.T) {
	feed, err := os.ReadFile(firstFeed(t))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/feed", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(feed) })
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://localhost:1/secret", http.StatusFound)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(time.Minute):
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	s := newIngestSources("", []string{"127.0.0.1"})
	each := func(path string) error {
		src, err := s.Open("rss", srv.URL+path, nil)
		if err != nil {
			return err
		}
		return src.Each(context.Background(), func(domain.Project) error { return nil }, func(domain.RecordError) {})
	}
	if err := each("/feed"); err != nil {
		t.Fatalf("allowlisted feed: %v", err)
	}
	if err := each("/away"); err == nil || !strings.Contains(err.Error(), "allowed") {
		t.Fatalf("redirect off the allowlist followed: %v", err)
	}
	start := time.Now()
	if err := each("/slow"); err == nil {
		t.Fatal("a hanging host answered")
	}
	if d := time.Since(start); d > 2*IngestFetchTimeout {
		t.Fatalf("a hanging host held the ingest %v", d)
	}
}

func firstFeed(t *testing.T) string {
	t.Helper()
	m, _ := os.ReadDir("../internal/adapters/egprss/testdata")
	for _, e := range m {
		if strings.HasSuffix(e.Name(), ".xml") {
			return "../internal/adapters/egprss/testdata/" + e.Name()
		}
	}
	t.Fatal("no feed in testdata")
	return ""
}
