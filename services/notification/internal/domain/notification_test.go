package domain_test

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"bidradar/services/notification/internal/domain"
)

func TestBahtAndThaiDate(t *testing.T) {
	for satang, want := range map[int64]string{0: "0.00 บาท", 5: "0.05 บาท", 100000: "1,000.00 บาท", 450000050: "4,500,000.50 บาท", -12345: "-123.45 บาท"} {
		if got := domain.Baht(satang); got != want {
			t.Errorf("Baht(%d) = %q, want %q", satang, got, want)
		}
	}
	for in, want := range map[string]string{"2026-11-20": "20 พ.ย. 2569", "2027-01-01": "1 ม.ค. 2570", "soon": "soon", "": ""} {
		if got := domain.ThaiDate(in); got != want {
			t.Errorf("ThaiDate(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClearFilterValidate(t *testing.T) {
	days := func(n int) *int { return &n }
	ok := []domain.ClearFilter{{}, {Archive: true, Category: "search_match", OlderThanDays: days(0)}, {IDs: []string{"11111111-1111-4111-8111-111111111111"}}}
	bad := []domain.ClearFilter{{Category: "spam"}, {OlderThanDays: days(-1)}, {OlderThanDays: days(4000)}, {IDs: []string{"1; DROP TABLE"}}, {IDs: make([]string, 1001)}}
	for _, f := range ok {
		if err := f.Validate(); err != nil {
			t.Errorf("%+v: %v", f, err)
		}
	}
	for _, f := range bad {
		if f.Validate() == nil {
			t.Errorf("%+v accepted", f)
		}
	}
}

func TestDigestNamesItsProjects(t *testing.T) {
	p := func(id, name string) domain.MatchedProject { return domain.MatchedProject{ID: id, Name: name} }
	for _, c := range []struct {
		name           string
		ps             []domain.MatchedProject
		total          int
		title, message string
		link           string
	}{
		{"one", []domain.MatchedProject{p("69000000001", "สะพาน")}, 1,
			`การค้นหาข้ามคืน "สะพาน" พบโครงการใหม่ 1 โครงการ`, "สะพาน (69000000001)", "/project-details/69000000001"},
		{"two", []domain.MatchedProject{p("69000000001", "ก"), p("69000000002", "ข")}, 2,
			`การค้นหาข้ามคืน "สะพาน" พบโครงการใหม่ 2 โครงการ`, "ก (69000000001), ข (69000000002)", "/project-details/69000000001"},
		{"more than named", []domain.MatchedProject{p("1", "a"), p("2", "b"), p("3", "c"), p("4", "d"), p("5", "e"), p("6", "f")}, 80,
			`การค้นหาข้ามคืน "สะพาน" พบโครงการใหม่ 80 โครงการ`, "a (1), b (2), c (3), d (4), e (5) และอีก 75 โครงการ", "/project-details/1"},
		{"total missing", []domain.MatchedProject{p("1", "a"), p("2", "b")}, 0,
			`การค้นหาข้ามคืน "สะพาน" พบโครงการใหม่ 2 โครงการ`, "a (1), b (2)", "/project-details/1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := domain.Digest("u", "c1", " สะพาน ", "2026-11-25", c.ps, c.total)
			if d.Title != c.title || d.Message != c.message || d.Link != c.link || d.DedupKey != "digest:c1:2026-11-25" || d.Category != domain.CategorySearchMatch {
				t.Fatalf("%+v", d)
			}
		})
	}
}

// Webhook addresses: https to public addresses only, in production and
// outside it alike; only the development flag (WEBHOOK_ALLOW_PRIVATE) lets
// plain http to the loopback and private https addresses through, for
// local receivers.
func TestCleanWebhookURL(t *testing.T) {
	for _, c := range []struct {
		url          string
		allowPrivate bool
		ok           bool
	}{
		{"https://hooks.example.com/bidradar", false, true},
		{"  https://hooks.example.com:8443/x?team=1  ", false, true},
		{"http://127.0.0.1:9000/hook", true, true},
		{"http://localhost/hook", true, true},
		{"http://127.0.0.1:9000/hook", false, false},
		{"http://localhost/hook", false, false},
		{"http://hooks.example.com/x", true, false},
		{"https://user:pw@hooks.example.com/", false, false},
		{"https://hooks.example.com/#frag", false, false},
		{"ftp://hooks.example.com/", true, false},
		{"https://", false, false},
		{"", true, false},
		{"https://hooks.example.com/" + strings.Repeat("a", 2048), false, false},
		// An address written in the URL must be public.
		{"https://8.8.8.8/hook", false, true},
		{"https://[2606:4700:4700::1111]/hook", false, true},
		{"https://127.0.0.1/hook", false, false},
		{"https://localhost/hook", false, false},
		{"https://api.localhost./hook", false, false},
		{"https://10.1.2.3/hook", false, false},
		{"https://100.64.0.1/hook", false, false},
		{"https://100.127.255.254:8443/hook", false, false},
		{"https://169.254.169.254/latest/meta-data", false, false},
		{"https://0.1.2.3/hook", false, false},
		{"https://[::1]/hook", false, false},
		{"https://[fd00::1]/hook", false, false},
		{"https://[fe80::1%25eth0]/hook", false, false},
		{"https://[::ffff:10.0.0.1]/hook", false, false},
		{"https://[::ffff:100.64.0.1]/hook", false, false},
		{"https://100.64.0.1/hook", true, true}, // with the development flag anything https goes
	} {
		_, err := domain.CleanWebhookURL(c.url, c.allowPrivate)
		if (err == nil) != c.ok {
			t.Errorf("CleanWebhookURL(%q, allowPrivate %v): %v", c.url, c.allowPrivate, err)
		}
	}
}

func TestPublicAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"8.8.8.8": true, "1.1.1.1": true, "100.63.255.255": true, "100.128.0.0": true,
		"2606:4700:4700::1111": true, "::ffff:8.8.8.8": true, "64:ff9b::808:808": true, "2002:808:808::1": true,

		"0.0.0.0": false, "0.1.2.3": false, "127.0.0.1": false, "10.0.0.1": false, "172.16.0.1": false,
		"192.168.1.1": false, "169.254.169.254": false, "100.64.0.0": false, "100.64.0.1": false,
		"100.127.255.255": false, "192.0.0.8": false, "198.18.0.1": false, "224.0.0.1": false,
		"240.0.0.1": false, "255.255.255.255": false,

		"::": false, "::1": false, "fc00::1": false, "fd12:3456::1": false, "fe80::1": false,
		"fe80::1%eth0": false, "febf::1": false, "fec0::1": false, "ff02::1": false,
		"::ffff:127.0.0.1": false, "::ffff:10.0.0.1": false, "::ffff:100.64.0.1": false,
		"::ffff:169.254.169.254": false, "::ffff:0.0.0.1": false, "::10.0.0.1": false,
		"64:ff9b::a00:1": false, "64:ff9b::6440:1": false, "64:ff9b:1::1": false,
		"2002:a00:1::1": false, "2002:6440:1::1": false, "2001:db8::1": false,
	} {
		if got := domain.PublicAddr(netip.MustParseAddr(addr)); got != want {
			t.Errorf("PublicAddr(%s) = %v, want %v", addr, got, want)
		}
	}
	if domain.PublicAddr(netip.Addr{}) {
		t.Error("the zero Addr is public")
	}
}

