package app_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"testing"

	"bidradar/pkg/apperr"
	"bidradar/services/projects/internal/app"
	"bidradar/services/projects/internal/domain"
)

// fixedQuota is a fake subscription service answering one state.
type fixedQuota struct {
	ans domain.QuotaAnswer
	err error
}

func (q fixedQuota) Consume(_ context.Context, _ domain.Caller, _ string, amount int) (domain.QuotaAnswer, error) {
	if amount != 0 {
		return domain.QuotaAnswer{}, errors.New("status checks must not consume")
	}
	return q.ans, q.err
}

func TestCheckStatusFromQuota(t *testing.T) {
	t.Parallel()
	cases := []struct {
		action string
		q      fixedQuota
		want   string
	}{
		{"search", fixedQuota{ans: domain.QuotaAnswer{Allowed: true, RemainingToday: 2, RemainingMonth: 20}}, app.StatusSearchAvailable},
		{"search", fixedQuota{ans: domain.QuotaAnswer{Allowed: true, RemainingToday: 0, RemainingMonth: 20}}, app.StatusDailyExceeded},
		{"save_search", fixedQuota{ans: domain.QuotaAnswer{Allowed: true, RemainingToday: 2, RemainingMonth: 0}}, app.StatusMonthlyExceeded},
		{"", fixedQuota{ans: domain.QuotaAnswer{Allowed: true, RemainingToday: 0, RemainingMonth: 0}}, app.StatusDailyMonthlyExceed},
		{"search", fixedQuota{ans: domain.QuotaAnswer{Allowed: true, RemainingToday: -1, RemainingMonth: -1}}, app.StatusSearchAvailable},
		{"search", fixedQuota{err: domain.ErrQuotaUnavailable}, app.StatusUnknownError},
	}
	for _, c := range cases {
		a, err := app.New(&memRepo{}, &memRuns{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			t.Fatal(err)
		}
		a.Configure(app.Extras{Quota: c.q})
		got, err := a.CheckStatus(context.Background(), domain.Caller{UserID: "u"}, c.action)
		if err != nil || got.Code != c.want || got.Message == "" {
			t.Errorf("%s %+v: %+v %v, want %s", c.action, c.q, got, err, c.want)
		}
		if strings.Contains(got.Code, "EXCEEDED") && app.Indicator(got.Code).Level == "success" {
			t.Errorf("%s is a success", got.Code)
		}
	}
}

// TestCheckStatusOvernight: the overnight indicator counts the saved
// overnight searches against the plan's number.
func TestCheckStatusOvernight(t *testing.T) {
	t.Parallel()
	cases := []struct {
		action string
		limit  int // the plan's overnight searches
		held   int
		want   string
	}{
		{"overnight", 1, 1, app.StatusOvernightExceeded},
		{"save_overnight", 0, 0, app.StatusOvernightExceeded},
		{"OVERNIGHT", 5, 2, app.StatusOvernightAvailable},
		{"overnight", -1, 9, app.StatusOvernightAvailable},
		{"overnight", 2, 3, app.StatusOvernightExceeded}, // above the number after a downgrade
	}
	for _, c := range cases {
		a, err := app.New(&memRepo{}, &memRuns{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			t.Fatal(err)
		}
		store := &memCriteria{}
		for i := range c.held {
			store.put(domain.SavedCriteria{ID: strconv.Itoa(i), UserID: "u", SearchType: domain.SearchOvernight})
		}
		store.put(domain.SavedCriteria{ID: "n", UserID: "u", SearchType: domain.SearchNormal})
		a.Configure(app.Extras{Quota: fixedQuota{}, Criteria: store, Plans: plans{domain.Plan{OvernightSearchSave: c.limit}}})
		got, err := a.CheckStatus(context.Background(), domain.Caller{UserID: "u"}, c.action)
		if err != nil || got.Code != c.want || got.Message == "" {
			t.Errorf("%+v: %+v %v", c, got, err)
		}
	}
	a, _ := app.New(&memRepo{}, &memRuns{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	a.Configure(app.Extras{Quota: fixedQuota{}, Criteria: &memCriteria{}, Plans: downPlans{}})
	if got, err := a.CheckStatus(context.Background(), domain.Caller{UserID: "u"}, "overnight"); err != nil || got.Code != app.StatusUnknownError {
		t.Errorf("without the subscription service: %+v %v", got, err)
	}
}

type downPlans struct{}

func (downPlans) Plan(context.Context, string) (domain.Plan, error) {
	return domain.Plan{}, domain.ErrQuotaUnavailable
}

func TestParseProjectIDs(t *testing.T) {
	t.Parallel()
	ids, err := app.ParseProjectIDs([]string{" ๖๙๐๙๙๖๙๓๑๓๘ ", "68059426756, 69099693138,", ""})
	if err != nil || len(ids) != 2 || ids[0] != "69099693138" || ids[1] != "68059426756" {
		t.Fatalf("%v %v", ids, err)
	}
	for _, in := range [][]string{nil, {""}, {" , "}, {"123"}, {"690996931381"}, {"6909969313８"}} {
		_, err := app.ParseProjectIDs(in)
		if apperr.KindOf(err) != apperr.InvalidArgument {
			t.Errorf("%q: %v", in, err)
		}
	}
}
