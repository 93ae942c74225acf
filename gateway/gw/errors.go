package gw

import (
	"net/http"
	"strings"

	"bidradar/pkg/apperr"
)

// Reasons of the errors the gateway raises itself. Like the services'
// slugs they are a contract: the app maps each one to its Thai message
// (frontend/src/i18n/reasons.ts; a stack test checks that every one has an
// entry).
const (
	reasonBodyTooLarge         = "body-too-large"
	reasonBodyTimeout          = "body-timeout"
	reasonBodyUnreadable       = "body-unreadable"
	reasonInvalidCharacters    = "invalid-characters"
	reasonUnsupportedMediaType = "unsupported-media-type"
	reasonCSRF                 = "csrf"
	reasonNotFound             = "not-found"
	reasonMethodNotAllowed     = "method-not-allowed"
	reasonInvalidJSON          = "invalid-json"
	reasonInvalidParameter     = "invalid-parameter"
	reasonInvalidRequest       = "invalid-request"
	reasonUnavailable          = "unavailable"
	reasonInternal             = "internal"
	reasonWebhookSignature     = "webhook-signature-missing"
	// reasonShed is the password-call shedding at the edge; the auth
	// service's own shedding says the same with the same slug.
	reasonShed = "login-busy"
)

// apiError is the REST body of every error (docs/product.md#error-answers): "detail" (its text is
// the contract clients and tests compare) plus the stable kind (an apperr
// kind name) and reason (a slug) the app chooses its message by.
type apiError struct {
	Detail string `json:"detail"`
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
}

// connectError is Connect's error body (connectrpc.com/docs/protocol).
type connectError struct {
	Code    string `json:"code"`
	Message string `json:"message,omitempty"`
}

// Header names of the kind and reason on every error answer, so that a
// Connect client finds them in the error's metadata as it does for the
// services' errors.
const (
	headerKind   = "X-Error-Kind"
	headerReason = "X-Error-Reason"
)

// writeError is the one writer of the gateway's error answers: the REST
// body, or Connect's error body to a Connect call, with the kind and reason
// headers either way. An empty reason becomes the kind's default.
func writeError(w http.ResponseWriter, r *http.Request, status int, kind apperr.Kind, reason, detail string) {
	if reason == "" {
		reason = apperr.DefaultReason(kind)
	}
	if detail == "" {
		detail = http.StatusText(status)
	}
	h := w.Header()
	h.Set(headerKind, kind.String())
	h.Set(headerReason, reason)
	if isConnectCall(r) {
		writeJSON(w, status, connectError{Code: apperr.ConnectCode(kind).String(), Message: detail})
		return
	}
	writeJSON(w, status, apiError{Detail: detail, Kind: kind.String(), Reason: reason})
}

// gatewayError answers an error the gateway raises itself; its kind follows
// from the status.
func gatewayError(w http.ResponseWriter, r *http.Request, status int, reason, detail string) {
	writeError(w, r, status, kindOfStatus(status), reason, detail)
}

// kindOfStatus is the apperr kind of a status the gateway answers with
// (413, 415, 405 and 408 are the client's to fix: invalid_argument).
func kindOfStatus(status int) apperr.Kind {
	switch status {
	case http.StatusUnauthorized:
		return apperr.Unauthenticated
	case http.StatusForbidden:
		return apperr.PermissionDenied
	case http.StatusNotFound:
		return apperr.NotFound
	case http.StatusConflict:
		return apperr.Aborted
	case http.StatusUnprocessableEntity:
		return apperr.Validation
	case http.StatusTooManyRequests:
		return apperr.ResourceExhausted
	case http.StatusNotImplemented:
		return apperr.Unimplemented
	case http.StatusServiceUnavailable, http.StatusGatewayTimeout, http.StatusBadGateway:
		return apperr.Unavailable
	}
	if status >= 400 && status < 500 {
		return apperr.InvalidArgument
	}
	return apperr.Internal
}

// isConnectCall reports a Connect-protocol call (a procedure path with the
// protocol's header or GET marker), whose client expects Connect's error body.
func isConnectCall(r *http.Request) bool {
	if r == nil || strings.HasPrefix(r.URL.Path, apiPrefix) {
		return false
	}
	return r.Header.Get("Connect-Protocol-Version") != "" || r.URL.Query().Get("connect") == "v1"
}
