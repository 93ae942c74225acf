package gw

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/textproto"
	"regexp"
	"strconv"
	"strings"
	"time"

	"connectrpc.com/connect"
	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"bidradar/gen"
	"bidradar/gen/registry"
	"bidradar/pkg/apperr"
	"bidradar/pkg/authn"
)

// httpCodeKey is the metadata key a service sets to choose the REST status
// (pkg/apperr puts it on errors; a header sets a success status such as 201).
const httpCodeKey = "x-http-code"

// newREST builds the grpc-gateway mux with FastAPI-style answers: the spec's JSON
// names, {"detail": ...} errors, and 404/405 for unknown routes.
func newREST(ctx context.Context, cfg Config, shed grpc.UnaryClientInterceptor) (http.Handler, []func() error, error) {
	mux := runtime.NewServeMux(
		runtime.WithMarshalerOption(runtime.MIMEWildcard, &runtime.HTTPBodyMarshaler{Marshaler: &planJSON{JSONPb: &runtime.JSONPb{
			MarshalOptions:   protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true},
			UnmarshalOptions: protojson.UnmarshalOptions{DiscardUnknown: true},
		}}}),
		runtime.WithErrorHandler(restError),
		runtime.WithRoutingErrorHandler(routingError),
		runtime.WithForwardResponseOption(successStatus),
		runtime.WithOutgoingHeaderMatcher(outgoingHeader),
		runtime.WithOutgoingTrailerMatcher(func(string) (string, bool) { return "", false }),
		runtime.WithIncomingHeaderMatcher(incomingHeader),
	)
	var closers []func() error
	for _, s := range registry.Services {
		if s.RegisterREST == nil {
			continue // no REST rules in gateway/http_rules.yaml
		}
		target := cfg.Targets[string(s.Descriptor.FullName())]
		conn, err := grpc.NewClient(target,
			grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithStatsHandler(otelgrpc.NewClientHandler()),
			grpc.WithChainUnaryInterceptor(deadline(cfg.RequestTimeout), shed),
		)
		if err != nil {
			return nil, closers, fmt.Errorf("dial %s: %w", target, err)
		}
		closers = append(closers, conn.Close)
		if err := s.RegisterREST(ctx, mux, conn); err != nil {
			return nil, closers, err
		}
	}
	return mux, closers, nil
}

// restError writes {"detail", "kind", "reason"} with the status, kind and
// reason the service chose (its x-http-code, x-error-kind and
// x-error-reason trailers), or the standard gRPC→HTTP mapping. Errors the
// gateway itself raised (a body that does not decode, a query value of the
// wrong type) or its transport raised (a service down or too slow) never
// show their internal text.
func restError(ctx context.Context, _ *runtime.ServeMux, _ runtime.Marshaler, w http.ResponseWriter, r *http.Request, err error) {
	st := status.Convert(err)
	code := runtime.HTTPStatusFromCode(st.Code())
	fromService := false
	kind, reason := apperr.KindOfCode(connect.Code(st.Code())), ""
	md, ok := runtime.ServerMetadataFromContext(ctx)
	if ok {
		for _, v := range mdValues(md, httpCodeKey) {
			if c, e := strconv.Atoi(v); e == nil && c >= 400 && c <= 599 {
				code, fromService = c, true
				break
			}
		}
		if v := mdValues(md, apperr.MetaKind); len(v) > 0 {
			if k, known := apperr.ParseKind(v[0]); known {
				kind = k
			}
		}
		if v := mdValues(md, apperr.MetaReason); len(v) > 0 {
			reason = v[0]
		}
		forwardCookies(w, md.HeaderMD.Get("set-cookie"))
	}
	msg := st.Message()
	if !fromService {
		code, kind, reason, msg = publicError(err, code)
	}
	if code == http.StatusTooManyRequests && w.Header().Get("Retry-After") == "" {
		retry := "60"
		if errors.Is(err, errShed) {
			retry = "1"
		}
		if ok {
			for _, v := range mdValues(md, "retry-after") {
				if n, e := strconv.Atoi(v); e == nil && n > 0 {
					retry = v
				}
			}
		}
		w.Header().Set("Retry-After", retry)
	}
	w.Header().Del("Trailer")
	writeError(w, r, code, kind, reason, msg)
}

// mdValues are a key's values in the trailers, then the headers.
func mdValues(md runtime.ServerMetadata, key string) []string {
	return append(md.TrailerMD.Get(key), md.HeaderMD.Get(key)...)
}

// UnavailableMessage is the text for a service that does not answer
// (docs/product.md#session-and-connection).
const UnavailableMessage = apperr.UnavailableMessage

// badParameter finds the query parameter in grpc-gateway's parse errors
// ("parsing field \"page\": ..."; older releases said "parameter: page").
var badParameter = regexp.MustCompile(`(?:parameter: |parsing (?:field|list|map key|map value) ")([A-Za-z0-9_.]+)`)

