package gw

import (
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// newStatic serves the built frontend; unknown paths get index.html so the
// React router can answer them (its own 404 page included).
func newStatic(dir string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"detail": "Method Not Allowed"})
			return
		}
		if dir == "" {
			writeJSON(w, http.StatusNotFound, map[string]string{"detail": "Not Found"})
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
			writeJSON(w, http.StatusNotFound, map[string]string{"detail": "Not Found"})
			return
		}
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeFile(w, r, filepath.Join(dir, "index.html"))
	})
}

// staticExt are file types that are never app routes: a miss is a real 404.
// (Routes may contain dots, e.g. /forgot-password/{encoded e-mail}.)
var staticExt = map[string]bool{
	".js": true, ".css": true, ".map": true, ".png": true, ".jpg": true, ".svg": true, ".ico": true,
	".webp": true, ".woff": true, ".woff2": true, ".txt": true, ".webmanifest": true,
}
