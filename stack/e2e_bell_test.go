package stack_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"bidradar/services/auth/linetest"
	"bidradar/services/projects/projectssvc"
)

// TestBellREST drives every /bell/notifications path of
// docs/product.md#notification-calls as two users would, with bad input on
// each.
func TestBellREST(t *testing.T) {
	e := startStack(t, nil)
	a := bearer(e.registerVerified("ann", "ann@example.com", "long enough pass").str("access_token"))
	b := bearer(e.registerVerified("bob", "bob@example.com", "long enough pass").str("access_token"))

	for _, c := range [][2]string{{"GET", "/bell/notifications"}, {"GET", "/bell/notifications/unread-count"},
		{"PATCH", "/bell/notifications/mark-all-read"}, {"DELETE", "/bell/notifications/all/clear"},
		{"POST", "/bell/notifications/test"}, {"POST", "/bell/notifications/test-multiple?count=2"}} {
		expect(t, e.call(c[0], c[1], nil), 401, c[0]+" "+c[1]+" signed out")
	}

	one := e.call("POST", "/bell/notifications/test", nil, a...)
	expect(t, one, 200, "test notification")
	n := one.Body["notification"].(map[string]any)
	if n["category"] != "system_alert" || n["priority"] != "normal" || n["is_read"] != false || n["type"] != "bell_notification" || n["id"] == "" {
		t.Fatalf("test notification: %s", one.Raw)
	}
	for _, q := range []string{"0", "101", "-1", "abc", ""} {
		r := e.call("POST", "/bell/notifications/test-multiple?count="+q, nil, a...)
		if r.Status != 400 || r.detail() == "" {
			t.Fatalf("count=%s: %d %s", q, r.Status, r.Raw)
		}
	}
	three := e.call("POST", "/bell/notifications/test-multiple?count=3", nil, a...)
	expect(t, three, 200, "test-multiple")
	if got := len(three.Body["notifications"].([]any)); got != 3 {
		t.Fatalf("test-multiple made %d", got)
	}

	list := e.call("GET", "/bell/notifications?page=1&per_page=2", nil, a...)
	expect(t, list, 200, "list")
	if list.Body["total"] != float64(4) || list.Body["unread_count"] != float64(4) || len(list.Body["notifications"].([]any)) != 2 {
		t.Fatalf("list: %s", list.Raw)
	}
	// Newest first: the last of the batch of three comes before the single one.
	all := e.call("GET", "/bell/notifications?per_page=100", nil, a...).Body["notifications"].([]any)
	if all[len(all)-1].(map[string]any)["id"] != n["id"] {
		t.Fatalf("order: the first notification is not last: %v", all)
	}
	for _, q := range []string{"per_page=101", "page=-1", "category=bogus", "is_read=maybe", "page=abc"} {
		if r := e.call("GET", "/bell/notifications?"+q, nil, a...); r.Status != 400 || r.detail() == "" {
			t.Fatalf("list ?%s: %d %s", q, r.Status, r.Raw)
		}
	}
	if r := e.call("GET", "/bell/notifications?category=system_alert&is_read=false", nil, a...); r.Body["total"] != float64(4) {
		t.Fatalf("filtered: %s", r.Raw)
	}

	// Bob sees nothing of Ann's and can change nothing of hers.
	if r := e.call("GET", "/bell/notifications", nil, b...); r.Body["total"] != float64(0) || r.Body["unread_count"] != float64(0) {
		t.Fatalf("bob's list: %s", r.Raw)
	}
	id := n["id"].(string)
	expect(t, e.call("PATCH", "/bell/notifications/"+id+"/read", nil, b...), 404, "bob reads ann's")
	expect(t, e.call("DELETE", "/bell/notifications/"+id, nil, b...), 404, "bob deletes ann's")
	if r := e.call("DELETE", "/bell/notifications/all/clear?notification_ids="+id, nil, b...); r.Status != 200 || r.Body["deleted_count"] != float64(0) {
		t.Fatalf("bob clears ann's: %s", r.Raw)
	}
	expectDetail(t, e.call("PATCH", "/bell/notifications/not-a-uuid/read", nil, a...), 400, "Invalid notification id")
	expectDetail(t, e.call("PATCH", "/bell/notifications/00000000-0000-4000-8000-000000000000/read", nil, a...), 404, "Notification not found")

	read := e.call("PATCH", "/bell/notifications/"+id+"/read", nil, a...)
	expect(t, read, 200, "mark read")
	if read.Body["unread_count"] != float64(3) || read.Body["notification"].(map[string]any)["is_read"] != true {
		t.Fatalf("mark read: %s", read.Raw)
	}
	if r := e.call("GET", "/bell/notifications/unread-count", nil, a...); r.Body["unread_count"] != float64(3) {
		t.Fatalf("unread-count: %s", r.Raw)
	}
	if r := e.call("GET", "/bell/notifications?is_read=true", nil, a...); r.Body["total"] != float64(1) {
		t.Fatalf("read filter: %s", r.Raw)
	}
	if r := e.call("PATCH", "/bell/notifications/mark-all-read", nil, a...); r.Status != 200 || r.Body["updated_count"] != float64(3) {
		t.Fatalf("mark-all-read: %s", r.Raw)
	}
	if r := e.call("GET", "/bell/notifications/unread-count", nil, a...); r.Body["unread_count"] != float64(0) {
		t.Fatalf("after mark-all-read: %s", r.Raw)
	}
	expect(t, e.call("DELETE", "/bell/notifications/"+id, nil, a...), 200, "delete")
	expect(t, e.call("DELETE", "/bell/notifications/"+id, nil, a...), 404, "delete twice")

	for _, q := range []string{"older_than_days=-1", "older_than_days=99999", "category=nope", "notification_ids=xyz", "archive_all=perhaps"} {
		if r := e.call("DELETE", "/bell/notifications/all/clear?"+q, nil, a...); r.Status != 400 || r.detail() == "" {
			t.Fatalf("clear ?%s: %d %s", q, r.Status, r.Raw)
		}
	}
	// Nothing is older than a day yet.
	if r := e.call("DELETE", "/bell/notifications/all/clear?older_than_days=1", nil, a...); r.Body["deleted_count"] != float64(0) {
		t.Fatalf("older_than_days: %s", r.Raw)
	}
	e.call("POST", "/bell/notifications/test", nil, a...) // one unread
	arch := e.call("DELETE", "/bell/notifications/all/clear?archive_all=true", nil, a...)
	if arch.Status != 200 || arch.Body["deleted_count"] != float64(4) {
		t.Fatalf("archive all: %s", arch.Raw)
	}
	if r := e.call("GET", "/bell/notifications", nil, a...); r.Body["total"] != float64(0) || r.Body["unread_count"] != float64(0) {
		t.Fatalf("after archive: %s", r.Raw)
	}
	e.call("POST", "/bell/notifications/test-multiple?count=2", nil, a...)
	if r := e.call("DELETE", "/bell/notifications/all/clear?is_read=false&category=system_alert", nil, a...); r.Body["deleted_count"] != float64(2) {
		t.Fatalf("clear unread: %s", r.Raw)
	}
}

