package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"bidradar/pkg/apperr"
	"bidradar/pkg/freetext"
	"bidradar/services/projects/internal/domain"
)

// Messages of the saved-criteria calls.
const (
	MsgCriteriaSaved   = "บันทึกเงื่อนไขการค้นหาแล้ว"
	MsgCriteriaUpdated = "บันทึกการแก้ไขเงื่อนไขการค้นหาแล้ว"
	// MsgUnavailable is the text for a 503 (docs/product.md#session-and-connection).
	MsgUnavailable = "Service is currently unavailable. Please try again later."
)

var (
	errQuotaDown        = apperr.New(apperr.Unavailable, "subscription-unavailable", MsgUnavailable)
	errCriteriaNotFound = apperr.New(apperr.NotFound, "search-criteria-not-found", "Search criteria not found")
	errCriteriaChanged  = apperr.New(apperr.Aborted, "search-criteria-changed", "The search criteria changed meanwhile; reload it and try again")
)

// SaveCriteriaInput is a ToDoSearch request.
type SaveCriteriaInput struct {
	Caller     domain.Caller
	Name       string
	SearchType string
	Form       domain.SearchForm
}

// SaveCriteriaResult is what ToDoSearch answers.
type SaveCriteriaResult struct {
	Criteria   domain.SavedCriteria
	MatchCount int64
	// Quota is what is left of the day's and month's search combinations
	// (normal saves; -1 when not consumed).
	Quota domain.QuotaAnswer
	// Left is how many more searches of the saved one's kind the plan
	// holds (-1 unlimited).
	Left int
}

// SearchType reads a search_type: "" is normal.
func SearchType(s string) (string, error) {
	switch t := strings.ToLower(strings.TrimSpace(s)); t {
	case "", domain.SearchNormal:
		return domain.SearchNormal, nil
	case domain.SearchOvernight:
		return t, nil
	}
	return "", apperr.New(apperr.InvalidArgument, "invalid-search-type",
		fmt.Sprintf("search_type must be \"normal\" or \"overnight\", got %q", s))
}

// CleanForm validates a criteria payload: malformed values are 400
// (InvalidArgument), a well-formed payload that cannot be saved is 422
// (Validation).
func CleanForm(f domain.SearchForm) (domain.SearchForm, error) {
	out, err := f.Clean()
	switch {
	case err == nil:
		return out, nil
	case errors.Is(err, domain.ErrUnusableCriteria):
		return out, apperr.Wrap(err, apperr.Validation, "unusable-criteria", strings.TrimPrefix(err.Error(), domain.ErrUnusableCriteria.Error()+": "))
	default:
		return out, err // domain.InvalidCriteria, already a kind
	}
}

// criteriaFields validates what ToDoSearch and UpdateSearchCriteria take:
// the search type, the form, and the name (a summary of the form when empty).
func criteriaFields(name, searchType string, f domain.SearchForm) (string, string, domain.SearchForm, error) {
	st, err := SearchType(searchType)
	if err != nil {
		return "", "", f, err
	}
	form, err := CleanForm(f)
	if err != nil {
		return "", "", f, err
	}
	name = strings.Join(strings.Fields(name), " ")
	if !freetext.Valid(name, freetext.SingleLine) {
		return "", "", f, apperr.New(apperr.InvalidArgument, "criteria-name-invalid", "name must not contain control characters or bidirectional overrides")
	}
	if r := []rune(name); len(r) > 200 {
		return "", "", f, apperr.New(apperr.InvalidArgument, "criteria-name-too-long", "name must be at most 200 characters")
	}
	if name == "" {
		name = form.Summary()
	}
	return name, st, form, nil
}

// consume takes one unit of a tier limit; a refusal is 409 with the
// subscription service's detail (it contains 'Limit reached':
// docs/product.md#search-saves-and-status-indicators).
func (a *App) consume(ctx context.Context, c domain.Caller, kind string) (domain.QuotaAnswer, error) {
	return a.consumeN(ctx, c, kind, 1)
}

