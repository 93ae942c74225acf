package ports

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/pkg/apperr"
	"bidradar/pkg/authn"
	"bidradar/services/projects/internal/app"
	"bidradar/services/projects/internal/domain"
)

// caller is the signed-in user with the token to forward to peers.
func caller(ctx context.Context, h interface{ Header() http.Header }) (domain.Caller, error) {
	c, err := authn.Require(ctx)
	if err != nil {
		return domain.Caller{}, err
	}
	return domain.Caller{UserID: c.UserID, Token: authn.TokenFromRequest(h.Header())}, nil
}

func budgetYears(in []string) ([]int, error) {
	var out []int
	for _, v := range in {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s == "" {
				continue
			}
			n, err := strconv.Atoi(s)
			if err != nil {
				return nil, domain.InvalidCriteria("budget year %q in budgetYear_User must be a Buddhist-era year such as 2569", s)
			}
			out = append(out, n)
		}
	}
	return out, nil
}

// form reads ToDoSearch's flat payload; it is the Criteria message's fields.
func form(r *projectsv1.ToDoSearchRequest) (domain.SearchForm, error) {
	return criteriaForm(&projectsv1.Criteria{
		KeyWord_Incl_Or: r.KeyWord_Incl_Or, KeyWord_Incl_And: r.KeyWord_Incl_And, KeyWord_Excl_Nor: r.KeyWord_Excl_Nor,
		AnnouType_UserRequired: r.AnnouType_UserRequired, Dept_User: r.Dept_User, DeptSubProvince_User: r.DeptSubProvince_User,
		Method_UserRequired: r.Method_UserRequired, TypeTran_User: r.TypeTran_User, GovStrategy_User: r.GovStrategy_User,
		ProjectId_User: r.ProjectId_User, AnnouSDate_User: r.AnnouSDate_User, AnnouEDate_User: r.AnnouEDate_User,
		ProjectMoneyS_User: r.ProjectMoneyS_User, ProjectMoneyE_User: r.ProjectMoneyE_User,
		ProjectStatus_User: r.ProjectStatus_User, BudgetYear_User: r.BudgetYear_User,
		Province_User: r.Province_User, Ministry_User: r.Ministry_User,
	})
}

// criteriaForm reads a criteria payload (nil is an empty one).
func criteriaForm(r *projectsv1.Criteria) (domain.SearchForm, error) {
	if r == nil {
		r = &projectsv1.Criteria{}
	}
	f := domain.SearchForm{
		AnyOf: r.KeyWord_Incl_Or, AllOf: r.KeyWord_Incl_And, NoneOf: r.KeyWord_Excl_Nor,
		AnnouncementTypes: r.AnnouType_UserRequired, Departments: r.Dept_User, SubDepartments: r.DeptSubProvince_User,
		Methods: r.Method_UserRequired, WorkTypes: r.TypeTran_User, Strategies: r.GovStrategy_User,
		ProjectIDs: r.ProjectId_User, From: r.AnnouSDate_User, To: r.AnnouEDate_User,
		MinBudget: baht(r.ProjectMoneyS_User), MaxBudget: baht(r.ProjectMoneyE_User),
		Statuses: r.ProjectStatus_User, Provinces: r.Province_User, Ministries: r.Ministry_User,
	}
	var err error
	f.BudgetYears, err = budgetYears(r.BudgetYear_User)
	return f, err
}

func criteriaPB(f domain.SearchForm) *projectsv1.Criteria {
	c := &projectsv1.Criteria{
		KeyWord_Incl_Or: f.AnyOf, KeyWord_Incl_And: f.AllOf, KeyWord_Excl_Nor: f.NoneOf,
		AnnouType_UserRequired: f.AnnouncementTypes, Dept_User: f.Departments, DeptSubProvince_User: f.SubDepartments,
		Method_UserRequired: f.Methods, TypeTran_User: f.WorkTypes, GovStrategy_User: f.Strategies,
		ProjectId_User: f.ProjectIDs, AnnouSDate_User: f.From, AnnouEDate_User: f.To,
		ProjectMoneyS_User: f64(f.MinBudget), ProjectMoneyE_User: f64(f.MaxBudget),
		ProjectStatus_User: f.Statuses, Province_User: f.Provinces, Ministry_User: f.Ministries,
	}
	for _, y := range f.BudgetYears {
		c.BudgetYear_User = append(c.BudgetYear_User, strconv.Itoa(y))
	}
	return c
}

func savedPB(c domain.SavedCriteria) *projectsv1.SavedCriteria {
	out := &projectsv1.SavedCriteria{
		CriteriaId: c.ID, Name: c.Name, SearchType: c.SearchType, Criteria: criteriaPB(c.Form),
		CreatedAt: timestamppb.New(c.CreatedAt), LastMatchCount: c.LastMatchCount,
	}
	if c.LastRunAt != nil {
		out.LastRunAt = timestamppb.New(*c.LastRunAt)
	}
	return out
}

// ToDoSearch serves POST /to_do_search: validate, consume one unit of the
// tier limit, save, count the matches.
func (h *Handler) ToDoSearch(ctx context.Context, req *connect.Request[projectsv1.ToDoSearchRequest]) (*connect.Response[projectsv1.ToDoSearchResponse], error) {
	who, err := caller(ctx, req)
	if err != nil {
		return nil, err
	}
	f, err := form(req.Msg)
	if err != nil {
		return nil, err
	}
	res, err := h.app.SaveCriteria(ctx, app.SaveCriteriaInput{Caller: who, Name: req.Msg.Name, SearchType: req.Msg.SearchType, Form: f})
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&projectsv1.ToDoSearchResponse{
		Message: app.MsgCriteriaSaved, CriteriaId: res.Criteria.ID, Detail: app.SaveDetail(res), MatchCount: res.MatchCount,
	}), nil
}

