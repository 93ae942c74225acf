package stack_test

import (
	"net/url"
	"strings"
	"testing"
)

// TestProjectsREST: demo data searched in Thai over GET /gen-infor, the dropdown
// lists, project details and scrape validation, through the gateway.
func TestProjectsREST(t *testing.T) {
	e := startStack(t, map[string]string{"DEMO_DATA": "300"})

	all := e.call("GET", "/gen-infor?page=1&per_page=10", nil)
	expect(t, all, 200, "gen-infor")
	data, _ := all.Body["data"].([]any)
	pag, _ := all.Body["pagination"].(map[string]any)
	if len(data) != 10 || pag["total"] == nil || pag["per_page"] != float64(10) {
		t.Fatalf("gen-infor page: %d rows, pagination %v", len(data), pag)
	}
	first, _ := data[0].(map[string]any)
	for _, k := range []string{"project_id", "project_name", "budget", "is_InterestToBid", "is_userLike", "is_interestToStepChk", "is_archived"} {
		if _, ok := first[k]; !ok {
			t.Errorf("row lacks %q: %v", k, first)
		}
	}
	id, _ := first["project_id"].(string)
	if len(id) != 11 {
		t.Fatalf("project_id %q is not an 11-digit e-GP id", id)
	}

	// A Thai keyword matches as a substring; every row carries it.
	name, _ := first["project_name"].(string)
	kw := string([]rune(name)[:3])
	hits := e.call("GET", "/gen-infor?keyWord_Incl_Or="+url.QueryEscape(kw), nil)
	expect(t, hits, 200, "keyword search")
	rows, _ := hits.Body["data"].([]any)
	if len(rows) == 0 {
		t.Fatalf("keyword %q found nothing", kw)
	}

	dd := e.call("GET", "/front/dropdown-data", nil)
	expect(t, dd, 200, "dropdown-data")
	for _, group := range []string{"announce_types", "methods", "provinces", "statuses"} {
		list, _ := dd.Body[group].([]any)
		if len(list) == 0 {
			t.Errorf("dropdown %s is empty", group)
		}
		for _, o := range list {
			m := o.(map[string]any)
			if m["value"] == "" || m["label"] == "" {
				t.Errorf("dropdown %s has an empty entry %v", group, m)
			}
		}
	}
	prov, _ := dd.Body["provinces"].([]any)
	if len(prov) != 77 {
		t.Errorf("provinces: %d, want 77", len(prov))
	}

	tok := e.registerVerified("buyer", "buyer@example.com", "long enough pass").str("access_token")
	det := e.call("GET", "/projects/"+id, nil, bearer(tok)...)
	expect(t, det, 200, "project details")
	if !strings.Contains(det.Raw, id) {
		t.Fatalf("details of %s: %s", id, det.Raw)
	}
	expect(t, e.call("GET", "/projects/00000000000", nil, bearer(tok)...), 404, "unknown project")
	expectDetail(t, e.call("POST", "/scrape", nil, bearer(tok)...), 400, "project")
	expectDetail(t, e.call("POST", "/scrape?project_ids=12", nil, bearer(tok)...), 400, "11")
}

// TestIngestIsAdminOnly: only ADMIN_EMAILS may feed data in.
func TestIngestIsAdminOnly(t *testing.T) {
	e := startStack(t, map[string]string{"ADMIN_EMAILS": "@ops.bidradar.test"})
	body := map[string]string{"source": "ocds", "content": "e30="} // base64 of {}
	expect(t, e.call("POST", "/admin/ingest", body), 401, "visitor ingest")
	user := e.registerVerified("plain", "plain@example.com", "long enough pass").str("access_token")
	expectDetail(t, e.call("POST", "/admin/ingest", body, bearer(user)...), 403, "Admin")
	expect(t, e.call("GET", "/admin/ingestion-runs", nil, bearer(user)...), 403, "user lists runs")
	admin := e.registerVerified("ops", "ops@ops.bidradar.test", "long enough pass").str("access_token")
	if r := e.call("POST", "/admin/ingest", body, bearer(admin)...); r.Status >= 500 || r.Status == 401 || r.Status == 403 {
		t.Fatalf("admin ingest: %d %s", r.Status, r.Raw)
	}
	expect(t, e.call("GET", "/admin/ingestion-runs", nil, bearer(admin)...), 200, "admin lists runs")
}