// publicError turns an error the gateway or its transport raised into a
// status, kind, reason and message fit for users.
func publicError(err error, httpStatus int) (int, apperr.Kind, string, string) {
	st := status.Convert(err)
	msg := st.Message()
	switch c := st.Code(); {
	case errors.Is(err, errShed):
		return http.StatusTooManyRequests, apperr.ResourceExhausted, reasonShed, shedMessage
	case c == codes.Unavailable, c == codes.DeadlineExceeded:
		return http.StatusServiceUnavailable, apperr.Unavailable, reasonUnavailable, UnavailableMessage
	case c == codes.InvalidArgument:
		if m := badParameter.FindStringSubmatch(msg); m != nil {
			return http.StatusBadRequest, apperr.InvalidArgument, reasonInvalidParameter, "Invalid value for parameter " + m[1]
		}
		if strings.Contains(msg, "proto:") || strings.Contains(msg, "json") || strings.Contains(msg, "EOF") || strings.Contains(msg, "unexpected") {
			return http.StatusBadRequest, apperr.InvalidArgument, reasonInvalidJSON, "The request body is not valid JSON for this call"
		}
		return http.StatusBadRequest, apperr.InvalidArgument, reasonInvalidRequest, "Invalid request"
	case c == codes.Internal, c == codes.Unknown:
		return http.StatusInternalServerError, apperr.Internal, reasonInternal, apperr.InternalMessage
	default:
		k := apperr.KindOfCode(connect.Code(c))
		return httpStatus, k, apperr.DefaultReason(k), msg
	}
}

func routingError(_ context.Context, _ *runtime.ServeMux, _ runtime.Marshaler, w http.ResponseWriter, r *http.Request, httpStatus int) {
	// grpc-gateway reports a wrong method as 501 by default; FastAPI answers 405.
	reason := reasonNotFound
	switch httpStatus {
	case http.StatusNotImplemented, http.StatusMethodNotAllowed:
		httpStatus, reason = http.StatusMethodNotAllowed, reasonMethodNotAllowed
	case http.StatusBadRequest:
		reason = reasonInvalidRequest
	}
	gatewayError(w, r, httpStatus, reason, http.StatusText(httpStatus))
}

// successStatus applies a non-200 success status chosen by the service.
func successStatus(ctx context.Context, w http.ResponseWriter, _ proto.Message) error {
	md, ok := runtime.ServerMetadataFromContext(ctx)
	if !ok {
		return nil
	}
	if v := md.HeaderMD.Get(httpCodeKey); len(v) > 0 {
		if c, err := strconv.Atoi(v[0]); err == nil && c >= 200 && c < 300 {
			w.WriteHeader(c)
		}
	}
	return nil
}

// outgoingHeader passes the services' cookies to the browser and drops the rest of
// the gRPC metadata (no Grpc-Metadata-* noise on REST answers).
func outgoingHeader(key string) (string, bool) {
	if strings.EqualFold(key, "set-cookie") {
		return "Set-Cookie", true
	}
	return "", false
}

func forwardCookies(w http.ResponseWriter, cookies []string) {
	for _, c := range cookies {
		w.Header().Add("Set-Cookie", c)
	}
}

// incomingHeader forwards the standard set plus the headers services rely on.
func incomingHeader(key string) (string, bool) {
	switch textproto.CanonicalMIMEHeaderKey(key) {
	case "X-Forwarded-For", "X-Real-Ip", "Accept-Language", "X-Request-Id", "Idempotency-Key":
		return strings.ToLower(key), true
	case authn.ServiceTokenHeader, "Grpc-Metadata-" + authn.ServiceTokenHeader, "Grpc-Metadata-" + authn.TeamKeyHeader:
		return "", false // a browser's call is never a service's
	case authn.TeamKeyHeader:
		return strings.ToLower(key), true // set by apiKeys only (a client's own is dropped there)
	case "User-Agent":
		// gRPC replaces a user-agent entry with its own: the browser's
		// travels under grpc-gateway's usual prefix (auth labels sessions by it).
		return "grpcgateway-user-agent", true
	}
	return runtime.DefaultHeaderMatcher(key)
}

// deadline bounds every upstream call that has no deadline of its own.
func deadline(d time.Duration) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if _, ok := ctx.Deadline(); !ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, d)
			defer cancel()
		}
		return invoker(ctx, method, req, reply, cc, opts...)
	}
}

// trimTrailingSlash serves /users/me/ and /verify-otp/
// (docs/product.md#auth-calls spells both) with the rules of their slash-less
// twins: path templates cannot end in a slash.
func trimTrailingSlash(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; len(p) > len(apiPrefix) && strings.HasSuffix(p, "/") {
			r2 := r.Clone(r.Context())
			r2.URL.Path = strings.TrimSuffix(p, "/")
			r2.URL.RawPath = ""
			r = r2
		}
		next.ServeHTTP(w, r)
	})
}

func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(gen.OpenAPI)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
