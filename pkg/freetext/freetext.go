// Package freetext is the one check of the text people type into the product
// (names, addresses, messages): it refuses what can hide or reorder what a
// reader sees, or break the documents and logs the text ends up in.
//
// Refused: bytes that are not UTF-8, the C0 and C1 control characters and
// DEL, the line and paragraph separators (U+2028, U+2029), and the
// bidirectional embeddings, overrides and isolates (U+202A–U+202E,
// U+2066–U+2069), which can make "Co., Ltd. 1000" display as something
// else on a tax invoice (the "Trojan Source" trick). Multi-line text (an
// address, a message) may hold newlines and tabs; a line does not.
//
// Thai needs nothing more: its vowels and tone marks are ordinary letters
// and marks, and the zero-width joiners some keyboards type are harmless.
package freetext

import "unicode/utf8"

// Lines says whether the text may span several lines.
type Lines bool

// Single-line text (a name), or multi-line text (an address: newlines and
// tabs allowed).
const (
	SingleLine Lines = false
	MultiLine  Lines = true
)

// Valid reports whether s is acceptable free text.
func Valid(s string, lines Lines) bool {
	_, ok := FirstBad(s, lines)
	return ok
}

// FirstBad returns the first refused rune of s (utf8.RuneError for bytes
// that are not UTF-8) and ok = false, or ok = true when s is acceptable.
func FirstBad(s string, lines Lines) (rune, bool) {
	for _, r := range s {
		if (r == '\n' || r == '\t') && lines == MultiLine {
			continue
		}
		if Refused(r) {
			return r, false
		}
	}
	return 0, true
}

// Refused reports a rune free text never holds (newline and tab aside:
// they depend on Lines).
func Refused(r rune) bool {
	switch {
	case r == utf8.RuneError: // not UTF-8, or text already damaged by a bad conversion
		return true
	case r < 0x20, r >= 0x7f && r <= 0x9f: // C0, DEL, C1
		return true
	case r == '\u2028', r == '\u2029': // line and paragraph separators
		return true
	case r >= '\u202a' && r <= '\u202e': // LRE, RLE, PDF, LRO, RLO
		return true
	case r >= '\u2066' && r <= '\u2069': // LRI, RLI, FSI, PDI
		return true
	}
	return false
}
