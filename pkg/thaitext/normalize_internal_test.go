package thaitext

import (
	"testing"

	"golang.org/x/text/unicode/norm"
)

// reference is Normalize without the fast paths: passes to a fixed point.
func reference(s string) string {
	out := pass(s)
	for i := 0; i < 8; i++ {
		next := pass(out)
		if next == out {
			break
		}
		out = next
	}
	return out
}

// TestFastPathsMatchReference: the isSimple/isNormal shortcuts never change
// a result.
func TestFastPathsMatchReference(t *testing.T) {
	t.Parallel()
	alphabet := []rune("กขคงจนมยรลวสหอะัาำิีึืุู็่้๊๋์ํ๐๑๒๕๙฿ๆ เแโใไ\u200B\u200D\uFEFF\u00A0\tAaZzé\u0301-%_\u0E3B\u0E5B\u0E00\u0E3A\u0E7F\u0E80")
	seed := uint64(7)
	next := func() uint64 { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; return seed }
	fast := 0
	for i := 0; i < 50000; i++ {
		n := int(next() % 20)
		rs := make([]rune, n)
		for j := range rs {
			rs[j] = alphabet[next()%uint64(len(alphabet))]
		}
		s := string(rs)
		if thaiNFC(s) && !norm.NFC.IsNormalString(s) {
			t.Fatalf("thaiNFC(%q) but not NFC", s)
		}
		if got := Normalize(s); !norm.NFC.IsNormalString(got) {
			t.Fatalf("Normalize(%q) = %q is not NFC", s, got)
		}
		if isNormal(s) {
			fast++
			if reference(s) != s {
				t.Fatalf("isNormal(%q) but reference gives %q", s, reference(s))
			}
		}
		if got, want := Normalize(s), reference(s); got != want {
			t.Fatalf("Normalize(%q) = %q, reference %q", s, got, want)
		}
		// normalised text takes the fast path
		if r := reference(s); !isSimple(r) && !isNormal(r) && Normalize(r) != r {
			t.Fatalf("not idempotent on %q", r)
		}
	}
	for _, s := range []string{"ก\u0E48\u0E38", "ก\u0E38\u0E48", "ก\u0E3A\u0E38", "ก\u0E38\u0E3A", "a\u0E48\u0E49\u0E38"} {
		if got, want := thaiNFC(s), norm.NFC.IsNormalString(s); got != want {
			t.Errorf("thaiNFC(%q) = %v, NFC says %v", s, got, want)
		}
	}
	if fast == 0 {
		t.Fatal("fast path never taken")
	}
	for _, s := range []string{"จ้างก่อสร้างถนนคอนกรีตเสริมเหล็ก หมู่ที่ 5 บ้านหนองบัว", "ซื้อวัสดุ (e-bidding) 100%"} {
		if !isNormal(s) {
			t.Errorf("isNormal(%q) = false", s)
		}
	}
}
