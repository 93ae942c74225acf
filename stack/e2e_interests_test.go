package stack_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestInterestsREST drives the /userInterests paths of
// docs/product.md#interests-calls as two users would, with hostile input on
// every path.
func TestInterestsREST(t *testing.T) {
	e := startStack(t, map[string]string{"DEMO_DATA": "30"})
	a := bearer(e.registerVerified("ann", "ann@example.com", "long enough pass").str("access_token"))
	b := bearer(e.registerVerified("bob", "bob@example.com", "long enough pass").str("access_token"))

	list := e.call("GET", "/gen-infor?per_page=5", nil)
	expect(t, list, 200, "gen-infor")
	rows, _ := list.Body["data"].([]any)
	if len(rows) < 3 {
		t.Fatalf("demo projects: %s", list.Raw)
	}
	row := func(i int) map[string]any { return rows[i].(map[string]any) }
	p1, p2, p3 := row(0)["project_id"].(string), row(1)["project_id"].(string), row(2)["project_id"].(string)

	// Signed out: 401 on every path.
	for _, c := range [][2]string{{"GET", "/userInterests/active"}, {"GET", "/userInterests/archived"}, {"GET", "/userInterests/" + p1},
		{"PATCH", "/userInterests/" + p1}, {"GET", "/userInterests/" + p1 + "/comments"}, {"POST", "/userInterests/" + p1 + "/comments"}} {
		expect(t, e.call(c[0], c[1], map[string]any{"is_userLike": true}), 401, c[0]+" "+c[1]+" signed out")
	}

	// The lookup of a project without a record: every flag false.
	look := e.call("GET", "/userInterests/"+p1, nil, a...)
	expect(t, look, 200, "lookup")
	if d := look.Body["data"].(map[string]any); d["source"] != "none" || d["is_userLike"] != false || d["archived"] != false {
		t.Fatalf("lookup without record: %s", look.Raw)
	}

	// PATCH: bad ids, unknown project, empty body, bad values.
	expectDetail(t, e.call("PATCH", "/userInterests/123", map[string]any{"is_userLike": true}, a...), 400, "11 digits")
	expectDetail(t, e.call("PATCH", "/userInterests/99999999999", map[string]any{"is_userLike": true}, a...), 404, "Project not found")
	expectDetail(t, e.call("PATCH", "/userInterests/"+p1, map[string]any{}, a...), 400, "Nothing to update")
	expectDetail(t, e.call("PATCH", "/userInterests/"+p1, map[string]any{"bidPrice": 0}, a...), 400, "bidPrice")
	expectDetail(t, e.call("PATCH", "/userInterests/"+p1, map[string]any{"bidPrice": 10.005}, a...), 400, "bidPrice")
	expectDetail(t, e.call("PATCH", "/userInterests/"+p1, map[string]any{"reductionPercent": 100}, a...), 400, "reductionPercent")
	expectDetail(t, e.call("PATCH", "/userInterests/"+p1, map[string]any{"reductionPercent": -1}, a...), 400, "reductionPercent")
	for _, raw := range []string{`{"is_userLike": "yes"}`, `{"bidPrice": "abc"}`, `not json`, `{"is_userLike": true`} {
		r := e.call("PATCH", "/userInterests/"+p1, raw, a...)
		if r.Status != 400 || r.detail() == "" {
			t.Fatalf("PATCH %s: %d %s, want 400 with detail", raw, r.Status, r.Raw)
		}
	}

	// Like, then it is in the active list with its project.
	up := e.call("PATCH", "/userInterests/"+p1, map[string]any{"is_userLike": true}, a...)
	expect(t, up, 200, "like")
	if up.str("message") == "" || up.Body["data"].(map[string]any)["is_userLike"] != true {
		t.Fatalf("like: %s", up.Raw)
	}
	act := e.call("GET", "/userInterests/active?page=1&per_page=100", nil, a...)
	expect(t, act, 200, "active")
	data := act.Body["data"].([]any)
	if len(data) != 1 {
		t.Fatalf("active: %s", act.Raw)
	}
	first := data[0].(map[string]any)
	for _, k := range []string{"id_project", "is_userLike", "is_interestToStepChk", "is_InterestToBid", "archived", "project_name", "dept_name", "status", "announce_date"} {
		if _, ok := first[k]; !ok {
			t.Fatalf("active row lacks %s: %s", k, act.Raw)
		}
	}
	if first["project_name"] != row(0)["project_name"] || first["source"] != "active" {
		t.Fatalf("active row: %v, want the project's name %v", first, row(0)["project_name"])
	}
	if pg := act.Body["pagination"].(map[string]any); pg["per_page"] != float64(100) || pg["total"] != "1" && pg["total"] != float64(1) {
		t.Fatalf("pagination: %v", pg)
	}
	if r := e.call("GET", "/userInterests/active?per_page=1000", nil, a...); r.Body["pagination"].(map[string]any)["per_page"] != float64(100) {
		t.Fatalf("per_page is not capped at 100: %s", r.Raw)
	}

	// Follow with fill20, then archive: it moves to the archived list, never both.
	expect(t, e.call("PATCH", "/userInterests/"+p1, map[string]any{"is_fill20": true}, a...), 200, "fill20")
	look = e.call("GET", "/userInterests/"+p1, nil, a...)
	if d := look.Body["data"].(map[string]any); d["is_interestToStepChk"] != true || d["is_fill20"] != true {
		t.Fatalf("fill20 implies following: %s", look.Raw)
	}
	expect(t, e.call("PATCH", "/userInterests/"+p1, map[string]any{"archived": true}, a...), 200, "archive")
	if n := len(e.call("GET", "/userInterests/active", nil, a...).Body["data"].([]any)); n != 0 {
		t.Fatalf("archived record still active")
	}
	arch := e.call("GET", "/userInterests/archived", nil, a...)
	if d := arch.Body["data"].([]any); len(d) != 1 || d[0].(map[string]any)["source"] != "archived" {
		t.Fatalf("archived list: %s", arch.Raw)
	}
	expect(t, e.call("PATCH", "/userInterests/"+p1, map[string]any{"archived": false}, a...), 200, "un-archive")
	if n := len(e.call("GET", "/userInterests/archived", nil, a...).Body["data"].([]any)); n != 0 {
		t.Fatalf("un-archived record still archived")
	}

	// Bids: exact satang; the percent follows from the reference price or budget.
	bid := e.call("PATCH", "/userInterests/"+p2, map[string]any{"bidPrice": 1234.56, "is_InterestToBid": true}, a...)
	expect(t, bid, 200, "bid")
	bd := bid.Body["data"].(map[string]any)
	if bd["bidPrice_satang"] != "123456" || bd["bidPrice"] != 1234.56 || bd["lastUpdated"] == nil {
		t.Fatalf("bid: %s", bid.Raw)
	}
	if base := row(1)["reference_price_satang"]; base == nil && row(1)["budget_satang"] == nil {
		t.Log("demo project without a price: percent not computed")
	} else if bd["reductionPercent"] == nil {
		t.Fatalf("percent not computed from the project's price: %s", bid.Raw)
	}
	pct := e.call("PATCH", "/userInterests/"+p2, map[string]any{"reductionPercent": 12.5}, a...)
	expect(t, pct, 200, "percent")
	if pd := pct.Body["data"].(map[string]any); pd["reductionPercent"] != 12.5 {
		t.Fatalf("percent: %s", pct.Raw)
	}

	// Comments.
	expectDetail(t, e.call("GET", "/userInterests/"+p3+"/comments", nil, a...), 404, "No user interest record found for comments")
	expectDetail(t, e.call("GET", "/userInterests/abc/comments", nil, a...), 400, "11 digits")
	expectDetail(t, e.call("POST", "/userInterests/abc/comments", map[string]any{"comment_text": "x"}, a...), 400, "11 digits")
	expectDetail(t, e.call("POST", "/userInterests/"+p3+"/comments", map[string]any{"comment_text": "   "}, a...), 400, "empty")
	expectDetail(t, e.call("POST", "/userInterests/"+p3+"/comments", map[string]any{"comment_text": strings.Repeat("ก", 2001)}, a...), 400, "2000")
	expectDetail(t, e.call("POST", "/userInterests/"+p3+"/comments", map[string]any{"comment_text": "a\u0007b"}, a...), 400, "control")
	expectDetail(t, e.call("POST", "/userInterests/"+p3+"/comments", map[string]any{"comment_text": "hi", "user_id": "someone-else"}, a...), 403, "user_id")
	text := "  ราคากลางสูงไป ลองเสนอ 95% 👍\nบรรทัดสอง  "
	add := e.call("POST", "/userInterests/"+p3+"/comments", map[string]any{"comment_text": text}, a...)
	expect(t, add, 200, "add comment")
	for _, k := range []string{"comments", "comment_count", "source", "record_type", "message", "latest_comment", "record"} {
		if _, ok := add.Body[k]; !ok {
			t.Fatalf("comment answer lacks %s: %s", k, add.Raw)
		}
	}
	latest := add.Body["latest_comment"].(map[string]any)
	if latest["comment_text"] != strings.TrimSpace(text) || add.Body["comment_count"] != float64(1) || add.Body["source"] != "active" {
		t.Fatalf("add comment: %s", add.Raw)
	}
	cid := latest["id"].(string)
	got := e.call("GET", "/userInterests/"+p3+"/comments", nil, a...)
	expect(t, got, 200, "comments")
	if got.Body["comment_count"] != float64(1) || got.Body["source"] != "active" {
		t.Fatalf("comments: %s", got.Raw)
	}
	ed := e.call("PATCH", "/userInterests/"+p3+"/comments/"+cid, map[string]any{"comment_text": "แก้แล้ว"}, a...)
	expect(t, ed, 200, "edit comment")

	// Bob sees none of Ann's records and cannot touch her comments.
	if n := len(e.call("GET", "/userInterests/active", nil, b...).Body["data"].([]any)); n != 0 {
		t.Fatalf("bob sees %d of ann's records", n)
	}
	expectDetail(t, e.call("GET", "/userInterests/"+p3+"/comments", nil, b...), 404, "No user interest record")
	expect(t, e.call("PATCH", "/userInterests/"+p3+"/comments/"+cid, map[string]any{"comment_text": "pwned"}, b...), 404, "bob edits ann's comment")
	expect(t, e.call("DELETE", "/userInterests/"+p3+"/comments/"+cid, nil, b...), 404, "bob deletes ann's comment")
	expect(t, e.call("DELETE", "/userInterests/"+p3+"/comments/not-a-uuid", nil, a...), 404, "bad comment id")
	if d := e.call("GET", "/userInterests/"+p3, nil, b...).Body["data"].(map[string]any); d["source"] != "none" {
		t.Fatalf("bob's lookup sees ann's record: %v", d)
	}
	got = e.call("GET", "/userInterests/"+p3+"/comments", nil, a...)
	if c := got.Body["comments"].([]any)[0].(map[string]any); c["comment_text"] != "แก้แล้ว" {
		t.Fatalf("comment after bob's attempts: %s", got.Raw)
	}
	del := e.call("DELETE", "/userInterests/"+p3+"/comments/"+cid, nil, a...)
	expect(t, del, 200, "delete comment")
	if del.Body["comment_count"] != float64(0) {
		t.Fatalf("delete: %s", del.Raw)
	}

	// Concurrent PATCHes of one record end consistent: every like/unlike
	// pair lands and the record exists once.
	var wg sync.WaitGroup
	errs := make(chan string, 50)
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r := e.call("PATCH", "/userInterests/"+p3, map[string]any{"reductionPercent": float64(i) / 2}, a...)
			if r.Status != 200 {
				errs <- fmt.Sprintf("%d: %s", r.Status, r.Raw)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for s := range errs {
		t.Fatal(s)
	}
	if n := len(e.call("GET", "/userInterests/active", nil, a...).Body["data"].([]any)); n != 3 {
		t.Fatalf("active records after concurrent PATCHes: %d, want 3", n)
	}

	listingFlags(t, e, a, b, p1, p2, p3)
}

// listingFlags checks the per-user filters and row marks of /gen-infor.
func listingFlags(t *testing.T, e *env, a, b []string, p1, p2, p3 string) {
	t.Helper()
	ids := func(r reply) []string {
		t.Helper()
		expect(t, r, 200, "gen-infor")
		var out []string
		for _, x := range r.Body["data"].([]any) {
			out = append(out, x.(map[string]any)["project_id"].(string))
		}
		return out
	}
	same := func(got []string, want ...string) bool {
		if len(got) != len(want) {
			return false
		}
		m := map[string]bool{}
		for _, g := range got {
			m[g] = true
		}
		for _, w := range want {
			if !m[w] {
				return false
			}
		}
		return true
	}
	expectDetail(t, e.call("GET", "/gen-infor?is_userLike=true", nil), 401, "Authentication required")

	// Ann liked p1, bids on p2, and (after the concurrent PATCHes) has a record on p3.
	if got := ids(e.call("GET", "/gen-infor?is_userLike=true", nil, a...)); !same(got, p1) {
		t.Fatalf("liked: %v, want [%s]", got, p1)
	}
	if got := ids(e.call("GET", "/gen-infor?is_InterestToBid=true", nil, a...)); !same(got, p2) {
		t.Fatalf("bidding: %v, want [%s]", got, p2)
	}
	if got := ids(e.call("GET", "/gen-infor?is_userLike=true", nil, b...)); len(got) != 0 {
		t.Fatalf("bob's likes show ann's: %v", got)
	}
	// Combined with a keyword that matches nothing: nothing.
	if got := ids(e.call("GET", "/gen-infor?is_userLike=true&keyword=zzzzไม่มีทาง", nil, a...)); len(got) != 0 {
		t.Fatalf("flag + keyword: %v", got)
	}

	// Read-your-writes: a PATCH shows in the very next listing.
	expect(t, e.call("PATCH", "/userInterests/"+p3, map[string]any{"is_interestToStepChk": true}, a...), 200, "follow p3")
	if got := ids(e.call("GET", "/gen-infor?is_interestToStepChk=true", nil, a...)); !same(got, p1, p3) {
		t.Fatalf("following: %v, want [%s %s]", got, p1, p3)
	}
	if got := ids(e.call("GET", "/gen-infor?is_fill20=true", nil, a...)); !same(got, p1) {
		t.Fatalf("fill20: %v, want [%s]", got, p1)
	}
	expect(t, e.call("PATCH", "/userInterests/"+p3, map[string]any{"archived": true}, a...), 200, "archive p3")
	if got := ids(e.call("GET", "/gen-infor?is_archived=true", nil, a...)); !same(got, p3) {
		t.Fatalf("archived: %v, want [%s]", got, p3)
	}
	if got := ids(e.call("GET", "/gen-infor?is_interestToStepChk=true", nil, a...)); !same(got, p1) {
		t.Fatalf("an archived project left the following list: %v", got)
	}
	expect(t, e.call("POST", "/userInterests/"+p2+"/comments", map[string]any{"comment_text": "ดูสเปกอีกที"}, a...), 200, "comment p2")
	if got := ids(e.call("GET", "/gen-infor?is_comment=true", nil, a...)); !same(got, p2) {
		t.Fatalf("commented: %v, want [%s]", got, p2)
	}

	// Every row carries the caller's own marks; visitors get none.
	marks := func(r reply) map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, x := range r.Body["data"].([]any) {
			m := x.(map[string]any)
			out[m["project_id"].(string)] = m
		}
		return out
	}
	mine := marks(e.call("GET", "/gen-infor?per_page=10", nil, a...))
	if mine[p1]["is_userLike"] != true || mine[p2]["is_InterestToBid"] != true || mine[p2]["comment_count"] != float64(1) {
		t.Fatalf("ann's row marks: %v %v", mine[p1], mine[p2])
	}
	for _, who := range [][]string{b, nil} {
		for id, m := range marks(e.call("GET", "/gen-infor?per_page=10", nil, who...)) {
			if m["is_userLike"] == true || m["is_InterestToBid"] == true || m["is_archived"] == true {
				t.Fatalf("%s shows ann's marks to someone else: %v", id, m)
			}
		}
	}
}
