package domain

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func ptr[T any](v T) *T { return &v }

func TestApplyBid(t *testing.T) {
	now := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	base := ptr(int64(1_000_000_00)) // 1,000,000 baht
	cases := []struct {
		name    string
		base    *int64
		patch   Patch
		bid, bp *int64
		err     error
	}{
		{"price computes percent", base, Patch{BidPrice: ptr(950000.0)}, ptr(int64(95000000)), ptr(int64(500)), nil},
		{"percent computes price", base, Patch{ReductionPercent: ptr(12.34)}, ptr(int64(87660000)), ptr(int64(1234)), nil},
		{"price wins over percent", base, Patch{BidPrice: ptr(900000.0), ReductionPercent: ptr(1.0)}, ptr(int64(90000000)), ptr(int64(1000)), nil},
		{"percent rounds half up", ptr(int64(300)), Patch{BidPrice: ptr(2.0)}, ptr(int64(200)), ptr(int64(3333)), nil},
		{"exact satang", base, Patch{BidPrice: ptr(0.07)}, ptr(int64(7)), ptr(int64(9999)), nil},
		{"no base keeps the price alone", nil, Patch{BidPrice: ptr(123.45)}, ptr(int64(12345)), nil, nil},
		{"no base keeps the percent alone", nil, Patch{ReductionPercent: ptr(5.5)}, nil, ptr(int64(550)), nil},
		{"above the base", base, Patch{BidPrice: ptr(1000000.01)}, nil, nil, ErrBidAboveBase},
		{"zero price", base, Patch{BidPrice: ptr(0.0)}, nil, nil, ErrBidPrice},
		{"negative price", base, Patch{BidPrice: ptr(-1.0)}, nil, nil, ErrBidPrice},
		{"three decimals", base, Patch{BidPrice: ptr(1.005)}, nil, nil, ErrBidPrice},
		{"percent 100", base, Patch{ReductionPercent: ptr(100.0)}, nil, nil, ErrReduction},
		{"percent negative", base, Patch{ReductionPercent: ptr(-0.01)}, nil, nil, ErrReduction},
		{"percent three decimals", base, Patch{ReductionPercent: ptr(1.001)}, nil, nil, ErrReduction},
		{"percent leaves nothing", ptr(int64(1)), Patch{ReductionPercent: ptr(99.99)}, nil, nil, ErrBidTooSmall},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var r Record
			err := r.Apply(c.patch, c.base, now)
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("err = %v, want %v", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !eq(r.BidSatang, c.bid) || !eq(r.ReductionBP, c.bp) {
				t.Fatalf("bid %v percent %v, want %v %v", show(r.BidSatang), show(r.ReductionBP), show(c.bid), show(c.bp))
			}
			if r.BidUpdated == nil || !r.BidUpdated.Equal(now) {
				t.Fatal("lastUpdated not set")
			}
		})
	}
}

func eq(a, b *int64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
func show(a *int64) any {
	if a == nil {
		return nil
	}
	return *a
}

func TestApplyMarks(t *testing.T) {
	now := time.Now()
	var r Record
	if err := r.Apply(Patch{}, nil, now); !errors.Is(err, ErrEmptyPatch) {
		t.Fatalf("empty patch: %v", err)
	}
	if err := r.Apply(Patch{Fill20: ptr(true)}, nil, now); err != nil || !r.Follow || !r.Fill20 {
		t.Fatalf("fill20 implies following: %+v %v", r, err)
	}
	if err := r.Apply(Patch{Follow: ptr(false)}, nil, now); err != nil || r.Fill20 {
		t.Fatalf("unfollow clears fill20: %+v", r)
	}
	if err := r.Apply(Patch{Follow: ptr(false), Fill20: ptr(true)}, nil, now); !errors.Is(err, ErrFill20NoFollow) {
		t.Fatalf("contradiction: %v", err)
	}
	if err := r.Apply(Patch{Archived: ptr(true), Like: ptr(true)}, nil, now); err != nil || r.Source() != "archived" || !r.Like {
		t.Fatalf("archive: %+v", r)
	}
	if err := r.Apply(Patch{Archived: ptr(false)}, nil, now); err != nil || r.Source() != "active" {
		t.Fatalf("un-archive: %+v", r)
	}
	if r.BidUpdated != nil {
		t.Fatal("marks touched lastUpdated")
	}
	r.BidSatang = ptr(int64(5))
	if err := r.Apply(Patch{ClearBid: true}, nil, now); err != nil || r.BidSatang != nil || r.BidUpdated == nil {
		t.Fatalf("clear bid: %+v", r)
	}
}

func TestNormalizeComment(t *testing.T) {
	cases := []struct {
		in, want string
		err      error
	}{
		{"  สวัสดี 👍  ", "สวัสดี 👍", nil},
		{"a\r\nb\tc", "a\nb\tc", nil},
		{"", "", ErrCommentEmpty},
		{" \n\t ", "", ErrCommentEmpty},
		{"a\x00b", "", ErrCommentControl},
		{"a\x1bb", "", ErrCommentControl},
		{"a\u2028b", "", ErrCommentControl},
		{"ราคา \u202e0001 บาท", "", ErrCommentControl}, // a bidirectional override reorders what readers see
		{"a\u2066b\u2069", "", ErrCommentControl},
		{"\xff\xfe", "", ErrCommentControl},
		{strings.Repeat("ก", 2000), strings.Repeat("ก", 2000), nil},
		{strings.Repeat("ก", 2001), "", ErrCommentTooLong},
	}
	for _, c := range cases {
		got, err := NormalizeComment(c.in)
		if !errors.Is(err, c.err) || (c.err == nil && got != c.want) {
			t.Errorf("NormalizeComment(%q) = %q, %v; want %q, %v", c.in, got, err, c.want, c.err)
		}
	}
}

func TestParseFlag(t *testing.T) {
	for _, f := range []string{"is_InterestToBid", "is_archived", "is_interestToStepChk", "is_userLike", "is_fill20", "is_comment"} {
		if _, err := ParseFlag(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, err := ParseFlag("is_everything"); !errors.Is(err, ErrBadFlag) {
		t.Error("unknown flag accepted")
	}
}
