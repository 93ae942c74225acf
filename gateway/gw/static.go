package gw

import (
	_ "embed"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// newStatic serves the built frontend: the app's routes (spa_routes.txt) get
// index.html for the React router; any other path gets index.html too, so
// that the app shows its Thai 404 page, but with status 404.
func newStatic(dir string) http.Handler {
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
			if strings.HasPrefix(clean, "/assets/") {
				// Vite fingerprints everything under assets/.
				w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
			}
			http.ServeFile(w, r, file)
			return
		}
		if strings.HasPrefix(clean, "/assets/") || staticExt[path.Ext(clean)] {
			gatewayError(w, r, http.StatusNotFound, reasonNotFound, "Not Found")
			return
		}
		w.Header().Set("Cache-Control", "no-cache")
		if !spaRoute(r.URL.EscapedPath()) {
			// The app shows its Thai 404 page; the status says so too.
			page, err := os.ReadFile(filepath.Join(dir, "index.html"))
			if err != nil {
				gatewayError(w, r, http.StatusNotFound, reasonNotFound, "Not Found")
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write(page)
			return
		}
		http.ServeFile(w, r, filepath.Join(dir, "index.html"))
	})
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
		if len(pat) != len(segs) {
			continue
		}
		ok := true
		for i, p := range pat {
			if strings.HasPrefix(p, ":") {
				ok = ok && segs[i] != ""
			} else {
				ok = ok && p == segs[i]
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// staticExt are file types that are never app routes: a miss is a real 404.
// (Routes may contain dots, e.g. /forgot-password/{encoded e-mail}.)
var staticExt = map[string]bool{
	".js": true, ".css": true, ".map": true, ".png": true, ".jpg": true, ".svg": true, ".ico": true,
	".webp": true, ".woff": true, ".woff2": true, ".txt": true, ".webmanifest": true,
}
