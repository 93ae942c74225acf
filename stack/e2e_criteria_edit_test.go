package stack_test

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

// TestEditSavedSearch drives PUT /search-criteria/{criteria_id}: the owner
// edits name, type and criteria; an edit may not repeat another search of
// its kind; the instant alerts follow the new criteria; another user's or
// an unknown id is 404; bad input is a 4xx with a detail.
func TestEditSavedSearch(t *testing.T) {
	e := startStack(t, map[string]string{"ADMIN_EMAILS": "@ops.bidradar.test"})
	admin := bearer(e.registerVerified("ops", "ops@ops.bidradar.test", "long enough pass").str("access_token"))
	a := bearer(e.registerVerified("editor", "editor@example.com", "long enough pass").str("access_token"))
	b := bearer(e.registerVerified("stranger", "stranger@example.com", "long enough pass").str("access_token"))

	e.upgrade(a, "starter") // overnight searches are not in the free tier
	night := e.call("POST", "/to_do_search", map[string]any{"name": "ประตูน้ำ", "keyWord_Incl_And": []string{"ประตูระบายน้ำ"}, "search_type": "overnight"}, a...)
	expect(t, night, 200, "save overnight")
	id := night.str("criteria_id")
	path := "/search-criteria/" + id
	// The same criteria again is refused.
	expectReason(t, e.call("POST", "/to_do_search", map[string]any{"keyWord_Incl_And": []string{"ประตูระบายน้ำ"}, "search_type": "overnight"}, a...),
		409, "already_exists", "duplicate-search")

	edit := map[string]any{"name": "หอกระจายข่าว", "search_type": "normal",
		"criteria": map[string]any{"keyWord_Incl_And": []string{"หอกระจายข่าว"}, "projectMoneyE_User": 9000000}}

	// ---- refusals: nothing changes ----
	expect(t, e.call("PUT", path, edit), 401, "edit without login")
	expectDetail(t, e.call("PUT", path, edit, b...), 404, "Search criteria not found")
	expectDetail(t, e.call("PUT", "/search-criteria/00000000-0000-4000-8000-000000000000", edit, a...), 404, "Search criteria not found")
	expectDetail(t, e.call("PUT", "/search-criteria/nope", edit, a...), 404, "Search criteria not found")
	expectDetail(t, e.call("PUT", path, map[string]any{"search_type": "normal"}, a...), 422, "at least one search criterion")
	expectDetail(t, e.call("PUT", path, map[string]any{"search_type": "weekly", "criteria": map[string]any{"keyWord_Incl_Or": []string{"ถนน"}}}, a...), 400, "search_type")
	expectDetail(t, e.call("PUT", path, map[string]any{"criteria": map[string]any{"project_id_User": []string{"123"}}}, a...), 400, "11 digits")
	expectDetail(t, e.call("PUT", path, map[string]any{"criteria": map[string]any{"annouSDate_User": "30/09/2569"}}, a...), 400, "ISO date")
	expectDetail(t, e.call("PUT", path, map[string]any{"criteria": map[string]any{"keyWord_Incl_Or": []string{"ถนน"}, "projectMoneyS_User": 5, "projectMoneyE_User": 1}}, a...), 422, "minimum budget")
	for _, raw := range []string{`{"criteria": "ถนน"}`, `{"search_type": 3}`, `not json`} {
		if r := e.call("PUT", path, raw, a...); r.Status != 400 || r.detail() == "" {
			t.Fatalf("PUT %s: %d %s", raw, r.Status, r.Raw)
		}
	}
	list := func(auth []string) []map[string]any {
		t.Helper()
		r := e.call("POST", "/recall_save_criteria", map[string]any{}, auth...)
		expect(t, r, 200, "recall list")
		var out []map[string]any
		for _, c := range r.Body["criteria"].([]any) {
			out = append(out, c.(map[string]any))
		}
		return out
	}
	if l := list(a); len(l) != 1 || l[0]["name"] != "ประตูน้ำ" || l[0]["search_type"] != "overnight" {
		t.Fatalf("after refused edits: %v", l)
	}

	// ---- the owner's edit ----
	r := e.call("PUT", path, edit, a...)
	expect(t, r, 200, "edit")
	c, _ := r.Body["criteria"].(map[string]any)
	p, _ := c["criteria"].(map[string]any)
	if r.str("message") == "" || r.str("detail") == "" || c["criteria_id"] != id || c["name"] != "หอกระจายข่าว" || c["search_type"] != "normal" ||
		p["keyWord_Incl_And"].([]any)[0] != "หอกระจายข่าว" || len(p["keyWord_Incl_Or"].([]any)) != 0 || p["projectMoneyE_User"] != float64(9000000) {
		t.Fatalf("edit answer %s", r.Raw)
	}
	if l := list(a); len(l) != 1 || l[0]["name"] != "หอกระจายข่าว" || l[0]["search_type"] != "normal" {
		t.Fatalf("after the edit: %v", l)
	}
	// Another search may not be edited into a copy of this one.
	other := e.call("POST", "/to_do_search", map[string]any{"keyWord_Incl_And": []string{"ฝาย"}, "search_type": "overnight"}, a...)
	expect(t, other, 200, "overnight after the edit")
	expectReason(t, e.call("PUT", "/search-criteria/"+other.str("criteria_id"), edit, a...), 409, "already_exists", "duplicate-search")
	back := map[string]any{"search_type": "overnight", "criteria": map[string]any{"keyWord_Incl_And": []string{"หอกระจายข่าว"}}}
	expect(t, e.call("PUT", "/search-criteria/"+other.str("criteria_id"), map[string]any{"criteria": map[string]any{"keyWord_Incl_And": []string{"ฝาย"}}}, a...), 200, "other to normal")
	expect(t, e.call("PUT", path, back, a...), 200, "back to overnight")
	expect(t, e.call("PUT", path, edit, a...), 200, "normal again")

	// ---- the instant alerts follow the edited criteria ----
	pkg := ocdsPackage("69333333333", "จ้างก่อสร้างหอกระจายข่าว หมู่ที่ ๓", "tender")
	expect(t, e.call("POST", "/admin/ingest", map[string]string{"source": "ocds", "content": base64.StdEncoding.EncodeToString([]byte(pkg))}, admin...), 200, "ingest")
	deadline := time.Now().Add(15 * time.Second)
	for {
		bell := e.call("GET", "/bell/notifications?per_page=100", nil, a...)
		if strings.Contains(bell.Raw, "69333333333") && strings.Contains(bell.Raw, "search_match") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no alert for the edited search: %s", bell.Raw)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
