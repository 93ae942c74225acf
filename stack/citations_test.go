package stack_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// The design lives in the repository: a comment that follows a rule or a
// decision cites the heading it comes from as docs/<file>.md#<anchor>
// (docs/product.md, docs/architecture.md; a README or markdown link may be
// relative, e.g. ../../docs/product.md#alerts). This test fails when a
// cited file or heading does not exist (a heading renamed without its
// citations, a typo), and on any citation of the documents that never were
// in the repository (their section-sign citations), so that every reason a
// comment gives can be followed by whoever maintains the code.
func TestDocCitations(t *testing.T) {
	t.Parallel()
	problems, cited, err := checkCitations(filepath.Join(".."), "stack/citations_test.go") // its fixtures
	if err != nil {
		t.Fatal(err)
	}
	if cited < 100 {
		t.Fatalf("found only %d citations: is the scan still looking at the code?", cited)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// The checker itself: a missing file, a missing heading and an outside
// document are each reported; a placeholder, an existing heading (also
// the second of two equal ones), a relative link and a web address are not.
func TestDocCitationsChecker(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs/product.md", "# Title\n\n## Error catalogue\n\n### Sign in and codes\n\n```\n## Not a heading\n```\n\n## Tiers & `plan` limits\n\n## Dup\n\n## Dup\n\n### การแจ้งเตือน\n")
	write("docs/architecture.md", "# A\n\n## Shape\n\nSee [product](product.md#error-catalogue) and [gone](product.md#gone).\n")
	write("services/x/a.go", "// ok (docs/product.md#sign-in-and-codes, docs/product.md#tiers--plan-limits).\n"+
		"// placeholder docs/product.md#<heading>; web https://example.com/docs/product.md#nope\n"+
		"// second (docs/product.md#dup-1) and Thai (docs/product.md#การแจ้งเตือน).\n"+
		"// bad (docs/product.md#error-catalog) and (docs/missing.md#x).\n")
	write("services/x/README.md", "[rules](../../docs/architecture.md#shape), [bad](../../docs/architecture.md#shapes)\n")
	write("frontend/src/a.ts", "/** old (SP"+"EC §8) */\n")
	write("gen/x.go", "// generated (SP"+"EC §3), not checked\n")
	write("frontend/node_modules/x/README.md", "(docs/product.md#nothing-here)\n")
	problems, cited, err := checkCitations(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"docs/architecture.md:5: product.md#gone: no heading of docs/product.md has that anchor",
		"frontend/src/a.ts:1: cites a document outside the repository (SP" + "EC §8): cite a heading of docs/ instead",
		"services/x/README.md:1: ../../docs/architecture.md#shapes: no heading of docs/architecture.md has that anchor",
		"services/x/a.go:4: docs/missing.md#x: no such file",
		"services/x/a.go:4: docs/product.md#error-catalog: no heading of docs/product.md has that anchor",
	}
	if !slices.Equal(problems, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(problems, "\n"), strings.Join(want, "\n"))
	}
	if cited != 10 {
		t.Errorf("%d citations checked, want 10", cited)
	}
}

var (
	// A citation: a path ending in .md, '#', an anchor (GitHub's: letters,
	// marks, digits, '-' and '_'). The characters before it up to a space
	// or bracket are taken too, to tell a web address.
	citationRE = regexp.MustCompile(`([^\s()\[\]<>"'` + "`" + `]*?)((?:[\w.-]+/)*[\w.-]+\.md)#([\p{L}\p{M}\p{N}_-]+)`)
	// The documents outside the repository were cited by section sign.
	outsideRE = regexp.MustCompile(`\b(?:SPEC|DESIGN|STYLE) §\d*(?:\.\d+)*`)
)

// checkCitations scans root's text files (not generated code, installed
// packages or build output, nor the root-relative paths in skip) and
// returns the problems, sorted, as "file:line: what", and how many
// citations it checked.
func checkCitations(root string, skip ...string) ([]string, int, error) {
	skipDirs := map[string]bool{".git": true, ".data": true, "node_modules": true, "dist": true, "bin": true,
		"gen": true, "test-results": true}
	exts := map[string]bool{".go": true, ".ts": true, ".tsx": true, ".mjs": true, ".js": true, ".cjs": true, ".sql": true,
		".proto": true, ".yaml": true, ".yml": true, ".css": true, ".md": true, ".sh": true, ".html": true}
	names := map[string]bool{"Makefile": true, "Dockerfile": true, "run": true}
	anchors := map[string]map[string]bool{} // markdown file → its anchors
	var problems []string
	cited := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if !exts[filepath.Ext(p)] && !names[d.Name()] {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if slices.Contains(skip, rel) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for n := 1; sc.Scan(); n++ {
			line := sc.Text()
			for _, m := range outsideRE.FindAllString(line, -1) {
				problems = append(problems, fmt.Sprintf("%s:%d: cites a document outside the repository (%s): cite a heading of docs/ instead", rel, n, m))
			}
			for _, m := range citationRE.FindAllStringSubmatch(line, -1) {
				before, file, anchor := m[1], m[2], m[3]
				if strings.Contains(before, "://") || strings.Contains(before+file, "://") {
					continue // another site's page
				}
				cited++
				target, ok := resolveCitation(root, path.Dir(rel), file)
				if !ok {
					problems = append(problems, fmt.Sprintf("%s:%d: %s#%s: no such file", rel, n, file, anchor))
					continue
				}
				if anchors[target] == nil {
					if anchors[target], err = markdownAnchors(filepath.Join(root, filepath.FromSlash(target))); err != nil {
						return err
					}
				}
				if !anchors[target][anchor] {
					problems = append(problems, fmt.Sprintf("%s:%d: %s#%s: no heading of %s has that anchor", rel, n, file, anchor, target))
				}
			}
		}
		return sc.Err()
	})
	slices.Sort(problems)
	return problems, cited, err
}

