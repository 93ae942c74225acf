package stack_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
)

// TestRESTFuzzEveryPath walks every path of gateway/http_rules.yaml with
// hostile input — invalid UTF-8 and NUL (escaped and raw), huge and negative
// numbers, wrong JSON types (in messages one level down too), missing and
// broken bodies, 10 kB strings, SQL and JSON metacharacters — signed out,
// signed in, and with a forged token. No answer may be a
// 5xx, and every refusal says why in a "detail" without internals.
func TestRESTFuzzEveryPath(t *testing.T) {
	ops := fuzzOperations(t)
	e := startStack(t, map[string]string{
		"DEMO_DATA": "40",
		// LINE configured (its endpoints unreachable): a missing channel's 503 is by design.
		"LINE_CHANNEL_ID": "1657000001", "LINE_CHANNEL_SECRET": "fuzz-secret",
		"LINE_REDIRECT_URI":  "http://127.0.0.1:1/auth/line/callback",
		"LINE_AUTHORIZE_URL": "http://127.0.0.1:1/authorize", "LINE_TOKEN_URL": "http://127.0.0.1:1/token",
	})
	const password = "fuzzing is fun 2569"
	e.registerVerified("fuzzer", "fuzzer@example.com", password)

	var mu sync.Mutex
	token := e.login("fuzzer", password).str("access_token")
	// currentToken signs in again when a hostile call ended the session
	// (logout, refresh-token reuse): the rest still runs signed in.
	currentToken := func() string {
		mu.Lock()
		defer mu.Unlock()
		if r := e.raw("GET", "/app/backend/api/v1/users/me", "", true, "Authorization", "Bearer "+token); r.Status == 401 {
			token = e.login("fuzzer", password).str("access_token")
		}
		return token
	}

	type failure struct{ op, req, got string }
	var failures []failure
	var total int
	statuses := map[int]int{}
	work := make(chan fuzzOp)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for op := range work {
				for _, who := range []string{"signed out", "signed in", "forged token"} {
					var auth []string
					switch who {
					case "signed in":
						auth = []string{"Authorization", "Bearer " + currentToken()}
					case "forged token":
						// alg "none", an admin's claims, no signature.
						auth = []string{"Authorization", "Bearer eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJhZG1pbiIsImFkbWluIjp0cnVlfQ."}
					}
					for _, c := range op.cases() {
						r := e.raw(op.method, c.target, c.body, c.noBody, auth...)
						bad := ""
						switch {
						case r.Status == 400 && r.Raw == "400 Bad Request" && badEscape(c.target):
							// net/http itself refuses a request line whose path
							// does not unescape, before any handler runs.
						case r.Status >= 500:
							bad = "5xx"
						case r.Status >= 400 && r.detail() == "":
							bad = "refusal without a detail"
						case r.Status >= 400 && leaksInternals(r.detail()):
							bad = "detail leaks internals"
						}
						mu.Lock()
						total++
						statuses[r.Status]++
						if bad != "" {
							failures = append(failures, failure{op.method + " " + op.path, fmt.Sprintf("%s, %s: %s body %q", who, c.what, shorten(c.target), shorten(c.body)),
								fmt.Sprintf("%s: %d %s", bad, r.Status, shorten(r.Raw))})
						}
						mu.Unlock()
					}
				}
			}
		}()
	}
	for _, op := range ops {
		work <- op
	}
	close(work)
	wg.Wait()
	t.Logf("%d operations, %d hostile requests; answers by status: %v", len(ops), total, statuses)
	// One line per operation and kind of failure, with an example.
	seen := map[string]int{}
	var lines []string
	for _, f := range failures {
		kind := f.op + " — " + strings.SplitN(f.got, " ", 3)[0] + strings.SplitN(f.got, " ", 3)[1]
		if seen[kind]++; seen[kind] == 1 {
			lines = append(lines, kind+"\x00"+f.req+"\n    "+f.got)
		}
	}
	sort.Strings(lines)
	for _, l := range lines {
		kind, example, _ := strings.Cut(l, "\x00")
		t.Errorf("%s (%d requests), e.g. %s", kind, seen[kind], example)
	}

	// Nothing fell over: the stack still answers, search included.
	if r := e.raw("GET", "/readyz", "", true); r.Status != 200 {
		t.Fatalf("after the fuzz pass /readyz: %d %s", r.Status, r.Raw)
	}
	expect(t, e.call("GET", "/gen-infor?keyword=ถนน", nil), 200, "search after the fuzz pass")
}

// fuzzOp is one documented REST operation with what the OpenAPI document
// (generated from the same protos and rules) says about its inputs.
type fuzzOp struct {
	method, path string
	pathParams   []string
	query        []fuzzParam
	body         *fuzzSchema // nil: the operation takes no body
}

type fuzzParam struct {
	name, typ string
	fields    []fuzzParam // a message's own fields (one level down)
}

