package ports

import (
	"context"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/pkg/events"
	"bidradar/services/market/internal/app"
	"bidradar/services/market/internal/domain"
)

// Events reads the projects' award events.
type Events struct{ app *app.App }

// NewEvents returns the event handlers.
func NewEvents(a *app.App) *Events { return &Events{app: a} }

func optSatang(v int64) *int64 {
	if v <= 0 {
		return nil
	}
	return &v
}

// AwardRecorded upserts the award (docs/market.md#awards): a redelivered or
// replayed event equals the stored award and changes nothing.
func (e *Events) AwardRecorded(ctx context.Context, ev *projectsv1.AwardRecorded, _ events.Meta) error {
	a := domain.Award{ProjectID: ev.GetProjectId(), ProjectName: ev.GetProjectName(),
		DeptCode: ev.GetDeptCode(), DeptName: ev.GetDeptName(), DeptSubCode: ev.GetDeptSubCode(), DeptSubName: ev.GetDeptSubName(),
		MinistryCode: ev.GetMinistryCode(), MinistryName: ev.GetMinistryName(), ProvinceCode: ev.GetProvinceCode(),
		MethodCode: ev.GetMethodCode(), MethodName: ev.GetMethodName(), TypeCode: ev.GetTypeCode(), TypeName: ev.GetTypeName(),
		BudgetYear: int(ev.GetBudgetYear()), Budget: optSatang(ev.GetBudgetSatang()),
		Reference: optSatang(ev.GetReferencePriceSatang()), Agreed: optSatang(ev.GetAgreedPriceSatang()), Source: ev.GetSource(),
		EventAt: eventTime(ev.GetOccurredAt())}
	if t, err := time.Parse(time.DateOnly, ev.GetAnnounceDate()); err == nil {
		a.AnnounceDate = &t
	}
	for _, w := range ev.GetWinners() {
		a.Winners = append(a.Winners, domain.NewWinner(w.GetName(), w.GetTaxId(), w.GetTaxIdDamaged(), w.GetContractNo(),
			optSatang(w.GetContractPriceSatang())))
	}
	if a.ProjectID == "" {
		return events.ErrPermanent
	}
	return e.app.RecordAward(ctx, a)
}

// AwardWithdrawn removes the award a cancelled winner announcement withdrew
// (docs/market.md#withdrawn-awards): a redelivered or replayed event finds
// nothing to remove and changes nothing.
func (e *Events) AwardWithdrawn(ctx context.Context, ev *projectsv1.AwardWithdrawn, _ events.Meta) error {
	if ev.GetProjectId() == "" {
		return events.ErrPermanent
	}
	return e.app.WithdrawAward(ctx, ev.GetProjectId(), eventTime(ev.GetOccurredAt()))
}

// eventTime is an event's occurred_at, zero when it carries none.
func eventTime(ts *timestamppb.Timestamp) time.Time {
	if ts == nil {
		return time.Time{}
	}
	return ts.AsTime()
}
