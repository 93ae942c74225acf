package stack_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	interestsv1 "bidradar/gen/interests/v1"
	"bidradar/gen/interests/v1/interestsv1connect"
	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/gen/projects/v1/projectsv1connect"
)

// tenderPackage is an OCDS package of one open tender whose bids close on
// due and whose hearing ends on hearing (ISO dates; "" for none).
func tenderPackage(id, title, announced, due, hearing string) string {
	periods := ""
	if due != "" {
		periods += fmt.Sprintf(`,"tenderPeriod":{"endDate":"%sT16:30:00+07:00"}`, due)
	}
	if hearing != "" {
		periods += fmt.Sprintf(`,"enquiryPeriod":{"endDate":"%sT16:30:00+07:00"}`, hearing)
	}
	return fmt.Sprintf(`{"uri":"https://example.org/p.json","version":"1.1","publishedDate":"%[3]sT10:00:00+07:00","publisher":{"name":"x"},"releases":[
		{"ocid":"ocds-03ad3f-%[1]s","id":"%[1]s-1","date":"%[3]sT09:00:00+07:00","tag":["tender"],"initiationType":"tender",
		"buyer":{"id":"TH-1","name":"กรมทางหลวงชนบท"},"planning":{"budget":{"amount":{"amount":4500000,"currency":"THB"}}},
		"tender":{"id":"%[1]s","title":"%[2]s","status":"active","procurementMethod":"open","mainProcurementCategory":"works"%[4]s}}]}`,
		id, title, announced, periods)
}

func rowIDs(t *testing.T, r reply) []string {
	t.Helper()
	rows, _ := r.Body["data"].([]any)
	var ids []string
	for _, x := range rows {
		m := x.(map[string]any)
		id, _ := m["project_id"].(string)
		if id == "" {
			id, _ = m["id_project"].(string)
		}
		ids = append(ids, id)
	}
	return ids
}

func sameIDs(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("%s: %v, want %v", what, got, want)
	}
}