// One alert per user and project, titled after the user's first search;
// its dedup key is the user's and project's whatever the searches.
func TestProjectMatchTitle(t *testing.T) {
	p := domain.MatchedProject{ID: "69000000001", Name: "สะพาน", Agency: "กรม"}
	for _, c := range []struct {
		names []string
		title string
	}{
		{[]string{"ถนน"}, `โครงการใหม่ตรงกับ "ถนน"`},
		{[]string{" ถนน ", "สะพาน", "คลอง"}, `โครงการใหม่ตรงกับ "ถนน" และอีก 2 การค้นหา`},
		{[]string{""}, `โครงการใหม่ตรงกับ "การค้นหาที่บันทึกไว้"`},
		{nil, `โครงการใหม่ตรงกับ "การค้นหาที่บันทึกไว้"`},
	} {
		d := domain.ProjectMatch("u", c.names, p)
		if d.Title != c.title || d.DedupKey != "match:69000000001" || d.Message != "สะพาน — กรม" || d.Category != domain.CategorySearchMatch {
			t.Errorf("%q: %+v", c.names, d)
		}
	}
	if s := domain.SearchMatch("u", "c1", "ถนน", p); s.Title != `โครงการใหม่ตรงกับ "ถนน"` || s.DedupKey != "match:c1:69000000001" {
		t.Errorf("SearchMatch %+v", s)
	}
}