// ocdsPackage is an OCDS release package of one project with the given
// releases, dated from yesterday an hour apart: new data, which raises
// instant alerts (old data does not: oldOCDSPackage).
func ocdsPackage(id, title string, releases ...string) string {
	return ocdsPackageAt(time.Now().Add(-24*time.Hour), id, title, releases...)
}

// ocdsPackageAt is ocdsPackage with its first release at from.
func ocdsPackageAt(from time.Time, id, title string, releases ...string) string {
	var rs []string
	for i, tag := range releases {
		at := from.Add(time.Duration(i) * time.Hour).In(time.FixedZone("ICT", 7*3600)).Format(time.RFC3339)
		rs = append(rs, fmt.Sprintf(`{"ocid":"ocds-03ad3f-%[1]s","id":"%[1]s-%[3]d","date":"%[4]s","tag":["%[2]s"],
			"initiationType":"tender","parties":[{"id":"TH-1","name":"กรมทางหลวงชนบท","roles":["buyer","procuringEntity"],"address":{"region":"กรุงเทพมหานคร"}}],
			"buyer":{"id":"TH-1","name":"กรมทางหลวงชนบท"},"planning":{"budget":{"amount":{"amount":4500000,"currency":"THB"}}},
			"tender":{"id":"%[1]s","title":"%[5]s","status":"active","procurementMethod":"open","procurementMethodDetails":"ประกวดราคาอิเล็กทรอนิกส์ (e-bidding)","mainProcurementCategory":"works"}}`,
			id, tag, i, at, title))
	}
	return `{"uri":"https://example.org/p.json","version":"1.1","publishedDate":"2026-11-20T10:00:00+07:00","publisher":{"name":"x"},"releases":[` + strings.Join(rs, ",") + `]}`
}

