package domain

import (
	"fmt"
	"time"
)

// Kinds of limits consumed per day or month. The saved searches a user may
// hold (overnight_search_save, normal_search_save) are not consumed here:
// the projects service counts the searches it holds against the tier's
// numbers (GetEntitlements), so a count cannot drift from the rows.
const (
	KindSearchCombination    = "search_combination"
	KindDatabaseFilterSearch = "database_filter_search"
	KindExploreLiveSearch    = "explore_live_search"
)

// Window is one counter a consumption must fit in.
type Window struct {
	Period string // day or month
	Start  time.Time
	Limit  int
	Label  string // Thai, for the detail
}

// QuotaResult is the outcome of a consumption.
type QuotaResult struct {
	Allowed bool
	// Refused is the window that refused (when not allowed).
	Refused Window
	// Remaining per window, in the order given; -1 when unlimited.
	Remaining []int
}

// Bangkok is where days and months begin for our users.
var Bangkok = time.FixedZone("Asia/Bangkok", 7*3600)

// Windows returns the counters a kind is checked against under limits l at
// now; day and month windows reset.
func Windows(kind string, l Limits, now time.Time) ([]Window, error) {
	day, month := PeriodStarts(now)
	switch kind {
	case KindSearchCombination:
		return []Window{
			{Period: "day", Start: day, Limit: l.SearchCombinationDay, Label: "ค้นหาแบบรวมเงื่อนไขต่อวัน"},
			{Period: "month", Start: month, Limit: l.SearchCombinationMonth, Label: "ค้นหาแบบรวมเงื่อนไขต่อเดือน"},
		}, nil
	case KindDatabaseFilterSearch:
		return []Window{{Period: "day", Start: day, Limit: l.DatabaseFilterSearch, Label: "กรองฐานข้อมูลต่อวัน"}}, nil
	case KindExploreLiveSearch:
		return []Window{{Period: "day", Start: day, Limit: l.ExploreLiveSearch, Label: "ค้นหาสดจาก e-GP ต่อวัน"}}, nil
	}
	return nil, fmt.Errorf("unknown limit kind %q", kind)
}

// PeriodStarts are the first days of now's day and month in Bangkok.
func PeriodStarts(now time.Time) (day, month time.Time) {
	local := now.In(Bangkok)
	return time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, time.UTC),
		time.Date(local.Year(), local.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// LimitDetail is the refusal shown to the user; it contains 'Limit reached'
// (the app recognises it: docs/product.md#search-saves-and-status-indicators)
// and says the rest in Thai.
func LimitDetail(w Window, tierLabel string) string {
	return fmt.Sprintf("Limit reached: %s ครบ %d ครั้งแล้ว (แพ็กเกจ%s) กรุณาลองใหม่พรุ่งนี้หรืออัปเกรดแพ็กเกจ", w.Label, w.Limit, tierLabel)
}
