// Package apperr defines the domain error kinds shared by every service and
// the single mapping from those kinds to Connect/gRPC codes and REST statuses.
//
// Use cases return *Error values (usually package-level sentinels); the
// transport layer turns them into wire errors with ToConnect. Anything that is
// not an *Error is treated as Internal and its text never reaches a client.
package apperr

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"connectrpc.com/connect"
	"github.com/jackc/pgx/v5/pgconn"
)

// Kind classifies an error by what the caller can do about it.
type Kind int

// The zero Kind is Internal so that a forgotten kind never looks like a
// client mistake.
const (
	Internal Kind = iota
	InvalidArgument
	Validation
	NotFound
	AlreadyExists
	FailedPrecondition
	Aborted
	Unauthenticated
	PermissionDenied
	ResourceExhausted
	Unavailable
	Unimplemented
)

var kindNames = [...]string{
	Internal:           "internal",
	InvalidArgument:    "invalid_argument",
	Validation:         "validation",
	NotFound:           "not_found",
	AlreadyExists:      "already_exists",
	FailedPrecondition: "failed_precondition",
	Aborted:            "aborted",
	Unauthenticated:    "unauthenticated",
	PermissionDenied:   "permission_denied",
	ResourceExhausted:  "resource_exhausted",
	Unavailable:        "unavailable",
	Unimplemented:      "unimplemented",
}

// ParseKind returns the kind named name (as String spells it).
func ParseKind(name string) (Kind, bool) {
	for k, n := range kindNames {
		if n == name {
			return Kind(k), true
		}
	}
	return Internal, false
}

// String returns the snake_case name of the kind, for logs and the wire.
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Metadata keys set on every mapped error. The gateway reads MetaHTTPCode
// from the gRPC trailers to pick the REST status and passes MetaKind and
// MetaReason on as the REST body's "kind" and "reason"; clients choose their
// localised message by the reason, never by the English message.
const (
	MetaHTTPCode = "x-http-code"
	MetaKind     = "x-error-kind"
	MetaReason   = "x-error-reason"
)

// Reasons of the errors ToConnect makes itself.
const (
	ReasonInternal         = "internal"
	ReasonDependencyDown   = "dependency-unavailable"
	ReasonCanceled         = "canceled"
	ReasonDeadlineExceeded = "deadline-exceeded"
)

// Error is a domain error. Message is user-facing (it becomes the REST
// "detail"); Slug is a stable machine-readable reason; Cause is for logs only.
type Error struct {
	Kind    Kind
	Slug    string
	Message string
	Cause   error
}

// New returns an error without a cause, typically used as a sentinel:
//
//	var ErrUserNotFound = apperr.New(apperr.NotFound, "user-not-found", "User not found")
func New(kind Kind, slug, message string) *Error {
	return &Error{Kind: kind, Slug: slug, Message: message}
}

// Wrap returns a domain error that keeps err as its cause, so errors.Is and
// errors.As still see err while clients only see message.
func Wrap(err error, kind Kind, slug, message string) *Error {
	return &Error{Kind: kind, Slug: slug, Message: message, Cause: err}
}

// Error implements error. It includes the cause, so it is meant for logs.
func (e *Error) Error() string {
	s := e.Slug + ": " + e.Message
	if e.Cause != nil {
		s += ": " + e.Cause.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// Is reports whether target is an *Error with the same Kind and Slug, so a
// wrapped copy of a sentinel still matches it with errors.Is.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Kind == e.Kind && t.Slug == e.Slug
}

// RetryError is a rate limit's answer that says when to try again:
// ToConnect puts the whole seconds in the Retry-After metadata, which the
// gateway sends as the REST header and Connect clients read.
type RetryError struct {
	Err   *Error
	After time.Duration
}

// RetryAfter returns err (a ResourceExhausted sentinel, usually) with the
// time to wait before trying again.
func RetryAfter(err *Error, after time.Duration) error {
	return &RetryError{Err: err, After: after}
}

// Error implements error.
func (e *RetryError) Error() string { return e.Err.Error() }

// Unwrap returns the *Error, so KindOf, errors.Is and ToConnect see it.
func (e *RetryError) Unwrap() error { return e.Err }

// RetryAfterSeconds is the Retry-After value of a wait: whole seconds,
// rounded up, at least 1.
func RetryAfterSeconds(d time.Duration) int {
	return max(1, int((d+time.Second-1)/time.Second))
}

// KindOf returns the Kind of the first *Error in err's chain, or Internal.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Internal
}

// HTTPStatus returns the REST status for a kind; REST and Connect share this
// one table.
func HTTPStatus(k Kind) int {
	switch k {
	case InvalidArgument, FailedPrecondition:
		return http.StatusBadRequest
	case Validation:
		return http.StatusUnprocessableEntity
	case Unauthenticated:
		return http.StatusUnauthorized
	case PermissionDenied:
		return http.StatusForbidden
	case NotFound:
		return http.StatusNotFound
	case AlreadyExists, Aborted:
		return http.StatusConflict
	case ResourceExhausted:
		return http.StatusTooManyRequests
	case Unavailable:
		return http.StatusServiceUnavailable
	case Unimplemented:
		return http.StatusNotImplemented
	default:
		return http.StatusInternalServerError
	}
}

