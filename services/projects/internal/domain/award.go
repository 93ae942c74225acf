package domain

import (
	"fmt"
	"time"
)

// EventAwardRecorded is the event of a project whose award (prices,
// winner, contract) an import wrote for the first time or changed, for the
// market service (docs/architecture.md#market-bid-intelligence).
const EventAwardRecorded = "award.recorded"

// EventAwardWithdrawn is the event of a project whose published award was
// withdrawn by a cancelled winner announcement (W1) recorded after it
// (docs/market.md#withdrawn-awards).
const EventAwardWithdrawn = "award.withdrawn"

// HasAward reports whether p carries an award: an agreed price or a winner.
func (p *Project) HasAward() bool {
	return p != nil && (p.AgreedPrice != nil || p.WinnerName != "" || p.WinnerTaxID != "")
}

// lastWinnerStep is p's latest winner step (W0, W1 or W2) in step order, nil without one.
func (p *Project) lastWinnerStep() *Announcement {
	var last *Announcement
	for i := range p.Announcements {
		switch p.Announcements[i].Type {
		case AnnWinner, AnnWinnerCancelled, AnnWinnerChanged:
			last = &p.Announcements[i]
		}
	}
	return last
}

// AwardWithdrawn reports whether p's award is withdrawn: p carries an
// award, its latest winner step is a cancelled winner announcement (W1) and
// no contract was signed on or after that step (a later W0, W2 or contract
// re-awards; docs/market.md#withdrawn-awards).
func (p *Project) AwardWithdrawn() bool {
	if !p.HasAward() {
		return false
	}
	last := p.lastWinnerStep()
	if last == nil || last.Type != AnnWinnerCancelled {
		return false
	}
	return p.ContractSigned == nil || p.ContractSigned.Before(last.Date)
}

// AwardLive reports whether p carries an award that stands (not withdrawn).
func (p *Project) AwardLive() bool { return p.HasAward() && !p.AwardWithdrawn() }

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

// AwardDate is the date of p's award: its winner announcement (the first W0
// after the latest cancellation W1, else such a W2), else its contract, else
// its latest step.
func (p *Project) AwardDate() time.Time {
	var w0, w2 time.Time
	for _, a := range p.Announcements {
		switch a.Type {
		case AnnWinnerCancelled:
			w0, w2 = time.Time{}, time.Time{}
		case AnnWinner:
			if w0.IsZero() {
				w0 = a.Date
			}
		case AnnWinnerChanged:
			if w2.IsZero() {
				w2 = a.Date
			}
		}
	}
	if !w0.IsZero() {
		return w0
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
// records a new or changed award: one that stands, and that cur did not
// hold standing (a re-award after a withdrawal publishes again).
func AwardChanged(cur, next *Project) bool {
	if !next.AwardLive() {
		return false
	}
	return cur == nil || !cur.AwardLive() || cur.AwardKey() != next.AwardKey()
}

// AwardWithdrawal reports whether writing next over cur withdraws an award
// published before: cur's award stood and next's is withdrawn. A new
// project whose award is withdrawn already published none, so it
// withdraws nothing; a replay of the same steps finds cur withdrawn.
func AwardWithdrawal(cur, next *Project) bool {
	return cur != nil && cur.AwardLive() && next.AwardWithdrawn()
}
