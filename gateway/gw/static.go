package gw

import (
	_ "embed"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// newStatic serves the built frontend: the app's routes (spa_routes.txt) get
// index.html for the React router; any other path gets index.html too, so
// that the app shows its Thai 404 page, but with status 404. Files the build
// precompressed (name.br, name.gz beside name) go to clients that accept
// them; fingerprinted assets are cached for a year, index.html never without
// asking again (a new deploy must reach every browser on its next visit).
func newStatic(dir string) http.Handler {
	preloads := &routePreloads{file: filepath.Join(dir, routePreloadFile)}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			gatewayError(w, r, http.StatusMethodNotAllowed, reasonMethodNotAllowed, "Method Not Allowed")
			return
		}
		if dir == "" {
			gatewayError(w, r, http.StatusNotFound, reasonNotFound, "Not Found")
			return
		}
		clean := path.Clean("/" + r.URL.Path)
		file := filepath.Join(dir, filepath.FromSlash(clean))
		if st, err := os.Stat(file); err == nil && !st.IsDir() {
			switch {
			case strings.HasPrefix(clean, "/assets/"):
				// Vite fingerprints everything under assets/.
				w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
			case clean == "/index.html":
				w.Header().Set("Cache-Control", "no-cache")
			}
			serveStaticFile(w, r, file, http.StatusOK)
			return
		}
		if strings.HasPrefix(clean, "/assets/") || staticExt[path.Ext(clean)] {
			gatewayError(w, r, http.StatusNotFound, reasonNotFound, "Not Found")
			return
		}
		w.Header().Set("Cache-Control", "no-cache")
		status := http.StatusOK
		if !spaRoute(r.URL.EscapedPath()) {
			// The app shows its Thai 404 page; the status says so too.
			status = http.StatusNotFound
		} else if links := preloads.links(r.URL.EscapedPath()); links != "" {
			w.Header().Set("Link", links)
		}
		if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
			gatewayError(w, r, http.StatusNotFound, reasonNotFound, "Not Found")
			return
		}
		serveStaticFile(w, r, filepath.Join(dir, "index.html"), status)
	})
}

// encodings are the precompressed variants the build writes, best first.
var encodings = []struct{ name, ext string }{{"br", ".br"}, {"gzip", ".gz"}}

// serveStaticFile answers with file, or with its precompressed variant when
// the client accepts it, under the original's Content-Type. A status other
// than 200 (the 404 page) is written as is, without ranges or revalidation.
func serveStaticFile(w http.ResponseWriter, r *http.Request, file string, status int) {
	ctype := mime.TypeByExtension(filepath.Ext(file))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	send, encoding := file, ""
	for _, e := range encodings {
		if _, err := os.Stat(file + e.ext); err != nil {
			continue
		}
		// The answer depends on Accept-Encoding as soon as a variant exists.
		h.Set("Vary", "Accept-Encoding")
		if encoding == "" && acceptsEncoding(r.Header.Get("Accept-Encoding"), e.name) {
			send, encoding = file+e.ext, e.name
		}
	}
	f, err := os.Open(send)
	if err != nil {
		gatewayError(w, r, http.StatusNotFound, reasonNotFound, "Not Found")
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		gatewayError(w, r, http.StatusNotFound, reasonNotFound, "Not Found")
		return
	}
	if encoding != "" {
		h.Set("Content-Encoding", encoding)
	}
	if status != http.StatusOK {
		h.Set("Content-Length", strconv.FormatInt(st.Size(), 10))
		w.WriteHeader(status)
		if r.Method != http.MethodHead {
			_, _ = io.Copy(w, f)
		}
		return
	}
	// ServeContent handles HEAD, ranges and If-Modified-Since; the
	// Content-Type set above keeps it from sniffing the compressed bytes.
	http.ServeContent(w, r, filepath.Base(file), st.ModTime(), f)
}

