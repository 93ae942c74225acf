package authn_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"bidradar/pkg/access"
	"bidradar/pkg/authn"
)

// TestTeamKeyTokens: the gateway's token for a team API key's call verifies
// only for its audience and minute, and is never taken for a service token
// (nor a service token for it).
func TestTeamKeyTokens(t *testing.T) {
	t.Parallel()
	key, err := authn.NewServiceKey([]byte(strings.Repeat("k", 32)))
	if err != nil {
		t.Fatal(err)
	}
	other, _ := authn.NewServiceKey([]byte(strings.Repeat("o", 32)))
	now := time.Now()
	k := authn.TeamKey{KeyID: "key-1", TeamID: "team-1", Scopes: []string{"read"}}
	tok, err := key.SignTeamKey(k, "teams.v1.TeamsService", now)
	if err != nil {
		t.Fatal(err)
	}
	got, err := key.VerifyTeamKey(tok, "teams.v1.TeamsService", now.Add(30*time.Second))
	if err != nil || got.KeyID != "key-1" || got.TeamID != "team-1" || len(got.Scopes) != 1 {
		t.Fatalf("verify: %+v %v", got, err)
	}
	if _, err := key.VerifyTeamKey(tok, "projects.v1.ProjectsService", now); err == nil {
		t.Fatal("a token for teams accepted by projects")
	}
	if _, err := other.VerifyTeamKey(tok, "teams.v1.TeamsService", now); err == nil {
		t.Fatal("a token under another key accepted")
	}
	if _, err := key.VerifyTeamKey(tok, "teams.v1.TeamsService", now.Add(authn.ServiceTokenTTL+authn.DefaultLeeway)); !errors.Is(err, authn.ErrTokenExpired) {
		t.Fatalf("expired: %v", err)
	}
	if _, err := key.Verify(tok, "teams.v1.TeamsService", now); err == nil {
		t.Fatal("a team key token taken for a service token")
	}
	svc, _ := key.Sign("gateway", "teams.v1.TeamsService", now)
	if _, err := key.VerifyTeamKey(svc, "teams.v1.TeamsService", now); err == nil {
		t.Fatal("a service token taken for a team key token")
	}
	parts := strings.Split(tok, ".")
	if _, err := key.VerifyTeamKey(parts[0]+"."+parts[1]+"x."+parts[2], "teams.v1.TeamsService", now); err == nil {
		t.Fatal("a changed payload accepted")
	}
	if _, err := key.SignTeamKey(authn.TeamKey{KeyID: "k"}, "teams.v1.TeamsService", now); err == nil {
		t.Fatal("a token without a team signed")
	}
}

func TestTeamKeyScopes(t *testing.T) {
	t.Parallel()
	read := authn.TeamKey{Scopes: []string{"read"}}
	write := authn.TeamKey{Scopes: []string{"read", "write"}}
	none := authn.TeamKey{}
	for _, c := range []struct {
		k    authn.TeamKey
		need access.TeamKeyScope
		want bool
	}{
		{read, access.KeyRead, true}, {read, access.KeyWrite, false}, {read, access.KeyRefused, false},
		{write, access.KeyRead, true}, {write, access.KeyWrite, true}, {write, access.KeyRefused, false},
		{none, access.KeyRead, false}, {none, access.KeyWrite, false},
	} {
		if got := c.k.Allows(c.need); got != c.want {
			t.Errorf("%v allows %v = %v, want %v", c.k.Scopes, c.need, got, c.want)
		}
	}
}
