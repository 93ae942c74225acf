package ports

import (
	"context"

	"connectrpc.com/connect"

	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/services/projects/internal/app"
)

// Scrape serves POST /scrape?project_ids=…: each id (repeated, or
// comma-separated) is fetched from e-GP and upserted; one result per id.
func (h *Handler) Scrape(ctx context.Context, req *connect.Request[projectsv1.ScrapeRequest]) (*connect.Response[projectsv1.ScrapeResponse], error) {
	who, err := caller(ctx, req)
	if err != nil {
		return nil, err
	}
	res, err := h.app.Scrape(ctx, who, req.Msg.ProjectIds)
	if err != nil {
		return nil, err
	}
	out := &projectsv1.ScrapeResponse{Message: app.ScrapeMessage(res), Results: make([]*projectsv1.ScrapeResult, 0, len(res))}
	for _, r := range res {
		out.Results = append(out.Results, &projectsv1.ScrapeResult{ProjectId: r.ProjectID, Status: r.Status, Detail: r.Detail})
	}
	return connect.NewResponse(out), nil
}

// UpdateProjectSmart serves POST /update-project-smart/{id}. A refresh
// within the cooldown answers 200 with status "cooldown", can_update false
// and the seconds to wait: the call succeeded, the project is just fresh
// (the client reads data, not the status code).
func (h *Handler) UpdateProjectSmart(ctx context.Context, req *connect.Request[projectsv1.UpdateProjectSmartRequest]) (*connect.Response[projectsv1.UpdateProjectSmartResponse], error) {
	who, err := caller(ctx, req)
	if err != nil {
		return nil, err
	}
	r, err := h.app.UpdateProjectSmart(ctx, who, req.Msg.ProjectId)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&projectsv1.UpdateProjectSmartResponse{
		Message: r.Message, Status: r.Status,
		Data: &projectsv1.UpdateProjectSmartData{CanUpdate: r.CanUpdate, TimeUntilNextUpdate: int32(r.WaitSeconds), ActionRequired: r.Action},
	}), nil
}