// TestAlertsReachTheBell: a saved search alerts on a matching project as
// soon as it is ingested, once however often it is seen again; a followed
// project's new step alerts its follower; both arrive on the socket live.
func TestAlertsReachTheBell(t *testing.T) {
	e := startStack(t, map[string]string{"ADMIN_EMAILS": "@ops.bidradar.test"})
	admin := bearer(e.registerVerified("ops", "ops@ops.bidradar.test", "long enough pass").str("access_token"))
	reg := e.registerVerified("ann", "ann@example.com", "long enough pass")
	tok := reg.str("access_token")
	a := bearer(tok)
	e.upgrade(a, "starter") // a normal and an overnight search
	me := e.call("GET", "/users/me", nil, a...)
	userID, _ := me.Body["id"].(string)
	ws := dialSocket(t, e, userID, tok)
	if m := readSocket(t, ws); m["type"] != "auth_success" {
		t.Fatalf("socket: %v", m)
	}

	saved := e.call("POST", "/to_do_search", map[string]any{"keyWord_Incl_And": []string{"สะพานข้ามคลอง"}, "search_type": "normal", "name": "สะพานที่ติดตาม"}, a...)
	expect(t, saved, 200, "save search")
	expect(t, e.call("POST", "/to_do_search", map[string]any{"keyWord_Incl_And": []string{"สะพานข้ามคลอง"}, "search_type": "overnight"}, a...), 200, "save overnight search")
	ingest := func(pkg string) {
		t.Helper()
		r := e.call("POST", "/admin/ingest", map[string]string{"source": "ocds", "content": base64.StdEncoding.EncodeToString([]byte(pkg))}, admin...)
		expect(t, r, 200, "ingest")
	}
	ingest(ocdsPackage("69111111111", "จ้างก่อสร้างถนนลาดยาง สายบ้านนา"))           // matches nothing
	ingest(ocdsPackage("69222222222", "จ้างก่อสร้างสะพานข้ามคลองแสนแสบ", "tender")) // matches the normal search

	frame := readSocketUntil(t, ws, "bell_notification", 10*time.Second)
	data := frame["data"].(map[string]any)
	// The title names the search: its name comes from the projects service
	// (the event names the search by key only).
	if data["category"] != "search_match" || data["project_id"] != "69222222222" || frame["unread_count"] != float64(1) ||
		data["title"] != `โครงการใหม่ตรงกับ "สะพานที่ติดตาม"` || !strings.Contains(data["message"].(string), "กรมทางหลวงชนบท") || !strings.Contains(data["message"].(string), "4,500,000.00 บาท") {
		t.Fatalf("match frame: %v", frame)
	}
	// Seen again, changed: no second alert for the same search and project.
	e.call("PATCH", "/userInterests/69222222222", map[string]any{"is_interestToStepChk": true}, a...)
	ingest(ocdsPackage("69222222222", "จ้างก่อสร้างสะพานข้ามคลองแสนแสบ", "tender", "award"))
	step := readSocketUntil(t, ws, "bell_notification", 10*time.Second)
	if d := step["data"].(map[string]any); d["category"] != "project_update" || d["project_id"] != "69222222222" || d["priority"] != "high" {
		t.Fatalf("step frame: %v", step)
	}
	list := e.call("GET", "/bell/notifications?per_page=100", nil, a...)
	cats := map[string]int{}
	for _, x := range list.Body["notifications"].([]any) {
		cats[x.(map[string]any)["category"].(string)]++
	}
	if cats["search_match"] != 1 || cats["project_update"] < 1 || list.Body["unread_count"] != list.Body["total"] {
		t.Fatalf("bell after two ingestions: %v %s", cats, list.Raw)
	}
	// Reading it pushes the new count.
	first := list.Body["notifications"].([]any)[0].(map[string]any)["id"].(string)
	expect(t, e.call("PATCH", "/bell/notifications/"+first+"/read", nil, a...), 200, "read")
	if m := readSocketUntil(t, ws, "unread_count_update", 5*time.Second); m["unread_count"] != list.Body["total"].(float64)-1 {
		t.Fatalf("count frame: %v", m)
	}
	// Renamed, then matched again: the alert names it by its new name at
	// once (the notification service had the old name cached).
	expect(t, e.call("PUT", "/search-criteria/"+saved.str("criteria_id"), map[string]any{"name": "สะพานข้ามคลอง กทม.", "search_type": "normal",
		"criteria": map[string]any{"keyWord_Incl_And": []string{"สะพานข้ามคลอง"}}}, a...), 200, "rename search")
	ingest(ocdsPackage("69333333333", "จ้างก่อสร้างสะพานข้ามคลองบางกอกน้อย", "tender"))
	renamed := readSocketUntil(t, ws, "bell_notification", 10*time.Second)
	if d := renamed["data"].(map[string]any); d["project_id"] != "69333333333" || d["title"] != `โครงการใหม่ตรงกับ "สะพานข้ามคลอง กทม."` {
		t.Fatalf("after the rename: %v", renamed)
	}
}

