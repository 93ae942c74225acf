package domain

import "time"

// EventDeadlineApproaching is the reminder, the day before, of a project's
// bid submission or price-hearing date.
const EventDeadlineApproaching = "deadline.approaching"

// Deadline kinds.
const (
	DeadlineSubmission = "submission" // the last day to submit bids
	DeadlineHearing    = "hearing"    // the last day of the price / draft hearing
)

// DeadlineHour is when, the day before (Asia/Bangkok), reminders go out.
const DeadlineHour = 8

// Deadline is one project's deadline of one kind.
type Deadline struct {
	ProjectID, ProjectName, Kind string
	Day                          time.Time // the Bangkok date (midnight UTC, as a date column reads back)
}

// DeadlinesDue is the date whose deadlines are reminded at now (tomorrow
// in Bangkok) and whether the hour of reminders has come.
func DeadlinesDue(now time.Time) (day time.Time, due bool) {
	l := now.In(Bangkok)
	return time.Date(l.Year(), l.Month(), l.Day()+1, 0, 0, 0, 0, time.UTC), l.Hour() >= DeadlineHour
}

// DeadlineEventID is the reminder's event id, the same however often it is
// written (project, kind and date).
func DeadlineEventID(d Deadline) string {
	return nameID("deadline:" + d.ProjectID + ":" + d.Kind + ":" + d.Day.Format(time.DateOnly))
}