// RecallSaveCriteria serves POST /recall_save_criteria: without
// criteria_id the user's saved criteria (newest first); with one, that
// criteria re-run (page, per_page) with data and pagination.
func (h *Handler) RecallSaveCriteria(ctx context.Context, req *connect.Request[projectsv1.RecallSaveCriteriaRequest]) (*connect.Response[projectsv1.RecallSaveCriteriaResponse], error) {
	who, err := caller(ctx, req)
	if err != nil {
		return nil, err
	}
	id := strings.TrimSpace(req.Msg.CriteriaId)
	if id == "" {
		list, err := h.app.ListCriteria(ctx, who.UserID)
		if err != nil {
			return nil, err
		}
		out := &projectsv1.RecallSaveCriteriaResponse{
			Message: fmt.Sprintf("เงื่อนไขการค้นหาที่บันทึกไว้ %d รายการ", len(list)), Criteria: make([]*projectsv1.SavedCriteria, 0, len(list)),
			Data: []*projectsv1.ProjectSummary{},
		}
		for _, c := range list {
			out.Criteria = append(out.Criteria, savedPB(c))
		}
		return connect.NewResponse(out), nil
	}
	if req.Msg.Page < 0 || req.Msg.PerPage < 0 || req.Msg.PerPage > 100 {
		return nil, apperr.New(apperr.InvalidArgument, "invalid-page", "page must be at least 1 and per_page between 1 and 100")
	}
	c, page, err := h.app.RunCriteria(ctx, who.UserID, id, domain.PageRequest{Page: int(req.Msg.Page), PerPage: int(req.Msg.PerPage)})
	if err != nil {
		return nil, err
	}
	terms := c.Form.Criteria().Terms().Positive()
	out := &projectsv1.RecallSaveCriteriaResponse{
		Message:  fmt.Sprintf("พบ %d โครงการตามเงื่อนไข \"%s\"", page.Total, c.Name),
		Criteria: []*projectsv1.SavedCriteria{savedPB(c)},
		Data:     make([]*projectsv1.ProjectSummary, 0, len(page.Items)),
	}
	for i := range page.Items {
		out.Data = append(out.Data, summary(&page.Items[i], terms))
	}
	out.Pagination = pagination(page, false)
	return connect.NewResponse(out), nil
}

// DeleteSearchCriteria serves DELETE /search-criteria/{criteria_id}.
func (h *Handler) DeleteSearchCriteria(ctx context.Context, req *connect.Request[projectsv1.DeleteSearchCriteriaRequest]) (*connect.Response[projectsv1.DeleteSearchCriteriaResponse], error) {
	who, err := caller(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := h.app.DeleteCriteria(ctx, who, req.Msg.CriteriaId); err != nil {
		return nil, err
	}
	return connect.NewResponse(&projectsv1.DeleteSearchCriteriaResponse{Message: "ลบเงื่อนไขการค้นหาแล้ว"}), nil
}

// UpdateSearchCriteria serves PUT /search-criteria/{criteria_id}: the
// caller's own criteria, replaced and recounted.
func (h *Handler) UpdateSearchCriteria(ctx context.Context, req *connect.Request[projectsv1.UpdateSearchCriteriaRequest]) (*connect.Response[projectsv1.UpdateSearchCriteriaResponse], error) {
	who, err := caller(ctx, req)
	if err != nil {
		return nil, err
	}
	f, err := criteriaForm(req.Msg.Criteria)
	if err != nil {
		return nil, err
	}
	res, err := h.app.UpdateCriteria(ctx, app.UpdateCriteriaInput{
		Caller: who, ID: req.Msg.CriteriaId, Name: req.Msg.Name, SearchType: req.Msg.SearchType, Form: f,
	})
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&projectsv1.UpdateSearchCriteriaResponse{
		Message: app.MsgCriteriaUpdated, Criteria: savedPB(res.Criteria), Detail: app.SaveDetail(res),
	}), nil
}

// ListStatusIndicators serves GET /status_indicators (public).
func (h *Handler) ListStatusIndicators(context.Context, *connect.Request[projectsv1.ListStatusIndicatorsRequest]) (*connect.Response[projectsv1.ListStatusIndicatorsResponse], error) {
	out := &projectsv1.ListStatusIndicatorsResponse{}
	for _, s := range app.StatusIndicators {
		out.StatusCodes = append(out.StatusCodes, &projectsv1.StatusIndicator{StatusCode: s.Code, Message: s.Message, Level: s.Level})
	}
	return connect.NewResponse(out), nil
}

// CheckStatusIndicator serves POST /status_indicator {user_action}: the
// code for the caller's current quota state.
func (h *Handler) CheckStatusIndicator(ctx context.Context, req *connect.Request[projectsv1.CheckStatusIndicatorRequest]) (*connect.Response[projectsv1.CheckStatusIndicatorResponse], error) {
	who, err := caller(ctx, req)
	if err != nil {
		return nil, err
	}
	s, err := h.app.CheckStatus(ctx, who, req.Msg.UserAction)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&projectsv1.CheckStatusIndicatorResponse{StatusCode: s.Code, Message: s.Message}), nil
}
