// Package ical writes the team calendar feeds (as interests' own does) as iCalendar (RFC 5545): CRLF line
// ends, content lines folded at 75 octets (never inside a UTF-8 sequence),
// TEXT values escaped, all-day events as VALUE=DATE (Thai calendar dates;
// the calendar names Asia/Bangkok), a UID stable per project and event, and
// DTSTAMP the time the feed was written, in UTC.
package ical

import (
	"bytes"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"bidradar/services/teams/internal/domain"
)

// Encode writes the events of the team's calendar named name as one VCALENDAR.
func Encode(name string, events []domain.CalendarEvent, now time.Time) []byte {
	var b bytes.Buffer
	line := func(s string) { writeFolded(&b, s) }
	line("BEGIN:VCALENDAR")
	line("VERSION:2.0")
	line("PRODID:-//BidRadar Thailand//Team calendar feed//TH")
	line("CALSCALE:GREGORIAN")
	line("METHOD:PUBLISH")
	line("X-WR-CALNAME:" + Text("BidRadar: "+name))
	line("X-WR-TIMEZONE:Asia/Bangkok")
	// How often subscribers should read it again (deadlines move rarely).
	line("REFRESH-INTERVAL;VALUE=DURATION:PT6H")
	line("X-PUBLISHED-TTL:PT6H")
	stamp := now.UTC().Format("20060102T150405Z")
	for _, e := range events {
		day, err := time.Parse(time.DateOnly, e.Date)
		if err != nil {
			continue
		}
		line("BEGIN:VEVENT")
		line("UID:" + Text(e.UID))
		line("DTSTAMP:" + stamp)
		line("DTSTART;VALUE=DATE:" + day.Format("20060102"))
		line("DTEND;VALUE=DATE:" + day.AddDate(0, 0, 1).Format("20060102"))
		line("SUMMARY:" + Text(e.Summary))
		if e.Detail != "" {
			line("DESCRIPTION:" + Text(e.Detail))
		}
		if u, err := url.Parse(e.Link); e.Link != "" && err == nil && (u.Scheme == "https" || u.Scheme == "http") {
			line("URL:" + u.String())
		}
		line("CATEGORIES:" + Text(category(e.Kind)))
		line("TRANSP:TRANSPARENT")
		line("END:VEVENT")
	}
	line("END:VCALENDAR")
	return b.Bytes()
}

func category(kind string) string {
	if kind == domain.EventDue {
		return "กำหนดส่งของทีม"
	}
	return "ยื่นข้อเสนอ"
}

// Text escapes a TEXT value: backslash, semicolon, comma and new lines;
// other control characters (not allowed in TEXT) are dropped.
func Text(s string) string {
	var b strings.Builder
	for _, r := range strings.ReplaceAll(s, "\r\n", "\n") {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == ';':
			b.WriteString(`\;`)
		case r == ',':
			b.WriteString(`\,`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || r == utf8.RuneError:
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// writeFolded writes one content line: at most 75 octets a line, a
// continuation starting with one space (which counts), split only between
// characters; then CRLF.
func writeFolded(b *bytes.Buffer, s string) {
	limit := 75
	for len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		b.WriteString(s[:cut])
		b.WriteString("\r\n ")
		s = s[cut:]
		limit = 74 // the leading space is one of the 75
	}
	b.WriteString(s)
	b.WriteString("\r\n")
}
