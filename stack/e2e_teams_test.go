package stack_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// teamsUser is a signed-in user of the teams tests.
type teamsUser struct {
	name, email, id, token string
	auth                   []string
}

func (e *env) teamsUser(name string) teamsUser {
	e.t.Helper()
	email := name + "@example.com"
	tok := e.registerVerified(name, email, "long enough pass").str("access_token")
	if tok == "" {
		e.t.Fatalf("register %s", name)
	}
	a := bearer(tok)
	id := e.call("GET", "/users/me", nil, a...).str("id")
	return teamsUser{name: name, email: email, id: id, token: tok, auth: a}
}

// join invites u to team with role and accepts the mailed code as u.
func (e *env) join(owner []string, team string, u teamsUser, role string) {
	e.t.Helper()
	expect(e.t, e.call("POST", "/teams/"+team+"/invitations", map[string]any{"email": u.email, "role": role}, owner...), 200, "invite "+u.name)
	code := e.code(u.email)
	expect(e.t, e.call("POST", "/teams/invitations/accept", map[string]any{"code": code}, u.auth...), 200, u.name+" accepts")
}

// demoProjects returns n project ids of the demo data.
func (e *env) demoProjects(n int) []string {
	e.t.Helper()
	list := e.call("GET", "/gen-infor?per_page="+itoa(n), nil)
	rows, _ := list.Body["data"].([]any)
	if len(rows) < n {
		e.t.Fatalf("demo projects: %s", list.Raw)
	}
	out := make([]string, n)
	for i := range out {
		out[i] = rows[i].(map[string]any)["project_id"].(string)
	}
	return out
}