// resolveCitation finds the cited file: relative to the citing file (a
// markdown link), else to the repository's root (docs/product.md), else
// in docs/ (product.md from a doc). It returns the root-relative path.
func resolveCitation(root, dir, file string) (string, bool) {
	for _, c := range []string{path.Join(dir, file), path.Clean(file), path.Join("docs", file)} {
		if strings.HasPrefix(c, "../") {
			continue
		}
		if st, err := os.Stat(filepath.Join(root, filepath.FromSlash(c))); err == nil && !st.IsDir() {
			return c, true
		}
	}
	return "", false
}

var (
	headingRE   = regexp.MustCompile(`^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	linkRE      = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	htmlIDRE    = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
	fenceRE     = regexp.MustCompile("^ {0,3}(```|~~~)")
	anchorDrops = func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsMark(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Pc, r) && r != ' ' && r != '-'
	}
)

// markdownAnchors returns the anchors GitHub gives the headings of a
// markdown file: the heading's text (links as their text, no code marks or
// emphasis), lower case, without punctuation, spaces as '-'; a repeated
// anchor gets -1, -2, … Explicit <a name|id> anchors count too.
func markdownAnchors(file string) (map[string]bool, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	seen := map[string]int{}
	fence := ""
	for _, line := range strings.Split(string(data), "\n") {
		if m := fenceRE.FindStringSubmatch(line); m != nil {
			switch fence {
			case "":
				fence = m[1]
			case m[1]:
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		for _, m := range htmlIDRE.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
		m := headingRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		text := linkRE.ReplaceAllString(m[2], "$1")
		text = strings.NewReplacer("`", "", "*", "").Replace(text)
		slug := strings.ReplaceAll(strings.Map(func(r rune) rune {
			if anchorDrops(r) {
				return -1
			}
			return unicode.ToLower(r)
		}, text), " ", "-")
		if k := seen[slug]; k > 0 {
			out[fmt.Sprintf("%s-%d", slug, k)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out, nil
}