// KindOfCode returns the kind a bare Connect (or gRPC) code stands for, for
// errors that carry no kind of their own (a peer's default "unimplemented",
// a transport failure).
func KindOfCode(c connect.Code) Kind {
	switch c {
	case connect.CodeInvalidArgument, connect.CodeOutOfRange:
		return InvalidArgument
	case connect.CodeFailedPrecondition:
		return FailedPrecondition
	case connect.CodeNotFound:
		return NotFound
	case connect.CodeAlreadyExists:
		return AlreadyExists
	case connect.CodeAborted:
		return Aborted
	case connect.CodeUnauthenticated:
		return Unauthenticated
	case connect.CodePermissionDenied:
		return PermissionDenied
	case connect.CodeResourceExhausted:
		return ResourceExhausted
	case connect.CodeUnavailable, connect.CodeDeadlineExceeded, connect.CodeCanceled:
		return Unavailable
	case connect.CodeUnimplemented:
		return Unimplemented
	default:
		return Internal
	}
}

// DefaultReason is the reason of an error that has no slug: its kind's name
// in slug form (not_found → not-found).
func DefaultReason(k Kind) string { return strings.ReplaceAll(k.String(), "_", "-") }

// ConnectCode returns the Connect (and gRPC) code for a kind.
func ConnectCode(k Kind) connect.Code {
	switch k {
	case InvalidArgument, Validation:
		return connect.CodeInvalidArgument
	case FailedPrecondition:
		return connect.CodeFailedPrecondition
	case NotFound:
		return connect.CodeNotFound
	case AlreadyExists:
		return connect.CodeAlreadyExists
	case Aborted:
		return connect.CodeAborted
	case Unauthenticated:
		return connect.CodeUnauthenticated
	case PermissionDenied:
		return connect.CodePermissionDenied
	case ResourceExhausted:
		return connect.CodeResourceExhausted
	case Unavailable:
		return connect.CodeUnavailable
	case Unimplemented:
		return connect.CodeUnimplemented
	default:
		return connect.CodeInternal
	}
}

// InternalMessage is the only text a client sees for an unexpected error.
const InternalMessage = "internal error"

// ToConnect converts any error into a *connect.Error safe to send to a
// client. A *connect.Error (not wrapped) is returned unchanged; an *Error keeps its Message
// and gets the x-http-code, x-error-kind and x-error-reason metadata (an
// empty slug becomes DefaultReason); context cancellation and deadlines keep
// their own codes; everything else becomes CodeInternal "internal error" so
// that causes never leak. ToConnect(nil) is nil.
func ToConnect(err error) *connect.Error {
	if err == nil {
		return nil
	}
	if ce, ok := err.(*connect.Error); ok {
		return ce
	}
	var ae *Error
	if errors.As(err, &ae) {
		ce := connect.NewError(ConnectCode(ae.Kind), errors.New(ae.Message))
		reason := ae.Slug
		if reason == "" {
			reason = DefaultReason(ae.Kind)
		}
		setMeta(ce, HTTPStatus(ae.Kind), ae.Kind, reason)
		var re *RetryError
		if errors.As(err, &re) {
			ce.Meta().Set("Retry-After", strconv.Itoa(RetryAfterSeconds(re.After)))
		}
		return ce
	}
	switch {
	case errors.Is(err, context.Canceled):
		ce := connect.NewError(connect.CodeCanceled, context.Canceled)
		setMeta(ce, 0, Unavailable, ReasonCanceled)
		return ce
	case errors.Is(err, context.DeadlineExceeded):
		ce := connect.NewError(connect.CodeDeadlineExceeded, context.DeadlineExceeded)
		setMeta(ce, 0, Unavailable, ReasonDeadlineExceeded)
		return ce
	}
	if DependencyDown(err) {
		return ToConnect(Wrap(err, Unavailable, ReasonDependencyDown, UnavailableMessage))
	}
	// Wrapped peer errors land here too: their text may name hosts or
	// queries, so adapters must translate them into *Error to expose them.
	ce := connect.NewError(connect.CodeInternal, errors.New(InternalMessage))
	setMeta(ce, http.StatusInternalServerError, Internal, ReasonInternal)
	return ce
}

// setMeta puts the REST status (when there is one), kind and reason on ce.
func setMeta(ce *connect.Error, httpCode int, k Kind, reason string) {
	if httpCode != 0 {
		ce.Meta().Set(MetaHTTPCode, strconv.Itoa(httpCode))
	}
	ce.Meta().Set(MetaKind, k.String())
	ce.Meta().Set(MetaReason, reason)
}

// UnavailableMessage is the text for a dependency that does not answer
// (docs/product.md#session-and-connection).
const UnavailableMessage = "Service is currently unavailable. Please try again later."

// DependencyDown reports an error that means a dependency (PostgreSQL, a peer
// service, the network) is unreachable, restarting or too slow, rather than a
// defect: callers get 503 and may retry.
func DependencyDown(err error) bool {
	var connErr *pgconn.ConnectError
	var pgErr *pgconn.PgError
	var netErr net.Error
	switch {
	case errors.As(err, &connErr), pgconn.Timeout(err), errors.Is(err, pgconn.ErrConnClosed), pgconn.SafeToRetry(err):
		return true
	case errors.As(err, &pgErr):
		// class 08: connection exception; 57P0x: the server is shutting down
		// or starting; 53300: too many connections.
		return strings.HasPrefix(pgErr.Code, "08") || strings.HasPrefix(pgErr.Code, "57P0") || pgErr.Code == "53300"
	case errors.As(err, &netErr), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.Is(err, io.ErrUnexpectedEOF):
		return true
	}
	var ce *connect.Error
	if errors.As(err, &ce) {
		return ce.Code() == connect.CodeUnavailable
	}
	return false
}
