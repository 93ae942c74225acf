// Package clients reads other services: projects (the pipeline's project
// fields, projects.v1 GetProjectSummaries) and subscription (the team seats
// of the owners' tiers, subscription.v1 GetEntitlements); both internal RPCs.
package clients

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"connectrpc.com/connect"

	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/gen/projects/v1/projectsv1connect"
	subscriptionv1 "bidradar/gen/subscription/v1"
	"bidradar/gen/subscription/v1/subscriptionv1connect"
	"bidradar/services/teams/internal/domain"
)

// Projects implements domain.Projects.
type Projects struct {
	rpc     projectsv1connect.ProjectsServiceClient
	timeout time.Duration
}

// NewProjects returns a client for target (host:port, h2c); httpClient
// presents the service token (runner's srv.Client()).
func NewProjects(httpClient *http.Client, target string, timeout time.Duration) *Projects {
	return &Projects{rpc: projectsv1connect.NewProjectsServiceClient(httpClient, "http://"+target, connect.WithGRPC()), timeout: timeout}
}

// Info implements domain.Projects.
func (c *Projects) Info(ctx context.Context, ids []string) (map[string]domain.ProjectInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	res, err := c.rpc.GetProjectSummaries(ctx, connect.NewRequest(&projectsv1.GetProjectSummariesRequest{ProjectIds: ids}))
	if err != nil {
		return nil, fmt.Errorf("project summaries: %w", err)
	}
	out := make(map[string]domain.ProjectInfo, len(res.Msg.GetProjects()))
	for _, p := range res.Msg.GetProjects() {
		out[p.GetProjectId()] = domain.ProjectInfo{ID: p.GetProjectId(), Name: p.GetProjectName(), Agency: p.GetDeptName(),
			BudgetSatang: p.BudgetSatang, Deadline: p.GetSubmissionDue()}
	}
	return out, nil
}

// Plans implements domain.Plans.
type Plans struct {
	rpc     subscriptionv1connect.SubscriptionServiceClient
	timeout time.Duration
}

// NewPlans returns a client for target (host:port, h2c).
func NewPlans(httpClient *http.Client, target string, timeout time.Duration) *Plans {
	return &Plans{rpc: subscriptionv1connect.NewSubscriptionServiceClient(httpClient, "http://"+target, connect.WithGRPC()), timeout: timeout}
}

// TeamSeats implements domain.Plans: the tier's team_seats, read from the
// tier table (docs/architecture.md#teams).
func (c *Plans) TeamSeats(ctx context.Context, userIDs []string) (map[string]int, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	res, err := c.rpc.GetEntitlements(ctx, connect.NewRequest(&subscriptionv1.GetEntitlementsRequest{UserIds: userIDs}))
	if err != nil {
		return nil, fmt.Errorf("get entitlements: %w", err)
	}
	out := make(map[string]int, len(userIDs))
	for _, u := range res.Msg.GetUsers() {
		out[u.GetUserId()] = int(u.GetTier().GetCombinationLimits().GetTeamSeats())
	}
	return out, nil
}
