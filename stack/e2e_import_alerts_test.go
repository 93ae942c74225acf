package stack_test

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"bidradar/pkg/testutil/eventually"
)

// ocdsImport is one OCDS release package of several projects (id, title),
// each tendered at from: an import.
func ocdsImport(t *testing.T, from time.Time, projects ...[2]string) string {
	t.Helper()
	var all []json.RawMessage
	var pkg map[string]any
	for _, p := range projects {
		var one struct {
			Releases []json.RawMessage `json:"releases"`
		}
		raw := ocdsPackageAt(from, p[0], p[1], "tender")
		if err := json.Unmarshal([]byte(raw), &one); err != nil {
			t.Fatal(err)
		}
		if pkg == nil {
			if err := json.Unmarshal([]byte(raw), &pkg); err != nil {
				t.Fatal(err)
			}
		}
		all = append(all, one.Releases...)
	}
	pkg["releases"] = all
	b, err := json.Marshal(pkg)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestImportAlertsOncePerUser: an import whose projects match several
// saved searches of one user tells that user once, in one notification
// naming every project (docs/product.md#instant-alerts), on the socket and
// in the bell; a user matched by one project of the same import gets that
// project's alert as for a single new project; the same import again tells
// nothing; an import of old data (tendered a month ago) raises no instant
// alert.
func TestImportAlertsOncePerUser(t *testing.T) {
	e := startStack(t, map[string]string{"ADMIN_EMAILS": "@ops.bidradar.test"})
	admin := bearer(e.registerVerified("ops", "ops@ops.bidradar.test", "long enough pass").str("access_token"))
	reg := e.registerVerified("imp", "imp@example.com", "long enough pass")
	tok := reg.str("access_token")
	a := bearer(tok)
	e.upgrade(a, "starter") // five normal searches
	b := bearer(e.registerVerified("solo", "solo@example.com", "long enough pass").str("access_token"))
	userID, _ := e.call("GET", "/users/me", nil, a...).Body["id"].(string)
	ws := dialSocket(t, e, userID, tok)
	if m := readSocket(t, ws); m["type"] != "auth_success" {
		t.Fatalf("socket: %v", m)
	}
	for _, kw := range []string{"สะพานข้ามคลอง", "ถนนลาดยาง", "อาคารเรียน"} {
		expect(t, e.call("POST", "/to_do_search", map[string]any{"keyWord_Incl_And": []string{kw}, "search_type": "normal", "name": kw}, a...), 200, "save "+kw)
	}
	expect(t, e.call("POST", "/to_do_search", map[string]any{"keyWord_Incl_And": []string{"อาคารเรียน"}, "search_type": "normal", "name": "โรงเรียน"}, b...), 200, "save solo")

	ingest := func(pkg string) {
		t.Helper()
		r := e.call("POST", "/admin/ingest", map[string]string{"source": "ocds", "content": base64.StdEncoding.EncodeToString([]byte(pkg))}, admin...)
		expect(t, r, 200, "ingest")
	}
	now := time.Now().Add(-2 * time.Hour)
	batch := ocdsImport(t, now,
		[2]string{"69410000001", "จ้างก่อสร้างสะพานข้ามคลองบางกอกน้อย"},
		[2]string{"69410000002", "จ้างก่อสร้างสะพานข้ามคลองแสนแสบ"},
		[2]string{"69410000003", "จ้างก่อสร้างถนนลาดยาง สายบ้านนา"},
		[2]string{"69410000004", "จ้างก่อสร้างอาคารเรียน 2 ชั้น"},
		[2]string{"69410000005", "ซื้อวัสดุสำนักงาน"}, // matches nothing
	)
	want := []string{"69410000001", "69410000002", "69410000003", "69410000004"}
	ingest(batch)

	frame := readSocketUntil(t, ws, "bell_notification", 15*time.Second)
	data := frame["data"].(map[string]any)
	var ids []string
	for _, x := range data["project_ids"].([]any) {
		ids = append(ids, x.(string))
	}
	if data["category"] != "search_match" || data["title"] != "4 โครงการใหม่ตรงกับการค้นหาที่บันทึกไว้" || !slices.Equal(ids, want) ||
		!strings.Contains(data["message"].(string), "สะพานข้ามคลอง") || frame["unread_count"] != float64(1) {
		t.Fatalf("grouped frame: %v", frame)
	}
	bell := func(auth []string) []map[string]any {
		t.Helper()
		l := e.call("GET", "/bell/notifications?per_page=100", nil, auth...)
		expect(t, l, 200, "bell")
		var out []map[string]any
		for _, x := range l.Body["notifications"].([]any) {
			out = append(out, x.(map[string]any))
		}
		return out
	}
	// The solo user's one project: its own alert, as for one new project.
	var solo []map[string]any
	eventually.True(t, 15*time.Second, "the solo alert", func() bool { solo = bell(b); return len(solo) == 1 })
	if solo[0]["project_id"] != "69410000004" || solo[0]["title"] != `โครงการใหม่ตรงกับ "โรงเรียน"` {
		t.Fatalf("solo bell: %v", solo)
	}

	// The same import again: nothing new.
	ingest(batch)
	// Old data: projects tendered a month ago raise no instant alert.
	ingest(ocdsImport(t, time.Now().Add(-30*24*time.Hour),
		[2]string{"69420000001", "จ้างก่อสร้างสะพานข้ามคลองหลวง"},
		[2]string{"69420000002", "จ้างก่อสร้างถนนลาดยาง สายเก่า"},
	))
	expect(t, e.call("GET", "/projects/69420000001", nil, a...), 200, "old project imported")
	// A new project after both: its alert is the next frame, so nothing
	// came of the replay or of the old data before it.
	ingest(ocdsImport(t, now, [2]string{"69430000001", "จ้างก่อสร้างสะพานข้ามคลองใหม่"}))
	next := readSocketUntil(t, ws, "bell_notification", 15*time.Second)
	if d := next["data"].(map[string]any); d["project_id"] != "69430000001" || next["unread_count"] != float64(2) {
		t.Fatalf("after the replay and the old data: %v", next)
	}
	if got := bell(a); len(got) != 2 {
		t.Fatalf("bell: %v", got)
	}
	if got := bell(b); len(got) != 1 {
		t.Fatalf("solo bell after the replay: %v", got)
	}
}
