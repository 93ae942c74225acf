// Package thaitext holds the one normalisation used for Thai search, at write
// time (the stored search_text) and at query time (the keywords), so that a
// keyword matches wherever its normalised form occurs in the normalised text.
package thaitext

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

const (
	nikhahit = '\u0E4D' // ํ
	saraAa   = '\u0E32' // า
	saraAm   = '\u0E33' // ำ
)

// Normalize folds s into its search form:
//   - Unicode NFC;
//   - ํา (nikhahit + sara aa, possibly with a tone mark typed in between) → ำ;
//   - Thai digits ๐–๙ → ASCII 0–9;
//   - zero-width characters (ZWSP, ZWNJ, ZWJ, WJ, BOM, soft hyphen) removed;
//   - runs of white space (any Unicode space) collapsed to one ASCII space, trimmed;
//   - Latin letters lower-cased.
//
// Normalize is idempotent: Normalize(Normalize(s)) == Normalize(s).
func Normalize(s string) string {
	if isSimple(s) || isNormal(s) {
		return s
	}
	out := pass(s)
	if isNormal(out) {
		return out
	}
	// A pass can expose a new NFC composition (for example a zero-width
	// character that separated a base from its combining mark); iterate to a
	// fixed point, which every realistic input reaches in one or two passes.
	for i := 0; i < 4; i++ {
		next := pass(out)
		if next == out {
			break
		}
		out = next
	}
	return out
}

// isSimple reports whether s is already normal and only uses runes that the
// normalisation leaves alone (lower-case ASCII without doubled spaces, and Thai
// letters that cannot compose), so the common case allocates nothing.
func isSimple(s string) bool {
	prevSpace := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ':
			if prevSpace {
				return false
			}
			prevSpace = true
			continue
		case c >= 0x80:
			return false
		case c < 0x20 || c == 0x7f, c >= 'A' && c <= 'Z':
			return false
		}
		prevSpace = false
	}
	return len(s) == 0 || s[len(s)-1] != ' '
}

// isNormal reports whether s is already in search form using only runes
// whose folding is the identity: ASCII without upper case or controls and
// with single inner spaces, and the Thai block except ํ and the Thai
// digits; and s is NFC. Normalize(s) == s then, without building a string
// (stored titles are normalised again on every merge: the full passes were
// 40 % of the CPU of a CSV import).
func isNormal(s string) bool {
	prevSpace := true
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == ' ':
				if prevSpace {
					return false
				}
				prevSpace = true
				i++
				continue
			case c < 0x20 || c == 0x7f || c >= 'A' && c <= 'Z':
				return false
			}
			prevSpace = false
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r < '\u0E01' || r > '\u0E5B' || r == nikhahit || r >= '๐' && r <= '๙' {
			return false
		}
		prevSpace = false
		i += size
	}
	if len(s) > 0 && s[len(s)-1] == ' ' {
		return false
	}
	return thaiNFC(s)
}

// thaiCCC is the canonical combining class of a rune of the Thai block.
func thaiCCC(r rune) int {
	switch {
	case r == '\u0E38' || r == '\u0E39':
		return 103
	case r == '\u0E3A':
		return 9
	case r >= '\u0E48' && r <= '\u0E4B':
		return 107
	}
	return 0
}

// thaiNFC reports whether s uses only ASCII and Thai-block runes with its
// combining marks in canonical order, so that NFC(s) == s: no canonical
// composition involves these runes, so NFC can only reorder marks. It is
// ~10× cheaper than norm.NFC.IsNormalString on Thai.
func thaiNFC(s string) bool {
	prev := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			prev = 0
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r < '\u0E00' || r > '\u0E7F' {
			return false
		}
		ccc := thaiCCC(r)
		if ccc != 0 && prev > ccc {
			return false
		}
		prev = ccc
		i += size
	}
	return true
}

func pass(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case r == utf8.RuneError:
			// keep as is: invalid bytes become U+FFFD, which is stable
		case isZeroWidth(r):
			continue
		case unicode.IsSpace(r) || r == '\u180E':
			space = true
			continue
		case r >= '๐' && r <= '๙':
			r = '0' + (r - '๐')
		case r < utf8.RuneSelf:
			if r >= 'A' && r <= 'Z' {
				r += 'a' - 'A'
			} else if r < 0x20 || r == 0x7f {
				// control characters act as white space
				space = true
				continue
			}
		case unicode.Is(unicode.Latin, r):
			r = unicode.ToLower(r)
		case unicode.IsControl(r):
			space = true
			continue
		}
		if space {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
		}
		b.WriteRune(r)
	}
	out := b.String()
	if !thaiNFC(out) {
		out = norm.NFC.String(out)
	}
	return fixSaraAm(out)
}

func isZeroWidth(r rune) bool {
	switch r {
	case '\u200B', '\u200C', '\u200D', '\u2060', '\uFEFF', '\u00AD', '\u200E', '\u200F':
		return true
	}
	return false
}

func isToneMark(r rune) bool { return r >= '\u0E48' && r <= '\u0E4B' }

