// Package ports serves the market RPCs (Connect, gRPC, gRPC-Web; REST through
// the gateway) and reads the projects' award events, on top of the use cases.
package ports

import (
	"context"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	marketv1 "bidradar/gen/market/v1"
	"bidradar/gen/market/v1/marketv1connect"
	"bidradar/pkg/authn"
	"bidradar/services/market/internal/app"
	"bidradar/services/market/internal/domain"
)

// Handler implements marketv1connect.MarketServiceHandler.
type Handler struct {
	marketv1connect.UnimplementedMarketServiceHandler
	app *app.App
}

// NewHandler returns the handler.
func NewHandler(a *app.App) *Handler { return &Handler{app: a} }

func caller(ctx context.Context) (string, error) {
	c, err := authn.Require(ctx)
	if err != nil {
		return "", err
	}
	return c.UserID, nil
}

func baht(satang int64) float64 { return float64(satang) / 100 }

func optBaht(satang *int64) *float64 {
	if satang == nil {
		return nil
	}
	v := baht(*satang)
	return &v
}

func optTax(id string) *wrapperspb.StringValue {
	if id == "" {
		return nil
	}
	return wrapperspb.String(id)
}

func statsPB(s domain.Stats) *marketv1.DiscountStats {
	return &marketv1.DiscountStats{P10: s.P10, P25: s.P25, P50: s.P50, P75: s.P75, P90: s.P90, Mean: s.Mean}
}

func histPB(bs []domain.Bin) []*marketv1.HistogramBin {
	out := make([]*marketv1.HistogramBin, len(bs))
	for i, b := range bs {
		out[i] = &marketv1.HistogramBin{FromPct: b.From, ToPct: b.To, Count: int32(b.Count)}
	}
	return out
}

func yearsPB(ys []domain.YearStat) []*marketv1.BudgetYearStat {
	out := make([]*marketv1.BudgetYearStat, len(ys))
	for i, y := range ys {
		out[i] = &marketv1.BudgetYearStat{BudgetYear: int32(y.Year), N: int32(y.N), P50: y.P50}
	}
	return out
}

func winnersPB(ws []domain.WinnerStat) []*marketv1.Winner {
	out := make([]*marketv1.Winner, len(ws))
	for i, w := range ws {
		out[i] = &marketv1.Winner{TaxId: optTax(w.TaxID), Name: w.Name, Wins: int32(w.Wins), TotalBaht: baht(w.Total), P50DiscountPct: w.P50}
	}
	return out
}

// GetBenchmarks implements the RPC.
func (h *Handler) GetBenchmarks(ctx context.Context, req *connect.Request[marketv1.GetBenchmarksRequest]) (*connect.Response[marketv1.GetBenchmarksResponse], error) {
	uid, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	b, err := h.app.Benchmarks(ctx, uid, domain.RawFilter{
		Keyword: m.GetKeyword(), Or: m.GetKeyWord_Incl_Or(), And: m.GetKeyWord_Incl_And(), Not: m.GetKeyWord_Excl_Nor(),
		Depts: m.GetDept_User(), SubDepts: m.GetDeptSubProvince_User(), Ministries: m.GetMinistry_User(),
		Provinces: m.GetProvince_User(), Methods: m.GetMethod_UserRequired(), Types: m.GetTypeTran_User(),
		BudgetYears: m.GetBudgetYear_User(), From: m.GetAnnouSDate_User(), To: m.GetAnnouEDate_User(),
		MinBudget: m.ProjectMoneyS_User, MaxBudget: m.ProjectMoneyE_User,
	})
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&marketv1.GetBenchmarksResponse{N: int32(b.N), NWithoutReference: int32(b.NWithoutReference),
		DiscountPct: statsPB(b.Stats), Histogram: histPB(b.Histogram), ByBudgetYear: yearsPB(b.ByYear),
		TopWinners: winnersPB(b.TopWinners)}), nil
}

// GetPriceGuide implements the RPC.
func (h *Handler) GetPriceGuide(ctx context.Context, req *connect.Request[marketv1.GetPriceGuideRequest]) (*connect.Response[marketv1.GetPriceGuideResponse], error) {
	uid, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	g, err := h.app.PriceGuide(ctx, uid, req.Msg.GetProjectId(), req.Msg.BidPrice)
	if err != nil {
		return nil, err
	}
	b, p := g.Benchmark, g.Project
	out := &marketv1.GetPriceGuideResponse{N: int32(b.N), NWithoutReference: int32(b.NWithoutReference),
		DiscountPct: statsPB(b.Stats), Histogram: histPB(b.Histogram), ByBudgetYear: yearsPB(b.ByYear),
		TopWinners: winnersPB(b.TopWinners), Basis: g.Group.Basis, Group: &marketv1.PriceGroup{},
		ProjectId: p.ID, ProjectName: p.Name, ReferencePrice: optBaht(g.Reference), ReferenceKind: g.ReferenceKind,
		MinGroupSize: app.MinGroupSize}
	if g.Group.DeptCode != "" {
		out.Group.DeptCode, out.Group.DeptName = p.DeptCode, p.DeptName
	}
	if g.Group.MethodCode != "" {
		out.Group.MethodCode, out.Group.MethodName = p.MethodCode, p.MethodName
	}
	if g.Group.TypeCode != "" {
		out.Group.TypeCode, out.Group.TypeName = p.TypeCode, p.TypeName
	}
	if g.Bid != nil {
		out.Bid = &marketv1.Bid{BidPrice: g.Bid.Price, DiscountPct: g.Bid.Discount, PercentileRank: g.Bid.Rank}
	}
	return connect.NewResponse(out), nil
}

