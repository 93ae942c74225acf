package domain_test

import (
	"testing"
	"time"

	"bidradar/services/projects/internal/domain"
)

func TestDeadlinesDue(t *testing.T) {
	for _, c := range []struct {
		name string
		now  time.Time
		day  string
		due  bool
	}{
		{"before 08:00 Bangkok", time.Date(2026, 11, 25, 0, 59, 0, 0, time.UTC), "2026-11-26", false},
		{"08:00 Bangkok", time.Date(2026, 11, 25, 1, 0, 0, 0, time.UTC), "2026-11-26", true},
		{"late evening", time.Date(2026, 11, 25, 16, 59, 0, 0, time.UTC), "2026-11-26", true},
		{"the Bangkok day turned, UTC not", time.Date(2026, 11, 25, 17, 30, 0, 0, time.UTC), "2026-11-27", false},
		{"end of month", time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC), "2026-12-01", true},
		{"end of year", time.Date(2026, 12, 31, 3, 0, 0, 0, time.UTC), "2027-01-01", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			day, due := domain.DeadlinesDue(c.now)
			if day.Format(time.DateOnly) != c.day || due != c.due {
				t.Fatalf("DeadlinesDue(%s) = %s %v, want %s %v", c.now, day.Format(time.DateOnly), due, c.day, c.due)
			}
		})
	}
	d := domain.Deadline{ProjectID: "69000000001", Kind: domain.DeadlineSubmission, Day: time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)}
	e := d
	e.Kind = domain.DeadlineHearing
	id, again := domain.DeadlineEventID(d), domain.DeadlineEventID(d)
	if id != again || id == domain.DeadlineEventID(e) {
		t.Fatal("deadline event ids: not one per project, kind and date")
	}
}
