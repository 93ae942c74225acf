package stack_test

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"testing"
	"time"

	"bidradar/pkg/testutil/eventually"
)

// withdrawnRelease is one OCDS release of project id: an award (tag award,
// the winner and agreed price) or its cancellation (tag awardCancellation:
// the e-GP step W1) on date.
func withdrawnRelease(id, date string, cancel bool, tax string) string {
	tag, awards := `"award"`, fmt.Sprintf(`[{"id":"a1","status":"active","value":{"amount":930000,"currency":"THB"},"suppliers":[{"id":"TH-TIN-%s","name":"บริษัท ถอนรางวัล จำกัด"}]}]`, tax)
	if cancel {
		tag, awards = `"awardCancellation"`, `[{"id":"a1","status":"cancelled"}]`
	}
	return fmt.Sprintf(`{"uri":"https://example.org/w.json","version":"1.1","publishedDate":"%[2]sT10:00:00+07:00","releases":[{
		"ocid":"ocds-w-%[1]s","id":"%[1]s-%[2]s","date":"%[2]sT09:00:00+07:00","tag":[%[3]s],"initiationType":"tender",
		"parties":[{"id":"TH-TIN-%[5]s","name":"บริษัท ถอนรางวัล จำกัด","identifier":{"scheme":"TH-DBD","id":"%[5]s"},"roles":["supplier"]}],
		"buyer":{"id":"TH-EGP-0701","name":"กรมชลประทาน"},
		"tender":{"id":"%[1]s","title":"จ้างเหมาซ่อมถอนรางวัลทดสอบ","value":{"amount":1000000,"currency":"THB"},
			"procurementMethodDetails":"ประกวดราคาอิเล็กทรอนิกส์ (e-bidding)","mainProcurementCategory":"works"},
		"awards":%[4]s}]}`, id, date, tag, awards, tax)
}

// TestMarketAwardWithdrawnREST: an award imported (OCDS, W0) shows in the
// benchmark and its winner's profile; the cancellation of the winner
// announcement (W1) imported later withdraws it from both, a replay of that
// import changes nothing, and a later award (W0) brings it back
// (docs/market.md#withdrawn-awards).
func TestMarketAwardWithdrawnREST(t *testing.T) {
	e := startStack(t, map[string]string{"ADMIN_EMAILS": "@ops.bidradar.test", "MARKET_FLUSH_EVERY": "200ms"})
	admin := bearer(e.registerVerified("ops", "ops@ops.bidradar.test", "long enough pass").str("access_token"))
	pro := bearer(e.registerVerified("pat", "pat@example.com", "long enough pass").str("access_token"))
	e.upgrade(pro, "pro")
	ingest := func(content string) {
		t.Helper()
		expect(t, e.call("POST", "/admin/ingest", map[string]string{"source": "ocds", "content": base64.StdEncoding.EncodeToString([]byte(content))}, admin...), 200, "ingest")
	}
	const id = "68031000001"
	tax := validTaxID(4242)
	bench := "/market/benchmarks?keyWord_Incl_Or=" + url.QueryEscape("ถอนรางวัลทดสอบ")
	state := func() (n float64, wins int) {
		b := e.call("GET", bench, nil, pro...)
		expect(t, b, 200, "benchmark")
		p := e.call("GET", "/market/suppliers/"+tax, nil, pro...)
		if p.Status == 200 {
			wins = int(num(p.Body["wins"]))
		} else if p.Status != 404 {
			t.Fatalf("supplier: %d %s", p.Status, p.Raw)
		}
		return num(b.Body["n"]), wins
	}
	awarded := func(what string, wantN float64, wantWins int) {
		t.Helper()
		eventually.True(t, 60*time.Second, what, func() bool {
			n, wins := state()
			return n == wantN && wins == wantWins
		})
	}
	ingest(withdrawnRelease(id, "2025-03-10", false, tax))
	awarded("the award", 1, 1)
	ingest(withdrawnRelease(id, "2025-03-20", true, tax))
	awarded("the award withdrawn", 0, 0)
	ingest(withdrawnRelease(id, "2025-03-20", true, tax)) // a replay
	time.Sleep(2 * time.Second)
	if n, wins := state(); n != 0 || wins != 0 {
		t.Fatalf("after a replayed cancellation: n %v, wins %d", n, wins)
	}
	ingest(withdrawnRelease(id, "2025-04-01", false, tax))
	awarded("the re-award", 1, 1)
}
