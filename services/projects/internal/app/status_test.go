package app_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
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
		{"overnight", fixedQuota{ans: domain.QuotaAnswer{Allowed: true, RemainingToday: 0, RemainingMonth: -1}}, app.StatusOvernightExceeded},
		{"OVERNIGHT", fixedQuota{ans: domain.QuotaAnswer{Allowed: true, RemainingToday: 3, RemainingMonth: -1}}, app.StatusOvernightAvailable},
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