type fuzzSchema struct {
	props []fuzzParam // top-level fields with their OpenAPI types ("object" for messages)
}

type fuzzCase struct {
	what, target, body string
	noBody             bool
}

// Hostile values, raw (for JSON strings) and escaped (for paths and queries).
var (
	long10k      = strings.Repeat("ก", 3400) // 10 200 bytes of Thai
	hostileQuery = []string{
		"%FF%FE", "%00", "a%00b", "%C0%AF", "%ED%A0%80", "%", "%ZZ", "1e999", "99999999999999999999999", "-1", "-2147483649",
		"NaN", "0x1F", "abc", "true", "%27%20OR%201%3D1--", "%22%3B%20DROP%20TABLE%20projects%3B--", "%7B%22%24ne%22%3Anull%7D",
		"%5B%5D", url.QueryEscape(long10k), strings.Repeat("a", 10000),
	}
	hostileJSONStrings = []string{
		`"\u0000"`, "\"\xff\xfe\"", `"\ud800"`, `"` + long10k + `"`, `"' OR 1=1; DROP TABLE projects;--"`, `"{\"$ne\": null}"`,
		`"%s%n%x"`, `"../../etc/passwd"`, `"-1"`, `"99999999999999999999999"`, `""`,
	}
	hostileJSONNumbers = []string{`1e309`, `99999999999999999999999`, `-1`, `-9223372036854775809`, `1.5`, `"12abc"`, `"1e999"`, `true`, `null`, `[]`, `{}`}
	hostileJSONBools   = []string{`"yes"`, `1`, `null`, `[]`, `{}`, `"\u0000"`}
	hostileJSONArrays  = []string{`"notarray"`, `[null]`, `[1, 2]`, `["` + long10k + `"]`, `[{}]`, `{}`, `[` + strings.Repeat(`"\u0000",`, 500) + `""]`}
	hostileJSONObjects = []string{`"str"`, `42`, `[]`, `{"no_such_field": 1}`, `{"\u0000": "\u0000"}`}
	hostileBodies      = []string{"", "null", "[]", `"x"`, "{", `{"a":`, "\xff\xfe", "{}{}", `{"__proto__": {"admin": true}}`,
		strings.Repeat("[", 20000) + strings.Repeat("]", 20000), `{"x": "` + strings.Repeat("a", 100000) + `"}`}
)

func (op fuzzOp) target(pathValues map[string]string, query string) string {
	p := op.path
	for _, name := range op.pathParams {
		v := pathValues[name]
		if v == "" {
			v = "69099722203"
		}
		p = strings.Replace(p, "{"+name+"}", v, 1)
	}
	if query != "" {
		p += "?" + query
	}
	return p
}

// cases are the operation's hostile requests: each path parameter, query
// parameter and body field in turn, the rest left plausible.
func (op fuzzOp) cases() []fuzzCase {
	var out []fuzzCase
	plainBody := ""
	if op.body != nil {
		plainBody = "{}"
	}
	for _, name := range op.pathParams {
		for _, v := range append(hostileQuery, "%2F..%2F..", "..", "-0", "0") {
			out = append(out, fuzzCase{what: "path " + name + "=" + shorten(v), target: op.target(map[string]string{name: v}, ""), body: plainBody})
		}
	}
	for _, q := range op.query {
		for _, v := range hostileQuery {
			out = append(out, fuzzCase{what: "query " + q.name, target: op.target(nil, url.QueryEscape(q.name)+"="+v), body: plainBody})
		}
		// The same parameter twice, with conflicting values.
		out = append(out, fuzzCase{what: "query " + q.name + " twice", target: op.target(nil, q.name+"=1&"+q.name+"=%FF"), body: plainBody})
	}
	// Negative and huge pages wherever there is paging.
	for _, q := range []string{"page=-1", "page=0", "per_page=-5", "per_page=100000000", "page=2147483648&per_page=2147483647", "limit=-1"} {
		out = append(out, fuzzCase{what: q, target: op.target(nil, q), body: plainBody})
	}
	if op.body == nil {
		// Methods without a body still get one, and a broken one.
		if op.method != "GET" {
			out = append(out, fuzzCase{what: "unexpected body", target: op.target(nil, ""), body: `{"x": "\u0000"}`})
		}
		return out
	}
	out = append(out, fuzzCase{what: "no body at all", target: op.target(nil, ""), noBody: true})
	for _, b := range hostileBodies {
		out = append(out, fuzzCase{what: "body", target: op.target(nil, ""), body: b})
	}
	for _, f := range op.body.props {
		for _, v := range hostileValues(f.typ) {
			out = append(out, fuzzCase{what: "field " + f.name, target: op.target(nil, ""), body: `{"` + f.name + `": ` + v + `}`})
		}
		for _, sub := range f.fields {
			for _, v := range hostileValues(sub.typ) {
				out = append(out, fuzzCase{what: "field " + f.name + "." + sub.name, target: op.target(nil, ""), body: `{"` + f.name + `": {"` + sub.name + `": ` + v + `}}`})
			}
		}
	}
	return out
}

