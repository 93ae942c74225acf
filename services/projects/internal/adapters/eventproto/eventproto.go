// Package eventproto encodes domain events as the protobuf messages of
// proto/projects/v1/events.proto, on subjects projects.v1.<entity>.<event>.
package eventproto

import (
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/services/projects/internal/domain"
)

// Encoder implements domain.EventEncoder.
type Encoder struct{}

// Subjects of the events.
const (
	SubjectProjectCreated    = "projects.v1.project.created"
	SubjectProjectUpdated    = "projects.v1.project.updated"
	SubjectAnnouncementAdded = "projects.v1.announcement.added"
	SubjectCriteriaMatched   = "projects.v1.criteria.matched"
	SubjectProjectMatched    = "projects.v1.project.matched"
	SubjectDeadline          = "projects.v1.deadline.approaching"
)

// Encode implements domain.EventEncoder.
func (Encoder) Encode(e domain.Event) (string, []byte, error) {
	at := timestamppb.New(e.At)
	var msg proto.Message
	var subject string
	switch e.Kind {
	case domain.EventProjectCreated:
		subject = SubjectProjectCreated
		msg = &projectsv1.ProjectCreated{EventId: e.ID, OccurredAt: at, ProjectId: e.Project.ID,
			ProjectName: e.Project.Name, Status: string(e.Project.Status), Source: e.Project.Source}
	case domain.EventProjectUpdated:
		subject = SubjectProjectUpdated
		msg = &projectsv1.ProjectUpdated{EventId: e.ID, OccurredAt: at, ProjectId: e.Project.ID,
			ProjectName: e.Project.Name, Status: string(e.Project.Status)}
	case domain.EventAnnouncementAdded:
		subject = SubjectAnnouncementAdded
		a := e.Announcement
		msg = &projectsv1.AnnouncementAdded{EventId: e.ID, OccurredAt: at, ProjectId: e.Project.ID,
			ProjectName: e.Project.Name, TypeCode: string(a.Type), TypeName: a.Name,
			Date: a.Date.In(domain.Bangkok).Format(time.DateOnly), Link: a.Link}
	case domain.EventCriteriaMatched:
		subject = SubjectCriteriaMatched
		if d := e.Digest; d != nil {
			ev := &projectsv1.CriteriaMatched{EventId: e.ID, OccurredAt: at, UserId: d.Criteria.UserID,
				CriteriaId: d.Criteria.ID, CriteriaName: d.Criteria.Name, RunKey: d.Day.Format(time.DateOnly),
				ProjectCount: int32(len(d.Projects))}
			for _, p := range d.Projects[:min(len(d.Projects), domain.DigestNames)] {
				ev.ProjectIds = append(ev.ProjectIds, p.ID)
				ev.Projects = append(ev.Projects, matchedProject(p.ID, p.Name, p.Agency, p.Budget))
			}
			msg = ev
			break
		}
		return "", nil, fmt.Errorf("criteria.matched without a digest")
	case domain.EventProjectMatched:
		subject = SubjectProjectMatched
		m := e.Matched
		keys := make([]byte, 0, 16*len(m.Keys))
		for _, k := range m.Keys {
			keys = append(keys, k[:]...)
		}
		// The searches as their keys only: owners and names were most of
		// a bulk import's alert bytes, and the consumer looks them up.
		msg = &projectsv1.ProjectMatched{EventId: e.ID, OccurredAt: at, CriteriaKeys: keys, CriteriaVersion: m.AsOf,
			Project: matchedProject(m.Project.ID, m.Project.Name, m.Project.AgencyName, m.Project.Budget)}
	case domain.EventDeadlineApproaching:
		subject = SubjectDeadline
		d := e.Deadline
		msg = &projectsv1.DeadlineApproaching{EventId: e.ID, OccurredAt: at, ProjectId: d.ProjectID,
			ProjectName: d.ProjectName, Kind: d.Kind, Date: d.Day.Format(time.DateOnly)}
	default:
		return "", nil, fmt.Errorf("unknown event kind %q", e.Kind)
	}
	b, err := proto.Marshal(msg)
	return subject, b, err
}

// matchedProject is a project as an alert names it.
func matchedProject(id, name, agency string, budget *domain.Money) *projectsv1.MatchedProject {
	mp := &projectsv1.MatchedProject{ProjectId: id, ProjectName: name, AgencyName: agency}
	if budget != nil {
		v := int64(*budget)
		mp.BudgetSatang = &v
	}
	return mp
}
