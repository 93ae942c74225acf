package stack_test

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

// TestOvernightRunREST: an operator runs the overnight searches now (the
// service runs them itself at 02:00 Bangkok): a saved overnight search and
// a matching project ingested today give its user one digest in the bell,
// naming the project with its link; a second run gives nothing more, and a
// third, after a second search, tells that search only. Only operators may
// run it.
func TestOvernightRunREST(t *testing.T) {
	e := startStack(t, map[string]string{"ADMIN_EMAILS": "@ops.bidradar.test"})
	admin := bearer(e.registerVerified("ops", "ops@ops.bidradar.test", "long enough pass").str("access_token"))
	a := bearer(e.registerVerified("ann", "ann@example.com", "long enough pass").str("access_token"))

	expect(t, e.call("POST", "/admin/overnight-run", map[string]any{}), 401, "overnight run signed out")
	expect(t, e.call("POST", "/admin/overnight-run", map[string]any{}, a...), 403, "overnight run by a user")

	e.upgrade(a, "starter") // overnight searches are not in the free tier
	save := e.call("POST", "/to_do_search", map[string]any{"keyWord_Incl_And": []string{"สะพานแขวน"}, "search_type": "overnight"}, a...)
	expect(t, save, 200, "save overnight search")
	pkg := ocdsPackage("69444444444", "จ้างก่อสร้างสะพานแขวนข้ามแม่น้ำปิง", "tender")
	expect(t, e.call("POST", "/admin/ingest", map[string]string{"source": "ocds", "content": base64.StdEncoding.EncodeToString([]byte(pkg))}, admin...), 200, "ingest")

	run := e.call("POST", "/admin/overnight-run", map[string]any{}, admin...)
	expect(t, run, 200, "overnight run")
	if run.Body["digests"] != "1" || run.Body["criteria"] != "1" || run.str("day") != time.Now().In(time.FixedZone("ICT", 7*3600)).Format(time.DateOnly) {
		t.Fatalf("run: %s", run.Raw)
	}
	bell := func() []map[string]any {
		t.Helper()
		r := e.call("GET", "/bell/notifications?category=search_match&per_page=100", nil, a...)
		expect(t, r, 200, "bell")
		var out []map[string]any
		for _, x := range r.Body["notifications"].([]any) {
			out = append(out, x.(map[string]any))
		}
		return out
	}
	deadline := time.Now().Add(15 * time.Second)
	ns := bell()
	for len(ns) == 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		ns = bell()
	}
	if len(ns) != 1 {
		t.Fatalf("bell after the run: %v", ns)
	}
	n := ns[0]
	if !strings.Contains(n["title"].(string), "สะพานแขวน") || !strings.Contains(n["title"].(string), "1 โครงการ") ||
		!strings.Contains(n["message"].(string), "จ้างก่อสร้างสะพานแขวนข้ามแม่น้ำปิง (69444444444)") ||
		n["link"] != "/project-details/69444444444" || n["project_id"] != "69444444444" {
		t.Fatalf("digest: %v", n)
	}

	again := e.call("POST", "/admin/overnight-run", map[string]any{}, admin...)
	expect(t, again, 200, "overnight run again")
	if again.Body["digests"] != "0" {
		t.Fatalf("second run: %s", again.Raw)
	}
	// The second run wrote no event. A third run, after a second search
	// matching the same project, tells that search only: its digest takes
	// the path a stray one of the second run would have taken before it, so
	// once it is in the bell, a stray one would be too.
	expect(t, e.call("POST", "/to_do_search", map[string]any{"keyWord_Incl_And": []string{"แม่น้ำปิง"}, "search_type": "overnight"}, a...), 200, "save a second overnight search")
	third := e.call("POST", "/admin/overnight-run", map[string]any{}, admin...)
	expect(t, third, 200, "overnight run with a second search")
	if third.Body["digests"] != "1" {
		t.Fatalf("third run: %s", third.Raw)
	}
	deadline = time.Now().Add(15 * time.Second)
	for ns = bell(); len(ns) < 2 && time.Now().Before(deadline); ns = bell() {
		time.Sleep(100 * time.Millisecond)
	}
	second := 0
	for _, n := range ns {
		if strings.Contains(n["title"].(string), "แม่น้ำปิง") {
			second++
		}
	}
	if len(ns) != 2 || second != 1 {
		t.Fatalf("bell after a second and a third run: %v", ns)
	}
}