// acceptsEncoding reports whether an Accept-Encoding header allows coding
// (RFC 9110 §12.5.3: listed, or "*", with a q-value above zero).
func acceptsEncoding(header, coding string) bool {
	star := false
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		ok := true
		for _, p := range strings.Split(params, ";") {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.EqualFold(strings.TrimSpace(k), "q") {
				q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				ok = err == nil && q > 0
			}
		}
		switch name {
		case coding:
			return ok
		case "*":
			star = ok
		}
	}
	return star
}

//go:embed spa_routes.txt
var spaRoutesFile string

// spaRoutes are the app's route patterns, split into segments.
var spaRoutes = func() [][]string {
	var out [][]string
	for _, line := range strings.Split(spaRoutesFile, "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, strings.Split(strings.Trim(line, "/"), "/"))
	}
	return out
}()

// spaRoute reports whether an (escaped) path is one of the app's routes.
func spaRoute(escaped string) bool {
	segs := strings.Split(strings.Trim(escaped, "/"), "/")
	for _, pat := range spaRoutes {
		if routeMatches(pat, segs) {
			return true
		}
	}
	return false
}

// routeMatches reports whether path segments fit a route pattern's.
func routeMatches(pat, segs []string) bool {
	if len(pat) != len(segs) {
		return false
	}
	for i, p := range pat {
		if strings.HasPrefix(p, ":") {
			if segs[i] == "" {
				return false
			}
		} else if p != segs[i] {
			return false
		}
	}
	return true
}

// routePreloadFile is written by the build (frontend/scripts/route-preload.ts):
// route pattern → the lazy chunks and CSS the route needs beyond the entry.
const routePreloadFile = "route-preload.json"

// routePreloads turns route-preload.json into Link headers, so that a cold
// load fetches the route's code alongside the entry rather than after it has
// run (a round trip saved: most of a second on a slow phone network). The
// file is read again when a new build replaces it.
type routePreloads struct {
	file string

	mu     sync.Mutex
	mod    time.Time
	routes []routeLinks
}

type routeLinks struct {
	pattern []string
	header  string
}

// links is the Link header for an (escaped) app path, or "".
func (p *routePreloads) links(escaped string) string {
	st, err := os.Stat(p.file)
	if err != nil {
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !st.ModTime().Equal(p.mod) {
		p.mod, p.routes = st.ModTime(), readRoutePreloads(p.file)
	}
	segs := strings.Split(strings.Trim(escaped, "/"), "/")
	for _, r := range p.routes {
		if routeMatches(r.pattern, segs) {
			return r.header
		}
	}
	return ""
}

// readRoutePreloads parses the build's map; a broken file preloads nothing.
func readRoutePreloads(file string) []routeLinks {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var m map[string][]string
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	out := make([]routeLinks, 0, len(m))
	for route, files := range m {
		var links []string
		for _, f := range files {
			// Only our own assets, and nothing that could break the header.
			if !strings.HasPrefix(f, "/assets/") || strings.ContainsAny(f, "<>,; \r\n") {
				continue
			}
			switch path.Ext(f) {
			case ".js":
				links = append(links, "<"+f+">; rel=modulepreload; crossorigin")
			case ".css":
				// The app adds these stylesheets with crossorigin too.
				links = append(links, "<"+f+">; rel=preload; as=style; crossorigin")
			}
		}
		if len(links) > 0 {
			out = append(out, routeLinks{strings.Split(strings.Trim(route, "/"), "/"), strings.Join(links, ", ")})
		}
	}
	return out
}

// staticExt are file types that are never app routes: a miss is a real 404.
// (Routes may contain dots, e.g. /forgot-password/{encoded e-mail}.)
var staticExt = map[string]bool{
	".js": true, ".css": true, ".map": true, ".png": true, ".jpg": true, ".svg": true, ".ico": true,
	".webp": true, ".woff": true, ".woff2": true, ".txt": true, ".webmanifest": true,
}
