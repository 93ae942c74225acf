// Package ports exposes the projects use cases over connect (and so gRPC
// and, through the gateway, REST).
package ports

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/gen/projects/v1/projectsv1connect"
	"bidradar/pkg/apperr"
	"bidradar/pkg/authn"
	"bidradar/services/projects/internal/app"
	"bidradar/services/projects/internal/domain"
)

// Handler implements projectsv1connect.ProjectsServiceHandler (scrape,
// update-project-smart, saved criteria and status indicators are in
// refresh.go and criteria.go).
type Handler struct {
	projectsv1connect.UnimplementedProjectsServiceHandler
	app       *app.App
	sources   IngestSources
	release   OCDSRelease
	overnight *app.Overnight
	now       func() time.Time // nil: time.Now
}

// SetClock sets the clock that dates the listing's deadline filters (tests).
func (h *Handler) SetClock(now func() time.Time) { h.now = now }

func (h *Handler) clock() time.Time {
	if h.now != nil {
		return h.now()
	}
	return time.Now()
}

// SetOvernight sets the overnight searches' runner (admin "run now").
func (h *Handler) SetOvernight(o *app.Overnight) { h.overnight = o }

// IngestSources opens the source of an admin ingest: "rss" reads url,
// "csv" and "ocds" read content. The service's assembly chooses the
// adapters (and which URLs may be fetched); errors are *apperr.Error.
type IngestSources interface {
	Open(kind, url string, content []byte) (domain.ObservationSource, error)
}

// OCDSRelease renders a project as an OCDS 1.1 release; the service's
// assembly passes the OCDS adapter's encoder.
type OCDSRelease func(domain.Project) any

// NewHandler returns the handler; a nil release leaves ExportOcds
// unimplemented.
func NewHandler(a *app.App, sources IngestSources, release OCDSRelease) *Handler {
	return &Handler{app: a, sources: sources, release: release}
}

func baht(v *float64) *domain.Money {
	if v == nil {
		return nil
	}
	m := domain.Money(math.Round(*v * 100))
	return &m
}

func date(s string) (*time.Time, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	d, ok, err := domain.ParseThaiDate(s)
	if err != nil || !ok {
		return nil, domain.InvalidCriteria("invalid date %q", s)
	}
	return &d, nil
}

// criteria reads a listing request; now dates its deadline filters and order.
func criteria(r *projectsv1.ListProjectsRequest, now time.Time) (domain.Criteria, error) {
	c := domain.Criteria{
		Keyword: r.Keyword, AnyOf: r.KeyWord_Incl_Or, AllOf: r.KeyWord_Incl_And, NoneOf: r.KeyWord_Excl_Nor,
		AnnouncementTypes: r.AnnouType_UserRequired, Methods: r.Method_UserRequired,
		Departments: r.Dept_User, SubDepartments: r.DeptSubProvince_User, Provinces: r.Province_User,
		Ministries: r.Ministry_User, Statuses: r.ProjectStatus_User, Strategies: r.GovStrategy_User,
		WorkTypes: r.TypeTran_User, ProjectIDs: r.ProjectId_User,
		MinBudget: baht(r.ProjectMoneyS_User), MaxBudget: baht(r.ProjectMoneyE_User),
		Sort: domain.SortOrder(r.Sort),
	}
	for _, y := range r.BudgetYear_User {
		n, err := strconv.Atoi(strings.TrimSpace(y))
		if err != nil {
			return c, domain.InvalidCriteria("invalid budget year %q", y)
		}
		c.BudgetYears = append(c.BudgetYears, n)
	}
	var err error
	if c.From, err = date(r.AnnouSDate_User); err != nil {
		return c, err
	}
	if c.To, err = date(r.AnnouEDate_User); err != nil {
		return c, err
	}
	if c.DueFrom, err = date(r.DueSDate_User); err != nil {
		return c, err
	}
	if c.DueTo, err = date(r.DueEDate_User); err != nil {
		return c, err
	}
	c.ClosingWithin = int(r.ClosingWithinDays)
	if c.ClosingWithin != 0 || c.Sort == domain.SortDeadline {
		c.Today = now
	}
	return c, c.Validate()
}

func f64(m *domain.Money) *float64 {
	if m == nil {
		return nil
	}
	v := float64(*m) / 100
	return &v
}

// percent is hundredths of a percent as a percent with two decimals.
func percent(hundredths *int64) *float64 {
	if hundredths == nil {
		return nil
	}
	v := float64(*hundredths) / 100
	return &v
}