// hostileValues are JSON values for a field of OpenAPI type typ: wrong types
// among them.
func hostileValues(typ string) []string {
	switch typ {
	case "string":
		v := append([]string{}, hostileJSONStrings...)
		return append(v, hostileJSONNumbers[0], hostileJSONNumbers[1], `{}`, `[]`, `true`)
	case "integer", "number":
		return hostileJSONNumbers
	case "boolean":
		return hostileJSONBools
	case "array":
		return hostileJSONArrays
	default:
		return hostileJSONObjects
	}
}

// fuzzOperations reads the documented paths from gateway/http_rules.yaml and
// their parameters from the generated OpenAPI document.
func fuzzOperations(t *testing.T) []fuzzOp {
	t.Helper()
	rules, err := os.Open("../gateway/http_rules.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer rules.Close()
	type rule struct{ method, path string }
	var documented []rule
	re := regexp.MustCompile(`^\s*-?\s*(get|post|put|patch|delete):\s*(\S+)`)
	sc := bufio.NewScanner(rules)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			documented = append(documented, rule{strings.ToUpper(m[1]), m[2]})
		}
	}
	raw, err := os.ReadFile("../gen/openapi/api.swagger.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name   string `json:"name"`
				In     string `json:"in"`
				Type   string `json:"type"`
				Schema struct {
					Ref string `json:"$ref"`
				} `json:"schema"`
			} `json:"parameters"`
		} `json:"paths"`
		Definitions map[string]struct {
			Properties map[string]struct {
				Type string `json:"type"`
				Ref  string `json:"$ref"`
			} `json:"properties"`
		} `json:"definitions"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var ops []fuzzOp
	for _, r := range documented {
		spec, ok := doc.Paths[r.path][strings.ToLower(r.method)]
		if !ok {
			t.Fatalf("%s %s: in http_rules.yaml, not in the OpenAPI document (make generate)", r.method, r.path)
		}
		op := fuzzOp{method: r.method, path: r.path}
		for _, p := range spec.Parameters {
			switch p.In {
			case "path":
				op.pathParams = append(op.pathParams, p.Name)
			case "query":
				op.query = append(op.query, fuzzParam{name: p.Name, typ: p.Type})
			case "body":
				s := &fuzzSchema{}
				def := doc.Definitions[strings.TrimPrefix(p.Schema.Ref, "#/definitions/")]
				for name, prop := range def.Properties {
					f := fuzzParam{name: name, typ: prop.Type}
					if f.typ == "" {
						f.typ = "object"
						for sub, sp := range doc.Definitions[strings.TrimPrefix(prop.Ref, "#/definitions/")].Properties {
							if sp.Type == "" {
								sp.Type = "object"
							}
							f.fields = append(f.fields, fuzzParam{name: sub, typ: sp.Type})
						}
					}
					s.props = append(s.props, f)
				}
				sort.Slice(s.props, func(i, j int) bool { return s.props[i].name < s.props[j].name })
				op.body = s
			}
		}
		ops = append(ops, op)
	}
	if len(ops) < 50 {
		t.Fatalf("only %d operations read from http_rules.yaml", len(ops))
	}
	return ops
}

// raw sends target (path and query exactly as given, escapes and all) with
// body as raw bytes: Content-Type application/json unless noBody.
func (e *env) raw(method, target, body string, noBody bool, headers ...string) reply {
	e.t.Helper()
	var rd io.Reader
	if !noBody && (body != "" || method != "GET") {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.url+"/", rd)
	if err != nil {
		e.t.Fatal(err)
	}
	// Opaque is written as the request target unchanged: invalid escapes
	// reach the server instead of failing in the client.
	path, query, _ := strings.Cut(target, "?")
	req.URL.Opaque, req.URL.RawQuery = path, query
	if !noBody {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := e.http.Do(req)
	if err != nil {
		return reply{Status: 599, Raw: "transport error: " + err.Error()}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := reply{Status: resp.StatusCode, Raw: string(b), Header: resp.Header}
	_ = json.Unmarshal(b, &r.Body)
	return r
}

// badEscape reports a path that is not valid percent-encoding.
func badEscape(target string) bool {
	path, _, _ := strings.Cut(target, "?")
	_, err := url.PathUnescape(path)
	return err != nil
}

func leaksInternals(detail string) bool {
	for _, leak := range []string{"proto:", "strconv.", "grpc:", "syntax error", "marshal", "panic", "runtime error", "pgx", "SQLSTATE", "goroutine"} {
		if strings.Contains(detail, leak) {
			return true
		}
	}
	return false
}

func shorten(s string) string {
	if len(s) > 120 {
		return s[:120] + fmt.Sprintf("…(%d bytes)", len(s))
	}
	return s
}
