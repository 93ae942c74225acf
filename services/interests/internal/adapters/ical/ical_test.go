package ical_test

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"bidradar/services/interests/internal/adapters/ical"
	"bidradar/services/interests/internal/domain"
)

func TestTextEscapes(t *testing.T) {
	for in, want := range map[string]string{
		`a,b;c\d`:           `a\,b\;c\\d`,
		"line1\nline2":      `line1\nline2`,
		"crlf\r\nnext":      `crlf\nnext`,
		"bell\x07 nul\x00.": "bell nul.",
		"tab\there":         "tab\there",
		"ไทย, ๑๒๓":          `ไทย\, ๑๒๓`,
	} {
		if got := ical.Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}

// A feed is CRLF only, no line over 75 octets, folds never split a Thai
// character, and unfolding gives back the escaped values; events are
// all-day, stamped in UTC, with their stable UIDs.
func TestEncodeFoldsEscapesAndDates(t *testing.T) {
	long := strings.Repeat("ก่อสร้างถนนคอนกรีตเสริมเหล็ก, หมู่ที่ ๓; ", 6)
	events := domain.FeedEvents([]domain.ProjectInfo{{
		ID: "69119900001", Name: long, AgencyName: `อบต. "หนองบัว"\ใต้`,
		AnnounceTypeName: "ประกาศเชิญชวน", AnnounceDate: "2026-11-20",
		SubmissionDue: "2026-12-31", HearingDue: "not a date",
	}}, "https://bidradar.example")
	if len(events) != 2 {
		t.Fatalf("events %+v", events)
	}
	now := time.Date(2026, 11, 28, 10, 30, 0, 0, domain.Bangkok)
	out := string(ical.Encode(events, now))

	if strings.Contains(strings.ReplaceAll(out, "\r\n", ""), "\n") || strings.Contains(strings.ReplaceAll(out, "\r\n", ""), "\r") {
		t.Fatal("a bare LF or CR")
	}
	if !strings.HasSuffix(out, "END:VCALENDAR\r\n") || !strings.HasPrefix(out, "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n") {
		t.Fatalf("framing:\n%s", out)
	}
	physical := strings.Split(strings.TrimSuffix(out, "\r\n"), "\r\n")
	folded := 0
	for _, l := range physical {
		if len(l) > 75 {
			t.Errorf("line of %d octets: %q", len(l), l)
		}
		if !utf8.ValidString(l) {
			t.Errorf("fold inside a character: %q", l)
		}
		if strings.HasPrefix(l, " ") {
			folded++
		}
	}
	if folded == 0 {
		t.Fatal("the long summary was not folded")
	}
	unfolded := strings.ReplaceAll(out, "\r\n ", "")
	wantSummary := "SUMMARY:วันสุดท้ายยื่นข้อเสนอ: " + ical.Text(long) + "\r\n"
	for _, want := range []string{
		wantSummary,
		"DESCRIPTION:อบต. \"หนองบัว\"\\\\ใต้\\nรหัสโครงการ 69119900001\r\n",
		"UID:69119900001-submission@bidradar\r\n",
		"UID:69119900001-step-2026-11-20@bidradar\r\n",
		"DTSTART;VALUE=DATE:20261231\r\nDTEND;VALUE=DATE:20270101\r\n",
		"DTSTART;VALUE=DATE:20261120\r\nDTEND;VALUE=DATE:20261121\r\n",
		"DTSTAMP:20261128T033000Z\r\n",
		"URL:https://bidradar.example/project-details/69119900001\r\n",
		"X-WR-TIMEZONE:Asia/Bangkok\r\n",
	} {
		if !strings.Contains(unfolded, want) {
			t.Errorf("missing %q in\n%s", want, unfolded)
		}
	}
	if strings.Count(unfolded, "BEGIN:VEVENT") != 2 || strings.Contains(unfolded, "hearing") {
		t.Errorf("want the step and the submission only (the hearing date is not a date):\n%s", unfolded)
	}
	// Events come by date: the step (20 Nov) before the submission (31 Dec).
	if strings.Index(unfolded, "20261120") > strings.Index(unfolded, "20261231") {
		t.Error("events out of date order")
	}
}

func TestEncodeWithoutOriginHasNoLinks(t *testing.T) {
	out := strings.ReplaceAll(string(ical.Encode(domain.FeedEvents([]domain.ProjectInfo{{ID: "69119900002", HearingDue: "2026-12-01"}}, ""), time.Now())), "\r\n ", "")
	if strings.Contains(out, "URL:") || !strings.Contains(out, "SUMMARY:วันสุดท้ายรับฟังคำวิจารณ์: 69119900002\r\n") {
		t.Fatalf("%s", out)
	}
}
