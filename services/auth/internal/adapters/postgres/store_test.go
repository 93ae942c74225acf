package postgres_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/protobuf/proto"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/pkg/events"
	"bidradar/pkg/pgdb"
	"bidradar/pkg/testutil/pgtest"
	"bidradar/services/auth/internal/adapters/postgres"
	"bidradar/services/auth/internal/domain"
)

func newStore(t *testing.T) (*postgres.Store, *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	pool, err := pgdb.Open(ctx, pgtest.NewDatabase(t), postgres.Schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := postgres.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	// Idempotent.
	if err := postgres.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	s, err := postgres.New(pool)
	if err != nil {
		t.Fatal(err)
	}
	return s, pool
}

var t0 = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

func createUser(t *testing.T, s *postgres.Store, username, email string, active bool) domain.User {
	t.Helper()
	u := domain.User{ID: uuid.NewString(), Username: username, Email: email, PasswordHash: "$argon2id$x",
		Active: active, CreatedAt: t0, PasswordChangedAt: t0}
	if err := s.CreateUser(context.Background(), u, domain.UserRegistered{EventID: uuid.NewString(), OccurredAt: t0, UserID: u.ID, Email: email, Username: username}); err != nil {
		t.Fatal(err)
	}
	return u
}

func hasher(t *testing.T) domain.OTPHasher {
	h, err := domain.NewOTPHasher([]byte(strings.Repeat("h", 32)))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestUsers(t *testing.T) {
	t.Parallel()
	s, pool := newStore(t)
	ctx := context.Background()
	u := createUser(t, s, "Somchai.K", "somchai@example.com", false)

	for _, login := range []string{"somchai.k", "SOMCHAI.K", "somchai@example.com"} {
		got, err := s.UserByLogin(ctx, login)
		if err != nil || got.ID != u.ID {
			t.Fatalf("UserByLogin(%q) = %+v, %v", login, got, err)
		}
	}
	if _, err := s.UserByLogin(ctx, "nobody"); !errors.Is(err, domain.ErrUserNotFound) {
		t.Fatalf("unknown login: %v", err)
	}
	if _, err := s.UserByID(ctx, "not-a-uuid"); !errors.Is(err, domain.ErrUserNotFound) {
		t.Fatalf("bad id: %v", err)
	}
	if taken, err := s.UsernameTaken(ctx, "SOMCHAI.k"); err != nil || !taken {
		t.Fatalf("UsernameTaken = %v, %v", taken, err)
	}
	dupName := domain.User{ID: uuid.NewString(), Username: "somchai.K", Email: "other@example.com", CreatedAt: t0}
	if err := s.CreateUser(ctx, dupName, domain.UserRegistered{EventID: uuid.NewString()}); !errors.Is(err, domain.ErrUsernameTaken) {
		t.Fatalf("duplicate username: %v", err)
	}
	dupMail := domain.User{ID: uuid.NewString(), Username: "other", Email: "somchai@example.com", CreatedAt: t0}
	if err := s.CreateUser(ctx, dupMail, domain.UserRegistered{EventID: uuid.NewString()}); !errors.Is(err, domain.ErrEmailTaken) {
		t.Fatalf("duplicate email: %v", err)
	}

	// Activation consumes the code and records UserVerified, once.
	c, err := s.IssueCode(ctx, domain.NewCode{Purpose: domain.PurposeRegistration, Email: u.Email, HMAC: []byte("x")}, t0)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.ActivateUser(ctx, u.ID, c.ID, domain.UserVerified{EventID: uuid.NewString(), OccurredAt: t0, UserID: u.ID, Email: u.Email})
	if err != nil || !got.Active {
		t.Fatalf("ActivateUser = %+v, %v", got, err)
	}
	if _, err := s.ActivateUser(ctx, u.ID, c.ID, domain.UserVerified{EventID: uuid.NewString(), OccurredAt: t0}); !errors.Is(err, domain.ErrInvalidCode) {
		t.Fatalf("second activation with the same code: %v", err)
	}
	var subjects []string
	rows, _ := pool.Query(ctx, `SELECT subject FROM outbox ORDER BY seq`)
	for rows.Next() {
		var subj string
		_ = rows.Scan(&subj)
		subjects = append(subjects, subj)
	}
	registered, _ := events.SubjectOf(&authv1.UserRegistered{})
	verified, _ := events.SubjectOf(&authv1.UserVerified{})
	if strings.Join(subjects, ",") != registered+","+verified {
		t.Fatalf("outbox: %v", subjects)
	}
}

// Fifty concurrent wrong submissions: the attempt counter is incremented
// atomically before any comparison, so at most five are evaluated and the
// code is dead afterwards, even for the right code.
func TestFiftyConcurrentWrongCodesEvaluateAtMostFive(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := context.Background()
	h := hasher(t)
	email := "victim@example.com"
	if _, err := s.IssueCode(ctx, domain.NewCode{Purpose: domain.PurposeLogin, Email: email,
		HMAC: h.Sum(domain.PurposeLogin, email, "", "123456")}, t0); err != nil {
		t.Fatal(err)
	}
	wrong := h.Sum(domain.PurposeLogin, email, "", "000000")
	var mu sync.Mutex
	verdicts := map[domain.OTPVerdict]int{}
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			c, err := s.SubmitCode(ctx, domain.PurposeLogin, email)
			if err != nil {
				t.Error(err)
				return
			}
			v := c.Evaluate(t0.Add(time.Second), wrong, h)
			if v == domain.OTPWrong {
				if err := s.RecordFailure(ctx, c.ID, t0); err != nil {
					t.Error(err)
				}
			}
			mu.Lock()
			verdicts[v]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if verdicts[domain.OTPWrong] != domain.OTPMaxAttempts || verdicts[domain.OTPTooManyAttempts] != 50-domain.OTPMaxAttempts {
		t.Fatalf("verdicts %v: want %d evaluated", verdicts, domain.OTPMaxAttempts)
	}
	c, err := s.SubmitCode(ctx, domain.PurposeLogin, email)
	if err != nil {
		t.Fatal(err)
	}
	if v := c.Evaluate(t0.Add(time.Second), h.Sum(domain.PurposeLogin, email, "", "123456"), h); v != domain.OTPTooManyAttempts {
		t.Fatalf("right code after 5 failures: %v", v)
	}
	if n, err := s.DailyFailures(ctx, domain.PurposeLogin, email, t0.Add(-24*time.Hour)); err != nil || n != 5 {
		t.Fatalf("DailyFailures = %d, %v", n, err)
	}
}

func TestCodeSingleUseAndResendRules(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := context.Background()
	email := "a@example.com"
	issue := func(at time.Time, hmac []byte) (domain.OTPCode, error) {
		return s.IssueCode(ctx, domain.NewCode{Purpose: domain.PurposePasswordReset, Email: email, HMAC: hmac}, at)
	}
	first, err := issue(t0, []byte("first"))
	if err != nil {
		t.Fatal(err)
	}
	if first.ExpiresAt != t0.Add(300*time.Second) {
		t.Fatalf("expiry %v", first.ExpiresAt)
	}
	var re *domain.RetryError
	if _, err := issue(t0.Add(30*time.Second), []byte("x")); !errors.As(err, &re) || !errors.Is(err, domain.ErrResendTooSoonBase) {
		t.Fatalf("resend after 30s: %v", err)
	}
	second, err := issue(t0.Add(61*time.Second), []byte("second"))
	if err != nil {
		t.Fatal(err)
	}
	// The resend invalidated the first code: the live one is the second.
	c, err := s.SubmitCode(ctx, domain.PurposePasswordReset, email)
	if err != nil || c.ID != second.ID || string(c.HMAC) != "second" {
		t.Fatalf("live code %+v, %v", c, err)
	}
	if err := s.ConsumeCode(ctx, first.ID, t0); !errors.Is(err, domain.ErrInvalidCode) {
		t.Fatalf("consume invalidated code: %v", err)
	}
	// Concurrent consumers: exactly one wins.
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for range 10 {
		wg.Go(func() {
			if s.ConsumeCode(ctx, second.ID, t0) == nil {
				mu.Lock()
				wins++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if wins != 1 {
		t.Fatalf("%d consumers won", wins)
	}
	if _, err := s.SubmitCode(ctx, domain.PurposePasswordReset, email); !errors.Is(err, domain.ErrInvalidCode) {
		t.Fatalf("used code still live: %v", err)
	}
	// Five per rolling hour: three more fit, the sixth is refused.
	for i := 2; i <= 4; i++ {
		if _, err := issue(t0.Add(time.Duration(i)*2*time.Minute), nil); err != nil {
			t.Fatalf("send %d: %v", i+1, err)
		}
	}
	if _, err := issue(t0.Add(20*time.Minute), []byte("x")); !errors.Is(err, domain.ErrResendHourlyBase) {
		t.Fatalf("sixth send in the hour: %v", err)
	}
	if _, err := issue(t0.Add(61*time.Minute), []byte("x")); err != nil {
		t.Fatalf("after the hour: %v", err)
	}
	// Other purposes and e-mails have their own budget.
	if _, err := s.IssueCode(ctx, domain.NewCode{Purpose: domain.PurposeLogin, Email: email, HMAC: []byte("x")}, t0.Add(20*time.Minute)); err != nil {
		t.Fatal(err)
	}
}

func startSession(t *testing.T, s *postgres.Store, userID string, at time.Time) (domain.Family, string) {
	t.Helper()
	tok := domain.NewRefreshToken()
	f, err := s.StartSession(context.Background(), domain.NewSession{FamilyID: uuid.NewString(), UserID: userID,
		Provider: domain.ProviderPassword, TokenHash: domain.HashToken(tok), Now: at})
	if err != nil {
		t.Fatal(err)
	}
	return f, tok
}

func rotator(t *testing.T) domain.Rotator {
	r, err := domain.NewRotator([]byte(strings.Repeat("r", 32)))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Twenty concurrent refreshes with the same token within the grace period
// all succeed, and all get the same (current) child.
func TestTwentyConcurrentRefreshesWithinGrace(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := context.Background()
	u := createUser(t, s, "tabs", "tabs@example.com", true)
	fam, tok := startSession(t, s, u.ID, t0)
	rot := rotator(t)
	children := make([]string, 20)
	errs := make([]error, 20)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			var f domain.Family
			f, children[i], errs[i] = s.Refresh(ctx, tok, rot, t0.Add(time.Minute+time.Duration(i)*100*time.Millisecond))
			if errs[i] == nil && f.ID != fam.ID {
				errs[i] = errors.New("wrong family")
			}
		})
	}
	wg.Wait()
	for i := range 20 {
		if errs[i] != nil {
			t.Fatalf("refresh %d: %v", i, errs[i])
		}
		if children[i] != children[0] {
			t.Fatalf("refresh %d got another child", i)
		}
	}
	// The child rotates on; its parent, within grace, still answers the
	// current child; the grandparent is reuse and revokes the family.
	grandchild, err := refreshOK(t, s, children[0], rot, t0.Add(2*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	again, err := refreshOK(t, s, children[0], rot, t0.Add(2*time.Minute+5*time.Second))
	if err != nil || again != grandchild {
		t.Fatalf("parent within grace: %q %v", again, err)
	}
	if _, _, err := s.Refresh(ctx, tok, rot, t0.Add(2*time.Minute+6*time.Second)); !errors.Is(err, domain.ErrRefreshReused) {
		t.Fatalf("grandparent: %v", err)
	}
	if _, _, err := s.Refresh(ctx, grandchild, rot, t0.Add(2*time.Minute+7*time.Second)); !errors.Is(err, domain.ErrSessionRevoked) {
		t.Fatalf("active token of a revoked family: %v", err)
	}
}

func refreshOK(t *testing.T, s *postgres.Store, tok string, rot domain.Rotator, at time.Time) (string, error) {
	t.Helper()
	_, child, err := s.Refresh(context.Background(), tok, rot, at)
	return child, err
}

func TestRefreshReuseOutsideGraceRevokesFamily(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := context.Background()
	u := createUser(t, s, "thief", "thief@example.com", true)
	_, tok := startSession(t, s, u.ID, t0)
	other, otherTok := startSession(t, s, u.ID, t0)
	rot := rotator(t)
	child, err := refreshOK(t, s, tok, rot, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Refresh(ctx, tok, rot, t0.Add(time.Minute+domain.RefreshGrace)); !errors.Is(err, domain.ErrRefreshReused) {
		t.Fatalf("reuse at grace end: %v", err)
	}
	if _, _, err := s.Refresh(ctx, child, rot, t0.Add(2*time.Minute)); !errors.Is(err, domain.ErrSessionRevoked) {
		t.Fatalf("child after reuse: %v", err)
	}
	// Other families are untouched.
	if ok, err := s.FamilyActive(ctx, other.ID, t0.Add(2*time.Minute)); err != nil || !ok {
		t.Fatalf("other family: %v %v", ok, err)
	}
	if _, err := refreshOK(t, s, otherTok, rot, t0.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	// Unknown token, absolute lifetime, logout.
	if _, _, err := s.Refresh(ctx, domain.NewRefreshToken(), rot, t0); !errors.Is(err, domain.ErrRefreshInvalid) {
		t.Fatalf("unknown: %v", err)
	}
	_, old := startSession(t, s, u.ID, t0)
	if _, _, err := s.Refresh(ctx, old, rot, t0.Add(domain.FamilyLifetime)); !errors.Is(err, domain.ErrSessionExpired) {
		t.Fatalf("after 7 days: %v", err)
	}
	_, lo := startSession(t, s, u.ID, t0)
	if err := s.RevokeByToken(ctx, lo, t0); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Refresh(ctx, lo, rot, t0.Add(time.Second)); !errors.Is(err, domain.ErrSessionRevoked) {
		t.Fatalf("after logout: %v", err)
	}
}

func TestSetPasswordRevokesOtherFamilies(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := context.Background()
	u := createUser(t, s, "changer", "changer@example.com", true)
	keep, _ := startSession(t, s, u.ID, t0)
	drop, _ := startSession(t, s, u.ID, t0)
	if err := s.SetPassword(ctx, u.ID, "$new", keep.ID, 0, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	at := t0.Add(2 * time.Minute)
	if ok, _ := s.FamilyActive(ctx, keep.ID, at); !ok {
		t.Fatal("kept family revoked")
	}
	if ok, _ := s.FamilyActive(ctx, drop.ID, at); ok {
		t.Fatal("other family still active")
	}
	if err := s.SetPassword(ctx, u.ID, "$newer", "", 0, t0.Add(3*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.FamilyActive(ctx, keep.ID, at); ok {
		t.Fatal("reset kept a family")
	}
	got, _ := s.UserByID(ctx, u.ID)
	if got.PasswordHash != "$newer" || !got.PasswordChangedAt.Equal(t0.Add(3*time.Minute)) {
		t.Fatalf("user %+v", got)
	}
}

func TestLineStatesAndLinking(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := context.Background()
	st := domain.LineState{StateHash: domain.HashToken("state"), Nonce: "n", CodeVerifier: "v", RedirectTo: "/search",
		CreatedAt: t0, ExpiresAt: t0.Add(10 * time.Minute)}
	if err := s.SaveLineState(ctx, st); err != nil {
		t.Fatal(err)
	}
	got, err := s.TakeLineState(ctx, st.StateHash, t0.Add(time.Minute))
	if err != nil || got.Nonce != "n" || got.CodeVerifier != "v" || got.RedirectTo != "/search" || got.UserID != "" {
		t.Fatalf("TakeLineState = %+v, %v", got, err)
	}
	if _, err := s.TakeLineState(ctx, st.StateHash, t0.Add(time.Minute)); !errors.Is(err, domain.ErrLineStateInvalid) {
		t.Fatalf("second take: %v", err)
	}
	st.StateHash = domain.HashToken("late")
	_ = s.SaveLineState(ctx, st)
	if _, err := s.TakeLineState(ctx, st.StateHash, t0.Add(10*time.Minute)); !errors.Is(err, domain.ErrLineStateInvalid) {
		t.Fatalf("expired state: %v", err)
	}

	a := createUser(t, s, "alice", "alice@example.com", true)
	b := createUser(t, s, "bob", "bob@example.com", false)
	if _, err := s.LinkLine(ctx, a.ID, domain.LineIdentity{LineID: "U1", PictureURL: "https://profile.line-scdn.net/U1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.LinkLine(ctx, a.ID, domain.LineIdentity{LineID: "U1", PictureURL: "https://profile.line-scdn.net/U1"}); err != nil {
		t.Fatalf("relink same: %v", err)
	}
	if _, err := s.LinkLine(ctx, a.ID, domain.LineIdentity{LineID: "U2", PictureURL: "https://profile.line-scdn.net/U2"}); !errors.Is(err, domain.ErrUserHasOtherLine) {
		t.Fatalf("second LINE: %v", err)
	}
	if _, err := s.LinkLine(ctx, b.ID, domain.LineIdentity{LineID: "U1", PictureURL: "https://profile.line-scdn.net/U1"}); !errors.Is(err, domain.ErrLineLinkedOther) {
		t.Fatalf("LINE of another user: %v", err)
	}
	if u, err := s.UserByLineID(ctx, "U1"); err != nil || u.ID != a.ID || u.PictureURL != "https://profile.line-scdn.net/U1" {
		t.Fatalf("UserByLineID = %+v %v (the LINE picture fills an empty one)", u, err)
	}

	complete := func(email, line, link string) (domain.User, error) {
		h := hasher(t)
		req := domain.LinkRequest{TokenHash: domain.HashToken(link), Identity: domain.LineIdentity{LineID: line, Name: "LINE name"}, ExpiresAt: t0.Add(time.Hour)}
		if err := s.SaveLinkRequest(ctx, req); err != nil {
			t.Fatal(err)
		}
		if _, err := s.LinkRequest(ctx, req.TokenHash, t0); err != nil {
			t.Fatal(err)
		}
		c, err := s.IssueCode(ctx, domain.NewCode{Purpose: domain.PurposeLineLink, Email: email, HMAC: h.Sum(domain.PurposeLineLink, email, "", "1")}, t0)
		if err != nil {
			t.Fatal(err)
		}
		u, fam, err := s.CompleteLineLink(ctx, domain.LineLinkCompletion{
			CodeID: c.ID, LinkHash: req.TokenHash, Email: email, Identity: req.Identity,
			NewUser:    domain.User{ID: uuid.NewString(), Username: "new-" + line, Email: email, Active: true, CreatedAt: t0, VerifiedAt: t0},
			Session:    domain.NewSession{FamilyID: uuid.NewString(), Provider: domain.ProviderLine, TokenHash: domain.HashToken(link + "r"), Now: t0},
			Registered: domain.UserRegistered{EventID: uuid.NewString(), OccurredAt: t0},
			Verified:   domain.UserVerified{EventID: uuid.NewString(), OccurredAt: t0},
		})
		if err == nil && (fam.UserID != u.ID || fam.Provider != domain.ProviderLine) {
			t.Fatalf("family %+v for user %s", fam, u.ID)
		}
		return u, err
	}
	// Existing inactive account: linked and activated.
	u, err := complete("bob@example.com", "U3", "link-b")
	if err != nil || u.ID != b.ID || u.LineID != "U3" || !u.Active {
		t.Fatalf("link to bob: %+v %v", u, err)
	}
	// No account: a new active one.
	u, err = complete("carol@example.com", "U4", "link-c")
	if err != nil || u.Username != "new-U4" || u.LineID != "U4" || !u.Active || u.PasswordHash != "" {
		t.Fatalf("new account: %+v %v", u, err)
	}
	if _, err := s.LinkRequest(ctx, domain.HashToken("link-c"), t0); !errors.Is(err, domain.ErrLinkTokenInvalid) {
		t.Fatalf("link request not consumed: %v", err)
	}
	// Account already linked to another LINE: refused, nothing consumed.
	if _, err := complete("alice@example.com", "U5", "link-a"); !errors.Is(err, domain.ErrUserHasOtherLine) {
		t.Fatalf("alice: %v", err)
	}
	if _, err := s.LinkRequest(ctx, domain.HashToken("link-a"), t0); err != nil {
		t.Fatalf("failed link consumed its request: %v", err)
	}
}

func TestDevelopmentKeysPersist(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	seeds := make([][]byte, 5)
	for i := range seeds {
		wg.Go(func() {
			var err error
			if seeds[i], err = s.SigningSeed(ctx); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for _, sd := range seeds {
		if len(sd) != 32 || string(sd) != string(seeds[0]) {
			t.Fatal("signing seeds differ")
		}
	}
	a, err := s.ServerSecret(ctx, "otp", 32)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.ServerSecret(ctx, "otp", 32)
	if len(a) != 32 || string(a) != string(b) {
		t.Fatal("server secret not persistent")
	}
	if err := s.Cleanup(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
}

// A confirmed e-mail change publishes auth.v1.user.email_changed with the
// new address in the same transaction; a change that fails (the address
// was taken meanwhile) publishes nothing and keeps the code.
func TestSetEmailPublishesTheChange(t *testing.T) {
	t.Parallel()
	s, pool := newStore(t)
	ctx := context.Background()
	u := createUser(t, s, "mover", "mover@example.com", true)
	createUser(t, s, "holder", "holder@example.com", true)
	if _, err := pool.Exec(ctx, `DELETE FROM outbox`); err != nil {
		t.Fatal(err)
	}
	code := func(email string) int64 {
		c, err := s.IssueCode(ctx, domain.NewCode{Purpose: domain.PurposeEmailChange, Email: email, HMAC: []byte("x")}, t0)
		if err != nil {
			t.Fatal(err)
		}
		return c.ID
	}
	at := t0.Add(time.Hour)
	taken := code("holder@example.com")
	session := func() domain.NewSession {
		return domain.NewSession{FamilyID: uuid.NewString(), UserID: u.ID, Provider: domain.ProviderPassword, TokenHash: []byte(uuid.NewString()), Now: at}
	}
	if _, _, err := s.SetEmail(ctx, u.ID, "holder@example.com", taken, domain.UserEmailChanged{EventID: uuid.NewString(), OccurredAt: at, UserID: u.ID, Email: "holder@example.com"}, session()); !errors.Is(err, domain.ErrEmailTaken) {
		t.Fatalf("taken address: %v", err)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM outbox`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("a failed change published %d events (%v)", n, err)
	}

	ev := domain.UserEmailChanged{EventID: uuid.NewString(), OccurredAt: at, UserID: u.ID, Email: "new@example.com"}
	got, fam, err := s.SetEmail(ctx, u.ID, "new@example.com", code("new@example.com"), ev, session())
	if err != nil || got.Email != "new@example.com" || fam.UserID != u.ID {
		t.Fatalf("SetEmail = %+v, %+v, %v", got, fam, err)
	}
	var subject, id string
	var payload []byte
	if err := pool.QueryRow(ctx, `SELECT subject, event_id, payload FROM outbox`).Scan(&subject, &id, &payload); err != nil {
		t.Fatal(err)
	}
	var msg authv1.UserEmailChanged
	want, _ := events.SubjectOf(&authv1.UserEmailChanged{})
	if err := proto.Unmarshal(payload, &msg); err != nil || subject != want ||
		id != ev.EventID || msg.GetEventId() != ev.EventID || msg.GetUserId() != u.ID || msg.GetEmail() != "new@example.com" ||
		!msg.GetOccurredAt().AsTime().Equal(at) {
		t.Fatalf("event %s %s %+v %v", subject, id, &msg, err)
	}
}
