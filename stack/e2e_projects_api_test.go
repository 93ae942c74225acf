package stack_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// fakeEGP serves e-GP's getProjectDetail JSON ({"data": {...}}, the field
// names reported for process5) per projectId; unknown ids get {"data":null}.
type fakeEGP struct {
	mu     sync.Mutex
	bodies map[string]string
}

func (f *fakeEGP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	b, ok := f.bodies[r.URL.Query().Get("projectId")]
	f.mu.Unlock()
	if !ok {
		b = `{"data":null}`
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(b))
}

const egpRoad = `{"responseCode":"0","data":{"projectId":"69099693138","projectName":"ประกวดราคาจ้างก่อสร้างถนนคอนกรีตเสริมเหล็ก สายบ้านหนองบัว หมู่ที่ ๕","deptId":"6410102","deptSubId":"6410102001","deptSubName":"องค์การบริหารส่วนตำบลหนองบัว","methodId":"16","typeId":"02","projectMoney":2450000.00,"priceBuild":2438500.00,"priceAgree":null,"announceDate":"2026-09-30","stepId":"M03","projectStatus":"A","announceType":"D0"}}`

const egpComputer = `{"data":{"projectId":"68059426756","projectName":"ซื้อวัสดุคอมพิวเตอร์ (กองการศึกษา)","deptId":"0304","deptSubName":"กองบริหารการคลัง","methodId":"19","typeId":"01","projectMoney":"136,200.00","priceAgree":"129,500.00","announceDate":"2025-06-12T10:15:00.000+0700","stepId":"X01","projectStatus":"A","announceType":"W0"}}`