// TestTeamsInvitationsSeatsAndRoles: a team needs a plan with seats; the
// owner invites by e-mail, the mailed code joins only the invited address,
// wrong codes burn it, seats count pending invitations, and the role ×
// action table of docs/product.md#teams holds over REST for every role.
func TestTeamsInvitationsSeatsAndRoles(t *testing.T) {
	e := startStack(t, map[string]string{"DEMO_DATA": "5"})
	ann, bob, carol, dave := e.teamsUser("ann"), e.teamsUser("bob"), e.teamsUser("carol"), e.teamsUser("dave")
	p := e.demoProjects(1)[0]

	// Free and starter cannot own a team.
	expectReason(t, e.call("POST", "/teams", map[string]any{"name": "ทีมประมูล"}, ann.auth...), 403, "permission_denied", "upgrade_required")
	e.upgrade(ann.auth, "starter")
	expectReason(t, e.call("POST", "/teams", map[string]any{"name": "ทีมประมูล"}, ann.auth...), 403, "permission_denied", "upgrade_required")
	e.upgrade(ann.auth, "pro")
	for _, bad := range []any{map[string]any{"name": ""}, map[string]any{"name": strings.Repeat("ก", 101)}, "{not json"} {
		if r := e.call("POST", "/teams", bad, ann.auth...); r.Status != 400 || r.detail() == "" {
			t.Fatalf("bad team %v: %d %s", bad, r.Status, r.Raw)
		}
	}
	created := e.call("POST", "/teams", map[string]any{"name": "ทีมประมูล"}, ann.auth...)
	expect(t, created, 200, "create team")
	team := created.Body["team"].(map[string]any)
	tid := team["id"].(string)
	if team["role"] != "owner" || team["seats"] != float64(3) || team["seats_used"] != float64(1) || team["read_only"] != false {
		t.Fatalf("team: %s", created.Raw)
	}
	if l := e.call("GET", "/teams", nil, ann.auth...); len(l.Body["data"].([]any)) != 1 {
		t.Fatalf("teams: %s", l.Raw)
	}

	// Invitations: bad input, then bob (member) and carol (viewer) fill the 3 seats.
	for _, bad := range []map[string]any{{"email": "not-an-address", "role": "member"}, {"email": "x@example.com", "role": "owner"}, {"email": "x@example.com", "role": "boss"}} {
		if r := e.call("POST", "/teams/"+tid+"/invitations", bad, ann.auth...); r.Status != 400 || r.detail() == "" {
			t.Fatalf("bad invitation %v: %d %s", bad, r.Status, r.Raw)
		}
	}
	expect(t, e.call("POST", "/teams/"+tid+"/invitations", map[string]any{"email": bob.email, "role": "member"}, ann.auth...), 200, "invite bob")
	bobCode := e.code(bob.email)
	expect(t, e.call("POST", "/teams/"+tid+"/invitations", map[string]any{"email": carol.email, "role": "viewer"}, ann.auth...), 200, "invite carol")
	carolCode := e.code(carol.email)
	// Three seats: ann and two pending invitations.
	expectReason(t, e.call("POST", "/teams/"+tid+"/invitations", map[string]any{"email": dave.email}, ann.auth...), 409, "already_exists", "seat_limit")
	if inv := e.call("GET", "/teams/"+tid+"/invitations", nil, ann.auth...); len(inv.Body["data"].([]any)) != 2 || strings.Contains(inv.Raw, carolCode) {
		t.Fatalf("invitations: %s", inv.Raw)
	}

	// Another user's attempt with a real code: 404, as if there were none.
	expect(t, e.call("POST", "/teams/invitations/accept", map[string]any{"code": carolCode}, dave.auth...), 404, "dave uses carol's code")
	expect(t, e.call("POST", "/teams/invitations/accept", map[string]any{"code": bobCode}, carol.auth...), 400, "carol uses bob's code")
	for _, bad := range []string{"", "12345", "abcdef", "1234567"} {
		if r := e.call("POST", "/teams/invitations/accept", map[string]any{"code": bad}, bob.auth...); r.Status != 400 || r.detail() == "" {
			t.Fatalf("code %q: %d %s", bad, r.Status, r.Raw)
		}
	}
	expect(t, e.call("POST", "/teams/invitations/accept", map[string]any{"code": bobCode}, bob.auth...), 200, "bob accepts")
	expectReason(t, e.call("POST", "/teams/"+tid+"/invitations", map[string]any{"email": bob.email}, ann.auth...), 409, "already_exists", "already-member")

	// Five wrong tries burn carol's code (the first try above was one).
	wrong := "000000"
	if wrong == carolCode {
		wrong = "000001"
	}
	for i := 0; i < 4; i++ {
		expect(t, e.call("POST", "/teams/invitations/accept", map[string]any{"code": wrong}, carol.auth...), 400, "wrong code")
	}
	expect(t, e.call("POST", "/teams/invitations/accept", map[string]any{"code": carolCode}, carol.auth...), 404, "burnt code")
	// A new invitation makes a new code; the burnt one freed its seat.
	e.join(ann.auth, tid, carol, "viewer")

	members := e.call("GET", "/teams/"+tid+"/members", nil, bob.auth...)
	expect(t, members, 200, "members")
	if len(members.Body["data"].([]any)) != 3 || !strings.Contains(members.Raw, `"username":"carol"`) {
		t.Fatalf("members: %s", members.Raw)
	}

	// A viewer reads and never writes (403 with a detail).
	expect(t, e.call("PUT", "/teams/"+tid+"/pipeline/"+p, map[string]any{"stage": "triage"}, ann.auth...), 200, "owner adds")
	expect(t, e.call("GET", "/teams/"+tid+"/pipeline", nil, carol.auth...), 200, "viewer reads")
	expectDetail(t, e.call("PUT", "/teams/"+tid+"/pipeline/"+p, map[string]any{"note": "x"}, carol.auth...), 403, "role")

	// The last owner cannot leave or step down; others may leave.
	expectReason(t, e.call("DELETE", "/teams/"+tid+"/members/"+ann.id, nil, ann.auth...), 409, "already_exists", "last-owner")
	expectReason(t, e.call("PATCH", "/teams/"+tid+"/members/"+ann.id, map[string]any{"role": "admin"}, ann.auth...), 409, "already_exists", "last-owner")
	expect(t, e.call("DELETE", "/teams/"+tid+"/members/"+carol.id, nil, carol.auth...), 200, "carol leaves")
	expect(t, e.call("GET", "/teams/"+tid, nil, carol.auth...), 404, "carol after leaving")

	// The owner's plan lapses: everything reads, nothing writes, nothing is deleted.
	e.lapse(ann.auth)
	expectReason(t, e.call("PUT", "/teams/"+tid+"/pipeline/"+p, map[string]any{"note": "after"}, bob.auth...), 403, "permission_denied", "team-read-only")
	if r := e.call("GET", "/teams/"+tid+"/pipeline", nil, bob.auth...); r.Status != 200 || len(r.Body["data"].([]any)) != 1 {
		t.Fatalf("read-only pipeline: %s", r.Raw)
	}
	if r := e.call("GET", "/teams/"+tid, nil, bob.auth...); r.Body["team"].(map[string]any)["read_only"] != true {
		t.Fatalf("read-only team: %s", r.Raw)
	}

	// The role × action table, over REST, on an enterprise team with one
	// member of each role.
	olga, adam, mia, vic := e.teamsUser("olga"), e.teamsUser("adam"), e.teamsUser("mia"), e.teamsUser("vic")
	e.upgrade(olga.auth, "enterprise")
	t2 := e.call("POST", "/teams", map[string]any{"name": "ทีมใหญ่"}, olga.auth...).Body["team"].(map[string]any)["id"].(string)
	e.join(olga.auth, t2, adam, "admin")
	e.join(olga.auth, t2, mia, "member")
	e.join(olga.auth, t2, vic, "viewer")
	expect(t, e.call("PUT", "/teams/"+t2+"/pipeline/"+p, map[string]any{"stage": "triage"}, olga.auth...), 200, "seed item")
	type action struct {
		name, method, path string
		body               func(role string) any
	}
	actions := []action{
		{"read", "GET", "/teams/" + t2 + "/pipeline", nil},
		{"read_history", "GET", "/teams/" + t2 + "/pipeline/" + p + "/history", nil},
		{"write_pipeline", "PUT", "/teams/" + t2 + "/pipeline/" + p, func(r string) any { return map[string]any{"note": "by " + r} }},
		{"comment", "POST", "/teams/" + t2 + "/pipeline/" + p + "/comments", func(r string) any { return map[string]any{"text": "from " + r} }},
		{"invite", "GET", "/teams/" + t2 + "/invitations", nil},
		{"manage_members", "PATCH", "/teams/" + t2 + "/members/" + mia.id, func(string) any { return map[string]any{"role": "member"} }},
		{"manage_keys", "GET", "/teams/" + t2 + "/api-keys", nil},
		{"manage_calendar", "POST", "/teams/" + t2 + "/calendar-feed", func(string) any { return map[string]any{} }},
		{"grant_owner", "PATCH", "/teams/" + t2 + "/members/" + adam.id, func(string) any { return map[string]any{"role": "admin"} }},
	}
	allowed := map[string]map[string]bool{
		"owner":  {"read": true, "read_history": true, "write_pipeline": true, "comment": true, "invite": true, "manage_members": true, "manage_keys": true, "manage_calendar": true, "grant_owner": true},
		"admin":  {"read": true, "read_history": true, "write_pipeline": true, "comment": true, "invite": true, "manage_members": true, "manage_keys": true, "manage_calendar": true},
		"member": {"read": true, "read_history": true, "write_pipeline": true, "comment": true},
		"viewer": {"read": true, "read_history": true},
	}
	for _, who := range []struct {
		role string
		u    teamsUser
	}{{"owner", olga}, {"admin", adam}, {"member", mia}, {"viewer", vic}} {
		for _, a := range actions {
			var body any
			if a.body != nil {
				body = a.body(who.role)
			}
			r := e.call(a.method, a.path, body, who.u.auth...)
			want := 403
			if allowed[who.role][a.name] {
				want = 200
			}
			if r.Status != want || (want == 403 && r.detail() == "") {
				t.Errorf("%s %s (%s %s): %d %s, want %d", who.role, a.name, a.method, a.path, r.Status, r.Raw, want)
			}
		}
	}
}

