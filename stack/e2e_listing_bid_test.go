package stack_test

import (
	"strconv"
	"testing"
)

// TestListingRowsCarryTheBid: a bid set with PATCH /userInterests/{id}
// shows on that project's row of the very next signed-in GET /gen-infor,
// under the interests record's names and JSON types (bidPrice a number
// exact to the satang, bidPrice_satang a string, reductionPercent a
// number); other users' and visitors' rows carry no bid. 100 writes, each
// read back at once, all agree.
func TestListingRowsCarryTheBid(t *testing.T) {
	e := startStack(t, map[string]string{"DEMO_DATA": "30"})
	ann := bearer(e.registerVerified("ann", "ann@example.com", "long enough pass").str("access_token"))
	bob := bearer(e.registerVerified("bob", "bob@example.com", "long enough pass").str("access_token"))

	rows := func(who []string) map[string]map[string]any {
		t.Helper()
		r := e.call("GET", "/gen-infor?per_page=100", nil, who...)
		expect(t, r, 200, "gen-infor")
		out := map[string]map[string]any{}
		for _, x := range r.Body["data"].([]any) {
			m := x.(map[string]any)
			out[m["project_id"].(string)] = m
		}
		return out
	}
	// A project with a base (reference price, else budget) in whole baht
	// and one more: the bid goes below it.
	var pid string
	var base int64
	for id, m := range rows(nil) {
		s, _ := m["reference_price_satang"].(string)
		if s == "" {
			s, _ = m["budget_satang"].(string)
		}
		if v, err := strconv.ParseInt(s, 10, 64); err == nil && v > 100_000 {
			pid, base = id, v
			break
		}
	}
	if pid == "" {
		t.Fatal("no demo project with a reference price or budget")
	}
	bidKeys := []string{"bidPrice", "bidPrice_satang", "reductionPercent"}
	noBid := func(row map[string]any, who string) {
		t.Helper()
		for _, k := range bidKeys {
			if v, ok := row[k]; ok {
				t.Fatalf("%s's row of %s carries %s = %v", who, row["project_id"], k, v)
			}
		}
	}
	// The row's bid is the record's, field by field and type by type.
	same := func(i int, row, rec map[string]any) {
		t.Helper()
		for _, k := range bidKeys {
			if row[k] != rec[k] {
				t.Fatalf("write %d: row %s = %#v, the interests record %#v", i, k, row[k], rec[k])
			}
		}
	}

	// One bid exact to the satang, by price.
	bid := base*97/100 + 37
	up := e.call("PATCH", "/userInterests/"+pid, map[string]any{"bidPrice": float64(bid) / 100}, ann...)
	expect(t, up, 200, "bid")
	rec := up.Body["data"].(map[string]any)
	row := rows(ann)[pid]
	if row["bidPrice"] != float64(bid)/100 || row["bidPrice_satang"] != strconv.FormatInt(bid, 10) {
		t.Fatalf("ann's row: bidPrice %#v satang %#v, want %d satang", row["bidPrice"], row["bidPrice_satang"], bid)
	}
	if _, ok := row["reductionPercent"].(float64); !ok {
		t.Fatalf("ann's row: reductionPercent %#v, want a number", row["reductionPercent"])
	}
	same(0, row, rec)
	for id, r := range rows(ann) {
		if id != pid {
			noBid(r, "ann")
		}
	}
	noBid(rows(nil)[pid], "a visitor")
	noBid(rows(bob)[pid], "bob")

	// 100 writes, each read back at once: prices, percents and clears.
	for i := 1; i <= 100; i++ {
		var body map[string]any
		switch i % 3 {
		case 0:
			body = map[string]any{"bidPrice": float64(base-int64(i)*101) / 100}
		case 1:
			body = map[string]any{"reductionPercent": float64(i) / 4}
		default:
			body = map[string]any{"clear_bid": true}
		}
		up := e.call("PATCH", "/userInterests/"+pid, body, ann...)
		expect(t, up, 200, "bid "+strconv.Itoa(i))
		rec := up.Body["data"].(map[string]any)
		row := rows(ann)[pid]
		if _, cleared := body["clear_bid"]; cleared {
			noBid(row, "ann (cleared)")
			continue
		}
		same(i, row, rec)
		if row["bidPrice"] == nil || row["reductionPercent"] == nil {
			t.Fatalf("write %d: a project with a base shows price and percent: %v", i, row)
		}
	}
	noBid(rows(nil)[pid], "a visitor")
}
