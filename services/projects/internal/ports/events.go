package ports

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/proto"

	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/pkg/events"
	"bidradar/services/projects/internal/app"
)

// The events the instant alerts follow: every project ingestion creates or
// changes (proto/projects/v1/events.proto).
const (
	subjectProjectCreated = "projects.v1.project.created"
	subjectProjectUpdated = "projects.v1.project.updated"
)

// AlertSubjects are the subjects AlertEvents handles.
var AlertSubjects = []string{subjectProjectCreated, subjectProjectUpdated}

// AlertEvents returns the handler that matches each created or changed
// project against the saved searches (an events.Handler).
func AlertEvents(a *app.Alerts) events.Handler {
	return func(ctx context.Context, subject, _ string, data []byte) error {
		var id string
		switch subject {
		case subjectProjectCreated:
			var ev projectsv1.ProjectCreated
			if err := proto.Unmarshal(data, &ev); err != nil {
				return fmt.Errorf("decode %s: %w: %v", subject, events.ErrPermanent, err)
			}
			id = ev.GetProjectId()
		case subjectProjectUpdated:
			var ev projectsv1.ProjectUpdated
			if err := proto.Unmarshal(data, &ev); err != nil {
				return fmt.Errorf("decode %s: %w: %v", subject, events.ErrPermanent, err)
			}
			id = ev.GetProjectId()
		default:
			return nil
		}
		_, err := a.MatchProjects(ctx, []string{id})
		return err
	}
}
