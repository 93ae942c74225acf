// Package eventproto encodes domain events as the protobuf messages of
// proto/projects/v1/events.proto (each declares its subject: the outbox
// takes it from there).
package eventproto

import (
	"fmt"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/pkg/outbox"
	"bidradar/services/projects/internal/domain"
)

// Encoder implements postgres.Encoder.
type Encoder struct{}

// Encode returns the event message of e.
func (Encoder) Encode(e domain.Event) (outbox.ProtoEvent, error) {
	at := timestamppb.New(e.At)
	var msg outbox.ProtoEvent
	switch e.Kind {
	case domain.EventProjectCreated:
		msg = &projectsv1.ProjectCreated{EventId: e.ID, OccurredAt: at, ProjectId: e.Project.ID,
			ProjectName: e.Project.Name, Status: string(e.Project.Status), Source: e.Project.Source}
	case domain.EventProjectUpdated:
		msg = &projectsv1.ProjectUpdated{EventId: e.ID, OccurredAt: at, ProjectId: e.Project.ID,
			ProjectName: e.Project.Name, Status: string(e.Project.Status)}
	case domain.EventAnnouncementAdded:
		a := e.Announcement
		msg = &projectsv1.AnnouncementAdded{EventId: e.ID, OccurredAt: at, ProjectId: e.Project.ID,
			ProjectName: e.Project.Name, TypeCode: string(a.Type), TypeName: a.Name,
			Date: a.Date.In(domain.Bangkok).Format(time.DateOnly), Link: a.Link}
	case domain.EventAwardRecorded:
		msg = awardRecorded(e, at)
	case domain.EventAwardWithdrawn:
		msg = awardWithdrawn(e, at)
	case domain.EventCriteriaMatched:
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
		return nil, fmt.Errorf("criteria.matched without a digest")
	case domain.EventProjectMatched:
		m := e.Matched
		keys := make([]byte, 0, 16*len(m.Keys))
		for _, k := range m.Keys {
			keys = append(keys, k[:]...)
		}
		// The searches as their keys only: owners and names were most of
		// a bulk import's alert bytes, and the consumer looks them up.
		msg = &projectsv1.ProjectMatched{EventId: e.ID, OccurredAt: at, CriteriaKeys: keys, CriteriaVersion: m.AsOf,
			Project: matchedProject(m.Project.ID, m.Project.Name, m.Project.AgencyName, m.Project.Budget)}
	case domain.EventImportMatched:
		m := e.Import
		ev := &projectsv1.ImportMatched{EventId: e.ID, OccurredAt: at, ImportId: m.ImportID, Users: make([]*projectsv1.ImportUser, len(m.Users))}
		for i, u := range m.Users {
			ev.Users[i] = &projectsv1.ImportUser{UserId: u.UserID, ProjectIds: u.ProjectIDs}
		}
		for _, p := range m.Projects {
			ev.Projects = append(ev.Projects, matchedProject(p.ID, p.Name, p.AgencyName, p.Budget))
		}
		msg = ev
	case domain.EventDeadlineApproaching:
		d := e.Deadline
		msg = &projectsv1.DeadlineApproaching{EventId: e.ID, OccurredAt: at, ProjectId: d.ProjectID,
			ProjectName: d.ProjectName, Kind: d.Kind, Date: d.Day.Format(time.DateOnly)}
	default:
		return nil, fmt.Errorf("unknown event kind %q", e.Kind)
	}
	return msg, nil
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

// awardRecorded is the whole award of e's project, money in satang (0: not published).
func awardRecorded(e domain.Event, at *timestamppb.Timestamp) *projectsv1.AwardRecorded {
	p := e.Project
	sat := func(m *domain.Money) int64 {
		if m == nil {
			return 0
		}
		return int64(*m)
	}
	ev := &projectsv1.AwardRecorded{EventId: e.ID, OccurredAt: at, ProjectId: p.ID, ProjectName: p.Name,
		DeptCode: p.AgencyCode, DeptName: p.AgencyName, DeptSubCode: p.SubAgencyCode, DeptSubName: p.SubAgencyName,
		MinistryCode: p.MinistryCode, MinistryName: p.MinistryName, ProvinceCode: p.ProvinceCode,
		MethodCode: p.MethodCode, MethodName: p.MethodName,
		TypeCode: p.WorkTypeCode, TypeName: p.WorkTypeName,
		BudgetYear: int32(p.BudgetYear), BudgetSatang: sat(p.Budget), ReferencePriceSatang: sat(p.ReferencePrice),
		AgreedPriceSatang: sat(p.AgreedPrice), Source: p.Source}
	if d := p.AwardDate(); !d.IsZero() {
		ev.AnnounceDate = d.In(domain.Bangkok).Format(time.DateOnly)
	}
	if e.RunID != 0 {
		ev.RunId = fmt.Sprint(e.RunID)
	}
	if p.WinnerName != "" || p.WinnerTaxID != "" {
		ev.Winners = []*projectsv1.AwardWinner{{Name: p.WinnerName, TaxId: p.WinnerTaxID, TaxIdDamaged: p.WinnerTaxIDBad,
			ContractNo: p.ContractNo, ContractPriceSatang: sat(p.ContractValue)}}
	}
	return ev
}

// awardWithdrawn names e's project whose award a cancelled winner
// announcement (W1) withdrew, with the date of that step.
func awardWithdrawn(e domain.Event, at *timestamppb.Timestamp) *projectsv1.AwardWithdrawn {
	p := e.Project
	ev := &projectsv1.AwardWithdrawn{EventId: e.ID, OccurredAt: at, ProjectId: p.ID, ProjectName: p.Name}
	for _, a := range p.Announcements {
		if a.Type == domain.AnnWinnerCancelled {
			ev.CancelledDate = a.Date.In(domain.Bangkok).Format(time.DateOnly)
		}
	}
	if e.RunID != 0 {
		ev.RunId = fmt.Sprint(e.RunID)
	}
	return ev
}
