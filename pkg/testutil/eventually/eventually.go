// Package eventually waits in tests for a condition that another goroutine
// or process brings about, instead of sleeping and hoping it happened.
package eventually

import (
	"testing"
	"time"
)

// poll is how often the condition is asked again.
const poll = 10 * time.Millisecond

// True waits until cond holds, failing the test with what when it still
// does not after within.
func True(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", within, what)
		}
		time.Sleep(poll)
	}
}
