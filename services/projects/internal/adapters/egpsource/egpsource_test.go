package egpsource_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"bidradar/services/projects/internal/adapters/egpsource"
	"bidradar/services/projects/internal/domain"
)

func load(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseInvitation(t *testing.T) {
	t.Parallel()
	p, err := egpsource.Parse(load(t, "getProjectDetail-69099693138.json"), "69099693138")
	if err != nil {
		t.Fatal(err)
	}
	if p.ID != "69099693138" || p.Name != "ประกวดราคาจ้างก่อสร้างถนนคอนกรีตเสริมเหล็ก สายบ้านหนองบัว หมู่ที่ ๕ ตำบลหนองบัว" ||
		p.AgencyCode != "6410102" || p.SubAgencyCode != "6410102001" || p.SubAgencyName != "องค์การบริหารส่วนตำบลหนองบัว" ||
		p.MethodCode != "16" || p.WorkTypeCode != "02" || p.Source != domain.SourceEGPProject {
		t.Fatalf("project %+v", p)
	}
	if p.Budget == nil || *p.Budget != 245000000 || p.ReferencePrice == nil || *p.ReferencePrice != 243850000 || p.AgreedPrice != nil {
		t.Fatalf("money %v %v %v", p.Budget, p.ReferencePrice, p.AgreedPrice)
	}
	if p.RawStatus != "หนังสือเชิญชวน/ประกาศเชิญชวน" {
		t.Fatalf("raw status %q", p.RawStatus)
	}
	if len(p.Announcements) != 1 || p.Announcements[0].Type != domain.AnnInvitation ||
		!p.Announcements[0].Date.Equal(domain.Date(2026, 9, 30)) {
		t.Fatalf("steps %+v", p.Announcements)
	}
	p.Derive()
	if p.Status != domain.StatusOpen || p.BudgetYear != 2569 {
		t.Fatalf("derived status %s year %d", p.Status, p.BudgetYear)
	}
}

func TestParseWinnerStringsAndDateTime(t *testing.T) {
	t.Parallel()
	p, err := egpsource.Parse(load(t, "getProjectDetail-68059426756.json"), "68059426756")
	if err != nil {
		t.Fatal(err)
	}
	if p.AgreedPrice == nil || *p.AgreedPrice != 12950000 || *p.Budget != 13620000 || p.MinistryCode != "03" {
		t.Fatalf("project %+v", p)
	}
	if len(p.Announcements) != 1 || p.Announcements[0].Type != domain.AnnWinner || !p.Announcements[0].Date.Equal(domain.Date(2025, 6, 12)) {
		t.Fatalf("steps %+v", p.Announcements)
	}
}

func TestParseWindows874(t *testing.T) {
	t.Parallel()
	b := load(t, "getProjectDetail-67019900012.cp874.json")
	// จ้าง in Windows-874 is A8 E9 D2 A7; no UTF-8 Thai lead bytes.
	if !bytes.Contains(b, []byte{0xA8, 0xE9, 0xD2, 0xA7}) || bytes.Contains(b, []byte{0xE0, 0xB8}) {
		t.Fatal("fixture is not Windows-874")
	}
	p, err := egpsource.Parse(b, "67019900012")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "จ้างเหมาบริการรักษาความปลอดภัย ประจำปีงบประมาณ ๒๕๖๗" || p.RawStatus != "ยกเลิกโครงการ" {
		t.Fatalf("project %+v", p)
	}
	if p.ReferencePrice != nil || p.AgreedPrice != nil || *p.Budget != 48000000 {
		t.Fatalf("zero and empty amounts are unpublished: %v %v", p.ReferencePrice, p.AgreedPrice)
	}
	if len(p.Announcements) != 1 || !p.Announcements[0].Date.Equal(domain.Date(2024, 1, 15)) {
		t.Fatalf("Thai date: %+v", p.Announcements)
	}
	p.Derive()
	if p.Status != domain.StatusCancelled {
		t.Fatalf("status %s", p.Status)
	}
}

func TestParseNotFoundAndRefusals(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`{"data":null}`, `{"data":{}}`, `{"data":[]}`, `{}`} {
		if _, err := egpsource.Parse([]byte(body), "69099693138"); !errors.Is(err, domain.ErrNotAtSource) {
			t.Errorf("%s: %v", body, err)
		}
	}
	if _, err := egpsource.Parse(load(t, "getProjectDetail-token.json"), "69099693138"); !errors.Is(err, egpsource.ErrPermanent) {
		t.Errorf("token refusal: %v", err)
	}
	if _, err := egpsource.Parse([]byte(`<html>blocked</html>`), "69099693138"); !errors.Is(err, egpsource.ErrPermanent) {
		t.Errorf("html: %v", err)
	}
	if _, err := egpsource.Parse(load(t, "getProjectDetail-69099693138.json"), "68059426756"); err == nil {
		t.Error("another project's answer accepted")
	}
}

func client(url string) (*egpsource.Client, *[]time.Duration) {
	c := egpsource.New(url)
	var slept []time.Duration
	c.Sleep = func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }
	return c, &slept
}

func TestClientRetriesPolitely(t *testing.T) {
	t.Parallel()
	fixture := load(t, "getProjectDetail-69099693138.json")
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Referer") == "" || r.Header.Get("User-Agent") == "" {
			http.Error(w, "waf", http.StatusForbidden)
			return
		}
		switch calls.Add(1) {
		case 1:
			w.Header().Set("Retry-After", "7")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		case 2:
			http.Error(w, "oops", http.StatusBadGateway)
		default:
			if r.URL.Query().Get("projectId") != "69099693138" {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(fixture)
		}
	}))
	defer srv.Close()
	c, slept := client(srv.URL + "/getProjectDetail")
	p, err := c.FetchProject(context.Background(), "69099693138")
	if err != nil {
		t.Fatal(err)
	}
	if p.ID != "69099693138" || calls.Load() != 3 {
		t.Fatalf("project %s after %d calls", p.ID, calls.Load())
	}
	if len(*slept) != 2 || (*slept)[0] != 7*time.Second || (*slept)[1] < 2*time.Second {
		t.Fatalf("backoff %v", *slept)
	}
}

func TestClientNotFoundAndPermanent(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		switch r.URL.Query().Get("projectId") {
		case "69099700000":
			http.NotFound(w, r)
		case "69099700001":
			_, _ = w.Write([]byte(`{"data":null}`))
		case "69099700002":
			http.Error(w, "denied", http.StatusForbidden)
		default:
			http.Error(w, "down", http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	c, slept := client(srv.URL)
	for _, id := range []string{"69099700000", "69099700001"} {
		if _, err := c.FetchProject(context.Background(), id); !errors.Is(err, domain.ErrNotAtSource) {
			t.Fatalf("%s: %v", id, err)
		}
	}
	if _, err := c.FetchProject(context.Background(), "69099700002"); !errors.Is(err, egpsource.ErrPermanent) {
		t.Fatalf("403: %v", err)
	}
	if calls.Load() != 3 || len(*slept) != 0 {
		t.Fatalf("not-found and permanent answers were retried: %d calls", calls.Load())
	}
	if _, err := c.FetchProject(context.Background(), "69099700003"); err == nil || errors.Is(err, egpsource.ErrPermanent) {
		t.Fatalf("503 after retries: %v", err)
	}
	if calls.Load() != 3+4 || len(*slept) != 3 {
		t.Fatalf("retries: %d calls, slept %v", calls.Load(), *slept)
	}
	if _, err := c.FetchProject(context.Background(), "123"); !errors.Is(err, domain.ErrInvalidProjectID) {
		t.Fatalf("bad id: %v", err)
	}
}
