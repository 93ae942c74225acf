package stack_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The app chooses its Thai message by an error's reason, never by its
// English detail, so every reason the server can send needs an entry in the
// app's table: the services' and pkg's apperr slugs, the reasons pkg/apperr
// makes itself and the gateway's own. This test fails when one has none, so
// that a new error cannot ship untranslated.
func TestEveryErrorReasonHasThai(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..")
	sent := map[string][]string{} // reason → where
	var problems []string
	for _, dir := range []string{"services", "pkg"} {
		walkGo(t, filepath.Join(root, dir), func(path string, fset *token.FileSet, f *ast.File) {
			for r, where := range apperrSlugs(fset, f, &problems) {
				sent[r] = append(sent[r], where...)
			}
		})
	}
	walkGo(t, filepath.Join(root, "pkg", "apperr"), func(path string, fset *token.FileSet, f *ast.File) {
		for r, where := range stringConsts(fset, f, "Reason") {
			sent[r] = append(sent[r], where...)
		}
	})
	walkGo(t, filepath.Join(root, "gateway", "gw"), func(path string, fset *token.FileSet, f *ast.File) {
		for r, where := range stringConsts(fset, f, "reason") {
			sent[r] = append(sent[r], where...)
		}
	})
	if len(sent) < 50 {
		t.Fatalf("found only %d reasons: is the scan still looking in the right places?", len(sent))
	}

	table := filepath.Join(root, "frontend", "src", "i18n", "reasons.ts")
	thai, err := reasonKeys(table)
	if err != nil {
		t.Fatal(err)
	}
	for r, where := range sent {
		if !thai[r] {
			problems = append(problems, "reason "+strconv.Quote(r)+" ("+strings.Join(where, ", ")+") has no entry in frontend/src/i18n/reasons.ts")
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// walkGo parses every non-test Go file under dir.
func walkGo(t *testing.T, dir string, visit func(string, *token.FileSet, *ast.File)) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		visit(path, fset, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// apperrSlugs are the slugs of apperr.New(kind, slug, msg) and
// apperr.Wrap(err, kind, slug, msg) calls. A slug must be a non-empty
// literal, or another error's .Slug (reused, so checked where it is made).
func apperrSlugs(fset *token.FileSet, f *ast.File, problems *[]string) map[string][]string {
	out := map[string][]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "apperr" {
			return true
		}
		arg := map[string]int{"New": 1, "Wrap": 2}[sel.Sel.Name]
		if arg == 0 || len(call.Args) <= arg {
			return true
		}
		where := fset.Position(call.Pos()).String()
		switch s := call.Args[arg].(type) {
		case *ast.BasicLit:
			slug, err := strconv.Unquote(s.Value)
			if err != nil || slug == "" {
				*problems = append(*problems, where+": apperr."+sel.Sel.Name+" without a slug")
				return true
			}
			out[slug] = append(out[slug], where)
		case *ast.SelectorExpr:
			if s.Sel.Name != "Slug" {
				*problems = append(*problems, where+": the slug must be a string literal or another error's .Slug")
			}
		default:
			*problems = append(*problems, where+": the slug must be a string literal or another error's .Slug")
		}
		return true
	})
	return out
}

// stringConsts are the values of the string constants whose names start
// with prefix.
func stringConsts(fset *token.FileSet, f *ast.File, prefix string) map[string][]string {
	out := map[string][]string{}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if !strings.HasPrefix(name.Name, prefix) || i >= len(vs.Values) {
					continue
				}
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					v, _ := strconv.Unquote(lit.Value)
					out[v] = append(out[v], fset.Position(name.Pos()).String())
				}
			}
		}
	}
	return out
}

// reasonEntry is a top-level entry of the reasons object: `  "slug": …`,
// `  slug: …` or the shorthand `  slug,`.
var reasonEntry = regexp.MustCompile(`^  (?:"([^"]+)"|([A-Za-z_$][\w$]*))\s*[:,]`)

// reasonKeys reads the keys of `export const reasons = { … }` in the app's table.
func reasonKeys(path string) (map[string]bool, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	text := string(src)
	start := strings.Index(text, "export const reasons = {")
	if start < 0 {
		return nil, os.ErrNotExist
	}
	keys := map[string]bool{}
	for _, line := range strings.Split(text[start:], "\n")[1:] {
		if strings.HasPrefix(line, "}") {
			break
		}
		if m := reasonEntry.FindStringSubmatch(line); m != nil {
			keys[m[1]+m[2]] = true
		}
	}
	return keys, nil
}