// satang is the exact amount (JSON string) beside the display baht.
func satang(m *domain.Money) *int64 {
	if m == nil {
		return nil
	}
	v := int64(*m)
	return &v
}

func statusName(s domain.Status) string {
	for _, c := range domain.Statuses {
		if c.Code == string(s) {
			return c.NameTh
		}
	}
	return ""
}

func summary(p *domain.Project, terms []string) *projectsv1.ProjectSummary {
	s := &projectsv1.ProjectSummary{
		ProjectId: p.ID, ProjectName: p.Name, DeptCode: p.AgencyCode, DeptName: p.AgencyName, DeptSubName: p.SubAgencyName,
		MinistryName: p.MinistryName, ProvinceCode: p.ProvinceCode, ProvinceName: domain.ProvinceName(p.ProvinceCode),
		MethodCode: p.MethodCode, MethodName: p.MethodName, TypeCode: p.WorkTypeCode, TypeName: p.WorkTypeName,
		AnnounceType: string(p.LastAnnounceTyp), AnnounceTypeName: p.LastAnnounceTyp.NameTh(),
		ReferencePrice: f64(p.ReferencePrice), AgreedPrice: f64(p.AgreedPrice), BudgetYear: int32(p.BudgetYear),
		Status: string(p.Status), StatusName: statusName(p.Status), WinnerName: p.WinnerName,
	}
	if s.MinistryName == "" {
		s.MinistryName = domain.MinistryName(p.MinistryCode)
	}
	if !p.LastAnnounced.IsZero() {
		s.AnnounceDate = p.LastAnnounced.In(domain.Bangkok).Format(time.DateOnly)
	}
	if p.SubmissionDue != nil {
		s.SubmissionDue = p.SubmissionDue.In(domain.Bangkok).Format(time.DateOnly)
	}
	if p.HearingDue != nil {
		s.HearingDue = p.HearingDue.In(domain.Bangkok).Format(time.DateOnly)
	}
	s.Budget, s.BudgetSatang = f64(p.Budget), satang(p.Budget)
	s.ReferencePriceSatang, s.AgreedPriceSatang = satang(p.ReferencePrice), satang(p.AgreedPrice)
	for i := len(p.Announcements) - 1; i >= 0; i-- {
		if p.Announcements[i].Link != "" {
			s.EgpUrl = p.Announcements[i].Link
			break
		}
	}
	for _, t := range terms {
		if strings.Contains(p.SearchText, t) {
			s.MatchedKeywords = append(s.MatchedKeywords, t)
		}
	}
	return s
}

// ListProjects serves GET /gen-infor: criteria search with pagination.
func (h *Handler) ListProjects(ctx context.Context, req *connect.Request[projectsv1.ListProjectsRequest]) (*connect.Response[projectsv1.ListProjectsResponse], error) {
	c, err := criteria(req.Msg, h.clock())
	if err != nil {
		return nil, err
	}
	page := domain.PageRequest{Page: int(req.Msg.Page), PerPage: int(req.Msg.PerPage), After: req.Msg.Cursor}
	if page.PerPage <= 0 {
		page.PerPage = 10
	}
	m := req.Msg
	flags := domain.ListingFlags{Bid: m.Is_InterestToBid, Archived: m.IsArchived, Like: m.IsUserLike,
		Follow: m.IsInterestToStepChk, Fill20: m.IsFill20, Comment: m.IsComment}
	var user string
	if claims, ok := authn.FromContext(ctx); ok {
		user = claims.UserID
	}
	res, err := h.app.List(ctx, user, flags, c, page)
	if err != nil {
		return nil, err
	}
	terms := c.Terms().Positive()
	out := &projectsv1.ListProjectsResponse{Data: make([]*projectsv1.ProjectSummary, 0, len(res.Items))}
	for i := range res.Items {
		s := summary(&res.Items[i], terms)
		if mk, ok := res.Marks[s.ProjectId]; ok {
			s.IsUserLike, s.IsInterestToStepChk, s.Is_InterestToBid = mk.Like, mk.Follow, mk.Bid
			s.IsArchived, s.IsFill20, s.CommentCount = mk.Archived, mk.Fill20, int32(mk.CommentCount)
			s.BidPrice, s.BidPriceSatang, s.ReductionPercent = f64(mk.BidPrice), satang(mk.BidPrice), percent(mk.ReductionBP)
		}
		out.Data = append(out.Data, s)
	}
	out.Pagination = pagination(res.ResultPage, req.Msg.Cursor != "")
	return connect.NewResponse(out), nil
}

