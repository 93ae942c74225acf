package hub_test

import (
	"testing"
	"time"

	"bidradar/pkg/authn"
	"bidradar/services/realtime/internal/hub"
)

// FuzzFirstMessage: whatever a socket sends first, reading its token never
// panics, and no token that fails verification is accepted.
func FuzzFirstMessage(f *testing.F) {
	for _, s := range []string{`{"type":"auth","token":"a.b.c"}`, "Bearer a.b.c", `{"token":12}`, `{"type":"auth"}`, "\x00\xff", `{"token":"` + "x" + `"`} {
		f.Add([]byte(s))
	}
	v := authn.NewVerifier(authn.StaticKeys{})
	f.Fuzz(func(t *testing.T, data []byte) {
		tok := hub.TokenOf(data)
		if _, err := v.Verify(tok, time.Now()); err == nil {
			t.Fatalf("%q verified without keys", data)
		}
	})
}