// consumeN takes n units of a tier limit at once (all or none).
func (a *App) consumeN(ctx context.Context, c domain.Caller, kind string, n int) (domain.QuotaAnswer, error) {
	if a.x.Quota == nil {
		return domain.QuotaAnswer{}, errQuotaDown
	}
	q, err := a.x.Quota.Consume(ctx, c, kind, n)
	if err != nil {
		if errors.Is(err, domain.ErrQuotaUnavailable) {
			return q, apperr.Wrap(err, apperr.Unavailable, "subscription-unavailable", MsgUnavailable)
		}
		return q, err
	}
	if !q.Allowed {
		detail := q.Detail
		if !strings.Contains(detail, "Limit reached") {
			detail = strings.TrimSpace("Limit reached: " + detail)
		}
		return q, apperr.New(apperr.Aborted, "limit-reached", detail)
	}
	return q, nil
}

// canLiveSearch refuses a live look-up at e-GP to a plan without
// explore_live_search (403 upgrade_required).
func (a *App) canLiveSearch(ctx context.Context, c domain.Caller) error {
	plan, err := a.plan(ctx, c)
	if err != nil {
		return err
	}
	if plan.ExploreLiveSearch == 0 {
		return &apperr.Error{Kind: domain.ErrUpgradeRequired.Kind, Slug: domain.ErrUpgradeRequired.Slug,
			Message: fmt.Sprintf("Upgrade required: แพ็กเกจ%s ไม่มีการค้นหาสดจาก e-GP กรุณาอัปเกรดแพ็กเกจ", plan.TierLabel)}
	}
	return nil
}

// plan asks the subscription service what the user's tier holds.
func (a *App) plan(ctx context.Context, c domain.Caller) (domain.Plan, error) {
	if a.x.Plans == nil {
		return domain.Plan{}, errQuotaDown
	}
	p, err := a.x.Plans.Plan(ctx, c.UserID)
	if errors.Is(err, domain.ErrQuotaUnavailable) {
		return p, apperr.Wrap(err, apperr.Unavailable, "subscription-unavailable", MsgUnavailable)
	}
	return p, err
}

// CanExportOCDS refuses the OCDS export to a plan without it (403
// upgrade_required).
func (a *App) CanExportOCDS(ctx context.Context, c domain.Caller) error {
	plan, err := a.plan(ctx, c)
	if err != nil {
		return err
	}
	if !plan.Has(domain.FeatureOCDSExport) {
		return &apperr.Error{Kind: domain.ErrUpgradeRequired.Kind, Slug: domain.ErrUpgradeRequired.Slug,
			Message: fmt.Sprintf("Upgrade required: แพ็กเกจ%s ไม่มีการส่งออกข้อมูล OCDS กรุณาอัปเกรดแพ็กเกจ", plan.TierLabel)}
	}
	return nil
}

// heldSearches are every search the user holds (at most a few hundred: the
// plans' numbers, and what a downgrade left above them).
func (a *App) heldSearches(ctx context.Context, userID string) ([]domain.SavedCriteria, error) {
	return a.x.Criteria.ListCriteria(ctx, userID, maxHeldSearches)
}

// maxHeldSearches bounds the read of a user's searches for a check: far
// above any plan's numbers of both kinds.
const maxHeldSearches = 5000

// SaveCriteria validates and stores a criteria if the user's plan has room
// for another search of its kind and none of the same kind searches for
// the same (domain.SavedSearchRoom); a normal search also consumes one
// search combination of the day and month. The room is checked before the
// consumption, so a refusal costs nothing, and again with the insert, one
// write per user at a time. Then it counts the matches.
func (a *App) SaveCriteria(ctx context.Context, in SaveCriteriaInput) (SaveCriteriaResult, error) {
	res := SaveCriteriaResult{Quota: domain.QuotaAnswer{Allowed: true, RemainingToday: -1, RemainingMonth: -1}}
	name, st, form, err := criteriaFields(in.Name, in.SearchType, in.Form)
	if err != nil {
		return res, err
	}
	if a.x.Criteria == nil || a.x.Quota == nil {
		return res, errQuotaDown
	}
	plan, err := a.plan(ctx, in.Caller)
	if err != nil {
		return res, err
	}
	c := domain.SavedCriteria{UserID: in.Caller.UserID, Name: name, SearchType: st, Form: form, CreatedAt: a.now()}
	held, err := a.heldSearches(ctx, c.UserID)
	if err != nil {
		return res, err
	}
	if err := domain.SavedSearchRoom(plan, held, c, ""); err != nil {
		return res, err
	}
	if st == domain.SearchNormal {
		if res.Quota, err = a.consume(ctx, in.Caller, domain.QuotaSearchCombination); err != nil {
			return res, err
		}
	}
	saved, err := a.x.Criteria.SaveCriteria(ctx, c, func(existing []domain.SavedCriteria) error {
		held = existing
		return domain.SavedSearchRoom(plan, existing, c, "")
	})
	if err != nil {
		return res, err
	}
	res.Left = domain.SavedSearchesLeft(plan, append(held, saved), st)
	res.Criteria, res.MatchCount = a.countMatches(ctx, saved)
	return res, nil
}

