package stack_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"bidradar/stack"
)

func TestClockControl(t *testing.T) {
	t.Parallel()
	c := &stack.Clock{}
	srv := httptest.NewServer(c)
	defer srv.Close()
	do := func(method, query string) int {
		req, _ := http.NewRequest(method, srv.URL+query, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := do("PUT", "?offset=61s"); s != 200 || c.Offset() != 61*time.Second {
		t.Fatalf("PUT 61s: status %d, offset %s", s, c.Offset())
	}
	if ahead := time.Until(c.Now()); ahead < 60*time.Second || ahead > 62*time.Second {
		t.Fatalf("Now is %s ahead, want about 61 s", ahead)
	}
	c.Advance(time.Second)
	if c.Offset() != 62*time.Second {
		t.Fatalf("after Advance: %s", c.Offset())
	}
	for _, q := range []string{"", "?offset=soon"} {
		if s := do("PUT", q); s != 400 || c.Offset() != 62*time.Second {
			t.Fatalf("PUT %q: status %d, offset %s", q, s, c.Offset())
		}
	}
	if s := do("POST", "?offset=0s"); s != 405 {
		t.Fatalf("POST: %d", s)
	}
	do("PUT", "?offset=0s")
	if c.Offset() != 0 {
		t.Fatalf("back to real time: offset %s", c.Offset())
	}
}