func pagination(res domain.ResultPage, afterCursor bool) *projectsv1.Pagination {
	pages := 0
	if res.PerPage > 0 {
		pages = (res.Total + res.PerPage - 1) / res.PerPage
	}
	return &projectsv1.Pagination{
		Page: int32(res.Page), PerPage: int32(res.PerPage), Total: int64(res.Total), TotalIsEstimate: res.TotalEstimated,
		TotalPages: int32(pages), HasNext: res.NextCursor != "", HasPrev: res.Page > 1 || afterCursor,
		NextCursor: res.NextCursor,
	}
}

func options(cs []domain.Code) []*projectsv1.Option {
	out := make([]*projectsv1.Option, 0, len(cs))
	for _, c := range cs {
		if c.Code == "" || c.NameTh == "" {
			continue
		}
		out = append(out, &projectsv1.Option{Value: c.Code, Label: c.NameTh})
	}
	return out
}

// GetDropdownData serves GET /front/dropdown-data.
func (h *Handler) GetDropdownData(ctx context.Context, _ *connect.Request[projectsv1.GetDropdownDataRequest]) (*connect.Response[projectsv1.GetDropdownDataResponse], error) {
	d, err := h.app.Dropdowns(ctx)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&projectsv1.GetDropdownDataResponse{
		AnnounceTypes: options(d.AnnouncementTypes), Methods: options(d.Methods), Provinces: options(d.Provinces),
		Ministries: options(d.Ministries), Departments: options(d.Departments), SubDepartments: options(d.SubDepartments),
		Statuses: options(d.Statuses), Strategies: options(d.Strategies), Categories: options(d.Categories),
		BudgetYears: options(d.BudgetYears),
	}), nil
}

func dateStr(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.In(domain.Bangkok).Format(time.DateOnly)
}

// GetProject serves the project details.
func (h *Handler) GetProject(ctx context.Context, req *connect.Request[projectsv1.GetProjectRequest]) (*connect.Response[projectsv1.GetProjectResponse], error) {
	p, err := h.app.Get(ctx, strings.TrimSpace(req.Msg.ProjectId))
	if err != nil {
		return nil, err
	}
	d := &projectsv1.ProjectDetail{
		Summary: summary(&p, nil), DeptSubCode: p.SubAgencyCode, MinistryCode: p.MinistryCode, Source: p.Source,
		FirstSeenAt: timestamppb.New(p.FirstSeen), LastSeenAt: timestamppb.New(p.LastSeen), UpdatedAt: timestamppb.New(p.LastSeen),
	}
	for _, a := range p.Announcements {
		d.Announcements = append(d.Announcements, &projectsv1.Announcement{
			TypeCode: string(a.Type), TypeName: a.Name, Date: dateStr(&a.Date), Title: p.Name, Link: a.Link,
		})
	}
	if p.ContractNo != "" || p.WinnerName != "" || p.ContractSigned != nil {
		c := &projectsv1.Contract{ContractNo: p.ContractNo, ContractDate: dateStr(p.ContractSigned), WinnerName: p.WinnerName,
			WinnerTaxId: p.WinnerTaxID, WinnerTaxIdSuspect: p.WinnerTaxIDBad, EndDate: dateStr(p.ContractEnd)}
		if v := f64(p.ContractValue); v != nil {
			c.ContractPrice = *v
		}
		d.Contracts = append(d.Contracts, c)
	}
	return connect.NewResponse(&projectsv1.GetProjectResponse{Project: d}), nil
}

// ExportOcds exports one project as an OCDS 1.1 release, for the tiers
// that include the export.
func (h *Handler) ExportOcds(ctx context.Context, req *connect.Request[projectsv1.ExportOcdsRequest]) (*connect.Response[projectsv1.ExportOcdsResponse], error) {
	if h.release == nil {
		return nil, connect.NewError(connect.CodeUnimplemented, errors.New("OCDS export is not configured"))
	}
	c, err := caller(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := h.app.CanExportOCDS(ctx, c); err != nil {
		return nil, err
	}
	p, err := h.app.Get(ctx, strings.TrimSpace(req.Msg.ProjectId))
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(h.release(p))
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	st, err := structpb.NewStruct(m)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&projectsv1.ExportOcdsResponse{Release: st}), nil
}

