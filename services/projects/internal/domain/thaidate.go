package domain

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Bangkok is Asia/Bangkok (UTC+7, no DST). A fixed zone is used when the
// tz database is missing, which gives the same instants.
var Bangkok = func() *time.Location {
	if loc, err := time.LoadLocation("Asia/Bangkok"); err == nil {
		return loc
	}
	return time.FixedZone("ICT", 7*3600)
}()

// ErrBadDate reports a date that cannot be read.
var ErrBadDate = errors.New("bad date")

var thaiMonths = map[string]time.Month{
	"ม.ค.": 1, "ก.พ.": 2, "มี.ค.": 3, "เม.ย.": 4, "พ.ค.": 5, "มิ.ย.": 6,
	"ก.ค.": 7, "ส.ค.": 8, "ก.ย.": 9, "ต.ค.": 10, "พ.ย.": 11, "ธ.ค.": 12,
	"มกราคม": 1, "กุมภาพันธ์": 2, "มีนาคม": 3, "เมษายน": 4, "พฤษภาคม": 5, "มิถุนายน": 6,
	"กรกฎาคม": 7, "สิงหาคม": 8, "กันยายน": 9, "ตุลาคม": 10, "พฤศจิกายน": 11, "ธันวาคม": 12,
	// forms without the dots, seen in hand-typed data
	"มค": 1, "กพ": 2, "มีค": 3, "เมย": 4, "พค": 5, "มิย": 6, "กค": 7, "สค": 8, "กย": 9, "ตค": 10, "พย": 11, "ธค": 12,
}

// Date is a calendar date at midnight in Bangkok.
func Date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, Bangkok) }

// ParseThaiDate reads the date styles of e-GP data and returns midnight in
// Bangkok. ok is false for '-' and empty values (no date):
//
//	2022-08-04    RSS pubDate (C.E.)
//	21 มิ.ย. 67   API / FY2568 CSV (2-digit B.E.)
//	15-ก.ย.-64    CSV FY2564–2567 (2-digit B.E.)
//	31/03/2559    legacy pages (4-digit B.E.)
//	๙ ตุลาคม ๒๕๖๙  prose with Thai digits and full month names
//
// Two-digit B.E. years are 25YY ("71" = 2571 = 2028 C.E.); four-digit years
// above 2400 are B.E., others C.E.
func ParseThaiDate(s string) (t time.Time, ok bool, err error) {
	s = strings.TrimSpace(foldDigits(s))
	if s == "" || s == "-" || s == "--" {
		return time.Time{}, false, nil
	}
	if len(s) >= 10 && s[4] == '-' && s[7] == '-' {
		d, err := time.ParseInLocation("2006-01-02", s[:10], Bangkok)
		if err != nil {
			return time.Time{}, false, fmt.Errorf("%w: %q", ErrBadDate, s)
		}
		return d, true, nil
	}
	var parts []string
	switch {
	case strings.Contains(s, "/"):
		parts = strings.Split(s, "/")
	default:
		parts = strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '-' })
	}
	if len(parts) < 3 {
		return time.Time{}, false, fmt.Errorf("%w: %q", ErrBadDate, s)
	}
	day, err1 := strconv.Atoi(strings.TrimSpace(parts[0]))
	yearStr := strings.TrimSpace(parts[2])
	if i := strings.IndexAny(yearStr, " T"); i > 0 { // "31/03/2559 10:00"
		yearStr = yearStr[:i]
	}
	year, err2 := strconv.Atoi(yearStr)
	if err1 != nil || err2 != nil {
		return time.Time{}, false, fmt.Errorf("%w: %q", ErrBadDate, s)
	}
	mon := strings.TrimSpace(parts[1])
	month, found := thaiMonths[mon]
	if !found {
		m, err := strconv.Atoi(mon)
		if err != nil || m < 1 || m > 12 {
			return time.Time{}, false, fmt.Errorf("%w: month in %q", ErrBadDate, s)
		}
		month = time.Month(m)
	}
	switch {
	case len(yearStr) <= 2:
		year = 2500 + year - 543
	case year > 2400:
		year -= 543
	}
	if day < 1 || day > 31 {
		return time.Time{}, false, fmt.Errorf("%w: day in %q", ErrBadDate, s)
	}
	d := Date(year, month, day)
	if d.Day() != day {
		return time.Time{}, false, fmt.Errorf("%w: no such day %q", ErrBadDate, s)
	}
	return d, true, nil
}

// FiscalYear is the Thai B.E. fiscal year (1 Oct – 30 Sep, named by the B.E.
// year in which it ends) of the Bangkok calendar date of t.
func FiscalYear(t time.Time) int {
	t = t.In(Bangkok)
	fy := t.Year() + 543
	if t.Month() >= time.October {
		fy++
	}
	return fy
}

// BudgetYears lists the fiscal years offered in the criteria form.
func BudgetYears(now time.Time) []int {
	cur := FiscalYear(now)
	out := make([]int, 0, 12)
	for y := cur + 1; y >= 2558; y-- {
		out = append(out, y)
	}
	return out
}
