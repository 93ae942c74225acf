package authn

import (
	"strings"

	"bidradar/pkg/apperr"
)

// Admins are the accounts allowed to call admin procedures, from ADMIN_EMAILS:
// comma-separated e-mails, or "@domain" for every address of a domain.
type Admins struct {
	emails  map[string]bool
	domains []string
}

// ParseAdmins reads an ADMIN_EMAILS value. An empty value admits nobody.
func ParseAdmins(s string) Admins {
	a := Admins{emails: map[string]bool{}}
	for _, e := range strings.Split(s, ",") {
		e = strings.ToLower(strings.TrimSpace(e))
		switch {
		case e == "":
		case strings.HasPrefix(e, "@"):
			a.domains = append(a.domains, e)
		default:
			a.emails[e] = true
		}
	}
	return a
}

// Allows reports whether email belongs to an admin.
func (a Admins) Allows(email string) bool {
	email = strings.ToLower(strings.TrimSpace(email))
	if email == "" {
		return false
	}
	if a.emails[email] {
		return true
	}
	for _, d := range a.domains {
		if strings.HasSuffix(email, d) {
			return true
		}
	}
	return false
}

// ErrAdminOnly answers a signed-in user who is not an admin.
var ErrAdminOnly = apperr.New(apperr.PermissionDenied, "admin-only", "Admin access required")
