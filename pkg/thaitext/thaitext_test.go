package thaitext_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"bidradar/pkg/thaitext"
)

func TestNormalize(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"plain thai unchanged", "จ้างก่อสร้างถนน", "จ้างก่อสร้างถนน"},
		{"thai digits", "ประจำปีงบประมาณ ๒๕๖๕ จำนวน ๒ ชุด", "ประจำปีงบประมาณ 2565 จำนวน 2 ชุด"},
		{"nikhahit sara aa", "น\u0E49\u0E4D\u0E32", "น\u0E49\u0E33"},
		{"nikhahit tone sara aa", "น\u0E4D\u0E49\u0E32", "น\u0E49\u0E33"},
		{"sara am kept", "ประจำ", "ประจำ"},
		{"zero width removed", "คอม\u200Bพิว\u200Cเตอร์\uFEFF", "คอมพิวเตอร์"},
		{"whitespace collapsed", "  ซื้อ\t\tวัสดุ\u00A0\u00A0สำนักงาน \n", "ซื้อ วัสดุ สำนักงาน"},
		{"latin lowered", "ประกวดราคาอิเล็กทรอนิกส์ (e-Bidding) ÉCOLE", "ประกวดราคาอิเล็กทรอนิกส์ (e-bidding) école"},
		{"nfc", "e\u0301", "é"},
		{"zero width between base and mark", "e\u200B\u0301", "é"},
		{"fullwidth latin lowered", "ＡＢＣ", "ａｂｃ"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := thaitext.Normalize(tc.in); got != tc.want {
				t.Errorf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestEscapeLike(t *testing.T) {
	t.Parallel()
	if got := thaitext.EscapeLike(`100%_a\b`); got != `100\%\_a\\b` {
		t.Fatalf("got %q", got)
	}
}

func TestTrigramsCoverKeywords(t *testing.T) {
	t.Parallel()
	text := thaitext.Normalize("ซื้อรถยนต์ส่วนกลาง (e-bidding) ๑๒")
	grams := thaitext.Trigrams(text)
	sorted := slices.Sorted(slices.Values(grams))
	if len(slices.Compact(sorted)) != len(grams) {
		t.Fatalf("not distinct: %v", grams)
	}
	has := func(c int32) bool { _, ok := slices.BinarySearch(sorted, c); return ok }
	// every keyword of 3+ characters the text contains: all its trigrams
	rs := []rune(text)
	for i := range rs {
		for j := i + 3; j <= len(rs); j++ {
			for _, c := range thaitext.TermTrigrams(string(rs[i:j])) {
				if !has(c) {
					t.Fatalf("trigram of %q missing", string(rs[i:j]))
				}
			}
		}
	}
	// every pair, also the last one: one trigram that starts with it
	for i := 0; i+1 < len(rs); i++ {
		if !slices.ContainsFunc(thaitext.PairTrigrams(rs[i], rs[i+1]), has) {
			t.Fatalf("no trigram starts with %q", string(rs[i:i+2]))
		}
	}
	if slices.ContainsFunc(thaitext.PairTrigrams('ข', 'ว'), has) {
		t.Fatal("a pair the text lacks matched")
	}
	// long texts (past the open-addressing table) stay distinct and complete
	rng := rand.New(rand.NewPCG(1, 2))
	var lb strings.Builder
	for range 4000 {
		lb.WriteRune(rune(0x0E01 + rng.IntN(46)))
	}
	long := []rune(lb.String())
	windows := map[string]bool{}
	for i := 0; i+3 <= len(long); i++ {
		windows[string(long[i:i+3])] = true
	}
	lg := thaitext.Trigrams(string(long))
	if n := len(slices.Compact(slices.Sorted(slices.Values(lg)))); n != len(lg) || n != len(windows)+1 || n < 600 {
		t.Fatalf("long text: %d distinct of %d, want %d", n, len(lg), len(windows)+1)
	}
	if thaitext.TermTrigrams("รถ") != nil || len(thaitext.Trigrams("ก")) != 0 {
		t.Fatal("short input")
	}
}

func checkProperties(t *testing.T, s string) {
	n := thaitext.Normalize(s)
	if n2 := thaitext.Normalize(n); n2 != n {
		t.Fatalf("not idempotent: %q -> %q -> %q", s, n, n2)
	}
	if !utf8.ValidString(n) {
		t.Fatalf("invalid utf8 from %q: %q", s, n)
	}
	if !norm.NFC.IsNormalString(n) {
		t.Fatalf("not NFC: %q", n)
	}
	if strings.HasPrefix(n, " ") || strings.HasSuffix(n, " ") || strings.Contains(n, "  ") {
		t.Fatalf("whitespace not collapsed: %q", n)
	}
	for _, r := range n {
		if r >= '๐' && r <= '๙' {
			t.Fatalf("thai digit left in %q", n)
		}
		if r >= 'A' && r <= 'Z' {
			t.Fatalf("upper-case latin left in %q", n)
		}
		switch r {
		case '\u200B', '\u200C', '\u200D', '\uFEFF', '\u2060', '\u00AD', '\t', '\n', '\u00A0':
			t.Fatalf("%U left in %q", r, n)
		}
	}
	if strings.Contains(n, "\u0E4D\u0E32") {
		t.Fatalf("ํา left in %q", n)
	}
	// Substring stability: a normalised piece of a normalised text is found
	// in it (the property search relies on).
	rs := []rune(n)
	if len(rs) > 3 {
		piece := thaitext.Normalize(string(rs[1 : len(rs)-1]))
		if !strings.Contains(n, piece) {
			t.Fatalf("normalised inner piece %q not in %q", piece, n)
		}
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"", " ", "จ้างก่อสร้างถนนคอนกรีตเสริมเหล็ก หมู่ที่ ๕ บ้านหนองบัว",
		"น\u0E4D\u0E49\u0E32", "e-Bidding\u200B", "\t\n\u00A0x", "ÀÉÎ", "e\u200B\u0301",
		"ประจำปีงบประมาณ ๒๕๖๕", "\xff\xfe", "Ǆǅǆ", "İstanbul", "ẞ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkProperties(t, s) })
}

// TestNormalizeRandomThai is a deterministic property test over random Thai
// strings made of the characters that matter (marks, digits, zero-width,
// spaces, Latin), so the properties are checked on every `go test` run even
// without -fuzz.
func TestNormalizeRandomThai(t *testing.T) {
	t.Parallel()
	alphabet := []rune("กขคงจนมยรลวสหอะัาำิีึืุู็่้๊๋์ํ๐๑๒๕๙ เแโใไ\u200B\u200D\uFEFF\u00A0\tAaZzé\u0301-%_")
	seed := uint64(42)
	next := func() uint64 { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; return seed }
	for i := 0; i < 20000; i++ {
		n := int(next() % 24)
		rs := make([]rune, n)
		for j := range rs {
			rs[j] = alphabet[next()%uint64(len(alphabet))]
		}
		checkProperties(t, string(rs))
	}
}

func BenchmarkNormalize(b *testing.B) {
	s := "ประกวดราคาจ้างก่อสร้างถนนคอนกรีตเสริมเหล็ก หมู่ที่ ๕ บ้านหนองบัว ตำบลหนองบัว ด้วยวิธีประกวดราคาอิเล็กทรอนิกส์ (e-bidding)"
	for b.Loop() {
		thaitext.Normalize(s)
	}
}
