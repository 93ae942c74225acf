// Package projectsclient reads a project from the projects service
// (projects.v1.ProjectsService/GetProjectSummaries, internal) for the price guide.
package projectsclient

import (
	"context"
	"net/http"
	"time"

	"connectrpc.com/connect"

	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/gen/projects/v1/projectsv1connect"
	"bidradar/services/market/internal/domain"
)

// Client implements domain.Projects.
type Client struct {
	rpc     projectsv1connect.ProjectsServiceClient
	timeout time.Duration
}

// New returns a client for target (host:port, h2c); httpClient presents the service token.
func New(httpClient *http.Client, target string, timeout time.Duration) *Client {
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	return &Client{
		rpc:     projectsv1connect.NewProjectsServiceClient(httpClient, "http://"+target, connect.WithGRPC()),
		timeout: timeout,
	}
}

// Project implements domain.Projects.
func (c *Client) Project(ctx context.Context, id string) (domain.ProjectInfo, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	res, err := c.rpc.GetProjectSummaries(ctx, connect.NewRequest(&projectsv1.GetProjectSummariesRequest{ProjectIds: []string{id}}))
	if err != nil {
		return domain.ProjectInfo{}, false, err
	}
	for _, p := range res.Msg.GetProjects() {
		if p.GetProjectId() != id {
			continue
		}
		return domain.ProjectInfo{ID: p.GetProjectId(), Name: p.GetProjectName(), DeptCode: p.GetDeptCode(),
			DeptName: p.GetDeptName(), MethodCode: p.GetMethodCode(), MethodName: p.GetMethodName(),
			TypeCode: p.GetTypeCode(), TypeName: p.GetTypeName(),
			Reference: p.ReferencePriceSatang, Budget: p.BudgetSatang}, true, nil
	}
	return domain.ProjectInfo{}, false, nil
}