// countMatches counts a just-saved criteria's matches and records them as
// its last run. A failure leaves it saved all the same: the count comes
// with the first recall.
func (a *App) countMatches(ctx context.Context, c domain.SavedCriteria) (domain.SavedCriteria, int64) {
	page, err := a.repo.Search(ctx, c.Form.Criteria(), domain.PageRequest{Page: 1, PerPage: 1})
	if err != nil {
		a.log.WarnContext(ctx, "count matches of saved criteria", "criteria", c.ID, "err", err)
		return c, 0
	}
	n, at := int64(page.Total), a.now()
	if err := a.x.Criteria.RecordCriteriaRun(ctx, c.UserID, c.ID, at, n); err == nil {
		c.LastRunAt, c.LastMatchCount = &at, n
	}
	return c, n
}

// UpdateCriteriaInput is an UpdateSearchCriteria request: every field
// replaces the saved one.
type UpdateCriteriaInput struct {
	Caller     domain.Caller
	ID         string
	Name       string
	SearchType string
	Form       domain.SearchForm
}

// UpdateCriteria replaces one of the user's saved criteria, validated as
// SaveCriteria validates. An edit that keeps its kind needs no room (a
// search held above the plan's number after a downgrade stays editable);
// one into the other kind needs room there; neither may repeat another
// search of its kind. An edit is not a new search combination: nothing is
// consumed.
func (a *App) UpdateCriteria(ctx context.Context, in UpdateCriteriaInput) (SaveCriteriaResult, error) {
	res := SaveCriteriaResult{Quota: domain.QuotaAnswer{Allowed: true, RemainingToday: -1, RemainingMonth: -1}}
	name, st, form, err := criteriaFields(in.Name, in.SearchType, in.Form)
	if err != nil {
		return res, err
	}
	if a.x.Criteria == nil || a.x.Quota == nil {
		return res, errQuotaDown
	}
	old, err := a.x.Criteria.GetCriteria(ctx, in.Caller.UserID, strings.TrimSpace(in.ID))
	if err != nil {
		return res, mapCriteriaErr(err)
	}
	plan, err := a.plan(ctx, in.Caller)
	if err != nil {
		return res, err
	}
	c := domain.SavedCriteria{ID: old.ID, UserID: in.Caller.UserID, Name: name, SearchType: st, Form: form}
	var held []domain.SavedCriteria
	saved, err := a.x.Criteria.UpdateCriteria(ctx, c, old.SearchType, func(existing []domain.SavedCriteria) error {
		held = existing
		return domain.SavedSearchRoom(plan, existing, c, old.SearchType)
	})
	if err != nil {
		return res, mapCriteriaErr(err)
	}
	res.Left = domain.SavedSearchesLeft(plan, held, st)
	res.Criteria, res.MatchCount = a.countMatches(ctx, saved)
	return res, nil
}

