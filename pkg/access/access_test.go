package access_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"bidradar/gen/auth/v1/authv1connect"
	"bidradar/gen/projects/v1/projectsv1connect"
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
