// Package icaltext writes the text of an iCalendar file (RFC 5545): TEXT
// values escaped and content lines folded at 75 octets. The calendar feeds
// of interests (a user's projects) and teams (a team's pipeline) share it.
package icaltext

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

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

// WriteLine writes one content line: at most 75 octets a line, a
// continuation starting with one space (which counts), split only between
// characters; then CRLF.
func WriteLine(b *bytes.Buffer, s string) {
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
