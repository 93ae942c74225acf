// Package ical writes calendar feeds as iCalendar (RFC 5545): CRLF line
// ends, content lines folded at 75 octets (never inside a UTF-8 sequence),
// TEXT values escaped, all-day events as VALUE=DATE (Thai calendar dates;
// the calendar names Asia/Bangkok), a UID stable per project and event, and
// DTSTAMP the time the feed was written, in UTC.
package ical

import (
	"bytes"
	"net/url"
	"time"

	"bidradar/pkg/icaltext"
	"bidradar/services/interests/internal/domain"
)

// Name is the calendar's name in calendar apps.
const Name = "BidRadar: โครงการที่ติดตาม"

// Encode writes the events as one VCALENDAR.
func Encode(events []domain.CalendarEvent, now time.Time) []byte {
	var b bytes.Buffer
	line := func(s string) { writeFolded(&b, s) }
	line("BEGIN:VCALENDAR")
	line("VERSION:2.0")
	line("PRODID:-//BidRadar Thailand//Calendar feed//TH")
	line("CALSCALE:GREGORIAN")
	line("METHOD:PUBLISH")
	line("X-WR-CALNAME:" + Text(Name))
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
	switch kind {
	case domain.EventSubmission:
		return "ยื่นข้อเสนอ"
	case domain.EventHearing:
		return "รับฟังคำวิจารณ์"
	}
	return "ประกาศ"
}

// Text escapes a TEXT value (RFC 5545; pkg/icaltext).
func Text(s string) string { return icaltext.Text(s) }

// writeFolded writes one folded content line (pkg/icaltext).
func writeFolded(b *bytes.Buffer, s string) { icaltext.WriteLine(b, s) }
