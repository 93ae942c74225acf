package egprss_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"bidradar/services/projects/internal/adapters/egprss"
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

func TestFixturesAreWindows874(t *testing.T) {
	t.Parallel()
	for _, n := range []string{"egp-rss-2022.xml", "egp-rss-2026.xml"} {
		b := load(t, n)
		if !bytes.HasPrefix(b, []byte(`<?xml version="1.0" encoding="Windows-874" ?>`)) {
			t.Fatalf("%s: wrong declaration", n)
		}
		// ประกาศ in Windows-874 is BB C3 D0 A1 D2 C8
		if !bytes.Contains(b, []byte{0xBB, 0xC3, 0xD0, 0xA1, 0xD2, 0xC8}) {
			t.Fatalf("%s: not Windows-874 bytes", n)
		}
		if bytes.Contains(b, []byte{0xE0, 0xB8}) {
			t.Fatalf("%s: contains UTF-8 Thai", n)
		}
	}
}

func byID(f egprss.Feed) map[string]domain.Project {
	m := map[string]domain.Project{}
	for _, p := range f.Projects {
		m[p.ID] = p
	}
	return m
}

func TestParseOldFormat(t *testing.T) {
	t.Parallel()
	f, err := egprss.Parse(bytes.NewReader(load(t, "egp-rss-2022.xml")), egprss.Query{DeptID: "6410101"})
	if err != nil {
		t.Fatal(err)
	}
	if f.Items != 4 || len(f.Projects) != 3 {
		t.Fatalf("items %d projects %d", f.Items, len(f.Projects))
	}
	if want := time.Date(2022, 8, 4, 2, 44, 43, 0, time.UTC); !f.LastBuild.Equal(want) {
		t.Fatalf("lastBuildDate %v, want %v (ICT = UTC+7)", f.LastBuild, want)
	}
	m := byID(f)
	dup := m["65087022299"]
	if len(dup.Announcements) != 1 {
		t.Fatalf("duplicate items (seqNo 1 and 3) not merged: %d steps", len(dup.Announcements))
	}
	a := dup.Announcements[0]
	if a.Type != "W2" || !a.Date.Equal(domain.Date(2022, 8, 4)) || a.Name != "เปลี่ยนแปลงประกาศรายชื่อผู้ชนะการเสนอราคา" {
		t.Fatalf("step %+v", a)
	}
	if dup.MethodCode != "19" || dup.AgencyCode != "6410101" {
		t.Fatalf("method %q agency %q", dup.MethodCode, dup.AgencyCode)
	}
	if dup.Name != "จ้างเหมาซ่อมแซมถนนลูกรัง หมู่ที่ ๕ บ้านหนองบัว ตำบลหนองบัว โดยวิธีเฉพาะเจาะจง" {
		t.Fatalf("name %q", dup.Name)
	}
	if dup.SearchText != "จ้างเหมาซ่อมแซมถนนลูกรัง หมู่ที่ 5 บ้านหนองบัว ตำบลหนองบัว โดยวิธีเฉพาะเจาะจง" {
		t.Fatalf("search text %q", dup.SearchText)
	}
	if m["65077001234"].MethodCode != "16" || m["65077001234"].Status != domain.StatusOpen {
		t.Fatalf("e-bidding item %+v", m["65077001234"])
	}
	if m["65087110196"].BudgetYear != 2565 {
		t.Fatalf("budget year %d", m["65087110196"].BudgetYear)
	}
}

func TestParseNewFormat(t *testing.T) {
	t.Parallel()
	f, err := egprss.Parse(bytes.NewReader(load(t, "egp-rss-2026.xml")), egprss.Query{})
	if err != nil {
		t.Fatal(err)
	}
	m := byID(f)
	if f.Items != 4 || len(m) != 3 {
		t.Fatalf("items %d projects %d", f.Items, len(m))
	}
	inv := m["69099693138"]
	if len(inv.Announcements) != 1 || inv.Announcements[0].Type != "D0" || inv.MethodCode != "16" || inv.Status != domain.StatusOpen {
		t.Fatalf("invitation %+v", inv)
	}
	if inv.BudgetYear != 2569 { // 30 Sep 2026 is the last day of FY2569
		t.Fatalf("budget year %d", inv.BudgetYear)
	}
	c := m["69099722203"]
	if c.Status != domain.StatusCancelled || c.Announcements[0].Type != "D1" {
		t.Fatalf("cancelled %+v", c)
	}
	if c.Name != "ซื้อน้ำมันเชื้อเพลิง ประจำปีงบประมาณ ๒๕๖๙ ด้วยวิธีประกวดราคาอิเล็กทรอนิกส์ (e-bidding)" {
		t.Fatalf("name %q", c.Name)
	}
	w := m["69099700011"]
	if w.Status != domain.StatusAwarded || w.MethodCode != "19" {
		t.Fatalf("winner %+v", w)
	}
}

func TestClientRetriesAndQuery(t *testing.T) {
	t.Parallel()
	body := load(t, "egp-rss-2026.xml")
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("anounceType") != "D0" || r.URL.Query().Get("deptId") != "0304" {
			t.Errorf("query %s", r.URL.RawQuery)
		}
		if r.Header.Get("Referer") == "" {
			t.Error("no referer")
		}
		if calls.Add(1) < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/xml; charset=ISO-8859-1") // wrong, as e-GP says
		_, _ = w.Write(body)                                           // the client under test reports what it got
	}))
	defer srv.Close()
	c := egprss.NewClient(srv.URL + "/EPROCRssFeedWeb/egpannouncerss.xml")
	var slept []time.Duration
	c.Sleep = func(ctx context.Context, d time.Duration) error { slept = append(slept, d); return nil }
	f, err := c.Fetch(context.Background(), egprss.Query{DeptID: "0304", AnounceType: "D0"})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Projects) != 3 || calls.Load() != 3 || len(slept) != 2 || slept[1] < slept[0] {
		t.Fatalf("projects %d calls %d sleeps %v", len(f.Projects), calls.Load(), slept)
	}
	if f.Projects[0].MinistryCode != "03" {
		t.Fatalf("ministry %q", f.Projects[0].MinistryCode)
	}
}

func TestPollerPaces(t *testing.T) {
	t.Parallel()
	body := load(t, "egp-rss-2022.xml")
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.URL.Query().Get("deptId")+"/"+r.URL.Query().Get("anounceType"))
		_, _ = w.Write(body) // the client under test reports what it got
	}))
	defer srv.Close()
	c := egprss.NewClient(srv.URL)
	var pauses int
	c.Sleep = func(ctx context.Context, d time.Duration) error {
		if d != 1500*time.Millisecond {
			t.Errorf("pause %v", d)
		}
		pauses++
		return nil
	}
	got := 0
	p := egprss.Poller{Client: c, Agencies: []string{"0304", "2410101"}, Types: []string{"D0", "W0"}, Pace: 1500 * time.Millisecond,
		Handle: func(ctx context.Context, q egprss.Query, f egprss.Feed) error { got += len(f.Projects); return nil }}
	if err := p.Round(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 4 || pauses != 3 || got != 12 || seen[3] != "2410101/W0" {
		t.Fatalf("seen %v pauses %d got %d", seen, pauses, got)
	}
}