// SaveDetail describes a saved criteria and what is left of the limit, in Thai.
func SaveDetail(r SaveCriteriaResult) string {
	var b strings.Builder
	if r.Criteria.SearchType == domain.SearchOvernight {
		b.WriteString("ระบบจะค้นหาตามเงื่อนไขนี้ให้ทุกคืน")
		if n := r.Left; n >= 0 {
			fmt.Fprintf(&b, " (บันทึกการค้นหาข้ามคืนได้อีก %d รายการ)", n)
		}
	} else {
		fmt.Fprintf(&b, "พบ %d โครงการที่ตรงเงื่อนไข", r.MatchCount)
		if n := r.Quota.RemainingToday; n >= 0 {
			fmt.Fprintf(&b, " · วันนี้บันทึกได้อีก %d ครั้ง", n)
		}
		if n := r.Quota.RemainingMonth; n >= 0 {
			fmt.Fprintf(&b, " · เดือนนี้อีก %d ครั้ง", n)
		}
	}
	return b.String()
}

func mapCriteriaErr(err error) error {
	if errors.Is(err, domain.ErrCriteriaNotFound) {
		return apperr.Wrap(err, apperr.NotFound, errCriteriaNotFound.Slug, errCriteriaNotFound.Message)
	}
	if errors.Is(err, domain.ErrCriteriaChanged) {
		return apperr.Wrap(err, apperr.Aborted, errCriteriaChanged.Slug, errCriteriaChanged.Message)
	}
	return err
}

// ListCriteria returns the user's saved criteria, newest first (at most 100).
func (a *App) ListCriteria(ctx context.Context, userID string) ([]domain.SavedCriteria, error) {
	if a.x.Criteria == nil {
		return nil, errQuotaDown
	}
	return a.x.Criteria.ListCriteria(ctx, userID, 100)
}

// RunCriteria re-runs one of the user's saved criteria and records the
// run's time and match count.
func (a *App) RunCriteria(ctx context.Context, userID, id string, p domain.PageRequest) (domain.SavedCriteria, domain.ResultPage, error) {
	if a.x.Criteria == nil {
		return domain.SavedCriteria{}, domain.ResultPage{}, errQuotaDown
	}
	c, err := a.x.Criteria.GetCriteria(ctx, userID, strings.TrimSpace(id))
	if err != nil {
		return c, domain.ResultPage{}, mapCriteriaErr(err)
	}
	if p.Page <= 0 {
		p.Page = 1
	}
	if p.PerPage <= 0 {
		p.PerPage = 10
	}
	if p.PerPage > 100 {
		p.PerPage = 100
	}
	page, err := a.repo.Search(ctx, c.Form.Criteria(), p)
	if err != nil {
		return c, page, err
	}
	at := a.now()
	if err := a.x.Criteria.RecordCriteriaRun(ctx, userID, c.ID, at, int64(page.Total)); err != nil {
		return c, page, mapCriteriaErr(err)
	}
	c.LastRunAt, c.LastMatchCount = &at, int64(page.Total)
	return c, page, nil
}

// DeleteCriteria removes one of the user's saved criteria: its room is
// free again, since the plan's numbers are checked against the rows.
func (a *App) DeleteCriteria(ctx context.Context, caller domain.Caller, id string) error {
	if a.x.Criteria == nil {
		return errQuotaDown
	}
	_, err := a.x.Criteria.DeleteCriteria(ctx, caller.UserID, strings.TrimSpace(id))
	return mapCriteriaErr(err)
}

// SearchOwners returns the owner and name of each search among keys that
// still exists (at most domain.MaxMatchesPerEvent, one event's searches),
// and the version of the searches they were read at: the notification
// service names the searches of an instant alert with it.
func (a *App) SearchOwners(ctx context.Context, keys []domain.SearchKey) ([]domain.SavedCriteria, int64, error) {
	if len(keys) > domain.MaxMatchesPerEvent {
		return nil, 0, apperr.New(apperr.InvalidArgument, "too-many-searches",
			fmt.Sprintf("at most %d searches", domain.MaxMatchesPerEvent))
	}
	if a.x.Criteria == nil { // unavailable, not "none found": the caller retries
		return nil, 0, errQuotaDown
	}
	return a.x.Criteria.SearchOwners(ctx, keys)
}

// ForgetUser erases a deleted account's saved searches (PDPA); run again,
// it finds nothing left.
func (a *App) ForgetUser(ctx context.Context, userID string) error {
	if a.x.Criteria == nil {
		return errQuotaDown
	}
	return a.x.Criteria.DeleteUserCriteria(ctx, userID)
}
