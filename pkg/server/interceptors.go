// Package server holds what every BidRadar service runs its RPC handlers
// with: the connect interceptor chain and an h2c HTTP server with health
// endpoints and graceful shutdown.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/otelconnect"

	"bidradar/pkg/apperr"
	"bidradar/pkg/logging"
)

// HandlerOptions returns the options every connect handler is built with:
//
//  1. tracing (otelconnect: a server span per RPC named after the procedure,
//     a child of the caller's W3C traceparent),
//  2. one access log line per RPC (procedure, protocol, code, duration and,
//     through the logger, trace_id; never bodies),
//  3. panic recovery (CodeInternal "internal error", stack logged),
//  4. error mapping (apperr.ToConnect; internal causes logged once),
//  5. extra, e.g. the authn interceptor, whose apperr errors are mapped too.
//
// Recovery sits inside tracing and logging, not outermost, so that a panic
// still ends its span with an error and still gets an access line and a
// trace id in its log; those two interceptors do not panic on their own.
func HandlerOptions(log *slog.Logger, extra ...connect.Interceptor) []connect.HandlerOption {
	log = slog.New(logging.WithTrace(log.Handler()))
	var chain []connect.Interceptor
	// WithTrustRemote: callers are our own gateway and services, so their
	// span is the parent rather than a mere link.
	if tracing, err := otelconnect.NewInterceptor(otelconnect.WithTrustRemote(), otelconnect.WithoutMetrics()); err != nil {
		log.Error("rpc tracing disabled", "err", err)
	} else {
		chain = append(chain, tracing)
	}
	chain = append(chain, accessLog{log}, recovery{log}, errorMapping{log})
	chain = append(chain, extra...)
	return []connect.HandlerOption{connect.WithInterceptors(chain...), connect.WithCompressMinBytes(CompressMinBytes)}
}

// CompressMinBytes: a handler gzips only responses at least this large.
// The gateway's gRPC client offers gzip to every service (a compressor
// registered in its process offers it), and connect compressed every
// answer by default: gzipping a page of 10 search results cost the
// service ~10 % of the CPU of a search and the gateway 2 % to inflate it
// again, over loopback or a cluster network (docs/architecture.md#request-path,
// bench/README.md). Larger answers (an export, a long list) are still
// compressed when the caller asks.
const CompressMinBytes = 64 << 10

func codeOf(err error) string {
	if err == nil {
		return "ok"
	}
	return connect.CodeOf(err).String()
}

// accessLog writes one line per RPC.
type accessLog struct{ log *slog.Logger }

func (a accessLog) line(ctx context.Context, spec connect.Spec, protocol string, start time.Time, err error) {
	a.log.LogAttrs(ctx, slog.LevelInfo, "rpc",
		slog.String("procedure", spec.Procedure),
		slog.String("protocol", protocol),
		slog.String("code", codeOf(err)),
		slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
	)
}

func (a accessLog) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		if req.Spec().IsClient {
			return next(ctx, req)
		}
		start := time.Now()
		res, err := next(ctx, req)
		a.line(ctx, req.Spec(), req.Peer().Protocol, start, err)
		return res, err
	}
}

func (a accessLog) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

func (a accessLog) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		start := time.Now()
		err := next(ctx, conn)
		a.line(ctx, conn.Spec(), conn.Peer().Protocol, start, err)
		return err
	}
}

// recovery turns a panic into CodeInternal and logs its stack.
type recovery struct{ log *slog.Logger }

func (r recovery) recovered(ctx context.Context, procedure string, v any, errp *error) {
	r.log.ErrorContext(ctx, "rpc panic",
		"procedure", procedure, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
	*errp = apperr.ToConnect(errors.New("panic"))
}

func (r recovery) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (res connect.AnyResponse, err error) {
		if req.Spec().IsClient {
			return next(ctx, req)
		}
		defer func() {
			if v := recover(); v != nil {
				res = nil
				r.recovered(ctx, req.Spec().Procedure, v, &err)
			}
		}()
		return next(ctx, req)
	}
}

func (r recovery) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

func (r recovery) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) (err error) {
		defer func() {
			if v := recover(); v != nil {
				r.recovered(ctx, conn.Spec().Procedure, v, &err)
			}
		}()
		return next(ctx, conn)
	}
}

// errorMapping converts every returned error with apperr.ToConnect and logs
// the causes a client must not see.
type errorMapping struct{ log *slog.Logger }

func (m errorMapping) mapErr(ctx context.Context, procedure string, err error) error {
	if err == nil {
		return nil
	}
	ce := apperr.ToConnect(err)
	switch ce.Code() {
	case connect.CodeInternal, connect.CodeUnknown, connect.CodeDataLoss:
		m.log.ErrorContext(ctx, "rpc failed", "procedure", procedure, "err", err)
		// Even a hand-made connect.NewError(CodeInternal, dbErr) must not
		// reach the client with its cause.
		return apperr.ToConnect(errors.New("internal"))
	}
	return ce
}

func (m errorMapping) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		if req.Spec().IsClient {
			return next(ctx, req)
		}
		res, err := next(ctx, req)
		if err != nil {
			return nil, m.mapErr(ctx, req.Spec().Procedure, err)
		}
		return res, nil
	}
}

func (m errorMapping) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

func (m errorMapping) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		return m.mapErr(ctx, conn.Spec().Procedure, next(ctx, conn))
	}
}
