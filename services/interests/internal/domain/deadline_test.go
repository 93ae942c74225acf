package domain_test

import (
	"crypto/sha256"
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"bidradar/services/interests/internal/domain"
)

func TestListQueryKeepAndOrder(t *testing.T) {
	today := "2026-11-28"
	week := domain.ListQuery{ClosingWithin: 7}
	for due, want := range map[string]bool{"": false, "2026-11-27": false, "2026-11-28": true, "2026-12-04": true, "2026-12-05": false} {
		if got := week.Keep(due, today); got != want {
			t.Errorf("closing this week, due %q: %v", due, got)
		}
	}
	rng := domain.ListQuery{DueFrom: "2026-12-01", DueTo: "2026-12-31"}
	if !rng.Keep("2026-12-31", today) || rng.Keep("2027-01-01", today) || rng.Keep("", today) {
		t.Error("range")
	}
	if !(domain.ListQuery{}).Keep("", today) {
		t.Error("no filter keeps all")
	}
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	type r struct {
		rec domain.Record
		due string
	}
	rows := []r{
		{domain.Record{ProjectID: "a", Updated: t0.Add(5 * time.Hour)}, ""},
		{domain.Record{ProjectID: "b", Updated: t0}, "2026-12-10"},
		{domain.Record{ProjectID: "c", Updated: t0}, "2026-11-20"}, // passed
		{domain.Record{ProjectID: "d", Updated: t0}, "2026-11-28"},
		{domain.Record{ProjectID: "e", Updated: t0.Add(time.Hour)}, "2026-12-10"},
	}
	sort.SliceStable(rows, func(i, j int) bool {
		return domain.DeadlineFirst(rows[i].rec, rows[j].rec, rows[i].due, rows[j].due, today)
	})
	var got []string
	for _, x := range rows {
		got = append(got, x.rec.ProjectID)
	}
	// upcoming soonest first (same day: newer change first), then the rest by change
	if strings.Join(got, "") != "debac" {
		t.Errorf("order %v, want d e b a c", got)
	}
	for _, bad := range []domain.ListQuery{{Sort: "budget"}, {ClosingWithin: -1}, {ClosingWithin: 367}, {DueFrom: "28/11/2569"}, {DueFrom: "2026-12-02", DueTo: "2026-12-01"}} {
		if err := bad.Validate(); !errors.Is(err, domain.ErrListQuery) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

func TestFeedTokens(t *testing.T) {
	tok, hash, err := domain.NewFeedToken()
	if err != nil || len(tok) != domain.FeedTokenLen {
		t.Fatalf("%q %v", tok, err)
	}
	if sum := sha256.Sum256([]byte(tok)); string(sum[:]) != string(hash) {
		t.Fatal("the stored hash is not the token's SHA-256")
	}
	if h, err := domain.FeedTokenHash(tok); err != nil || string(h) != string(hash) {
		t.Fatal("a fresh token does not validate")
	}
	other, _, _ := domain.NewFeedToken()
	if other == tok {
		t.Fatal("two tokens alike")
	}
	for _, bad := range []string{"", "short", strings.Repeat("a", 42), strings.Repeat("a", 44), strings.Repeat("!", 43), strings.Repeat("a", 42) + "="} {
		if _, err := domain.FeedTokenHash(bad); !errors.Is(err, domain.ErrFeedToken) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