// TestProjectsAPIContract drives scrape, update-project-smart, saved criteria
// and status indicators over REST, with the spec's JSON names and statuses.
func TestProjectsAPIContract(t *testing.T) {
	egp := &fakeEGP{bodies: map[string]string{"69099693138": egpRoad, "68059426756": egpComputer}}
	srv := httptest.NewServer(egp)
	defer srv.Close()
	e := startStack(t, map[string]string{"DEMO_DATA": "40", "EGP_PROJECT_URL": srv.URL + "/getProjectDetail", "EGP_PROJECT_PACE": "0"})
	tok := e.registerVerified("saver", "saver@example.com", "long enough pass").str("access_token")
	other := e.registerVerified("other", "other@example.com", "long enough pass").str("access_token")
	auth, auth2 := bearer(tok), bearer(other)
	// Live look-ups at e-GP are in the paid tiers (explore_live_search:
	// TestLiveSearchLimits); the saver stays on free for the saved searches.
	live := bearer(e.registerVerified("live", "live@example.com", "long enough pass").str("access_token"))
	e.upgrade(live, "pro")
	e.upgrade(auth2, "pro")

	// ---- scrape ----
	expect(t, e.call("POST", "/scrape?project_ids=69099693138", nil), 401, "scrape without login")
	expectDetail(t, e.call("POST", "/scrape", nil, live...), 400, "project_ids")
	expectDetail(t, e.call("POST", "/scrape?project_ids=", nil, live...), 400, "project")
	bad := e.call("POST", "/scrape?project_ids=69099693138&project_ids=6909969313X", nil, live...)
	expectDetail(t, bad, 400, "6909969313X")
	expectDetail(t, bad, 400, "11 digits")
	ids := make([]string, 101)
	for i := range ids {
		ids[i] = strconv.Itoa(69000000000 + i)
	}
	expectDetail(t, e.call("POST", "/scrape?project_ids="+strings.Join(ids, ","), nil, live...), 400, "at most 100")

	sc := e.call("POST", "/scrape?project_ids=69099693138&project_ids=68059426756,69000000404", nil, live...)
	expect(t, sc, 200, "scrape")
	results, _ := sc.Body["results"].([]any)
	if len(results) != 3 || sc.str("message") == "" {
		t.Fatalf("scrape answer %s", sc.Raw)
	}
	status := map[string]string{}
	for _, r := range results {
		m := r.(map[string]any)
		for _, k := range []string{"project_id", "status", "detail"} {
			if _, ok := m[k]; !ok {
				t.Fatalf("result lacks %q: %v", k, m)
			}
		}
		status[m["project_id"].(string)] = m["status"].(string)
	}
	if status["69099693138"] != "created" || status["68059426756"] != "created" || status["69000000404"] != "not_found" {
		t.Fatalf("scrape statuses %v", status)
	}
	det := e.call("GET", "/projects/69099693138", nil, live...)
	expect(t, det, 200, "scraped project")
	if !strings.Contains(det.Raw, "ถนนคอนกรีต") {
		t.Fatalf("details %s", det.Raw)
	}
	again := e.call("POST", "/scrape?project_ids=69099693138", nil, live...)
	if expect(t, again, 200, "rescrape"); !strings.Contains(again.Raw, `"unchanged"`) {
		t.Fatalf("rescrape %s", again.Raw)
	}

	// ---- update-project-smart ----
	expect(t, e.call("POST", "/update-project-smart/69099693138", nil), 401, "smart update without login")
	expectDetail(t, e.call("POST", "/update-project-smart/00000000000", nil, live...), 404, "Project not found")
	expectDetail(t, e.call("POST", "/update-project-smart/123", nil, live...), 400, "11 digits")
	up := e.call("POST", "/update-project-smart/69099693138", nil, live...)
	expect(t, up, 200, "smart update")
	data, _ := up.Body["data"].(map[string]any)
	if up.str("status") != "success" || up.str("message") == "" || data["can_update"] != false ||
		data["time_until_next_update"] != float64(600) || data["action_required"] != "none" {
		t.Fatalf("smart update %s", up.Raw)
	}
	cool := e.call("POST", "/update-project-smart/69099693138", nil, auth2...)
	expect(t, cool, 200, "cooldown")
	data, _ = cool.Body["data"].(map[string]any)
	if cool.str("status") != "cooldown" || data["can_update"] != false || data["action_required"] != "wait" {
		t.Fatalf("cooldown %s", cool.Raw)
	}
	if wait, _ := data["time_until_next_update"].(float64); wait < 1 || wait > 600 {
		t.Fatalf("time_until_next_update %v", data["time_until_next_update"])
	}

	// ---- status indicators ----
	si := e.call("GET", "/status_indicators", nil)
	expect(t, si, 200, "status_indicators (public)")
	codes := map[string]bool{}
	list, _ := si.Body["status_codes"].([]any)
	for _, c := range list {
		m := c.(map[string]any)
		if m["message"] == "" || m["level"] == "" {
			t.Errorf("indicator without message or level: %v", m)
		}
		codes[m["status_code"].(string)] = true
	}
	for _, c := range []string{"SEARCH_CRITERIA_SAVED", "DAILY_LIMIT_EXCEEDED", "MONTHLY_LIMIT_EXCEEDED", "DAILY_MONTHLY_LIMIT_EXCEEDED", "OVERNIGHT_LIMIT_EXCEEDED", "UNKNOWN_ERROR"} {
		if !codes[c] {
			t.Errorf("status_indicators lacks %s: %s", c, si.Raw)
		}
	}
	expect(t, e.call("POST", "/status_indicator", map[string]string{"user_action": "search"}), 401, "status_indicator without login")
	st := e.call("POST", "/status_indicator", map[string]string{"user_action": "search"}, auth...)
	if expect(t, st, 200, "status_indicator"); st.str("status_code") != "SEARCH_AVAILABLE" || st.str("message") == "" {
		t.Fatalf("fresh user status %s", st.Raw)
	}
	expectDetail(t, e.call("POST", "/status_indicator", map[string]string{"user_action": "fly"}, auth...), 400, "user_action")

	// ---- to_do_search: validation, never 500 ----
	expect(t, e.call("POST", "/to_do_search", map[string]any{"keyWord_Incl_Or": []string{"ถนน"}}), 401, "to_do_search without login")
	expectDetail(t, e.call("POST", "/to_do_search", map[string]any{}, auth...), 422, "at least one search criterion")
	expectDetail(t, e.call("POST", "/to_do_search", map[string]any{"keyWord_Incl_Or": []string{"ถนน"}, "projectMoneyS_User": 500000, "projectMoneyE_User": 1000}, auth...), 422, "minimum budget")
	expectDetail(t, e.call("POST", "/to_do_search", map[string]any{"annouSDate_User": "30/09/2569"}, auth...), 400, "ISO date")
	expectDetail(t, e.call("POST", "/to_do_search", map[string]any{"project_id_User": []string{"12345"}}, auth...), 400, "11 digits")
	expectDetail(t, e.call("POST", "/to_do_search", map[string]any{"keyWord_Incl_Or": []string{"ถนน"}, "search_type": "weekly"}, auth...), 400, "search_type")
	for _, raw := range []string{`{`, `{"projectMoneyS_User":"lots"}`, `{"keyWord_Incl_Or":"ถนน"}`, `[]`} {
		if r := e.call("POST", "/to_do_search", raw, auth...); r.Status != 400 || r.detail() == "" {
			t.Errorf("body %s: %d %s", raw, r.Status, r.Raw)
		}
	}

	// ---- to_do_search: the free tier holds one normal search, saves 3 a day ----
	save := func(body map[string]any, what string) string {
		t.Helper()
		r := e.call("POST", "/to_do_search", body, auth...)
		expect(t, r, 200, what)
		if r.str("message") == "" || r.str("criteria_id") == "" || r.str("detail") == "" || r.Body["match_count"] == nil {
			t.Fatalf("to_do_search answer %s", r.Raw)
		}
		return r.str("criteria_id")
	}
	bodies := []map[string]any{
		{"keyWord_Incl_Or": []string{"ถนน", "คอมพิวเตอร์"}, "annouSDate_User": "2025-01-01", "search_type": "normal"},
		{"keyWord_Incl_And": []string{"ถนนคอนกรีต"}, "projectMoneyS_User": 1000000, "budgetYear_User": []string{"2569"}},
		{"project_id_User": []string{"68059426756"}, "annouType_User_required": []string{"W0"}},
	}
	held := save(bodies[2], "save criteria 1")
	expectReason(t, e.call("POST", "/to_do_search", bodies[1], auth...), 409, "aborted", "saved-search-limit")
	expectReason(t, e.call("POST", "/to_do_search", bodies[2], auth...), 409, "already_exists", "duplicate-search")
	expectReason(t, e.call("POST", "/to_do_search", map[string]any{"keyWord_Incl_Or": []string{"ถนน"}, "search_type": "overnight"}, auth...), 403, "permission_denied", "upgrade_required")
	if st := e.call("POST", "/status_indicator", map[string]string{"user_action": "overnight"}, auth...); st.str("status_code") != "OVERNIGHT_LIMIT_EXCEEDED" {
		t.Fatalf("overnight status on free %s", st.Raw)
	}
	// Deleting makes room, but each save is one of the day's 3 combinations.
	for i := 2; i <= 3; i++ {
		expect(t, e.call("DELETE", "/search-criteria/"+held, nil, auth...), 200, "delete to make room")
		held = save(bodies[2], "save criteria "+strconv.Itoa(i))
	}
	expect(t, e.call("DELETE", "/search-criteria/"+held, nil, auth...), 200, "delete to make room")
	limit := e.call("POST", "/to_do_search", bodies[0], auth...)
	expectReason(t, limit, 409, "aborted", "limit-reached")
	expectDetail(t, limit, 409, "Limit reached")
	st = e.call("POST", "/status_indicator", map[string]string{"user_action": "search"}, auth...)
	if expect(t, st, 200, "status after the limit"); st.str("status_code") != "DAILY_LIMIT_EXCEEDED" {
		t.Fatalf("status after 3 saves %s", st.Raw)
	}
	// Starter: five normal and five overnight searches, 10 combinations a day.
	e.upgrade(auth, "starter")
	saved := []string{save(bodies[0], "starter: save criteria"), save(bodies[1], "starter: another")}
	night := e.call("POST", "/to_do_search", map[string]any{"keyWord_Incl_Or": []string{"ถนน"}, "search_type": "overnight"}, auth...)
	expect(t, night, 200, "overnight save")
	if st := e.call("POST", "/status_indicator", map[string]string{"user_action": "overnight"}, auth...); st.str("status_code") != "OVERNIGHT_SEARCH_AVAILABLE" {
		t.Fatalf("overnight status on starter %s", st.Raw)
	}

	// ---- recall_save_criteria ----
	all := e.call("POST", "/recall_save_criteria", map[string]any{}, auth...)
	expect(t, all, 200, "recall list")
	crit, _ := all.Body["criteria"].([]any)
	if len(crit) != 3 {
		t.Fatalf("recall list %s", all.Raw)
	}
	newest := crit[0].(map[string]any)
	if newest["criteria_id"] != night.str("criteria_id") || newest["search_type"] != "overnight" {
		t.Fatalf("newest first: %v", newest)
	}
	firstSaved := crit[2].(map[string]any)
	payload, _ := firstSaved["criteria"].(map[string]any)
	if kw, _ := payload["keyWord_Incl_Or"].([]any); len(kw) != 2 || payload["annouSDate_User"] != "2025-01-01" {
		t.Fatalf("saved payload %v", payload)
	}
	rerun := e.call("POST", "/recall_save_criteria", map[string]any{"criteria_id": saved[0], "page": 1, "per_page": 1}, auth...)
	expect(t, rerun, 200, "recall run")
	rows, _ := rerun.Body["data"].([]any)
	pag, _ := rerun.Body["pagination"].(map[string]any)
	if len(rows) != 1 || pag["per_page"] != float64(1) || pag["total"] == nil {
		t.Fatalf("recall run %s", rerun.Raw)
	}
	if c, _ := rerun.Body["criteria"].([]any); len(c) != 1 || c[0].(map[string]any)["last_run_at"] == nil {
		t.Fatalf("recall run criteria %s", rerun.Raw)
	}
	expectDetail(t, e.call("POST", "/recall_save_criteria", map[string]any{"criteria_id": saved[0]}, auth2...), 404, "Search criteria not found")
	expectDetail(t, e.call("POST", "/recall_save_criteria", map[string]any{"criteria_id": "nope"}, auth...), 404, "Search criteria not found")
	expect(t, e.call("POST", "/recall_save_criteria", map[string]any{}), 401, "recall without login")
	if r := e.call("POST", "/recall_save_criteria", map[string]any{}, auth2...); r.Status != 200 || strings.Contains(r.Raw, saved[0]) {
		t.Fatalf("other user's list %d %s", r.Status, r.Raw)
	}

	// ---- delete ----
	expectDetail(t, e.call("DELETE", "/search-criteria/"+saved[1], nil, auth2...), 404, "Search criteria not found")
	expect(t, e.call("DELETE", "/search-criteria/"+saved[1], nil, auth...), 200, "delete criteria")
	expect(t, e.call("DELETE", "/search-criteria/"+saved[1], nil, auth...), 404, "delete twice")
	expect(t, e.call("DELETE", "/search-criteria/"+night.str("criteria_id"), nil, auth...), 200, "delete overnight")
	expect(t, e.call("POST", "/to_do_search", map[string]any{"keyWord_Incl_Or": []string{"น้ำ"}, "search_type": "overnight"}, auth...), 200, "overnight after delete")
}
