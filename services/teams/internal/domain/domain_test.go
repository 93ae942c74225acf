package domain_test

import (
	"strings"
	"testing"
	"time"

	"bidradar/services/teams/internal/domain"
)

// TestPermissionTable checks every role × action pair of
// docs/product.md#teams against the table written out here, so a change to
// either is a deliberate change to both.
func TestPermissionTable(t *testing.T) {
	want := map[domain.Role]map[domain.Action]bool{
		domain.Owner: {domain.ActRead: true, domain.ActWritePipeline: true, domain.ActComment: true, domain.ActInvite: true,
			domain.ActManageMembers: true, domain.ActLeave: true, domain.ActManageKeys: true, domain.ActManageCalendar: true, domain.ActGrantOwner: true},
		domain.Admin: {domain.ActRead: true, domain.ActWritePipeline: true, domain.ActComment: true, domain.ActInvite: true,
			domain.ActManageMembers: true, domain.ActLeave: true, domain.ActManageKeys: true, domain.ActManageCalendar: true, domain.ActGrantOwner: false},
		domain.Member: {domain.ActRead: true, domain.ActWritePipeline: true, domain.ActComment: true, domain.ActInvite: false,
			domain.ActManageMembers: false, domain.ActLeave: true, domain.ActManageKeys: false, domain.ActManageCalendar: false, domain.ActGrantOwner: false},
		domain.Viewer: {domain.ActRead: true, domain.ActWritePipeline: false, domain.ActComment: false, domain.ActInvite: false,
			domain.ActManageMembers: false, domain.ActLeave: true, domain.ActManageKeys: false, domain.ActManageCalendar: false, domain.ActGrantOwner: false},
	}
	if len(want) != len(domain.Roles) {
		t.Fatalf("the table covers %d roles, the domain has %d", len(want), len(domain.Roles))
	}
	for _, r := range domain.Roles {
		if len(want[r]) != len(domain.Actions) {
			t.Fatalf("role %s: the table covers %d actions, the domain has %d", r, len(want[r]), len(domain.Actions))
		}
		for _, a := range domain.Actions {
			if got := domain.Can(r, a); got != want[r][a] {
				t.Errorf("Can(%s, %s) = %v, want %v", r, a, got, want[r][a])
			}
		}
	}
	if domain.Can("stranger", domain.ActRead) || domain.Can("", domain.ActRead) {
		t.Error("an unknown role may read")
	}
}

// TestKeyScopes: a key reads with read or write, writes and comments with
// write, and does nothing else whatever its scopes.
func TestKeyScopes(t *testing.T) {
	for _, a := range domain.Actions {
		for _, sc := range [][]string{nil, {"read"}, {"write"}, {"read", "write"}} {
			got := domain.KeyAllows(sc, a)
			want := false
			switch a {
			case domain.ActRead:
				want = len(sc) > 0
			case domain.ActWritePipeline, domain.ActComment:
				want = len(sc) > 0 && sc[len(sc)-1] == "write"
			}
			if got != want {
				t.Errorf("KeyAllows(%v, %s) = %v, want %v", sc, a, got, want)
			}
		}
	}
	if _, err := domain.NormScopes([]string{"admin"}); err == nil {
		t.Error("scope admin accepted")
	}
	if s, err := domain.NormScopes([]string{"write", "read", "read"}); err != nil || len(s) != 2 || s[0] != "read" {
		t.Errorf("NormScopes: %v %v", s, err)
	}
}

func TestParseBaht(t *testing.T) {
	for in, want := range map[string]int64{"1": 100, "0.01": 1, "1234567.89": 123456789, "100.5": 10050, " 42.00 ": 4200, "9999999999999.99": 999999999999999} {
		if got, err := domain.ParseBaht(in); err != nil || got != want {
			t.Errorf("ParseBaht(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "0.00", "-1", "1.234", "abc", "1e5", "1,000", ".5", "1.", "NaN", "99999999999999"} {
		if _, err := domain.ParseBaht(in); err == nil {
			t.Errorf("ParseBaht(%q) accepted", in)
		}
	}
	if got := domain.FormatBaht(10050); got != "100.50" {
		t.Errorf("FormatBaht = %s", got)
	}
}

func TestMentions(t *testing.T) {
	got := domain.Mentions("@Carol ดูหน่อย @bob, @carol และ email a@b.com @dave.")
	want := []string{"carol", "bob", "dave"}
	if len(got) != len(want) {
		t.Fatalf("Mentions = %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Mentions = %v, want %v", got, want)
		}
	}
}

func TestApply(t *testing.T) {
	stage, note := "won", "ok"
	price := int64(500)
	pp := &price
	n, cs := domain.Apply(domain.Item{}, true, domain.Patch{Note: &note})
	if n.Stage != "triage" || len(cs) != 3 || cs[0].Field != "item" || cs[1].Field != "stage" || cs[2].Field != "note" {
		t.Fatalf("new item: %+v %+v", n, cs)
	}
	n2, cs := domain.Apply(n, false, domain.Patch{Stage: &stage, Note: &note, BidSatang: &pp})
	if n2.Stage != "won" || len(cs) != 2 || cs[0] != (domain.Change{Field: "stage", From: "triage", To: "won"}) ||
		cs[1] != (domain.Change{Field: "bid_price", From: "", To: "5.00"}) {
		t.Fatalf("changes: %+v", cs)
	}
	var none *time.Time
	if _, cs := domain.Apply(n2, false, domain.Patch{DueDate: &none}); len(cs) != 0 {
		t.Fatalf("clearing an empty due date: %+v", cs)
	}
}

func TestCodeHash(t *testing.T) {
	h := domain.CodeHash("id-1", "123456")
	if !domain.CodeMatches("id-1", "123456", h) || domain.CodeMatches("id-2", "123456", h) || domain.CodeMatches("id-1", "123457", h) {
		t.Fatal("code hash")
	}
}

func TestCleanName(t *testing.T) {
	if n, err := domain.CleanName("  ทีมประมูล  "); err != nil || n != "ทีมประมูล" {
		t.Fatalf("CleanName: %q %v", n, err)
	}
	for _, bad := range []string{"", "   ", "a\r\nBcc: x@example.com", "tab\there", strings.Repeat("ก", 101)} {
		if _, err := domain.CleanName(bad); err == nil {
			t.Errorf("CleanName(%q) accepted", bad)
		}
	}
}
