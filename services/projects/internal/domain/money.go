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
