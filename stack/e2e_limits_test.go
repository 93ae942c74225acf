package stack_test

import (
	"context"
	"encoding/base64"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// upgrade buys tier for a month through the local provider's page (the
// checkout of `make run`), as a user would.
func (e *env) upgrade(auth []string, tier string) {
	e.t.Helper()
	co := e.call("POST", "/payment/checkout", map[string]any{"tier": tier, "period": "monthly", "method": "card"}, auth...)
	expect(e.t, co, 200, "checkout "+tier)
	expect(e.t, e.call("POST", "/payment/local/"+co.str("session_id")+"/complete", map[string]any{"outcome": "paid"}, auth...), 200, "pay "+tier)
	if s := e.call("GET", "/users/me/subscription", nil, auth...); s.str("tier") != tier {
		e.t.Fatalf("after paying for %s: %s", tier, s.Raw)
	}
}

// lapse ends the user's paid plan yesterday, as if its month had run out
// (the subscription service reads such a plan as free at once).
func (e *env) lapse(auth []string) {
	e.t.Helper()
	id := e.call("GET", "/users/me", nil, auth...).str("id")
	conn, err := pgx.Connect(context.Background(), e.db)
	if err != nil {
		e.t.Fatal(err)
	}
	defer conn.Close(context.Background())
	tag, err := conn.Exec(context.Background(), `UPDATE subscription.subscriptions
		SET start_date = current_date - 31, end_date = current_date - 1, cancel_at_period_end = true WHERE user_id = $1`, id)
	if err != nil || tag.RowsAffected() != 1 {
		e.t.Fatalf("lapse %s: %v %v", id, tag, err)
	}
	if s := e.call("GET", "/users/me/subscription", nil, auth...); s.str("tier") != "free" {
		e.t.Fatalf("after the lapse: %s", s.Raw)
	}
}

// TestPlanLimits: what the pricing cards promise is what the server
// allows. The tier table (ListTiers) holds the numbers; a free user holds
// one normal search and no overnight one, gets the bell only and no OCDS
// export; the same criteria twice is refused with its own reason; a paid
// plan opens them; a lapsed plan keeps every search (readable, editable,
// deletable) and refuses new ones.
func TestPlanLimits(t *testing.T) {
	e := startStack(t, map[string]string{"ADMIN_EMAILS": "@ops.bidradar.test"})
	admin := bearer(e.registerVerified("ops", "ops@ops.bidradar.test", "long enough pass").str("access_token"))
	a := bearer(e.registerVerified("freeuser", "free@example.com", "long enough pass").str("access_token"))

	// ---- the tier table, as the pricing cards read it ----
	tiers := e.call("GET", "/subscription-tiers?include_all=true", nil)
	expect(t, tiers, 200, "tiers")
	want := map[string]struct {
		normal, overnight, watchlist, seats float64
		features                            string
	}{
		"free":       {1, 0, 0, 0, ""},
		"starter":    {5, 5, 0, 0, "email_alerts market_benchmarks"},
		"pro":        {30, 30, 20, 3, "email_alerts line_alerts ocds_export market_benchmarks market_profiles"},
		"enterprise": {200, 200, 200, 10, "email_alerts line_alerts ocds_export market_benchmarks market_profiles account_manager"},
	}
	details, _ := tiers.Body["tier_details"].([]any)
	if len(details) != 4 {
		t.Fatalf("tiers %s", tiers.Raw)
	}
	for _, d := range details {
		tier := d.(map[string]any)
		l := tier["combination_limits"].(map[string]any)
		var fs []string
		for _, f := range tier["features"].([]any) {
			fs = append(fs, f.(string))
		}
		w := want[tier["tier"].(string)]
		if l["normal_search_save"] != w.normal || l["overnight_search_save"] != w.overnight || strings.Join(fs, " ") != w.features ||
			l["watchlist_size"] != w.watchlist || l["team_seats"] != w.seats {
			t.Errorf("tier %v: want %+v", tier, w)
		}
	}

	// ---- saved searches: free holds one normal search ----
	road := map[string]any{"name": "ถนน", "keyWord_Incl_Or": []string{"ถนนลาดยาง", "ถนนคอนกรีต"}}
	first := e.call("POST", "/to_do_search", road, a...)
	expect(t, first, 200, "first search")
	second := e.call("POST", "/to_do_search", map[string]any{"keyWord_Incl_Or": []string{"สะพาน"}}, a...)
	expectReason(t, second, 409, "aborted", "saved-search-limit")
	expectDetail(t, second, 409, "Limit reached")
	// The same criteria (another name, another order) is its own refusal.
	same := e.call("POST", "/to_do_search", map[string]any{"name": "อีกชื่อ", "keyWord_Incl_Or": []string{"ถนนคอนกรีต", "ถนนลาดยาง"}}, a...)
	expectReason(t, same, 409, "already_exists", "duplicate-search")
	expectDetail(t, same, 409, "identical search")
	expectReason(t, e.call("POST", "/to_do_search", map[string]any{"keyWord_Incl_Or": []string{"สะพาน"}, "search_type": "overnight"}, a...),
		403, "permission_denied", "upgrade_required")

	// ---- channels: free is the bell only ----
	settings := func(email, line bool, digest string) map[string]any {
		return map[string]any{"bell_enabled": true, "email_enabled": email, "email_digest": digest, "line_enabled": line,
			"notify_announcements": true, "notify_search_matches": true, "notify_payments": true}
	}
	expectReason(t, e.call("PUT", "/notification-settings", settings(true, false, "instant"), a...), 403, "permission_denied", "upgrade_required")
	expectReason(t, e.call("PUT", "/notification-settings", settings(false, true, "off"), a...), 403, "permission_denied", "upgrade_required")
	expect(t, e.call("PUT", "/notification-settings", settings(false, false, "off"), a...), 200, "free: the bell's settings")

	// ---- the OCDS export ----
	pkg := ocdsPackage("69777777777", "จ้างก่อสร้างถนนลาดยาง สายบ้านโนน", "tender")
	expect(t, e.call("POST", "/admin/ingest", map[string]string{"source": "ocds", "content": base64.StdEncoding.EncodeToString([]byte(pkg))}, admin...), 200, "ingest")
	expectReason(t, e.call("GET", "/projects/69777777777/ocds", nil, a...), 403, "permission_denied", "upgrade_required")

	// ---- starter: five searches, overnight, e-mail; not LINE nor OCDS ----
	e.upgrade(a, "starter")
	expect(t, e.call("POST", "/to_do_search", map[string]any{"keyWord_Incl_Or": []string{"สะพาน"}}, a...), 200, "starter: a second search")
	night := e.call("POST", "/to_do_search", map[string]any{"keyWord_Incl_Or": []string{"ประปา"}, "search_type": "overnight"}, a...)
	expect(t, night, 200, "starter: an overnight search")
	expectReason(t, e.call("POST", "/to_do_search", road, a...), 409, "already_exists", "duplicate-search")
	expect(t, e.call("PUT", "/notification-settings", settings(true, false, "instant"), a...), 200, "starter: e-mail")
	expectReason(t, e.call("PUT", "/notification-settings", settings(true, true, "instant"), a...), 403, "permission_denied", "upgrade_required")
	expectReason(t, e.call("GET", "/projects/69777777777/ocds", nil, a...), 403, "permission_denied", "upgrade_required")

	// ---- the plan lapses: nothing is deleted, nothing new is allowed ----
	e.lapse(a)
	list := e.call("POST", "/recall_save_criteria", map[string]any{}, a...)
	if crit, _ := list.Body["criteria"].([]any); len(crit) != 3 {
		t.Fatalf("kept searches %s", list.Raw)
	}
	expectReason(t, e.call("POST", "/to_do_search", map[string]any{"keyWord_Incl_Or": []string{"ท่อ"}}, a...), 409, "aborted", "saved-search-limit")
	expectReason(t, e.call("POST", "/to_do_search", map[string]any{"keyWord_Incl_Or": []string{"ท่อ"}, "search_type": "overnight"}, a...), 403, "permission_denied", "upgrade_required")
	// A kept search stays readable and editable in its kind; a switch into
	// a kind not in the tier is refused.
	expect(t, e.call("POST", "/recall_save_criteria", map[string]any{"criteria_id": night.str("criteria_id")}, a...), 200, "run a kept overnight search")
	expect(t, e.call("PUT", "/search-criteria/"+night.str("criteria_id"), map[string]any{"search_type": "overnight",
		"criteria": map[string]any{"keyWord_Incl_Or": []string{"ประปาหมู่บ้าน"}}}, a...), 200, "edit a kept overnight search")
	expectReason(t, e.call("PUT", "/search-criteria/"+first.str("criteria_id"), map[string]any{"search_type": "overnight",
		"criteria": map[string]any{"keyWord_Incl_Or": []string{"ถนน"}}}, a...), 403, "permission_denied", "upgrade_required")
	// E-mail stays as the user set it (it no longer delivers); turning on
	// LINE is refused; the rest can change.
	got := e.call("GET", "/notification-settings", nil, a...)
	if s := got.Body["settings"].(map[string]any); s["email_enabled"] != true {
		t.Fatalf("settings after the lapse: %s", got.Raw)
	}
	kept := settings(true, false, "instant")
	kept["notify_payments"] = false
	expect(t, e.call("PUT", "/notification-settings", kept, a...), 200, "lapsed: other settings")
	expectReason(t, e.call("PUT", "/notification-settings", settings(true, true, "instant"), a...), 403, "permission_denied", "upgrade_required")
	// Deleting down to the free tier's one search makes room again.
	for _, c := range list.Body["criteria"].([]any) {
		expect(t, e.call("DELETE", "/search-criteria/"+c.(map[string]any)["criteria_id"].(string), nil, a...), 200, "delete a kept search")
	}
	expect(t, e.call("POST", "/to_do_search", map[string]any{"keyWord_Incl_Or": []string{"ท่อ"}}, a...), 200, "a save once room is made")

	// ---- pro: LINE and the OCDS export ----
	e.upgrade(a, "pro")
	expect(t, e.call("PUT", "/notification-settings", settings(true, true, "instant"), a...), 200, "pro: LINE")
	ocds := e.call("GET", "/projects/69777777777/ocds", nil, a...)
	if expect(t, ocds, 200, "pro: OCDS"); !strings.HasSuffix(ocds.str("ocid"), "69777777777") {
		t.Fatalf("ocds %s", ocds.Raw)
	}
}

// TestLiveSearchLimits: the live look-ups at e-GP (scrape and
// update-project-smart, one unit per project asked) are what the pricing
// cards promise: none on free (403 upgrade_required, e-GP not asked), the
// tier's number a day on a paid plan, then 409 'Limit reached'; the usage
// counts them. Filtering the database is unlimited in every tier, as the
// cards (which no longer list it) and the server agree.
func TestLiveSearchLimits(t *testing.T) {
	egp := &fakeEGP{bodies: map[string]string{"69099693138": egpRoad, "68059426756": egpComputer}}
	srv := httptest.NewServer(egp)
	defer srv.Close()
	e := startStack(t, map[string]string{"EGP_PROJECT_URL": srv.URL + "/getProjectDetail", "EGP_PROJECT_PACE": "0"})
	a := bearer(e.registerVerified("liveuser", "live@example.com", "long enough pass").str("access_token"))

	tiers := e.call("GET", "/subscription-tiers?include_all=true", nil)
	expect(t, tiers, 200, "tiers")
	live := map[string]float64{}
	details, _ := tiers.Body["tier_details"].([]any)
	for _, d := range details {
		tier := d.(map[string]any)
		l := tier["combination_limits"].(map[string]any)
		if l["database_filter_search"] != float64(-1) {
			t.Errorf("tier %v: database_filter_search %v, want unlimited (-1)", tier["tier"], l["database_filter_search"])
		}
		live[tier["tier"].(string)] = l["explore_live_search"].(float64)
	}
	if live["free"] != 0 || live["starter"] != 10 {
		t.Fatalf("explore_live_search by tier %v", live)
	}

	expectReason(t, e.call("POST", "/scrape?project_ids=69099693138", nil, a...), 403, "permission_denied", "upgrade_required")
	expect(t, e.call("GET", "/projects/69099693138", nil, a...), 404, "a refused scrape stored nothing")
	expectReason(t, e.call("POST", "/update-project-smart/69099693138", nil, a...), 403, "permission_denied", "upgrade_required")

	e.upgrade(a, "starter") // 10 a day
	expect(t, e.call("POST", "/scrape?project_ids=69099693138,68059426756", nil, a...), 200, "scrape 2")
	ids := make([]string, 9)
	for i := range ids {
		ids[i] = strconv.Itoa(69000000000 + i)
	}
	over := e.call("POST", "/scrape?project_ids="+strings.Join(ids, ","), nil, a...)
	expectReason(t, over, 409, "aborted", "limit-reached")
	expectDetail(t, over, 409, "Limit reached")
	expect(t, e.call("POST", "/scrape?project_ids="+strings.Join(ids[:7], ","), nil, a...), 200, "scrape 7 more") // 9 used
	up := e.call("POST", "/update-project-smart/69099693138", nil, a...)                                          // 10 used
	if expect(t, up, 200, "smart update"); up.str("status") != "success" {
		t.Fatalf("smart update %s", up.Raw)
	}
	if cool := e.call("POST", "/update-project-smart/69099693138", nil, a...); cool.str("status") != "cooldown" {
		t.Fatalf("within the cooldown (spends nothing): %s", cool.Raw)
	}
	expectDetail(t, e.call("POST", "/update-project-smart/68059426756", nil, a...), 409, "Limit reached")
	expectDetail(t, e.call("POST", "/scrape?project_ids=68059426756", nil, a...), 409, "Limit reached")

	sub := e.call("GET", "/users/me/subscription", nil, a...)
	usage, _ := sub.Body["usage"].(map[string]any)
	if usage["explore_live_search_today"] != float64(10) {
		t.Fatalf("usage %s", sub.Raw)
	}
}
