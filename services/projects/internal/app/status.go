package app

import (
	"context"
	"fmt"
	"strings"

	"bidradar/pkg/apperr"
	"bidradar/services/projects/internal/domain"
)

// Status indicator codes (docs/product.md#search-saves-and-status-indicators:
// SEARCH_CRITERIA_SAVED is a success; codes with EXCEEDED are warnings,
// DAILY_MONTHLY_LIMIT_EXCEEDED and UNKNOWN_ERROR errors).
const (
	StatusCriteriaSaved       = "SEARCH_CRITERIA_SAVED"
	StatusSearchAvailable     = "SEARCH_AVAILABLE"
	StatusDailyExceeded       = "DAILY_LIMIT_EXCEEDED"
	StatusMonthlyExceeded     = "MONTHLY_LIMIT_EXCEEDED"
	StatusDailyMonthlyExceed  = "DAILY_MONTHLY_LIMIT_EXCEEDED"
	StatusOvernightAvailable  = "OVERNIGHT_SEARCH_AVAILABLE"
	StatusOvernightExceeded   = "OVERNIGHT_LIMIT_EXCEEDED"
	StatusUnknownError        = "UNKNOWN_ERROR"
	statusLevelSuccess        = "success"
	statusLevelInfo           = "info"
	statusLevelWarning        = "warning"
	statusLevelError          = "error"
	statusMsgUnknown          = "เกิดข้อผิดพลาดที่ไม่ทราบสาเหตุ กรุณาลองใหม่อีกครั้ง"
	statusMsgSearchAvailable  = "ยังบันทึกการค้นหาแบบรวมเงื่อนไขได้ตามสิทธิ์ของแพ็กเกจ"
	statusMsgOvernightAvailab = "ยังบันทึกการค้นหาข้ามคืนได้ตามสิทธิ์ของแพ็กเกจ"
)

// StatusIndicator is one code the search page knows, with its Thai message
// and toast level.
type StatusIndicator struct {
	Code, Message, Level string
}

// StatusIndicators lists every code CheckStatusIndicator and the save flow
// can give.
var StatusIndicators = []StatusIndicator{
	{StatusCriteriaSaved, "บันทึกเงื่อนไขการค้นหาเรียบร้อยแล้ว", statusLevelSuccess},
	{StatusSearchAvailable, statusMsgSearchAvailable, statusLevelInfo},
	{StatusDailyExceeded, "ใช้สิทธิ์ค้นหาแบบรวมเงื่อนไขของวันนี้ครบแล้ว กรุณาลองใหม่พรุ่งนี้หรืออัปเกรดแพ็กเกจ", statusLevelWarning},
	{StatusMonthlyExceeded, "ใช้สิทธิ์ค้นหาแบบรวมเงื่อนไขของเดือนนี้ครบแล้ว กรุณาอัปเกรดแพ็กเกจ", statusLevelWarning},
	{StatusDailyMonthlyExceed, "ใช้สิทธิ์ค้นหาครบทั้งโควตารายวันและรายเดือนแล้ว กรุณาอัปเกรดแพ็กเกจ", statusLevelError},
	{StatusOvernightAvailable, statusMsgOvernightAvailab, statusLevelInfo},
	{StatusOvernightExceeded, "บันทึกการค้นหาข้ามคืนครบตามสิทธิ์ของแพ็กเกจแล้ว ลบรายการเดิมหรืออัปเกรดแพ็กเกจ", statusLevelWarning},
	{StatusUnknownError, statusMsgUnknown, statusLevelError},
}

// Indicator returns the indicator of a code (UNKNOWN_ERROR for an unknown code).
func Indicator(code string) StatusIndicator {
	for _, s := range StatusIndicators {
		if s.Code == code {
			return s
		}
	}
	return Indicator(StatusUnknownError)
}

// overnightRoom is the limit the overnight actions ask about: the overnight
// searches the plan holds against those saved.
const overnightRoom = "overnight_search_save"

// UserActions are the user_action values of CheckStatusIndicator and the
// limit each asks about.
var UserActions = map[string]string{
	"":                            domain.QuotaSearchCombination,
	"search":                      domain.QuotaSearchCombination,
	"save_search":                 domain.QuotaSearchCombination,
	"save_criteria":               domain.QuotaSearchCombination,
	"normal":                      domain.QuotaSearchCombination,
	domain.QuotaSearchCombination: domain.QuotaSearchCombination,
	"overnight":                   overnightRoom,
	"save_overnight":              overnightRoom,
	overnightRoom:                 overnightRoom,
}

// CheckStatus answers the indicator for a user action from the caller's
// real state: the day's and month's search combinations read without
// consuming (ConsumeQuota with amount 0), or the overnight searches the
// plan holds against those saved. When the subscription service cannot be
// reached the answer is UNKNOWN_ERROR (an indicator, not a failure of the
// call).
func (a *App) CheckStatus(ctx context.Context, caller domain.Caller, action string) (StatusIndicator, error) {
	key := strings.ToLower(strings.TrimSpace(action))
	kind, ok := UserActions[key]
	if !ok {
		return StatusIndicator{}, apperr.New(apperr.InvalidArgument, "invalid-user-action",
			fmt.Sprintf("user_action %q is unknown: use search, save_search or overnight", action))
	}
	if kind == overnightRoom {
		return a.overnightStatus(ctx, caller)
	}
	if a.x.Quota == nil {
		return Indicator(StatusUnknownError), nil
	}
	q, err := a.x.Quota.Consume(ctx, caller, kind, 0)
	if err != nil {
		a.log.WarnContext(ctx, "read quota for status indicator", "user", caller.UserID, "kind", kind, "err", err)
		return Indicator(StatusUnknownError), nil
	}
	day, month := q.RemainingToday == 0, q.RemainingMonth == 0
	switch {
	case day && month:
		return Indicator(StatusDailyMonthlyExceed), nil
	case day:
		return Indicator(StatusDailyExceeded), nil
	case month:
		return Indicator(StatusMonthlyExceeded), nil
	}
	s := Indicator(StatusSearchAvailable)
	switch {
	case q.RemainingToday > 0 && q.RemainingMonth > 0:
		s.Message = fmt.Sprintf("วันนี้บันทึกการค้นหาได้อีก %d ครั้ง เดือนนี้อีก %d ครั้ง", q.RemainingToday, q.RemainingMonth)
	case q.RemainingToday > 0:
		s.Message = fmt.Sprintf("วันนี้บันทึกการค้นหาได้อีก %d ครั้ง", q.RemainingToday)
	}
	return s, nil
}

func (a *App) overnightStatus(ctx context.Context, caller domain.Caller) (StatusIndicator, error) {
	if a.x.Plans == nil || a.x.Criteria == nil {
		return Indicator(StatusUnknownError), nil
	}
	plan, err := a.x.Plans.Plan(ctx, caller.UserID)
	if err != nil {
		a.log.WarnContext(ctx, "read plan for status indicator", "user", caller.UserID, "err", err)
		return Indicator(StatusUnknownError), nil
	}
	held, err := a.heldSearches(ctx, caller.UserID)
	if err != nil {
		return StatusIndicator{}, err
	}
	left := domain.SavedSearchesLeft(plan, held, domain.SearchOvernight)
	if left == 0 {
		return Indicator(StatusOvernightExceeded), nil
	}
	s := Indicator(StatusOvernightAvailable)
	if left > 0 {
		s.Message = fmt.Sprintf("บันทึกการค้นหาข้ามคืนได้อีก %d รายการ", left)
	}
	return s, nil
}
