package deploy_test

// The image build and `make build-binaries` must not drift apart: both build
// through scripts/go-build (the one place that holds the flags), and the
// Dockerfile's dependency layer must hold every module go.work uses.

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func readRepoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", name))
	if err != nil {
		t.Skipf("no %s next to deploy/: %v", name, err)
	}
	return string(b)
}

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	cmd  string // upper case: FROM, COPY, RUN, ...
	args string
}

func parseDockerfile(src string) []instruction {
	var out []instruction
	var cur strings.Builder
	for _, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") || (trimmed == "" && cur.Len() == 0) {
			continue
		}
		if strings.HasSuffix(trimmed, "\\") {
			cur.WriteString(strings.TrimSuffix(trimmed, "\\") + " ")
			continue
		}
		cur.WriteString(trimmed)
		full := strings.TrimSpace(cur.String())
		cur.Reset()
		if full == "" {
			continue
		}
		cmd, args, _ := strings.Cut(full, " ")
		out = append(out, instruction{strings.ToUpper(cmd), strings.TrimSpace(args)})
	}
	return out
}

// buildStage returns the instructions of the stage named "build".
func buildStage(t *testing.T, all []instruction) []instruction {
	t.Helper()
	start := -1
	for i, in := range all {
		if in.cmd != "FROM" {
			continue
		}
		if start >= 0 {
			return all[start:i]
		}
		if strings.HasSuffix(strings.ToLower(in.args), " as build") {
			start = i + 1
		}
	}
	if start < 0 {
		t.Fatal("Dockerfile has no stage named build")
	}
	return all[start:]
}

// workspaceModules lists the directories of go.work's use directives.
func workspaceModules(t *testing.T) []string {
	t.Helper()
	src := readRepoFile(t, "go.work")
	var dirs []string
	inBlock := false
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(strings.SplitN(line, "//", 2)[0])
		switch {
		case line == "use (":
			inBlock = true
		case inBlock && line == ")":
			inBlock = false
		case inBlock && line != "":
			dirs = append(dirs, path.Clean(line))
		case strings.HasPrefix(line, "use "):
			dirs = append(dirs, path.Clean(strings.TrimSpace(strings.TrimPrefix(line, "use "))))
		}
	}
	if len(dirs) == 0 {
		t.Fatal("go.work uses no module")
	}
	return dirs
}

// TestDockerfileDownloadsDependenciesFirst: go.work, go.work.sum and every
// workspace module's go.mod/go.sum are copied, then `go mod download` runs,
// then the source is copied and built; nothing else is copied before the
// download, so a source change does not invalidate the dependency layer.
func TestDockerfileDownloadsDependenciesFirst(t *testing.T) {
	stage := buildStage(t, parseDockerfile(readRepoFile(t, "Dockerfile")))
	download, source, build := -1, -1, -1
	copied := map[string]bool{}
	for i, in := range stage {
		switch {
		case in.cmd == "RUN" && strings.Contains(in.args, "go mod download"):
			download = i
		case in.cmd == "COPY" && in.args == ". .":
			source = i
		case in.cmd == "RUN" && strings.Contains(in.args, "scripts/go-build"):
			build = i
		case in.cmd == "COPY" && download < 0 && source < 0:
			fields := strings.Fields(in.args)
			if len(fields) < 2 || strings.HasPrefix(fields[0], "--") {
				t.Errorf("COPY %s: want plain COPY <files>... <dir>/ before go mod download", in.args)
				continue
			}
			dest := strings.TrimSuffix(fields[len(fields)-1], "/")
			for _, f := range fields[:len(fields)-1] {
				base := path.Base(f)
				if !slices.Contains([]string{"go.work", "go.work.sum", "go.mod", "go.sum"}, base) {
					t.Errorf("COPY %s before go mod download: only go.work, go.work.sum, go.mod and go.sum belong in the dependency layer", f)
				}
				if d := path.Dir(f); d != dest {
					t.Errorf("COPY %s: %s lands in %s, not in its own directory", in.args, f, dest)
				}
				copied[path.Clean(f)] = true
			}
		}
	}
	switch {
	case download < 0:
		t.Fatal("the build stage never runs go mod download")
	case source < 0:
		t.Fatal("the build stage never copies the source (COPY . .)")
	case build < 0:
		t.Fatal("the build stage never runs scripts/go-build")
	case download > source || source > build:
		t.Errorf("want go mod download, then COPY . ., then scripts/go-build; got positions %d, %d, %d", download, source, build)
	}
	if strings.Contains(stage[download].args, "--mount=type=cache,target=/go/pkg/mod") {
		t.Error("go mod download into a cache mount leaves the dependency layer empty")
	}
	for _, in := range stage[source:] {
		if in.cmd == "RUN" && strings.Contains(in.args, "target=/go/pkg/mod") {
			t.Error("a cache mount on /go/pkg/mod after the download hides the downloaded modules")
		}
	}
	want := []string{"go.work", "go.work.sum"}
	for _, dir := range workspaceModules(t) {
		want = append(want, dir+"/go.mod")
		if _, err := os.Stat(filepath.Join("..", dir, "go.sum")); err == nil {
			want = append(want, dir+"/go.sum")
		}
	}
	for _, f := range want {
		if !copied[f] {
			t.Errorf("Dockerfile does not copy %s before go mod download", f)
		}
	}
	for f := range copied {
		if _, err := os.Stat(filepath.Join("..", f)); err != nil {
			t.Errorf("Dockerfile copies %s, which does not exist", f)
		}
	}
}

// TestBuildFlagsHaveOneSource: the image and `make build-binaries` both build
// through scripts/go-build, and neither runs go build itself.
func TestBuildFlagsHaveOneSource(t *testing.T) {
	script := readRepoFile(t, "scripts/go-build")
	for _, want := range []string{"CGO_ENABLED=0", "go build", "-trimpath", `-ldflags="-s -w"`} {
		if !strings.Contains(script, want) {
			t.Errorf("scripts/go-build lacks %q", want)
		}
	}

	for _, in := range buildStage(t, parseDockerfile(readRepoFile(t, "Dockerfile"))) {
		if in.cmd == "RUN" && strings.Contains(in.args, "go build") {
			t.Errorf("Dockerfile runs go build itself (%q); build through scripts/go-build", in.args)
		}
	}

	mk := readRepoFile(t, "Makefile")
	m := regexp.MustCompile(`(?m)^build-binaries:.*\n((?:\t.*\n)+)`).FindStringSubmatch(mk)
	if m == nil {
		t.Fatal("Makefile has no build-binaries target")
	}
	recipe := m[1]
	if !strings.Contains(recipe, "scripts/go-build") {
		t.Error("make build-binaries does not build through scripts/go-build")
	}
	if strings.Contains(recipe, "go build") {
		t.Error("make build-binaries runs go build itself; build through scripts/go-build")
	}
	// The same packages as the images: the gateway and services/<svc>/cmd/<svc>.
	for _, want := range []string{"./gateway/cmd/gateway", "./services/*/cmd/*"} {
		if !strings.Contains(recipe, want) {
			t.Errorf("make build-binaries does not build %s", want)
		}
	}
	for _, s := range services {
		dir := filepath.Join("..", "services", s.name, "cmd", s.name)
		if s.name == "gateway" {
			dir = filepath.Join("..", "gateway", "cmd", "gateway")
		}
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("service %s: the image builds %s, which does not exist", s.name, dir)
		}
	}
}