// Deliveries are limited per receiver: e-mail and LINE each one, a webhook
// per host (not per user, not per path or port).
func TestDeliveryDestination(t *testing.T) {
	for _, c := range []struct{ channel, url, want string }{
		{domain.ChannelEmail, "", "email"},
		{domain.ChannelLine, "https://ignored.example", "line"},
		{domain.ChannelWebhook, "https://Hooks.Example.com:8443/a?b=c", "webhook:hooks.example.com"},
		{domain.ChannelWebhook, "https://hooks.example.com/other", "webhook:hooks.example.com"},
		{domain.ChannelWebhook, "https://[2001:db8::1]/in", "webhook:2001:db8::1"},
		{domain.ChannelWebhook, "", "webhook:"},
	} {
		if got := domain.DeliveryDestination(c.channel, c.url); got != c.want {
			t.Errorf("%s %q: %q, want %q", c.channel, c.url, got, c.want)
		}
	}
	for attempts, want := range map[int]time.Duration{1: time.Minute, 5: 3 * time.Hour, 9: 3 * time.Hour} {
		if got := domain.DeliveryBackoff(attempts); got != want {
			t.Errorf("back-off after %d: %s, want %s", attempts, got, want)
		}
	}
}

// An import's grouped alert: the Thai summary, the first three projects
// named, every project listed, one key a user and import.
func TestImportMatch(t *testing.T) {
	ids := []string{"69000000001", "69000000002", "69000000003", "69000000004", "69000000005"}
	named := []domain.MatchedProject{{ID: ids[0], Name: "ถนน ก"}, {ID: ids[1], Name: "สะพาน ข"}, {ID: ids[2], Name: "อาคาร ค"}, {ID: ids[3], Name: "ฝาย ง"}}
	d := domain.ImportMatch("u", 42, ids, named)
	if d.Title != "5 โครงการใหม่ตรงกับการค้นหาที่บันทึกไว้" || d.Message != "ถนน ก, สะพาน ข, อาคาร ค และอีก 2 โครงการ" ||
		d.DedupKey != "import:42" || d.Category != domain.CategorySearchMatch || len(d.ProjectIDs) != 5 || d.ProjectID != "" {
		t.Fatalf("%+v", d)
	}
	ids[0] = "changed"
	if d.ProjectIDs[0] != "69000000001" {
		t.Fatal("the draft shares the caller's ids")
	}
}

// A competitor's alert links to a screen of the app: one award to its
// project, several to the watchlist in settings (a route the SPA serves).
func TestCompetitorWinLinks(t *testing.T) {
	one := domain.CompetitorWin("u1", "e1", []domain.CompetitorAward{{ProjectID: "69099693138", ProjectName: "ก่อสร้างถนน", TaxID: "0105559000001", WinnerName: "บริษัท ก จำกัด", AgreedSatang: 123456789}})
	if one.Link != "/project-details/69099693138" || one.Category != domain.CategoryCompetitorWin || !strings.Contains(one.Message, "1,234,567.89") {
		t.Fatalf("one award: %+v", one)
	}
	two := domain.CompetitorWin("u1", "e2", []domain.CompetitorAward{{ProjectID: "1", ProjectName: "ก", WinnerName: "ก"}, {ProjectID: "2", ProjectName: "ข", WinnerName: "ก"}})
	if two.Link != "/user-settings/watchlist" || two.ProjectID != "" || strings.Count(two.Message, "\n") != 1 {
		t.Fatalf("two awards: %+v", two)
	}
}
