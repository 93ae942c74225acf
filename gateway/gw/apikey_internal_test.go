package gw

import (
	"net/http/httptest"
	"testing"
)

// TestKeyPolicyFindsProcedures: the procedure of a request is found by its
// Connect path or its REST route, the most literal route winning, so the
// access rule checked for a key is the rule of the call that will run.
func TestKeyPolicyFindsProcedures(t *testing.T) {
	kp := newKeyPolicy()
	for _, c := range []struct{ method, path, want string }{
		{"GET", "/app/backend/api/v1/teams/abc/pipeline", "/teams.v1.TeamsService/ListPipeline"},
		{"PUT", "/app/backend/api/v1/teams/abc/pipeline/12345678901", "/teams.v1.TeamsService/PutPipelineItem"},
		{"POST", "/app/backend/api/v1/teams/abc/pipeline/12345678901/comments", "/teams.v1.TeamsService/AddComment"},
		{"POST", "/app/backend/api/v1/teams/invitations/accept", "/teams.v1.TeamsService/AcceptInvitation"},
		{"GET", "/app/backend/api/v1/users/me", "/auth.v1.AuthService/GetMe"},
		{"GET", "/app/backend/api/v1/gen-infor", "/projects.v1.ProjectsService/ListProjects"},
		{"GET", "/app/backend/api/v1/projects/12345678901", "/projects.v1.ProjectsService/GetProject"},
		{"POST", "/teams.v1.TeamsService/ListPipeline", "/teams.v1.TeamsService/ListPipeline"},
		{"GET", "/app/backend/api/v1/no/such/path", ""},
		{"GET", "/app/backend/api/v1/teams//pipeline", ""},
	} {
		got, _ := kp.procedure(httptest.NewRequest(c.method, c.path, nil))
		if got != c.want {
			t.Errorf("%s %s: %q, want %q", c.method, c.path, got, c.want)
		}
	}
	// The rules that take keys: only the team's pipeline and the search.
	for proc, r := range kp.rules {
		if r.TeamKey == 0 {
			continue
		}
		switch proc {
		case "/teams.v1.TeamsService/ListPipeline", "/teams.v1.TeamsService/GetPipelineItem", "/teams.v1.TeamsService/PutPipelineItem",
			"/teams.v1.TeamsService/DeletePipelineItem", "/teams.v1.TeamsService/ListItemHistory", "/teams.v1.TeamsService/ListComments",
			"/teams.v1.TeamsService/AddComment", "/projects.v1.ProjectsService/ListProjects", "/projects.v1.ProjectsService/GetProject":
		default:
			t.Errorf("%s takes team API keys", proc)
		}
	}
}
