package gw

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzGuardInput: whatever the path, query and JSON body, the input guard
// answers 4xx or passes the request on with a body that is valid UTF-8
// without NUL; it never panics.
func FuzzGuardInput(f *testing.F) {
	for _, s := range [][3]string{
		{"/app/backend/api/v1/gen-infor", "keyword=%FF%FE", ""},
		{"/app/backend/api/v1/login", "", `{"username":"\u0000","password":"x"}`},
		{"/app/backend/api/v1/login", "", "{\"username\":\"\xff\"}"},
		{"/app/backend/api/v1/projects/%FF", "", ""},
		{"/app/backend/api/v1/login", "a=%zz", `{"username":"a\\u0000"}`},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, path, query, body string) {
		var passed []byte
		h := guardInput(1<<12, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b := make([]byte, r.ContentLength+1)
			n, _ := r.Body.Read(b)
			passed = b[:n]
		}))
		req := httptest.NewRequest("POST", "http://x/", strings.NewReader(body))
		req.URL.Path, req.URL.RawQuery = path, query
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 {
			if rec.Code < 400 || rec.Code >= 500 {
				t.Fatalf("status %d", rec.Code)
			}
			return
		}
		if !utf8.Valid(passed) || strings.Contains(string(passed), "\x00") || hasEscapedNUL(passed) {
			t.Fatalf("passed a bad body %q", passed)
		}
		if badText(path) {
			t.Fatalf("passed a bad path %q", path)
		}
	})
}