// SearchSuppliers implements the RPC.
func (h *Handler) SearchSuppliers(ctx context.Context, req *connect.Request[marketv1.SearchSuppliersRequest]) (*connect.Response[marketv1.SearchSuppliersResponse], error) {
	uid, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	hits, err := h.app.SearchSuppliers(ctx, uid, req.Msg.GetQ(), int(req.Msg.GetLimit()))
	if err != nil {
		return nil, err
	}
	out := &marketv1.SearchSuppliersResponse{Suppliers: make([]*marketv1.SupplierSummary, len(hits))}
	for i, s := range hits {
		out.Suppliers[i] = &marketv1.SupplierSummary{TaxId: optTax(s.TaxID), Name: s.Name, Wins: int32(s.Wins), TotalBaht: baht(s.Total)}
	}
	return connect.NewResponse(out), nil
}

// GetSupplier implements the RPC.
func (h *Handler) GetSupplier(ctx context.Context, req *connect.Request[marketv1.GetSupplierRequest]) (*connect.Response[marketv1.GetSupplierResponse], error) {
	uid, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	s, watched, err := h.app.Supplier(ctx, uid, req.Msg.GetTaxId())
	if err != nil {
		return nil, err
	}
	out := &marketv1.GetSupplierResponse{TaxId: s.TaxID, Names: s.Names, Wins: int32(s.Wins), TotalBaht: baht(s.Total),
		P50DiscountPct: s.P50, Watched: watched}
	for _, y := range s.ByYear {
		out.ByBudgetYear = append(out.ByBudgetYear, &marketv1.SupplierYear{BudgetYear: int32(y.Year), Wins: int32(y.Wins),
			TotalBaht: baht(y.Total), P50DiscountPct: y.P50})
	}
	for _, a := range s.Agencies {
		out.Agencies = append(out.Agencies, &marketv1.SupplierAgency{DeptCode: a.Code, Name: a.Name, Wins: int32(a.Wins), TotalBaht: baht(a.Total)})
	}
	for _, r := range s.Recent {
		ra := &marketv1.RecentAward{ProjectId: r.ProjectID, ProjectName: r.ProjectName, AgreedPrice: optBaht(r.Agreed),
			ReferencePrice: optBaht(r.Reference), DiscountPct: r.Discount, DeptName: r.DeptName}
		if r.Date != nil {
			ra.AnnounceDate = r.Date.Format(time.DateOnly)
		}
		out.Recent = append(out.Recent, ra)
	}
	return connect.NewResponse(out), nil
}

// GetAgency implements the RPC.
func (h *Handler) GetAgency(ctx context.Context, req *connect.Request[marketv1.GetAgencyRequest]) (*connect.Response[marketv1.GetAgencyResponse], error) {
	uid, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	a, err := h.app.Agency(ctx, uid, req.Msg.GetDeptCode())
	if err != nil {
		return nil, err
	}
	out := &marketv1.GetAgencyResponse{DeptCode: a.Code, Name: a.Name, Level: a.Level, ParentCode: a.ParentCode,
		ParentName: a.ParentName, Projects: int32(a.Projects), TotalBaht: baht(a.Total), N: int32(a.N),
		NWithoutReference: int32(a.NWithoutReference), P50DiscountPct: a.P50, TopSuppliers: winnersPB(a.TopSuppliers)}
	for _, y := range a.ByYear {
		out.ByBudgetYear = append(out.ByBudgetYear, &marketv1.AgencyYear{BudgetYear: int32(y.Year), Projects: int32(y.Projects),
			TotalBaht: baht(y.Total), P50DiscountPct: y.P50})
	}
	for _, m := range a.Methods {
		out.Methods = append(out.Methods, &marketv1.MethodShare{MethodCode: m.Code, MethodName: m.Name, Projects: int32(m.Projects),
			TotalBaht: baht(m.Total), SharePct: m.SharePct})
	}
	return connect.NewResponse(out), nil
}

func watchPB(w domain.Watch) *marketv1.WatchEntry {
	return &marketv1.WatchEntry{TaxId: w.TaxID, Name: w.Name, Wins: int32(w.Wins), TotalBaht: baht(w.Total), CreatedAt: timestamppb.New(w.Created)}
}

// AddWatch implements the RPC.
func (h *Handler) AddWatch(ctx context.Context, req *connect.Request[marketv1.AddWatchRequest]) (*connect.Response[marketv1.AddWatchResponse], error) {
	uid, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	w, err := h.app.AddWatch(ctx, uid, req.Msg.GetTaxId())
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&marketv1.AddWatchResponse{TaxId: w.TaxID, Name: w.Name, Wins: int32(w.Wins),
		TotalBaht: baht(w.Total), CreatedAt: timestamppb.New(w.Created)}), nil
}

// ListWatches implements the RPC.
func (h *Handler) ListWatches(ctx context.Context, _ *connect.Request[marketv1.ListWatchesRequest]) (*connect.Response[marketv1.ListWatchesResponse], error) {
	uid, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	ws, limit, err := h.app.Watches(ctx, uid)
	if err != nil {
		return nil, err
	}
	out := &marketv1.ListWatchesResponse{Items: make([]*marketv1.WatchEntry, len(ws)), Limit: int32(limit)}
	for i, w := range ws {
		out.Items[i] = watchPB(w)
	}
	return connect.NewResponse(out), nil
}

// RemoveWatch implements the RPC.
func (h *Handler) RemoveWatch(ctx context.Context, req *connect.Request[marketv1.RemoveWatchRequest]) (*connect.Response[marketv1.RemoveWatchResponse], error) {
	uid, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.app.RemoveWatch(ctx, uid, req.Msg.GetTaxId()); err != nil {
		return nil, err
	}
	return connect.NewResponse(&marketv1.RemoveWatchResponse{}), nil
}
