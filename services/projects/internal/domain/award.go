package domain

import (
	"fmt"
	"time"
)

// EventAwardRecorded is the event of a project whose award (prices,
// winner, contract) an import wrote for the first time or changed, for the
// market service (docs/architecture.md#market-bid-intelligence).
const EventAwardRecorded = "award.recorded"

// HasAward reports whether p carries an award: an agreed price or a winner.
func (p *Project) HasAward() bool {
	return p != nil && (p.AgreedPrice != nil || p.WinnerName != "" || p.WinnerTaxID != "")
}

// AwardKey is what the award event of p carries: two versions of a project
// with the same key publish one event, so a replayed import tells nothing.
func (p *Project) AwardKey() string {
	if !p.HasAward() {
		return ""
	}
	m := func(v *Money) string {
		if v == nil {
			return "-"
		}
		return fmt.Sprint(int64(*v))
	}
	d := func(t *time.Time) string {
		if t == nil {
			return "-"
		}
		return t.Format(time.DateOnly)
	}
	return fmt.Sprintf("%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%t|%s|%s|%s|%d|%s",
		p.Name, p.AgencyCode, p.AgencyName, p.SubAgencyCode, p.SubAgencyName, p.ProvinceCode,
		p.MethodCode, p.WorkTypeCode, m(p.Budget), m(p.ReferencePrice), m(p.AgreedPrice),
		p.WinnerName, p.WinnerTaxID, p.ContractNo, p.WinnerTaxIDBad, m(p.ContractValue), d(p.ContractSigned),
		p.AwardDate().Format(time.DateOnly), p.BudgetYear, p.MinistryCode)
}

// AwardDate is the date of p's award: its winner announcement (W0, else W2),
// else its contract, else its latest step.
func (p *Project) AwardDate() time.Time {
	var w2 time.Time
	for _, a := range p.Announcements {
		switch a.Type {
		case AnnWinner:
			return a.Date
		case "W2":
			if w2.IsZero() {
				w2 = a.Date
			}
		}
	}
	if !w2.IsZero() {
		return w2
	}
	if p.ContractSigned != nil {
		return *p.ContractSigned
	}
	return p.LastAnnounced
}

// AwardChanged reports whether writing next over cur (nil: a new project)
// records a new or changed award.
func AwardChanged(cur, next *Project) bool {
	if !next.HasAward() {
		return false
	}
	return cur == nil || cur.AwardKey() != next.AwardKey()
}
