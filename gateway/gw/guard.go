package gw

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"bidradar/pkg/access"
)

// Body limits: every request body is bounded; operators' uploads (admin
// ingest of a CSV or OCDS file) get a larger allowance.
const (
	DefaultMaxBody = 1 << 20  // 1 MiB
	UploadMaxBody  = 64 << 20 // 64 MiB
	// BodyReadTimeout bounds the time a client may take to send its body, so
	// a trickling client holds nothing for long.
	BodyReadTimeout = 10 * time.Second
)

// uploadPaths may carry large bodies: the Connect and REST paths of the RPCs
// whose access rule says large_body (admin only; the service checks who calls).
var uploadPaths = func() map[string]bool {
	policy, err := access.All()
	if err != nil {
		panic("gateway: access rules: " + err.Error())
	}
	out := map[string]bool{}
	for _, p := range policy.Paths(func(r access.Rule) bool { return r.LargeBody }) {
		out[p] = true
	}
	return out
}()

// guardInput is the front door for request input, before anything costly:
//   - the URL's path and query must be valid UTF-8 without NUL (else 400);
//   - the body is read whole, within BodyReadTimeout and the size limit
//     (413 beyond it), so that no later stage (the password slots among them)
//     waits on a slow client; JSON bodies must be valid UTF-8 without NUL.
//
// Streaming gRPC bodies (application/grpc…) are only bounded, not buffered.
func guardInput(maxBody int64, next http.Handler) http.Handler {
	if maxBody <= 0 {
		maxBody = DefaultMaxBody
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if badText(r.URL.Path) || badQuery(r.URL.RawQuery) {
			gatewayError(w, r, http.StatusBadRequest, reasonInvalidCharacters, "The request URL contains invalid characters (invalid UTF-8 or NUL)")
			return
		}
		limit := maxBody
		if uploadPaths[r.URL.Path] {
			limit = UploadMaxBody
		}
		if r.ContentLength > limit {
			gatewayError(w, r, http.StatusRequestEntityTooLarge, reasonBodyTooLarge, "Request body too large")
			return
		}
		if r.Body == nil || r.Body == http.NoBody || safeMethod(r.Method) && r.ContentLength == 0 {
			next.ServeHTTP(w, r)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		if strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc") || strings.HasPrefix(r.URL.Path, "/ws/") {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Now().Add(BodyReadTimeout))
		body, err := io.ReadAll(r.Body)
		if err != nil {
			// The expired deadline stays: net/http would otherwise read the
			// rest of the body (up to 256 KiB, at the client's pace) before
			// closing, and a trickling client would keep its socket.
			var tooBig *http.MaxBytesError
			switch {
			case errors.As(err, &tooBig):
				gatewayError(w, r, http.StatusRequestEntityTooLarge, reasonBodyTooLarge, "Request body too large")
			default:
				w.Header().Set("Connection", "close")
				gatewayError(w, r, http.StatusRequestTimeout, reasonBodyTimeout, "The request body was not received in time")
			}
			return
		}
		_ = rc.SetReadDeadline(time.Time{})
		if isJSON(r.Header.Get("Content-Type")) && (!utf8.Valid(body) || bytes.IndexByte(body, 0) >= 0 || hasEscapedNUL(body)) {
			gatewayError(w, r, http.StatusBadRequest, reasonInvalidCharacters, "The request body contains invalid characters (invalid UTF-8 or NUL)")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

func isJSON(ct string) bool {
	return strings.HasPrefix(ct, "application/json") || strings.HasPrefix(ct, "application/connect+json")
}

// hasEscapedNUL finds a JSON "\u0000" escape (an escaped backslash before it does not count).
func hasEscapedNUL(b []byte) bool {
	for i := bytes.Index(b, []byte(`\u0000`)); i >= 0; {
		n := 0
		for j := i - 1; j >= 0 && b[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return true
		}
		k := bytes.Index(b[i+1:], []byte(`\u0000`))
		if k < 0 {
			return false
		}
		i += 1 + k
	}
	return false
}

func badText(s string) bool { return !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 }

func badQuery(raw string) bool {
	if raw == "" {
		return false
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return true
	}
	for k, vs := range q {
		if badText(k) {
			return true
		}
		for _, v := range vs {
			if badText(v) {
				return true
			}
		}
	}
	return false
}