// fixSaraAm rewrites ํ + า and ํ + tone + า (as typed on some keyboards and
// produced by some PDF extractors) into the canonical tone + ำ.
func fixSaraAm(s string) string {
	if !strings.ContainsRune(s, nikhahit) {
		return s
	}
	rs := []rune(s)
	out := make([]rune, 0, len(rs))
	for i := 0; i < len(rs); i++ {
		if rs[i] == nikhahit {
			if i+1 < len(rs) && rs[i+1] == saraAa {
				out = append(out, saraAm)
				i++
				continue
			}
			if i+2 < len(rs) && isToneMark(rs[i+1]) && rs[i+2] == saraAa {
				out = append(out, rs[i+1], saraAm)
				i += 2
				continue
			}
		}
		out = append(out, rs[i])
	}
	return string(out)
}

// Character trigrams for the search index (one int4[] GIN, intarray).
//
// Trigrams returns the distinct codes of every three consecutive characters
// of an already normalised text, sorted (GIN sorts an item's keys before
// inserting them, and finds sorted ones sorted in one pass: measured ~5 %
// of the database's CPU in a bulk import); the last pair is closed by an
// end-of-text marker, so every two-character sequence of the text is the
// start of one of its trigrams. Keywords then narrow through one index:
// a keyword of 3+ characters by its own trigrams (TermTrigrams, "contains
// all"), a 2-character keyword by every trigram that starts with it
// (PairTrigrams, "contains any"). Unlike pg_trgm, the trigrams span
// spaces and punctuation, as the substring semantics do. Codes are exact
// for Thai and ASCII characters and hashed for others: a collision only
// widens the candidate set, and the LIKE recheck keeps results exact.
// migrations/00005 holds the same function in SQL (search_trigrams) for
// back-filling; a test keeps the two equal.
func Trigrams(normalized string) []int32 {
	n := utf8.RuneCountInString(normalized)
	if n < 2 {
		return []int32{}
	}
	out := make([]int32, 0, n-1)
	var set gramSet
	var a, b int32 = -1, -1
	for _, r := range normalized {
		c := gramClass(r)
		if a >= 0 {
			out = set.add(out, trigramCode(a, b, c))
		}
		a, b = b, c
	}
	out = set.add(out, trigramCode(a, b, endOfText))
	slices.Sort(out)
	return out
}

// gramSet drops repeated codes as they come (cheaper than a map); open
// addressing over codes+1, past 512 distinct codes a map.
type gramSet struct {
	slots [1024]int32
	n     int
	big   map[int32]struct{}
}

func (s *gramSet) add(out []int32, code int32) []int32 {
	if s.big != nil {
		if _, ok := s.big[code]; ok {
			return out
		}
		s.big[code] = struct{}{}
		return append(out, code)
	}
	for i := uint32(code) * 2654435761 >> 22; ; i = (i + 1) & 1023 {
		switch s.slots[i] {
		case code + 1:
			return out
		case 0:
			s.slots[i] = code + 1
			s.n++
			if s.n > 512 {
				s.big = make(map[int32]struct{}, 2*len(out)+2)
				for _, c := range out {
					s.big[c] = struct{}{}
				}
				s.big[code] = struct{}{}
			}
			return append(out, code)
		}
	}
}

// TermTrigrams returns the trigram codes a text must all hold to contain the
// normalised keyword term (3+ characters; nil for shorter terms).
func TermTrigrams(term string) []int32 {
	rs := []rune(term)
	if len(rs) < 3 {
		return nil
	}
	out := make([]int32, 0, len(rs)-2)
	for i := 0; i+2 < len(rs); i++ {
		out = append(out, trigramCode(gramClass(rs[i]), gramClass(rs[i+1]), gramClass(rs[i+2])))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// PairTrigrams returns every trigram code that starts with the two
// characters a b: a text contains "ab" only if it holds one of them.
func PairTrigrams(a, b rune) []int32 {
	ca, cb := gramClass(a), gramClass(b)
	out := make([]int32, 0, endOfText+1)
	for c := int32(0); c <= endOfText; c++ {
		out = append(out, trigramCode(ca, cb, c))
	}
	return out
}

// Character classes: 0–127 the Thai block, 128–255 ASCII, 256–287 any other
// character (hashed), 288 the end of the text. Nine bits each.
const endOfText = 288

func trigramCode(a, b, c int32) int32 { return a<<18 | b<<9 | c }

func gramClass(r rune) int32 {
	switch {
	case r >= 0x0E00 && r <= 0x0E7F:
		return int32(r - 0x0E00)
	case r >= 0 && r < 0x80:
		return 128 + int32(r)
	default:
		return 256 + int32(uint32(r)*2654435761>>27)
	}
}

// RuneLen is the number of characters of s.
func RuneLen(s string) int { return utf8.RuneCountInString(s) }

// EscapeLike escapes the LIKE metacharacters % _ and the escape character \
// so that s matches literally in `LIKE '%' || pattern || '%'` (default escape \).
func EscapeLike(s string) string {
	if !strings.ContainsAny(s, `%_\`) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r == '%' || r == '_' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Contains reports whether the normalised form of kw occurs in the already
// normalised text (substring semantics, Ctrl-F behaviour).
func Contains(normalizedText, normalizedKeyword string) bool {
	return strings.Contains(normalizedText, normalizedKeyword)
}