// TestTeamsPipelineIsolationAndMentions: the shared pipeline with its
// project fields, exact bid prices, history kept after a delete, fifty
// concurrent writers, mentions ringing the right bell live on the socket,
// stage changes telling the owner, and an outsider seeing nothing of it.
func TestTeamsPipelineIsolationAndMentions(t *testing.T) {
	e := startStack(t, map[string]string{"DEMO_DATA": "10"})
	ann, bob, carol, eve := e.teamsUser("ann"), e.teamsUser("bob"), e.teamsUser("carol"), e.teamsUser("eve")
	ps := e.demoProjects(3)
	p1, p2 := ps[0], ps[1]
	e.upgrade(ann.auth, "pro")
	tid := e.call("POST", "/teams", map[string]any{"name": "ทีมเอ"}, ann.auth...).Body["team"].(map[string]any)["id"].(string)
	e.join(ann.auth, tid, bob, "member")
	e.join(ann.auth, tid, carol, "member")
	// Eve owns a team of her own: the two never see each other.
	e.upgrade(eve.auth, "pro")
	eveTeam := e.call("POST", "/teams", map[string]any{"name": "ทีมอีฟ"}, eve.auth...).Body["team"].(map[string]any)["id"].(string)
	expect(t, e.call("PUT", "/teams/"+eveTeam+"/pipeline/"+p1, map[string]any{"note": "eve's secret"}, eve.auth...), 200, "eve's item")

	base := "/teams/" + tid + "/pipeline/"
	// Bad input on PUT: 400 with a detail; an unknown project 404.
	for _, c := range []struct {
		path string
		body any
		want int
	}{
		{base + "123", map[string]any{}, 400},
		{base + "abcdefghijk", map[string]any{}, 400},
		{base + "99999999999", map[string]any{}, 404},
		{base + p1, map[string]any{"stage": "done"}, 400},
		{base + p1, map[string]any{"bid_price": "0"}, 400},
		{base + p1, map[string]any{"bid_price": "-5"}, 400},
		{base + p1, map[string]any{"bid_price": "1.234"}, 400},
		{base + p1, map[string]any{"bid_price": "abc"}, 400},
		{base + p1, map[string]any{"due_date": "2026-13-01"}, 400},
		{base + p1, map[string]any{"owner_user_id": eve.id}, 400},
		{base + p1, map[string]any{"owner_user_id": "nobody"}, 400},
		{base + p1, map[string]any{"note": strings.Repeat("ก", 2001)}, 400},
		{base + p1, "{not json", 400},
	} {
		r := e.call("PUT", c.path, c.body, ann.auth...)
		if r.Status != c.want || r.detail() == "" {
			t.Fatalf("PUT %s %v: %d %s, want %d", c.path, c.body, r.Status, r.Raw, c.want)
		}
	}
	put := e.call("PUT", base+p1, map[string]any{"stage": "preparing", "owner_user_id": bob.id, "due_date": "2026-12-15",
		"bid_price": "1234567.89", "note": "ราคากลางสูง"}, ann.auth...)
	expect(t, put, 200, "add p1")
	if it := put.Body["item"].(map[string]any); it["bid_price"] != "1234567.89" || it["stage"] != "preparing" || it["owner_user_id"] != bob.id ||
		it["due_date"] != "2026-12-15" || put.Body["created"] != true || it["project_name"] == "" {
		t.Fatalf("put: %s", put.Raw)
	}
	expect(t, e.call("PUT", base+p2, map[string]any{"bid_price": "100.5"}, bob.auth...), 200, "add p2")
	list := e.call("GET", "/teams/"+tid+"/pipeline?per_page=1", nil, carol.auth...)
	expect(t, list, 200, "list")
	rows := list.Body["data"].([]any)
	pg := list.Body["pagination"].(map[string]any)
	if len(rows) != 1 || pg["total"] != "2" && pg["total"] != float64(2) {
		t.Fatalf("list: %s", list.Raw)
	}
	row := rows[0].(map[string]any)
	for _, k := range []string{"project_id", "project_name", "agency", "budget", "deadline", "stage", "owner_user_id", "due_date", "bid_price", "note", "updated_at", "updated_by"} {
		if _, ok := row[k]; !ok {
			t.Fatalf("row without %s: %v", k, row)
		}
	}
	if row["project_id"] != p2 || row["bid_price"] != "100.50" || row["updated_by"] != bob.id {
		t.Fatalf("newest row: %v", row)
	}
	if r := e.call("GET", "/teams/"+tid+"/pipeline?stage=preparing&owner_user_id="+bob.id, nil, ann.auth...); len(r.Body["data"].([]any)) != 1 {
		t.Fatalf("filtered: %s", r.Raw)
	}
	for _, q := range []string{"stage=done", "owner_user_id=x", "per_page=1000", "page=-1", "page=abc"} {
		if r := e.call("GET", "/teams/"+tid+"/pipeline?"+q, nil, ann.auth...); r.Status != 400 || r.detail() == "" {
			t.Fatalf("list ?%s: %d %s", q, r.Status, r.Raw)
		}
	}

	// Mentions: carol listens on her socket; bob mentions carol and a
	// non-member (eve): carol's bell rings with the project and the author,
	// eve hears nothing.
	ws := dialSocket(t, e, carol.id, carol.token)
	if m := readSocket(t, ws); m["type"] != "auth_success" {
		t.Fatalf("socket: %v", m)
	}
	expect(t, e.call("POST", base+p1+"/comments", map[string]any{"text": "@carol @eve ช่วยดูราคานี้"}, bob.auth...), 200, "comment")
	frame := readSocketUntil(t, ws, "bell_notification", 10*time.Second)
	d := frame["data"].(map[string]any)
	if d["category"] != "team_mention" || d["project_id"] != p1 || !strings.Contains(d["title"].(string), "bob") {
		t.Fatalf("mention frame: %v", frame)
	}
	if r := e.call("GET", "/bell/notifications", nil, eve.auth...); r.Body["total"] != float64(0) {
		t.Fatalf("eve was told: %s", r.Raw)
	}
	if r := e.call("GET", base+p1+"/comments", nil, ann.auth...); len(r.Body["data"].([]any)) != 1 || !strings.Contains(r.Raw, carol.id) {
		t.Fatalf("comments: %s", r.Raw)
	}
	for _, bad := range []map[string]any{{"text": ""}, {"text": "   "}, {"text": strings.Repeat("ก", 2001)}} {
		if r := e.call("POST", base+p1+"/comments", bad, bob.auth...); r.Status != 400 || r.detail() == "" {
			t.Fatalf("bad comment: %d %s", r.Status, r.Raw)
		}
	}

	// A stage change by ann of bob's item rings bob's bell.
	bobWS := dialSocket(t, e, bob.id, bob.token)
	if m := readSocket(t, bobWS); m["type"] != "auth_success" {
		t.Fatalf("socket: %v", m)
	}
	expect(t, e.call("PUT", base+p1, map[string]any{"stage": "submitted"}, ann.auth...), 200, "move p1")
	if f := readSocketUntil(t, bobWS, "bell_notification", 10*time.Second); f["data"].(map[string]any)["category"] != "team_update" {
		t.Fatalf("stage frame: %v", f)
	}

	// Fifty writers at once on one item: each change lands, in order.
	var wg sync.WaitGroup
	statuses := make([]int, 50)
	for i := range statuses {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			statuses[i] = rawPut(e, base+p2, fmt.Sprintf(`{"note":"writer %d","bid_price":"%d.%02d"}`, i, 1000+i, i), ann.auth)
		}(i)
	}
	wg.Wait()
	for i, s := range statuses {
		if s != 200 {
			t.Fatalf("writer %d: %d", i, s)
		}
	}
	hist := e.call("GET", base+p2+"/history", nil, carol.auth...)
	expect(t, hist, 200, "history")
	entries := hist.Body["data"].([]any)
	notes := 0
	var newestNote, newestPrice string
	prevAt := ""
	for _, x := range entries {
		h := x.(map[string]any)
		if prevAt != "" && h["at"].(string) > prevAt {
			t.Fatalf("history not newest first: %s", hist.Raw)
		}
		prevAt = h["at"].(string)
		if h["field"] == "note" {
			if notes == 0 {
				newestNote = h["to"].(string)
			}
			notes++
		}
		if h["field"] == "bid_price" && newestPrice == "" {
			newestPrice = h["to"].(string)
		}
	}
	final := e.call("GET", base+p2, nil, ann.auth...).Body["item"].(map[string]any)
	if notes != 50 || final["note"] != newestNote || final["bid_price"] != newestPrice {
		t.Fatalf("after 50 writers: %d note changes, final %v / %v, newest %q %q", notes, final["note"], final["bid_price"], newestNote, newestPrice)
	}
	// Chained: each change starts from the one before it.
	var chain []map[string]any
	for _, x := range entries {
		if h := x.(map[string]any); h["field"] == "note" {
			chain = append(chain, h)
		}
	}
	for i := 0; i+1 < len(chain); i++ {
		if chain[i]["from"] != chain[i+1]["to"] {
			t.Fatalf("history breaks at %d: %v after %v", i, chain[i], chain[i+1])
		}
	}

	// A delete keeps the history.
	expect(t, e.call("DELETE", base+p2, nil, ann.auth...), 200, "delete p2")
	expect(t, e.call("GET", base+p2, nil, ann.auth...), 404, "deleted item")
	if h := e.call("GET", base+p2+"/history", nil, ann.auth...); h.Status != 200 || len(h.Body["data"].([]any)) != len(entries)+1 ||
		h.Body["data"].([]any)[0].(map[string]any)["to"] != "removed" {
		t.Fatalf("history after delete: %s", h.Raw)
	}

	// Isolation: eve gets 404 on every path of ann's team, over REST and
	// Connect; ann likewise on eve's.
	paths := [][3]string{
		{"GET", "/teams/" + tid, ""}, {"GET", "/teams/" + tid + "/members", ""},
		{"PATCH", "/teams/" + tid + "/members/" + bob.id, `{"role":"viewer"}`}, {"DELETE", "/teams/" + tid + "/members/" + bob.id, ""},
		{"POST", "/teams/" + tid + "/invitations", `{"email":"x@example.com"}`}, {"GET", "/teams/" + tid + "/invitations", ""},
		{"DELETE", "/teams/" + tid + "/invitations/00000000-0000-0000-0000-000000000000", ""},
		{"GET", "/teams/" + tid + "/pipeline", ""}, {"GET", base + p1, ""}, {"PUT", base + p1, `{"note":"x"}`}, {"DELETE", base + p1, ""},
		{"GET", base + p1 + "/history", ""}, {"GET", base + p1 + "/comments", ""}, {"POST", base + p1 + "/comments", `{"text":"x"}`},
		{"POST", "/teams/" + tid + "/api-keys", `{"name":"k","scopes":["read"]}`}, {"GET", "/teams/" + tid + "/api-keys", ""},
		{"DELETE", "/teams/" + tid + "/api-keys/00000000-0000-0000-0000-000000000000", ""},
		{"GET", "/teams/" + tid + "/calendar-feed", ""}, {"POST", "/teams/" + tid + "/calendar-feed", "{}"}, {"DELETE", "/teams/" + tid + "/calendar-feed", ""},
	}
	for _, c := range paths {
		var body any
		if c[2] != "" {
			body = c[2]
		}
		if r := e.call(c[0], c[1], body, eve.auth...); r.Status != 404 {
			t.Errorf("eve %s %s: %d %s", c[0], c[1], r.Status, r.Raw)
		}
		other := strings.ReplaceAll(c[1], tid, eveTeam)
		if r := e.call(c[0], other, body, ann.auth...); r.Status != 404 {
			t.Errorf("ann %s %s: %d %s", c[0], other, r.Status, r.Raw)
		}
	}
	if r := connectCall(e, "teams.v1.TeamsService/ListPipeline", `{"team_id":"`+tid+`"}`, eve.token); r != 404 {
		t.Fatalf("connect as eve: %d", r)
	}
	if r := connectCall(e, "teams.v1.TeamsService/ListPipeline", `{"team_id":"`+tid+`"}`, bob.token); r != 200 {
		t.Fatalf("connect as bob: %d", r)
	}
	if r := e.call("GET", "/teams", nil, eve.auth...); strings.Contains(r.Raw, tid) {
		t.Fatalf("eve's teams: %s", r.Raw)
	}
	if r := e.call("GET", "/bell/notifications", nil, eve.auth...); r.Body["total"] != float64(0) {
		t.Fatalf("eve's bell: %s", r.Raw)
	}

	// A removed member loses access within a second.
	expect(t, e.call("DELETE", "/teams/"+tid+"/members/"+carol.id, nil, ann.auth...), 200, "remove carol")
	deadline := time.Now().Add(time.Second)
	for e.call("GET", "/teams/"+tid+"/pipeline", nil, carol.auth...).Status != 404 {
		if time.Now().After(deadline) {
			t.Fatal("a removed member still reads the pipeline")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if r := connectCall(e, "teams.v1.TeamsService/ListPipeline", `{"team_id":"`+tid+`"}`, carol.token); r != 404 {
		t.Fatalf("connect as removed carol: %d", r)
	}

	// The team calendar: a secret link of the items' due dates and deadlines.
	feed := e.call("POST", "/teams/"+tid+"/calendar-feed", map[string]any{}, ann.auth...)
	expect(t, feed, 200, "calendar link")
	path := feed.str("path")
	resp, err := e.http.Get(e.url + path)
	if err != nil {
		t.Fatal(err)
	}
	var cal bytes.Buffer
	_, _ = cal.ReadFrom(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/calendar") || !strings.Contains(cal.String(), "DTSTART;VALUE=DATE:20261215") {
		t.Fatalf("calendar: %d %s", resp.StatusCode, cal.String())
	}
	expect(t, e.call("DELETE", "/teams/"+tid+"/calendar-feed", nil, ann.auth...), 200, "revoke calendar")
	if resp, err := e.http.Get(e.url + path); err != nil || resp.StatusCode != 404 {
		t.Fatalf("revoked calendar: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
}

// TestTeamAPIKeys: a key is shown once, listed without its secret, reads or
// writes the team's pipeline by scope, reads the search, nothing of any user
// and nothing of another team, is limited per key (429 with Retry-After)
// and stops within a second of its revocation.
func TestTeamAPIKeys(t *testing.T) {
	e := startStack(t, map[string]string{"DEMO_DATA": "5", "TEAM_API_KEY_LIMIT": "25", "TEAM_API_KEY_WINDOW": "1h"})
	ann, bob, eve := e.teamsUser("ann"), e.teamsUser("bob"), e.teamsUser("eve")
	p := e.demoProjects(1)[0]
	e.upgrade(ann.auth, "pro")
	tid := e.call("POST", "/teams", map[string]any{"name": "ทีมเอ"}, ann.auth...).Body["team"].(map[string]any)["id"].(string)
	e.join(ann.auth, tid, bob, "member")
	e.upgrade(eve.auth, "pro")
	eveTeam := e.call("POST", "/teams", map[string]any{"name": "ทีมอีฟ"}, eve.auth...).Body["team"].(map[string]any)["id"].(string)

	// Members cannot make keys; bad input is refused.
	expect(t, e.call("POST", "/teams/"+tid+"/api-keys", map[string]any{"name": "erp", "scopes": []string{"read"}}, bob.auth...), 403, "member makes a key")
	for _, bad := range []map[string]any{{"name": "", "scopes": []string{"read"}}, {"name": "erp", "scopes": []string{}}, {"name": "erp", "scopes": []string{"admin"}}} {
		if r := e.call("POST", "/teams/"+tid+"/api-keys", bad, ann.auth...); r.Status != 400 || r.detail() == "" {
			t.Fatalf("bad key %v: %d %s", bad, r.Status, r.Raw)
		}
	}
	rk := e.call("POST", "/teams/"+tid+"/api-keys", map[string]any{"name": "reporting", "scopes": []string{"read"}}, ann.auth...)
	wk := e.call("POST", "/teams/"+tid+"/api-keys", map[string]any{"name": "erp", "scopes": []string{"read", "write"}}, ann.auth...)
	expect(t, rk, 200, "read key")
	expect(t, wk, 200, "write key")
	readKey, writeKey := rk.str("secret"), wk.str("secret")
	writeID := wk.Body["key"].(map[string]any)["id"].(string)
	keys := e.call("GET", "/teams/"+tid+"/api-keys", nil, ann.auth...)
	if len(keys.Body["data"].([]any)) != 2 || strings.Contains(keys.Raw, readKey) || strings.Contains(keys.Raw, writeKey) {
		t.Fatalf("keys: %s", keys.Raw)
	}
	for _, k := range []string{"name", "scopes", "created_at", "last_used_at"} {
		if _, ok := keys.Body["data"].([]any)[0].(map[string]any)[k]; !ok {
			t.Fatalf("key without %s: %s", k, keys.Raw)
		}
	}
	rh, wh := []string{"X-API-Key", readKey}, []string{"X-API-Key", writeKey}
	base := "/teams/" + tid + "/pipeline"

	// Scopes: read reads; only write writes and comments.
	expect(t, e.call("GET", base, nil, rh...), 200, "read key reads")
	expect(t, e.call("PUT", base+"/"+p, map[string]any{"stage": "triage"}, rh...), 403, "read key writes")
	put := e.call("PUT", base+"/"+p, map[string]any{"stage": "preparing", "bid_price": "5000"}, wh...)
	expect(t, put, 200, "write key writes")
	if put.Body["item"].(map[string]any)["updated_by"] != "api-key:"+writeID {
		t.Fatalf("a key's change: %s", put.Raw)
	}
	expect(t, e.call("POST", base+"/"+p+"/comments", map[string]any{"text": "from the ERP"}, wh...), 200, "write key comments")
	expect(t, e.call("POST", base+"/"+p+"/comments", map[string]any{"text": "x"}, rh...), 403, "read key comments")
	expect(t, e.call("GET", base+"/"+p+"/history", nil, rh...), 200, "read key history")
	// The search paths.
	expect(t, e.call("GET", "/gen-infor?per_page=2", nil, rh...), 200, "key searches")
	expect(t, e.call("GET", "/projects/"+p, nil, rh...), 200, "key reads a project")
	// Nothing of any user, even with a user's token beside it; nothing of
	// the team's administration; nothing of another team.
	expect(t, e.call("GET", "/users/me", nil, rh...), 401, "key on /users/me")
	expect(t, e.call("GET", "/users/me", nil, append(rh, ann.auth...)...), 401, "key and token on /users/me")
	expect(t, e.call("GET", "/userInterests/active", nil, wh...), 401, "key on a user's interests")
	expect(t, e.call("GET", "/teams/"+tid+"/api-keys", nil, wh...), 401, "key lists keys")
	expect(t, e.call("GET", "/teams/"+tid+"/members", nil, wh...), 401, "key lists members")
	expect(t, e.call("GET", "/teams/"+eveTeam+"/pipeline", nil, wh...), 404, "key on another team")
	expect(t, e.call("GET", base, nil, "X-API-Key", "brk_not-a-key"), 401, "unknown key")
	if r := connectCall(e, "teams.v1.TeamsService/ListPipeline", `{"team_id":"`+tid+`"}`, "", rh...); r != 200 {
		t.Fatalf("connect with a key: %d", r)
	}
	// The key's last use is shown.
	if r := e.call("GET", "/teams/"+tid+"/api-keys", nil, ann.auth...); !strings.Contains(r.Raw, `"last_used_at":"20`) {
		t.Fatalf("last used: %s", r.Raw)
	}

	// Revocation: within a second.
	expect(t, e.call("DELETE", "/teams/"+tid+"/api-keys/"+writeID, nil, ann.auth...), 200, "revoke")
	deadline := time.Now().Add(time.Second)
	for e.call("GET", base, nil, wh...).Status != 401 {
		if time.Now().After(deadline) {
			t.Fatal("a revoked key still works")
		}
		time.Sleep(50 * time.Millisecond)
	}
	expect(t, e.call("DELETE", "/teams/"+tid+"/api-keys/"+writeID, nil, ann.auth...), 404, "revoke twice")

	// The per-key limit (25 an hour here): 429 with Retry-After, for this key only.
	var last reply
	for i := 0; i < 30; i++ {
		if last = e.call("GET", base, nil, rh...); last.Status == 429 {
			break
		}
	}
	if last.Status != 429 || last.Header.Get("Retry-After") == "" || last.detail() == "" {
		t.Fatalf("over the limit: %d %v %s", last.Status, last.Header, last.Raw)
	}
	other := e.call("POST", "/teams/"+tid+"/api-keys", map[string]any{"name": "other", "scopes": []string{"read"}}, ann.auth...).str("secret")
	expect(t, e.call("GET", base, nil, "X-API-Key", other), 200, "another key is not limited")
}

// rawPut sends a PUT from a goroutine (e.call fails the test, which only
// the test's goroutine may do) and returns its status.
func rawPut(e *env, path, body string, auth []string) int {
	req, err := http.NewRequest("PUT", e.url+"/app/backend/api/v1"+path, strings.NewReader(body))
	if err != nil {
		return 0
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(auth[0], auth[1])
	resp, err := e.http.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// connectCall sends a Connect unary call with JSON and returns its status.
func connectCall(e *env, procedure, body, token string, headers ...string) int {
	req, err := http.NewRequest("POST", e.url+"/"+procedure, strings.NewReader(body))
	if err != nil {
		return 0
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := e.http.Do(req)
	if err != nil {
		return 0
	}
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	resp.Body.Close()
	return resp.StatusCode
}