// TestCommandLineIngestAlertsTheBell: a real e-GP feed file ingested with
// the command line (`projects ingest --rss`, its own process in production:
// its own pool and its own copy of the saved searches) alerts the user who
// saved a matching search, on the socket and in the bell, once.
func TestCommandLineIngestAlertsTheBell(t *testing.T) {
	e := startStack(t, nil)
	reg := e.registerVerified("bee", "bee@example.com", "long enough pass")
	tok := reg.str("access_token")
	a := bearer(tok)
	userID, _ := e.call("GET", "/users/me", nil, a...).Body["id"].(string)
	ws := dialSocket(t, e, userID, tok)
	if m := readSocket(t, ws); m["type"] != "auth_success" {
		t.Fatalf("socket: %v", m)
	}
	expect(t, e.call("POST", "/to_do_search", map[string]any{"keyWord_Incl_And": []string{"ถนนคอนกรีต"}, "search_type": "normal", "name": "ถนนคอนกรีต อีสาน"}, a...), 200, "save search")
	// The feed as published today (its items are dated 2026-09-30: older
	// than a week, they would raise no instant alert).
	feed, err := os.ReadFile("../services/projects/internal/adapters/egprss/testdata/egp-rss-2026.xml")
	if err != nil {
		t.Fatal(err)
	}
	feed = bytes.ReplaceAll(feed, []byte("2026-09-30"), []byte(time.Now().Format(time.DateOnly)))
	feeds := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(feed) }))
	defer feeds.Close()
	ingest := func() {
		t.Helper()
		env := map[string]string{"DATABASE_URL": e.db}
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		if err := projectssvc.Command(context.Background(), "ingest", []string{"--rss", feeds.URL + "/egp-rss-2026.xml"}, func(k string) string { return env[k] }, log); err != nil {
			t.Fatalf("projects ingest: %v", err)
		}
	}
	ingest()
	frame := readSocketUntil(t, ws, "bell_notification", 10*time.Second)
	if d := frame["data"].(map[string]any); d["category"] != "search_match" || d["project_id"] != "69099693138" ||
		d["title"] != `โครงการใหม่ตรงกับ "ถนนคอนกรีต อีสาน"` || frame["unread_count"] != float64(1) {
		t.Fatalf("frame: %v", frame)
	}
	// The same file again: nothing new, nothing told.
	ingest()
	_ = ws.SetReadDeadline(time.Now().Add(2 * time.Second))
	var m map[string]any
	if err := ws.ReadJSON(&m); err == nil && m["type"] == "bell_notification" {
		t.Fatalf("a second alert: %v", m)
	}
	list := e.call("GET", "/bell/notifications", nil, a...)
	if list.Body["total"] != float64(1) || list.Body["unread_count"] != float64(1) {
		t.Fatalf("bell: %s", list.Raw)
	}
}

