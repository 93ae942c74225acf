package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"bidradar/pkg/testutil/pgtest"
	"bidradar/services/teams/internal/adapters/postgres"
	"bidradar/services/teams/internal/domain"
	"bidradar/services/teams/teamssvc"
)

func newRepo(t *testing.T) *postgres.Repo {
	t.Helper()
	pool, err := teamssvc.Open(context.Background(), pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return postgres.New(pool)
}

func newTeam(t *testing.T, r *postgres.Repo, now time.Time) (domain.Team, string) {
	t.Helper()
	owner := uuid.NewString()
	team := domain.Team{ID: uuid.NewString(), Name: "ทีม", OwnerUserID: owner, CreatedAt: now}
	if err := r.CreateTeam(context.Background(), team, domain.MemberRec{TeamID: team.ID, UserID: owner, Role: domain.Owner,
		Username: "owner", Email: "owner@example.com", JoinedAt: now}); err != nil {
		t.Fatal(err)
	}
	return team, owner
}

// TestInvitationCodes: the code joins only the invited address, counts
// seats while pending, and burns after five wrong tries.
func TestInvitationCodes(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	now := time.Now().UTC()
	team, owner := newTeam(t, r, now)
	invite := func(email, code string) error {
		inv := domain.Invitation{ID: uuid.NewString(), TeamID: team.ID, Email: email, Role: domain.Member, InvitedBy: owner,
			CreatedAt: now, ExpiresAt: now.Add(domain.InviteTTL)}
		inv.CodeHash = domain.CodeHash(inv.ID, code)
		return r.CreateInvitation(ctx, inv, 2, domain.Mail{To: email, Subject: "รหัส", Text: code}, now)
	}
	if err := invite("a@example.com", "111111"); err != nil {
		t.Fatal(err)
	}
	if err := invite("b@example.com", "222222"); err != domain.ErrSeatLimit {
		t.Fatalf("third seat: %v", err)
	}
	if err := invite("owner@example.com", "333333"); err != domain.ErrAlreadyMember {
		t.Fatalf("a member invited: %v", err)
	}
	u := domain.MemberRec{UserID: uuid.NewString(), Username: "a", Email: "a@example.com", JoinedAt: now}
	ok := func(string) error { return nil }
	if _, found, _, _ := r.AcceptInvitation(ctx, "b@example.com", "111111", u, now, ok); found {
		t.Fatal("another address found the invitation")
	}
	for i := 0; i < domain.MaxCodeTries; i++ {
		if _, found, matched, err := r.AcceptInvitation(ctx, "a@example.com", "999999", u, now, ok); err != nil || !found || matched {
			t.Fatalf("wrong try %d: %v %v %v", i, found, matched, err)
		}
	}
	if _, found, _, _ := r.AcceptInvitation(ctx, "a@example.com", "111111", u, now, ok); found {
		t.Fatal("the code survived five wrong tries")
	}
	// A new invitation: the right code joins.
	if err := invite("a@example.com", "444444"); err != nil {
		t.Fatal(err)
	}
	tid, found, matched, err := r.AcceptInvitation(ctx, "a@example.com", "444444", u, now, ok)
	if err != nil || !found || !matched || tid != team.ID {
		t.Fatalf("accept: %v %v %v %v", tid, found, matched, err)
	}
	if m, err := r.Membership(ctx, team.ID, u.UserID, now); err != nil || m.Role != domain.Member || m.Team.SeatsUsed != 2 {
		t.Fatalf("membership: %+v %v", m, err)
	}
	// Expired: not found.
	if err := r.RemoveMember(ctx, team.ID, u.UserID, now); err != nil {
		t.Fatal(err)
	}
	if err := invite("c@example.com", "555555"); err != nil {
		t.Fatal(err)
	}
	if _, found, _, _ := r.AcceptInvitation(ctx, "c@example.com", "555555", u, now.Add(domain.InviteTTL+time.Second), ok); found {
		t.Fatal("an expired invitation found")
	}
}

// TestConcurrentWriters: fifty writers on one item under its row lock leave
// fifty chained changes of the note, in time order.
func TestConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	now := time.Now().UTC()
	team, owner := newTeam(t, r, now)
	pid := "12345678901"
	none := func(old, n domain.Item) *domain.StageEvent { return nil }
	if _, _, err := r.PutItem(ctx, team.ID, pid, domain.Patch{}, owner, now, none); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			note := fmt.Sprintf("w%d", i)
			if _, _, err := r.PutItem(ctx, team.ID, pid, domain.Patch{Note: &note}, owner, time.Now().UTC(), none); err != nil {
				errs <- err
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	hs, err := r.History(ctx, team.ID, pid)
	if err != nil {
		t.Fatal(err)
	}
	var notes []domain.History
	for _, h := range hs {
		if h.Field == "note" {
			notes = append(notes, h)
		}
	}
	it, _ := r.Item(ctx, team.ID, pid)
	if len(notes) != 50 || notes[0].To != it.Note || notes[len(notes)-1].From != "" {
		t.Fatalf("%d note changes, newest %q, item %q", len(notes), notes[0].To, it.Note)
	}
	for i := 0; i+1 < len(notes); i++ {
		if notes[i].From != notes[i+1].To || notes[i].At.Before(notes[i+1].At) {
			t.Fatalf("history breaks at %d: %+v after %+v", i, notes[i], notes[i+1])
		}
	}
	// Deleted, the history stays.
	if err := r.DeleteItem(ctx, team.ID, pid, owner, time.Now().UTC()); err != nil {
		t.Fatal(err)
	}
	if hs2, err := r.History(ctx, team.ID, pid); err != nil || len(hs2) != len(hs)+1 {
		t.Fatalf("history after delete: %d %v", len(hs2), err)
	}
}

// TestKeyWindow: a key's calls are counted in its row; over the limit the
// wait runs to the window's end; a revoked key is unknown.
func TestKeyWindow(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	now := time.Now().UTC()
	team, owner := newTeam(t, r, now)
	k := domain.APIKey{ID: uuid.NewString(), TeamID: team.ID, Name: "erp", Scopes: []string{"read"}, Prefix: "brk_x", CreatedBy: owner, CreatedAt: now}
	hash := domain.HashSecret("brk_secret")
	if err := r.CreateKey(ctx, k, hash); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, wait, err := r.UseKey(ctx, hash, now.Add(time.Duration(i)*time.Second), 3, time.Minute); err != nil || wait != 0 {
			t.Fatalf("call %d: %v %v", i, wait, err)
		}
	}
	// The window starts at the first call (stored to the microsecond).
	if _, wait, err := r.UseKey(ctx, hash, now.Add(10*time.Second), 3, time.Minute); err != nil || wait <= 49*time.Second || wait > 50*time.Second {
		t.Fatalf("over the limit: %v %v", wait, err)
	}
	if _, wait, err := r.UseKey(ctx, hash, now.Add(time.Minute), 3, time.Minute); err != nil || wait != 0 {
		t.Fatalf("next window: %v %v", wait, err)
	}
	if ks, _ := r.Keys(ctx, team.ID); len(ks) != 1 || ks[0].LastUsed == nil {
		t.Fatalf("keys: %+v", ks)
	}
	if err := r.RevokeKey(ctx, team.ID, k.ID, now); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.UseKey(ctx, hash, now.Add(2*time.Minute), 3, time.Minute); err != domain.ErrBadKey {
		t.Fatalf("revoked key: %v", err)
	}
}
