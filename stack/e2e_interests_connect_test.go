package stack_test

import (
	"context"
	"net/http"
	"testing"

	"connectrpc.com/connect"

	interestsv1 "bidradar/gen/interests/v1"
	"bidradar/gen/interests/v1/interestsv1connect"
)

// Over Connect too (the app's own protocol), one user never reads or
// changes another's records or comments: the user is the token's.
func TestInterestsConnectIsolation(t *testing.T) {
	e := startStack(t, map[string]string{"DEMO_DATA": "3"})
	ann := e.registerVerified("annc", "annc@example.com", "long enough pass").str("access_token")
	bob := e.registerVerified("bobc", "bobc@example.com", "long enough pass").str("access_token")
	rows := e.call("GET", "/gen-infor?per_page=1", nil).Body["data"].([]any)
	pid := rows[0].(map[string]any)["project_id"].(string)
	add := e.call("POST", "/userInterests/"+pid+"/comments", map[string]any{"comment_text": "ของแอน"}, bearer(ann)...)
	expect(t, add, 200, "ann comments")
	cid := add.Body["latest_comment"].(map[string]any)["id"].(string)

	client := interestsv1connect.NewInterestsServiceClient(http.DefaultClient, e.url)
	as := func(tok string, m interface{ Header() http.Header }) {
		m.Header().Set("Authorization", "Bearer "+tok)
		m.Header().Set("X-Requested-With", "BidRadar")
	}
	ctx := context.Background()
	lc := connect.NewRequest(&interestsv1.ListCommentsRequest{Id: pid})
	as(bob, lc)
	if _, err := client.ListComments(ctx, lc); connect.CodeOf(err) != connect.CodeNotFound {
		t.Fatalf("bob lists ann's comments over Connect: %v", err)
	}
	uc := connect.NewRequest(&interestsv1.UpdateCommentRequest{Id: pid, CommentId: cid, CommentText: "pwned"})
	as(bob, uc)
	if _, err := client.UpdateComment(ctx, uc); connect.CodeOf(err) != connect.CodeNotFound {
		t.Fatalf("bob edits ann's comment over Connect: %v", err)
	}
	dc := connect.NewRequest(&interestsv1.DeleteCommentRequest{Id: pid, CommentId: cid})
	as(bob, dc)
	if _, err := client.DeleteComment(ctx, dc); connect.CodeOf(err) != connect.CodeNotFound {
		t.Fatalf("bob deletes ann's comment over Connect: %v", err)
	}
	gi := connect.NewRequest(&interestsv1.GetInterestRequest{ProjectId: pid})
	as(bob, gi)
	res, err := client.GetInterest(ctx, gi)
	if err != nil || res.Msg.Data.Source != "none" || res.Msg.Data.CommentCount != 0 {
		t.Fatalf("bob's lookup of ann's project: %v %v", res, err)
	}
	la := connect.NewRequest(&interestsv1.ListActiveInterestsRequest{})
	as(bob, la)
	if l, err := client.ListActiveInterests(ctx, la); err != nil || len(l.Msg.Data) != 0 {
		t.Fatalf("bob's list: %v %v", l, err)
	}
	// Ann's comment is untouched.
	got := e.call("GET", "/userInterests/"+pid+"/comments", nil, bearer(ann)...)
	if c := got.Body["comments"].([]any); len(c) != 1 || c[0].(map[string]any)["comment_text"] != "ของแอน" {
		t.Fatalf("ann's comments after bob's attempts: %s", got.Raw)
	}
}
