// Package projectsclient reads projects from the projects service
// (projects.v1.ProjectsService/GetProjectSummaries, an internal RPC).
package projectsclient

import (
	"context"
	"net/http"
	"time"

	"connectrpc.com/connect"

	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/gen/projects/v1/projectsv1connect"
	"bidradar/services/interests/internal/domain"
)

// Client implements domain.Projects.
type Client struct {
	rpc     projectsv1connect.ProjectsServiceClient
	timeout time.Duration
}

// New returns a client for target (host:port, h2c) with a per-call timeout;
// httpClient presents the service token the internal RPC needs
// (runner's srv.Client()).
func New(httpClient *http.Client, target string, timeout time.Duration, opts ...connect.ClientOption) *Client {
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	return &Client{
		rpc:     projectsv1connect.NewProjectsServiceClient(httpClient, "http://"+target, append([]connect.ClientOption{connect.WithGRPC()}, opts...)...),
		timeout: timeout,
	}
}

// Info implements domain.Projects.
func (c *Client) Info(ctx context.Context, ids []string) (map[string]domain.ProjectInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	res, err := c.rpc.GetProjectSummaries(ctx, connect.NewRequest(&projectsv1.GetProjectSummariesRequest{ProjectIds: ids}))
	if err != nil {
		return nil, err
	}
	out := make(map[string]domain.ProjectInfo, len(res.Msg.Projects))
	for _, p := range res.Msg.Projects {
		out[p.ProjectId] = domain.ProjectInfo{
			ID: p.ProjectId, Name: p.ProjectName, AgencyName: p.DeptName, Status: p.Status, StatusName: p.StatusName,
			AnnounceTypeName: p.AnnounceTypeName, AnnounceDate: p.AnnounceDate,
			SubmissionDue: p.SubmissionDue, HearingDue: p.HearingDue,
			BudgetSatang: p.BudgetSatang, ReferenceSatang: p.ReferencePriceSatang,
		}
	}
	return out, nil
}