func readSocketUntil(t *testing.T, ws interface {
	SetReadDeadline(time.Time) error
	ReadJSON(any) error
}, kind string, within time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		_ = ws.SetReadDeadline(deadline)
		var m map[string]any
		if err := ws.ReadJSON(&m); err != nil {
			t.Fatalf("waiting for %s: %v", kind, err)
		}
		if m["type"] == kind {
			return m
		}
	}
}

// TestAlertsByEmailAndLINE: a user who chose instant e-mail and LINE gets
// the alert of a saved search by both, once each, in Thai. The LINE message
// goes to the LINE account the user linked through LINE Login, never to a
// LINE user id typed into the settings (that would let anyone have our LINE
// account message a stranger).
func TestAlertsByEmailAndLINE(t *testing.T) {
	var mu sync.Mutex
	var pushes []string
	line := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			To       string                  `json:"to"`
			Messages []struct{ Text string } `json:"messages"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		pushes = append(pushes, body.To+"|"+r.Header.Get("X-Line-Retry-Key")+"|"+body.Messages[0].Text)
		mu.Unlock()
		_, _ = w.Write([]byte("{}"))
	}))
	defer line.Close()
	fake := linetest.Start(t, lineChannel, lineSecret, lineRedirect)
	e := startStack(t, map[string]string{"ADMIN_EMAILS": "@ops.bidradar.test", "LINE_CHANNEL_ACCESS_TOKEN": "tok", "LINE_API_BASE": line.URL,
		"LINE_CHANNEL_ID": lineChannel, "LINE_CHANNEL_SECRET": lineSecret, "LINE_REDIRECT_URI": lineRedirect,
		"LINE_AUTHORIZE_URL": fake.AuthorizeURL(), "LINE_TOKEN_URL": fake.TokenURL(), "LINE_PROFILE_URL": fake.ProfileURL()})
	admin := bearer(e.registerVerified("ops", "ops@ops.bidradar.test", "long enough pass").str("access_token"))
	a := bearer(e.registerVerified("ann", "ann@example.com", "long enough pass").str("access_token"))
	lineID := "U" + strings.Repeat("ab", 16)
	linking := lineSignIn(t, e, fake, linetest.User{Sub: lineID, Name: "Ann"}, a...)
	expect(t, linking, 200, "link LINE while signed in")
	expect(t, e.call("POST", "/line/auth/line/link/send-otp", map[string]string{"link_token": linking.str("link_token"), "email": "ann@example.com"}), 200, "link code")
	expect(t, e.call("POST", "/line/auth/line/link/verify", map[string]string{"link_token": linking.str("link_token"), "email": "ann@example.com",
		"otp": e.code("ann@example.com")}), 200, "link LINE")

	stranger := "U" + strings.Repeat("cd", 16)
	set := map[string]any{"bell_enabled": true, "email_enabled": true, "email_digest": "instant", "line_enabled": true, "line_user_id": stranger,
		"notify_announcements": true, "notify_search_matches": true, "notify_payments": true}
	// E-mail and LINE alerts are in the pro tier, not the free one.
	expectReason(t, e.call("PUT", "/notification-settings", set, a...), 403, "permission_denied", "upgrade_required")
	e.upgrade(a, "pro")
	expect(t, e.call("PUT", "/notification-settings", set, a...), 200, "settings")
	got := e.call("GET", "/notification-settings", nil, a...)
	if s := got.Body["settings"].(map[string]any); s["email_digest"] != "instant" || s["line_enabled"] != true || s["line_user_id"] != "" {
		t.Fatalf("settings: %s", got.Raw)
	}
	bad := map[string]any{"email_digest": "weekly"}
	expectDetail(t, e.call("PUT", "/notification-settings", bad, a...), 400, "email_digest")

	expect(t, e.call("POST", "/to_do_search", map[string]any{"keyWord_Incl_And": []string{"ประตูระบายน้ำ"}}, a...), 200, "save search")
	r := e.call("POST", "/admin/ingest", map[string]string{"source": "ocds",
		"content": base64.StdEncoding.EncodeToString([]byte(ocdsPackage("69333333333", "จ้างก่อสร้างประตูระบายน้ำ คลองสาม", "tender")))}, admin...)
	expect(t, r, 200, "ingest")

	m, err := e.mail.WaitFor("ann@example.com", 15*time.Second)
	for err == nil && !strings.Contains(m.Subject, "ประตูระบายน้ำ") && !strings.Contains(m.Text, "ประตูระบายน้ำ") {
		m, err = e.mail.WaitFor("ann@example.com", 15*time.Second) // skip the sign-up mail
	}
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Text, "/project-details/69333333333") {
		t.Fatalf("alert e-mail: %s\n%s", m.Subject, m.Text)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(pushes)
		mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	mu.Lock()
	if len(pushes) != 1 || !strings.HasPrefix(pushes[0], lineID+"|") || !strings.Contains(pushes[0], "ประตูระบายน้ำ") { // the linked account only
		t.Fatalf("LINE pushes: %v", pushes)
	}
	mu.Unlock()

	// The plan lapses: the settings stay, the bell still rings, but the
	// e-mail and LINE messages of the next alert are given up unsent.
	e.lapse(a)
	r = e.call("POST", "/admin/ingest", map[string]string{"source": "ocds",
		"content": base64.StdEncoding.EncodeToString([]byte(ocdsPackage("69333333334", "จ้างซ่อมประตูระบายน้ำ คลองสี่", "tender")))}, admin...)
	expect(t, r, 200, "ingest after the lapse")
	conn, err := pgx.Connect(context.Background(), e.db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	deadline = time.Now().Add(15 * time.Second)
	for {
		var given, other int
		if err := conn.QueryRow(context.Background(), `SELECT count(*) FILTER (WHERE q.failed_at IS NOT NULL AND q.last_error LIKE '%plan does not include%'),
			count(*) FILTER (WHERE q.failed_at IS NULL OR q.last_error NOT LIKE '%plan does not include%')
			FROM notification.deliveries d JOIN notification.notifications n ON n.id = d.notification_id
			JOIN notification.queue_jobs q ON q.kind = 'notification.delivery' AND q.key = d.id::text
			WHERE n.project_id = '69333333334'`).Scan(&given, &other); err != nil {
			t.Fatal(err)
		}
		if given == 2 && other == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("deliveries after the lapse: %d given up for the plan, %d other", given, other)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if bell := e.call("GET", "/bell/notifications?per_page=100", nil, a...); !strings.Contains(bell.Raw, "69333333334") {
		t.Fatalf("the bell after the lapse: %s", bell.Raw)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(pushes) != 1 {
		t.Fatalf("LINE pushes after the lapse: %v", pushes)
	}
}
