package freetext_test

import (
	"testing"

	"bidradar/pkg/freetext"
)

func TestFreeText(t *testing.T) {
	for _, c := range []struct {
		name  string
		s     string
		lines freetext.Lines
		ok    bool
	}{
		{"Thai with marks", "บริษัท รับเหมา ทดสอบ จำกัด (สำนักงานใหญ่)", freetext.SingleLine, true},
		{"Latin and digits", "BidRadar Co., Ltd. 99/1", freetext.SingleLine, true},
		{"empty", "", freetext.SingleLine, true},
		{"address on lines", "99/1 ถนนสีลม\nแขวงสุริยวงศ์\tเขตบางรัก", freetext.MultiLine, true},
		{"zero-width joiner", "ก\u200dข", freetext.SingleLine, true},
		{"newline in a name", "บริษัท\nจำกัด", freetext.SingleLine, false},
		{"tab in a name", "a\tb", freetext.SingleLine, false},
		{"carriage return", "a\rb", freetext.MultiLine, false},
		{"NUL", "a\x00b", freetext.MultiLine, false},
		{"bell", "a\u0007b", freetext.MultiLine, false},
		{"escape", "a\x1b[31mb", freetext.MultiLine, false},
		{"DEL", "a\x7fb", freetext.MultiLine, false},
		{"C1 NEL", "a\u0085b", freetext.MultiLine, false},
		{"C1 CSI", "a\u009bb", freetext.MultiLine, false},
		{"line separator", "a\u2028b", freetext.MultiLine, false},
		{"paragraph separator", "a\u2029b", freetext.MultiLine, false},
		{"LRE", "a\u202ab", freetext.SingleLine, false},
		{"RLO", "บริษัท \u202eดำกัจ", freetext.SingleLine, false},
		{"PDF", "a\u202cb", freetext.SingleLine, false},
		{"LRI", "a\u2066b", freetext.SingleLine, false},
		{"PDI", "a\u2069b", freetext.MultiLine, false},
		{"not UTF-8", "a\xffb", freetext.MultiLine, false},
		{"replacement character", "a\uFFFDb", freetext.SingleLine, false},
	} {
		if got := freetext.Valid(c.s, c.lines); got != c.ok {
			t.Errorf("%s: Valid(%q, %v) = %v, want %v", c.name, c.s, c.lines, got, c.ok)
		}
	}
	if r, ok := freetext.FirstBad("ok\u202eno", freetext.SingleLine); ok || r != '\u202e' {
		t.Errorf("FirstBad = %U %v", r, ok)
	}
}
