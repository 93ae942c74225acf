package ports

import (
	"testing"
	"time"

	"bidradar/services/projects/internal/domain"
)

// A list row carries the deadlines as Bangkok dates (the calendar export and
// the reminders read them); a project without them carries none.
func TestSummaryDeadlines(t *testing.T) {
	// 17:30 UTC is already the next day in Bangkok.
	sub := time.Date(2026, 12, 14, 17, 30, 0, 0, time.UTC)
	hear := time.Date(2026, 12, 3, 0, 0, 0, 0, domain.Bangkok)
	s := summary(&domain.Project{ID: "69120000001", SubmissionDue: &sub, HearingDue: &hear}, nil)
	if s.SubmissionDue != "2026-12-15" || s.HearingDue != "2026-12-03" {
		t.Fatalf("deadlines %q %q", s.SubmissionDue, s.HearingDue)
	}
	if s := summary(&domain.Project{ID: "69120000002"}, nil); s.SubmissionDue != "" || s.HearingDue != "" {
		t.Fatalf("no deadlines: %q %q", s.SubmissionDue, s.HearingDue)
	}
}
