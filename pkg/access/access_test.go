package access_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"bidradar/gen/auth/v1/authv1connect"
	"bidradar/gen/projects/v1/projectsv1connect"
	"bidradar/gen/registry"
	"bidradar/pkg/access"
)

// Every RPC declared in proto/ must carry an audience, and every service
// declared there must be seen by All (its generated package linked in).
func TestEveryRPCDeclaresItsAudience(t *testing.T) {
	all, err := access.All()
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("../../proto/*/v1/*.proto")
	if err != nil || len(files) == 0 {
		t.Fatalf("no protos found: %v", err)
	}
	pkgRe := regexp.MustCompile(`(?m)^package ([\w.]+);`)
	svcRe := regexp.MustCompile(`(?m)^service (\w+) \{`)
	rpcRe := regexp.MustCompile(`(?m)^\s*rpc (\w+)\(`)
	declared := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		svcs := svcRe.FindAllSubmatch(src, -1)
		if len(svcs) == 0 {
			continue
		}
		if len(svcs) > 1 {
			t.Fatalf("%s: one service per file, please", f)
		}
		pkg := string(pkgRe.FindSubmatch(src)[1])
		for _, m := range rpcRe.FindAllSubmatch(src, -1) {
			declared++
			proc := "/" + pkg + "." + string(svcs[0][1]) + "/" + string(m[1])
			if _, ok := all.Rule(proc); !ok {
				t.Errorf("%s: %s has no (access.v1.rule) or its service is not linked into pkg/access", f, proc)
			}
		}
	}
	if declared != len(all) {
		t.Errorf("proto/ declares %d RPCs, the policy knows %d", declared, len(all))
	}
}

func TestRules(t *testing.T) {
	p, err := access.ForService(authv1connect.AuthServiceName)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		proc string
		want access.Rule
	}{
		{authv1connect.AuthServiceLoginProcedure, access.Rule{Audience: access.Public, PasswordHash: true}},
		{authv1connect.AuthServiceGetMeProcedure, access.Rule{Audience: access.User}},
		{authv1connect.AuthServiceChangePasswordProcedure, access.Rule{Audience: access.User, PasswordHash: true}},
		{authv1connect.AuthServiceGetPublicKeysProcedure, access.Rule{Audience: access.Internal}},
	}
	for _, c := range cases {
		if got, ok := p.Rule(c.proc); !ok || got != c.want {
			t.Errorf("%s: %+v %v, want %+v", c.proc, got, ok, c.want)
		}
	}
	if _, ok := p.Rule(projectsv1connect.ProjectsServiceIngestProcedure); ok {
		t.Error("ForService returned another service's procedure")
	}
	all, _ := access.All()
	if r, _ := all.Rule(projectsv1connect.ProjectsServiceIngestProcedure); r.Audience != access.Admin {
		t.Errorf("Ingest: %+v, want admin", r)
	}
	if _, err := access.ForService("nope.v1.NoService"); err == nil {
		t.Error("unknown service accepted")
	}
}

// Every service declares the variable that holds its target, each its own.
func TestEndpoints(t *testing.T) {
	eps, err := access.Endpoints()
	if err != nil {
		t.Fatal(err)
	}
	all, _ := access.All()
	services := map[string]bool{}
	for proc := range all {
		name, ok := access.ServiceName(proc)
		if !ok {
			t.Fatalf("%s: not /service/method", proc)
		}
		services[name] = true
	}
	if len(eps) != len(services) {
		t.Errorf("%d endpoints for %d services", len(eps), len(services))
	}
	envRe := regexp.MustCompile(`^[A-Z][A-Z0-9]*_TARGET$`)
	seen := map[string]string{}
	for _, e := range eps {
		if !services[e.Service] {
			t.Errorf("%s: an endpoint without access rules", e.Service)
		}
		if !envRe.MatchString(e.TargetEnv) {
			t.Errorf("%s: target_env %q is not NAME_TARGET", e.Service, e.TargetEnv)
		}
		if other, dup := seen[e.TargetEnv]; dup {
			t.Errorf("%s and %s share %s", e.Service, other, e.TargetEnv)
		}
		seen[e.TargetEnv] = e.Service
	}
}

// The refresh cookie and the upload limit follow the rules: a cookie path and
// an exact-path limit cannot be templates, and internal RPCs have no REST route
// (the gateway would forward it).
func TestPathsFromRules(t *testing.T) {
	all, err := access.All()
	if err != nil {
		t.Fatal(err)
	}
	refresh := all.Paths(func(r access.Rule) bool { return r.RefreshCookie })
	for _, want := range []string{
		authv1connect.AuthServiceRefreshTokenProcedure, "/app/backend/api/v1/refresh-token",
		authv1connect.AuthServiceLogoutProcedure, "/app/backend/api/v1/logout",
	} {
		if !slices.Contains(refresh, want) {
			t.Errorf("refresh-cookie paths %v lack %s", refresh, want)
		}
	}
	uploads := all.Paths(func(r access.Rule) bool { return r.LargeBody })
	if !slices.Contains(uploads, projectsv1connect.ProjectsServiceIngestProcedure) || !slices.Contains(uploads, "/app/backend/api/v1/admin/ingest") {
		t.Errorf("large-body paths %v lack Ingest's", uploads)
	}
	for _, p := range append(refresh, uploads...) {
		if strings.ContainsAny(p, "{}*") {
			t.Errorf("%s: a path template cannot scope a cookie or a limit", p)
		}
	}
	for proc, r := range all {
		if r.Audience == access.Internal && len(access.REST(proc)) > 0 {
			t.Errorf("%s is internal but has a REST route %v", proc, access.REST(proc))
		}
		if r.RefreshCookie && r.Audience != access.Public {
			t.Errorf("%s reads the refresh cookie but is not public (an expired access token must not stop it)", proc)
		}
	}
	for proc := range registry.REST {
		if _, ok := all.Rule(proc); !ok {
			t.Errorf("REST binding for %s, which no service declares", proc)
		}
	}
}

func TestServiceName(t *testing.T) {
	for in, want := range map[string]string{
		"/auth.v1.AuthService/Login": "auth.v1.AuthService",
		"/auth.v1.AuthService/":      "",
		"auth.v1.AuthService/Login":  "",
		"/a/b/c":                     "",
		"/":                          "",
	} {
		got, ok := access.ServiceName(in)
		if got != want || ok != (want != "") {
			t.Errorf("ServiceName(%q) = %q %v, want %q", in, got, ok, want)
		}
	}
}
