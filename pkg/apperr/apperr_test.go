package apperr_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/jackc/pgx/v5/pgconn"

	"bidradar/pkg/apperr"
)

var errUserNotFound = apperr.New(apperr.NotFound, "user-not-found", "User not found")

func TestIsMatchesKindAndSlug(t *testing.T) {
	t.Parallel()
	cause := errors.New("no rows")
	tests := []struct {
		name   string
		err    error
		target error
		want   bool
	}{
		{"same sentinel", errUserNotFound, errUserNotFound, true},
		{"wrapped with %w", fmt.Errorf("get user: %w", errUserNotFound), errUserNotFound, true},
		{"Wrap with same kind and slug", apperr.Wrap(cause, apperr.NotFound, "user-not-found", "User not found"), errUserNotFound, true},
		{"Wrap keeps cause", apperr.Wrap(cause, apperr.NotFound, "user-not-found", "x"), cause, true},
		{"other slug", apperr.New(apperr.NotFound, "project-not-found", "x"), errUserNotFound, false},
		{"other kind", apperr.New(apperr.AlreadyExists, "user-not-found", "x"), errUserNotFound, false},
		{"plain error", errors.New("user-not-found"), errUserNotFound, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := errors.Is(tt.err, tt.target); got != tt.want {
				t.Fatalf("errors.Is = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestKindOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want apperr.Kind
	}{
		{"nil", nil, apperr.Internal},
		{"plain", errors.New("boom"), apperr.Internal},
		{"direct", errUserNotFound, apperr.NotFound},
		{"wrapped", fmt.Errorf("ctx: %w", apperr.New(apperr.Aborted, "race", "Try again")), apperr.Aborted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := apperr.KindOf(tt.err); got != tt.want {
				t.Fatalf("KindOf = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestErrorText(t *testing.T) {
	t.Parallel()
	err := apperr.Wrap(errors.New("pg: timeout"), apperr.Unavailable, "db-down", "Try later")
	if got, want := err.Error(), "db-down: Try later: pg: timeout"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	if got := apperr.Kind(99).String(); got != "kind(99)" {
		t.Fatalf("String = %q", got)
	}
	if got := apperr.ResourceExhausted.String(); got != "resource_exhausted" {
		t.Fatalf("String = %q", got)
	}
}

func TestToConnectTable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind     apperr.Kind
		code     connect.Code
		httpCode string
	}{
		{apperr.Internal, connect.CodeInternal, "500"},
		{apperr.InvalidArgument, connect.CodeInvalidArgument, "400"},
		{apperr.Validation, connect.CodeInvalidArgument, "422"},
		{apperr.NotFound, connect.CodeNotFound, "404"},
		{apperr.AlreadyExists, connect.CodeAlreadyExists, "409"},
		{apperr.FailedPrecondition, connect.CodeFailedPrecondition, "400"},
		{apperr.Aborted, connect.CodeAborted, "409"},
		{apperr.Unauthenticated, connect.CodeUnauthenticated, "401"},
		{apperr.PermissionDenied, connect.CodePermissionDenied, "403"},
		{apperr.ResourceExhausted, connect.CodeResourceExhausted, "429"},
		{apperr.Unavailable, connect.CodeUnavailable, "503"},
		{apperr.Unimplemented, connect.CodeUnimplemented, "501"},
	}
	for _, tt := range tests {
		t.Run(tt.kind.String(), func(t *testing.T) {
			t.Parallel()
			err := apperr.Wrap(errors.New("secret cause"), tt.kind, "some-slug", "ข้อความ")
			ce := apperr.ToConnect(fmt.Errorf("layer: %w", err))
			if ce.Code() != tt.code {
				t.Errorf("code = %v, want %v", ce.Code(), tt.code)
			}
			if ce.Message() != "ข้อความ" {
				t.Errorf("message = %q", ce.Message())
			}
			if got := ce.Meta().Get(apperr.MetaHTTPCode); got != tt.httpCode {
				t.Errorf("x-http-code = %q, want %q", got, tt.httpCode)
			}
			if got := ce.Meta().Get(apperr.MetaReason); got != "some-slug" {
				t.Errorf("x-error-reason = %q", got)
			}
			if got := ce.Meta().Get(apperr.MetaKind); got != tt.kind.String() {
				t.Errorf("x-error-kind = %q, want %q", got, tt.kind.String())
			}
			if strings.Contains(ce.Error(), "secret cause") {
				t.Errorf("cause leaked: %q", ce.Error())
			}
		})
	}
}

func TestToConnectOtherErrors(t *testing.T) {
	t.Parallel()
	passthrough := connect.NewError(connect.CodeNotFound, errors.New("as is"))
	tests := []struct {
		name         string
		err          error
		code         connect.Code
		message      string
		kind, reason string
	}{
		{"unknown error hides cause", errors.New("pq: password authentication failed for user app"), connect.CodeInternal, "internal error", "internal", "internal"},
		{"wrapped connect error is not trusted", fmt.Errorf("call: %w", connect.NewError(connect.CodeFailedPrecondition, errors.New("dial tcp 10.0.0.5:9001"))), connect.CodeInternal, "internal error", "internal", "internal"},
		{"an unavailable peer is 503 without its text", fmt.Errorf("call: %w", connect.NewError(connect.CodeUnavailable, errors.New("dial tcp 10.0.0.5:9001"))), connect.CodeUnavailable, apperr.UnavailableMessage, "unavailable", "dependency-unavailable"},
		{"database refusing connections is 503", fmt.Errorf("query: %w", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}), connect.CodeUnavailable, apperr.UnavailableMessage, "unavailable", "dependency-unavailable"},
		{"database shutting down is 503", fmt.Errorf("query: %w", &pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}), connect.CodeUnavailable, apperr.UnavailableMessage, "unavailable", "dependency-unavailable"},
		{"connection lost mid-query is 503", fmt.Errorf("query: %w", io.ErrUnexpectedEOF), connect.CodeUnavailable, apperr.UnavailableMessage, "unavailable", "dependency-unavailable"},
		{"a constraint violation stays internal", fmt.Errorf("insert: %w", &pgconn.PgError{Code: "23505", Message: "duplicate key"}), connect.CodeInternal, "internal error", "internal", "internal"},
		{"canceled", fmt.Errorf("query: %w", context.Canceled), connect.CodeCanceled, context.Canceled.Error(), "unavailable", "canceled"},
		{"deadline", context.DeadlineExceeded, connect.CodeDeadlineExceeded, context.DeadlineExceeded.Error(), "unavailable", "deadline-exceeded"},
		{"an error without a slug gets its kind's", apperr.New(apperr.NotFound, "", "gone"), connect.CodeNotFound, "gone", "not_found", "not-found"},
		{"connect error as is", passthrough, connect.CodeNotFound, "as is", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ce := apperr.ToConnect(tt.err)
			if ce.Code() != tt.code || ce.Message() != tt.message {
				t.Fatalf("got %v %q, want %v %q", ce.Code(), ce.Message(), tt.code, tt.message)
			}
			if k, r := ce.Meta().Get(apperr.MetaKind), ce.Meta().Get(apperr.MetaReason); k != tt.kind || r != tt.reason {
				t.Fatalf("kind, reason = %q, %q; want %q, %q", k, r, tt.kind, tt.reason)
			}
		})
	}
	if apperr.ToConnect(passthrough) != passthrough {
		t.Fatal("connect error not returned as is")
	}
	if apperr.ToConnect(nil) != nil {
		t.Fatal("ToConnect(nil) != nil")
	}
}

func TestKindOfCodeRoundTrips(t *testing.T) {
	t.Parallel()
	// Every kind but Validation (which shares invalid_argument) comes back
	// from its own code.
	for k := apperr.Internal; k <= apperr.Unimplemented; k++ {
		if k == apperr.Validation {
			continue
		}
		if got := apperr.KindOfCode(apperr.ConnectCode(k)); got != k {
			t.Errorf("KindOfCode(ConnectCode(%v)) = %v", k, got)
		}
	}
	if got := apperr.KindOfCode(connect.CodeDeadlineExceeded); got != apperr.Unavailable {
		t.Errorf("deadline exceeded = %v, want unavailable", got)
	}
	for k := apperr.Internal; k <= apperr.Unimplemented; k++ {
		if got, ok := apperr.ParseKind(k.String()); !ok || got != k {
			t.Errorf("ParseKind(%q) = %v, %v", k.String(), got, ok)
		}
	}
	if _, ok := apperr.ParseKind("teapot"); ok {
		t.Error("ParseKind accepted an unknown name")
	}
	if got := apperr.DefaultReason(apperr.ResourceExhausted); got != "resource-exhausted" {
		t.Errorf("DefaultReason = %q", got)
	}
}

// A rate limit's wait reaches the client as Retry-After (whole seconds,
// rounded up), with the kind, status and reason of its error.
func TestRetryAfterMetadata(t *testing.T) {
	limited := apperr.New(apperr.ResourceExhausted, "too-many", "Too many requests")
	err := fmt.Errorf("checkout: %w", apperr.RetryAfter(limited, 1500*time.Millisecond))
	ce := apperr.ToConnect(err)
	if ce.Code() != connect.CodeResourceExhausted || ce.Meta().Get("Retry-After") != "2" ||
		ce.Meta().Get(apperr.MetaHTTPCode) != "429" || ce.Meta().Get(apperr.MetaReason) != "too-many" || ce.Message() != "Too many requests" {
		t.Fatalf("%v %v", ce, ce.Meta())
	}
	if !errors.Is(err, limited) || apperr.KindOf(err) != apperr.ResourceExhausted {
		t.Fatal("the sentinel is not found through the wait")
	}
	if got := apperr.ToConnect(limited).Meta().Get("Retry-After"); got != "" {
		t.Fatalf("Retry-After without a wait: %q", got)
	}
	if apperr.RetryAfterSeconds(0) != 1 || apperr.RetryAfterSeconds(59*time.Second) != 59 {
		t.Fatal("RetryAfterSeconds")
	}
}
