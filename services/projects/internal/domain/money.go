package domain

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Money is an exact amount in satang (1/100 baht). Never a float.
type Money int64

// ErrBadAmount reports an amount that cannot be read.
var ErrBadAmount = errors.New("bad amount")

// ParseBaht reads an amount written in baht: "1,234,567.00", "48735000.0"
// (open data floats), "๑๒๓", "1.5E+6", "136,200.00 บาท". Values are rounded
// half away from zero to the satang; parsing is exact (decimal, no float).
func ParseBaht(s string) (Money, error) {
	s = strings.TrimSpace(foldDigits(s))
	s = strings.TrimSuffix(s, "บาท")
	s = strings.TrimSpace(strings.TrimPrefix(s, "฿"))
	s = strings.ReplaceAll(s, ",", "")
	s = strings.ReplaceAll(s, " ", "")
	if s == "" || s == "-" {
		return 0, fmt.Errorf("%w: empty", ErrBadAmount)
	}
	if m, ok := plainBaht(s); ok {
		return m, nil
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return 0, fmt.Errorf("%w: %q", ErrBadAmount, s)
	}
	r.Mul(r, big.NewRat(100, 1))
	// round half away from zero
	num, den := r.Num(), r.Denom()
	q, m := new(big.Int).QuoRem(num, den, new(big.Int))
	m.Abs(m).Mul(m, big.NewInt(2))
	if m.Cmp(den) >= 0 {
		if num.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	if !q.IsInt64() {
		return 0, fmt.Errorf("%w: %q out of range", ErrBadAmount, s)
	}
	return Money(q.Int64()), nil
}

// plainBaht parses the common shape "-123456.78" (at most two decimals, 15
// integer digits) without big.Rat, which cost ~3 µs a cell in bulk imports.
func plainBaht(s string) (Money, bool) {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	whole, frac, dot := strings.Cut(s, ".")
	if whole == "" || len(whole) > 15 || len(frac) > 2 || (dot && frac == "") {
		return 0, false
	}
	var v int64
	for _, part := range []string{whole, frac} {
		for i := 0; i < len(part); i++ {
			c := part[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int64(c-'0')
		}
	}
	for i := len(frac); i < 2; i++ {
		v *= 10
	}
	if neg {
		v = -v
	}
	return Money(v), true
}

// String renders the amount as a plain decimal in baht, "1234567.00".
func (m Money) String() string {
	neg := m < 0
	v := int64(m)
	if neg {
		v = -v
	}
	s := strconv.FormatInt(v/100, 10) + "." + fmt.Sprintf("%02d", v%100)
	if neg {
		return "-" + s
	}
	return s
}

// Baht renders the amount the Thai way, "1,234,567.00".
func (m Money) Baht() string {
	s := m.String()
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	out := b.String() + "." + frac
	if neg {
		return "-" + out
	}
	return out
}

// MoneyPtr returns a pointer to m.
func MoneyPtr(m Money) *Money { return &m }

func foldDigits(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r >= '๐' && r <= '๙' }) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r >= '๐' && r <= '๙' {
			return '0' + r - '๐'
		}
		return r
	}, s)
}
