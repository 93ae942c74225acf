package domain_test

import (
	"testing"
	"time"

	"bidradar/services/subscription/internal/domain"
)

// A failed provider cancel waits 1 min, 5 min, 30 min, 2 h, then 6 h for
// ever.
func TestCancelRetryAfter(t *testing.T) {
	want := []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 6 * time.Hour, 6 * time.Hour}
	for i, w := range want {
		if got := domain.CancelRetryAfter(i + 1); got != w {
			t.Errorf("after attempt %d: %s, want %s", i+1, got, w)
		}
	}
	if got := domain.CancelRetryAfter(1000); got != 6*time.Hour {
		t.Errorf("after attempt 1000: %s", got)
	}
}