// TestDeadlinesRESTAndCalendarFeed: the bid and hearing deadlines on the
// listing, its deadline order and filters over REST and Connect, my
// projects by deadline, the day-before reminder's switch, and the
// calendar link (made, read without cookies, replaced, revoked).
func TestDeadlinesRESTAndCalendarFeed(t *testing.T) {
	e := startStack(t, map[string]string{"ADMIN_EMAILS": "@ops.bidradar.test"})
	admin := bearer(e.registerVerified("ops", "ops@ops.bidradar.test", "long enough pass").str("access_token"))
	tok := e.registerVerified("dee", "dee@example.com", "long enough pass").str("access_token")
	me := bearer(tok)

	bkk, _ := time.LoadLocation("Asia/Bangkok")
	now := time.Now().In(bkk)
	day := func(n int) string { return now.AddDate(0, 0, n).Format(time.DateOnly) }
	ingest := func(pkg string) {
		t.Helper()
		expect(t, e.call("POST", "/admin/ingest", map[string]string{"source": "ocds", "content": base64.StdEncoding.EncodeToString([]byte(pkg))}, admin...), 200, "ingest")
	}
	const a, b, c, d, x = "69120000001", "69120000002", "69120000003", "69120000004", "69120000005"
	ingest(tenderPackage(a, "จ้างก่อสร้างถนน สายเอ", day(-3), day(2), day(1)))
	ingest(tenderPackage(b, "จ้างก่อสร้างถนน สายบี", day(-4), day(6), ""))
	ingest(tenderPackage(c, "จ้างก่อสร้างถนน สายซี, ซอย; ๓", day(-5), day(20), ""))
	ingest(tenderPackage(d, "จ้างก่อสร้างถนน สายดี", day(-1), day(-1), "")) // closed yesterday
	ingest(tenderPackage(x, "จ้างก่อสร้างถนน สายเอ็กซ์", day(-2), "", ""))  // no deadline

	// ---- the listing ----
	all := e.call("GET", "/gen-infor?keyword=ถนน&sort=deadline&per_page=10", nil)
	expect(t, all, 200, "deadline order")
	sameIDs(t, "sort=deadline", rowIDs(t, all), a, b, c, d, x)
	first := all.Body["data"].([]any)[0].(map[string]any)
	if first["submission_due"] != day(2) || first["hearing_due"] != day(1) {
		t.Fatalf("row deadlines: %v", first)
	}
	// by cursor, two at a time, across the two parts of the order
	var paged []string
	next := ""
	for i := 0; i < 5; i++ {
		r := e.call("GET", "/gen-infor?keyword=ถนน&sort=deadline&per_page=2&cursor="+next, nil)
		expect(t, r, 200, "deadline page")
		paged = append(paged, rowIDs(t, r)...)
		next, _ = r.Body["pagination"].(map[string]any)["next_cursor"].(string)
		if next == "" {
			break
		}
	}
	sameIDs(t, "sort=deadline by cursor", paged, a, b, c, d, x)
	week := e.call("GET", "/gen-infor?keyword=ถนน&closing_within_days=7", nil)
	expect(t, week, 200, "closing this week")
	sameIDs(t, "closing this week (date order)", rowIDs(t, week), a, b)
	if week.Body["pagination"].(map[string]any)["total"] != "2" && week.Body["pagination"].(map[string]any)["total"] != float64(2) {
		t.Fatalf("total %v", week.Body["pagination"])
	}
	rng := e.call("GET", "/gen-infor?keyword=ถนน&sort=deadline&dueSDate_User="+day(3)+"&dueEDate_User="+day(30), nil)
	expect(t, rng, 200, "deadline range")
	sameIDs(t, "deadline range", rowIDs(t, rng), b, c)

	for q, want := range map[string]string{
		"closing_within_days=400":                           "closing_within_days",
		"closing_within_days=-1":                            "closing_within_days",
		"closing_within_days=soon":                          "closing_within_days",
		"dueSDate_User=2026-13-45":                          "invalid date",
		"dueSDate_User=2026-12-31&dueEDate_User=2026-12-01": "deadline end date before start date",
		"sort=soonest":                                      "sort",
	} {
		expectDetail(t, e.call("GET", "/gen-infor?"+q, nil), 400, want)
	}

	// the same names over Connect
	pc := projectsv1connect.NewProjectsServiceClient(http.DefaultClient, e.url)
	lr, err := pc.ListProjects(context.Background(), connect.NewRequest(&projectsv1.ListProjectsRequest{Keyword: "ถนน", Sort: "deadline", ClosingWithinDays: 7}))
	if err != nil || len(lr.Msg.Data) != 2 || lr.Msg.Data[0].ProjectId != a || lr.Msg.Data[0].SubmissionDue != day(2) {
		t.Fatalf("Connect listing: %v %v", lr, err)
	}

	// ---- my projects ----
	for _, p := range []struct {
		id   string
		body map[string]any
	}{{x, map[string]any{"is_interestToStepChk": true}}, {c, map[string]any{"is_InterestToBid": true}},
		{a, map[string]any{"is_interestToStepChk": true}}, {b, map[string]any{"is_userLike": true}}, {d, map[string]any{"is_interestToStepChk": true}}} {
		expect(t, e.call("PATCH", "/userInterests/"+p.id, p.body, me...), 200, "mark "+p.id)
	}
	mine := e.call("GET", "/userInterests/active?sort=deadline", nil, me...)
	expect(t, mine, 200, "my projects by deadline")
	sameIDs(t, "my projects by deadline", rowIDs(t, mine), a, b, c, d, x)
	if r := mine.Body["data"].([]any)[0].(map[string]any); r["submission_due"] != day(2) || r["hearing_due"] != day(1) {
		t.Fatalf("my row's deadlines: %v", r)
	}
	mineWeek := e.call("GET", "/userInterests/active?closing_within_days=7&sort=deadline&per_page=1&page=2", nil, me...)
	expect(t, mineWeek, 200, "my projects closing this week")
	sameIDs(t, "my projects closing this week, page 2", rowIDs(t, mineWeek), b)
	if pg := mineWeek.Body["pagination"].(map[string]any); pg["total"] != "2" {
		t.Fatalf("my pagination %v", pg)
	}
	expectDetail(t, e.call("GET", "/userInterests/active?sort=budget", nil, me...), 400, "sort")
	expectDetail(t, e.call("GET", "/userInterests/archived?closing_within_days=999", nil, me...), 400, "closing_within_days")
	expectDetail(t, e.call("GET", "/userInterests/active?dueSDate_User=tomorrow", nil, me...), 400, "dueSDate_User")

	// ---- the reminder's switch ----
	st := e.call("GET", "/notification-settings", nil, me...)
	expect(t, st, 200, "settings")
	settings := st.Body["settings"].(map[string]any)
	if settings["notify_deadlines"] != true {
		t.Fatalf("deadline reminders default: %v", settings)
	}
	settings["notify_deadlines"] = false
	expect(t, e.call("PUT", "/notification-settings", settings, me...), 200, "reminders off")
	delete(settings, "notify_deadlines") // an older client
	settings["notify_payments"] = false
	put := e.call("PUT", "/notification-settings", settings, me...)
	expect(t, put, 200, "older client's update")
	if s := put.Body["settings"].(map[string]any); s["notify_deadlines"] != false || s["notify_payments"] != false {
		t.Fatalf("an update without notify_deadlines changed it: %v", s)
	}

	// ---- the calendar link ----
	expect(t, e.call("GET", "/users/me/calendar-feed", nil), 401, "calendar link state without login")
	if s := e.call("GET", "/users/me/calendar-feed", nil, me...); s.Status != 200 || s.Body["active"] != false {
		t.Fatalf("no link yet: %s", s.Raw)
	}
	expectDetail(t, e.call("DELETE", "/users/me/calendar-feed", nil, me...), 404, "Calendar feed not found")
	made := e.call("POST", "/users/me/calendar-feed", map[string]any{}, me...)
	expect(t, made, 200, "make a link")
	token, path := made.str("token"), made.str("path")
	if len(token) != 43 || path != "/app/backend/api/v1/calendar/"+token+".ics" {
		t.Fatalf("link %s", made.Raw)
	}
	if s := e.call("GET", "/users/me/calendar-feed", nil, me...); s.Body["active"] != true || s.str("created_at") == "" || strings.Contains(s.Raw, token) {
		t.Fatalf("link state %s", s.Raw)
	}
	feed := func(p string) (int, http.Header, string) {
		t.Helper()
		resp, err := http.Get(e.url + p) // a calendar app: no cookie, no token but the link's
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}
	code, h, body := feed(path)
	if code != 200 || h.Get("Content-Type") != "text/calendar; charset=utf-8" {
		t.Fatalf("feed %d %v\n%s", code, h, body)
	}
	unfolded := strings.ReplaceAll(body, "\r\n ", "")
	compact := func(iso string) string { return strings.ReplaceAll(iso, "-", "") }
	for _, want := range []string{
		"BEGIN:VCALENDAR\r\n", "X-WR-TIMEZONE:Asia/Bangkok\r\n",
		"UID:" + a + "-submission@bidradar\r\n", "DTSTART;VALUE=DATE:" + compact(day(2)) + "\r\n",
		"UID:" + a + "-hearing@bidradar\r\n", "DTSTART;VALUE=DATE:" + compact(day(1)) + "\r\n",
		"UID:" + c + "-submission@bidradar\r\n", // bidding
		"SUMMARY:วันสุดท้ายยื่นข้อเสนอ: จ้างก่อสร้างถนน สายซี\\, ซอย\\; ๓\r\n",
		"UID:" + x + "-step-" + day(-2) + "@bidradar\r\n", // followed, no deadline: its announcement day
		"URL:" + e.url + "/project-details/" + a + "\r\n",
	} {
		if !strings.Contains(unfolded, want) {
			t.Errorf("feed lacks %q", want)
		}
	}
	if strings.Contains(unfolded, b) { // only liked
		t.Errorf("the feed holds a project the user only likes")
	}
	for _, l := range strings.Split(body, "\r\n") {
		if len(l) > 75 {
			t.Errorf("feed line over 75 octets: %q", l)
		}
	}

	// bad input and revoked links
	bad := e.call("GET", "/calendar/not-a-token.ics", nil)
	expectDetail(t, bad, 400, "Invalid calendar link")
	expectReason(t, bad, 400, "invalid_argument", "invalid-calendar-token")
	expectDetail(t, e.call("GET", "/calendar/"+token+".json", nil), 404, "calendar link")
	expectDetail(t, e.call("GET", "/calendar/"+strings.Repeat("A", 43)+".ics", nil), 404, "Calendar feed not found")
	again := e.call("POST", "/users/me/calendar-feed", map[string]any{}, me...)
	expect(t, again, 200, "replace the link")
	expectDetail(t, e.call("GET", "/calendar/"+token+".ics", nil), 404, "Calendar feed not found")
	if code, _, _ := feed(again.str("path")); code != 200 {
		t.Fatalf("the new link: %d", code)
	}
	expect(t, e.call("DELETE", "/users/me/calendar-feed", nil, me...), 200, "revoke")
	r := e.call("GET", strings.TrimPrefix(again.str("path"), "/app/backend/api/v1"), nil)
	expectDetail(t, r, 404, "Calendar feed not found")
	expectReason(t, r, 404, "not_found", "calendar-feed-not-found")

	// the feed's RPC is internal: over Connect from outside, not found
	rc := interestsv1connect.NewInterestsServiceClient(http.DefaultClient, e.url)
	if _, err := rc.RenderCalendarFeed(context.Background(), connect.NewRequest(&interestsv1.RenderCalendarFeedRequest{Token: made.str("token")})); connect.CodeOf(err) != connect.CodeNotFound {
		t.Fatalf("RenderCalendarFeed from outside: %v", err)
	}
}