// GetProjectSummaries is internal: the list rows of the given projects.
func (h *Handler) GetProjectSummaries(ctx context.Context, req *connect.Request[projectsv1.GetProjectSummariesRequest]) (*connect.Response[projectsv1.GetProjectSummariesResponse], error) {
	if len(req.Msg.ProjectIds) > 500 {
		return nil, apperr.New(apperr.InvalidArgument, "too-many-ids", "at most 500 project ids")
	}
	ps, err := h.app.GetMany(ctx, req.Msg.ProjectIds)
	if err != nil {
		return nil, err
	}
	out := &projectsv1.GetProjectSummariesResponse{Projects: make([]*projectsv1.ProjectSummary, 0, len(ps))}
	for i := range ps {
		out.Projects = append(out.Projects, summary(&ps[i], nil))
	}
	return connect.NewResponse(out), nil
}

// GetSearchOwners is internal: the owner and name of each saved search
// among the keys (16 bytes each); deleted ones are left out.
func (h *Handler) GetSearchOwners(ctx context.Context, req *connect.Request[projectsv1.GetSearchOwnersRequest]) (*connect.Response[projectsv1.GetSearchOwnersResponse], error) {
	raw := req.Msg.CriteriaKeys
	if len(raw)%16 != 0 {
		return nil, apperr.New(apperr.InvalidArgument, "invalid-search-keys", "criteria_keys must be 16 bytes a search")
	}
	keys := make([]domain.SearchKey, len(raw)/16)
	for i := range keys {
		keys[i] = domain.SearchKey(raw[16*i : 16*i+16])
	}
	cs, ver, err := h.app.SearchOwners(ctx, keys)
	if err != nil {
		return nil, err
	}
	out := &projectsv1.GetSearchOwnersResponse{Searches: make([]*projectsv1.SearchOwner, 0, len(cs)), CriteriaVersion: ver}
	for _, c := range cs {
		out.Searches = append(out.Searches, &projectsv1.SearchOwner{CriteriaKey: c.Key[:], UserId: c.UserID, Name: c.Name})
	}
	return connect.NewResponse(out), nil
}

// Ingest is the admin entry: rss (url), csv or ocds (content).
func (h *Handler) Ingest(ctx context.Context, req *connect.Request[projectsv1.IngestRequest]) (*connect.Response[projectsv1.IngestResponse], error) {
	target := req.Msg.Url
	src, err := h.sources.Open(req.Msg.Source, target, req.Msg.Content)
	if err != nil {
		return nil, err
	}
	if target == "" {
		target = "upload"
	}
	run, err := h.app.Ingest(ctx, src, target, nil)
	if err != nil && run.ID == 0 {
		return nil, err
	}
	return connect.NewResponse(&projectsv1.IngestResponse{Run: runPB(run)}), nil
}

func runPB(r domain.IngestRun) *projectsv1.IngestionRun {
	return &projectsv1.IngestionRun{
		RunId: strconv.FormatInt(r.ID, 10), Source: r.Source, Target: r.Target,
		StartedAt: timestamppb.New(r.StartedAt), FinishedAt: timestamppb.New(r.FinishedAt),
		ItemsRead: int64(r.Stats.Seen), Created: int64(r.Stats.Created), Updated: int64(r.Stats.Updated),
		Unchanged: int64(r.Stats.Unchanged), Errors: int64(r.Errors), ErrorSamples: r.ErrorLog,
		DurationMs: r.FinishedAt.Sub(r.StartedAt).Milliseconds(),
	}
}

// ListIngestionRuns lists recent runs.
func (h *Handler) ListIngestionRuns(ctx context.Context, req *connect.Request[projectsv1.ListIngestionRunsRequest]) (*connect.Response[projectsv1.ListIngestionRunsResponse], error) {
	runs, err := h.app.Runs(ctx, int(req.Msg.Limit))
	if err != nil {
		return nil, err
	}
	out := &projectsv1.ListIngestionRunsResponse{}
	for _, r := range runs {
		out.Runs = append(out.Runs, runPB(r))
	}
	return connect.NewResponse(out), nil
}

// RunOvernight runs today's overnight searches now.
func (h *Handler) RunOvernight(ctx context.Context, _ *connect.Request[projectsv1.RunOvernightRequest]) (*connect.Response[projectsv1.RunOvernightResponse], error) {
	if h.overnight == nil {
		return nil, apperr.New(apperr.Unavailable, "overnight-unavailable", "Overnight searches are not configured")
	}
	st, err := h.overnight.RunNow(ctx)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&projectsv1.RunOvernightResponse{
		Day: st.Day.Format(time.DateOnly), WindowFrom: timestamppb.New(st.From), WindowTo: timestamppb.New(st.To),
		Criteria: int64(st.Criteria), ProjectsSeen: int64(st.ProjectsSeen), Digests: int64(st.Digests),
		FinishedAt: timestamppb.New(st.FinishedAt),
	}), nil
}
