package postgres_test

import (
	"context"
	"testing"
	"time"

	"bidradar/services/interests/internal/domain"
)

// A calendar link is kept as its hash only; a new one replaces the old one
// at once, a revoked one is gone, and a deleted account takes it along.
func TestCalendarFeedRotateRevokeForget(t *testing.T) {
	repo, _ := newRepo(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC)
	if _, ok, err := repo.Feed(ctx, "u1"); ok || err != nil {
		t.Fatalf("no link yet: %v %v", ok, err)
	}
	_, h1, _ := domain.NewFeedToken()
	if _, err := repo.RotateFeed(ctx, "u1", h1, now); err != nil {
		t.Fatal(err)
	}
	if u, ok, err := repo.FeedOwner(ctx, h1); !ok || u != "u1" || err != nil {
		t.Fatalf("owner of the first link: %q %v %v", u, ok, err)
	}
	_, h2, _ := domain.NewFeedToken()
	if _, err := repo.RotateFeed(ctx, "u1", h2, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := repo.FeedOwner(ctx, h1); ok {
		t.Fatal("the replaced link still opens the calendar")
	}
	if f, ok, _ := repo.Feed(ctx, "u1"); !ok || !f.Created.Equal(now.Add(time.Hour)) {
		t.Fatalf("state after rotation: %+v %v", f, ok)
	}
	if ok, err := repo.RevokeFeed(ctx, "u1"); !ok || err != nil {
		t.Fatalf("revoke: %v %v", ok, err)
	}
	if ok, _ := repo.RevokeFeed(ctx, "u1"); ok {
		t.Fatal("revoked twice")
	}
	if _, ok, _ := repo.FeedOwner(ctx, h2); ok {
		t.Fatal("a revoked link still opens the calendar")
	}
	_, h3, _ := domain.NewFeedToken()
	if _, err := repo.RotateFeed(ctx, "u2", h3, now); err != nil {
		t.Fatal(err)
	}
	if err := repo.DeleteUser(ctx, "u2"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := repo.FeedOwner(ctx, h3); ok {
		t.Fatal("a deleted account's link still opens the calendar")
	}
}
