package authn_test

import (
	"testing"

	"bidradar/pkg/authn"
)

func TestAdmins(t *testing.T) {
	a := authn.ParseAdmins(" Ops@BidRadar.co.th, @admin.example ,,")
	for email, want := range map[string]bool{
		"ops@bidradar.co.th":       true,
		"OPS@bidradar.co.th":       true,
		"someone@admin.example":    true,
		"someone@notadmin.example": false,
		"admin.example@evil.test":  false,
		"":                         false,
		"other@bidradar.co.th":     false,
	} {
		if got := a.Allows(email); got != want {
			t.Errorf("Allows(%q) = %v, want %v", email, got, want)
		}
	}
	if authn.ParseAdmins("").Allows("x@y.z") {
		t.Fatal("empty ADMIN_EMAILS admits someone")
	}
}
