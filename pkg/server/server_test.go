package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"bidradar/pkg/apperr"
	"bidradar/pkg/logging"
	"bidradar/pkg/server"
)

func TestMain(m *testing.M) {
	// What telemetry.Setup installs, without reading the environment.
	tp := sdktrace.NewTracerProvider()
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	code := m.Run()
	_ = tp.Shutdown(context.Background())
	os.Exit(code)
}

const echoProc = "/test.v1.TestService/Echo"

var errThingNotFound = apperr.New(apperr.NotFound, "thing-not-found", "ไม่พบข้อมูล")

// echo behaves according to its input, to exercise each error path.
func echo(_ context.Context, req *connect.Request[wrapperspb.StringValue]) (*connect.Response[wrapperspb.StringValue], error) {
	switch v := req.Msg.GetValue(); v {
	case "notfound":
		return nil, fmt.Errorf("lookup: %w", errThingNotFound)
	case "validation":
		return nil, apperr.New(apperr.Validation, "bad-email", "Invalid email")
	case "aborted":
		return nil, apperr.New(apperr.Aborted, "conflict", "Try again")
	case "boom":
		return nil, errors.New("pgx: password authentication failed for db-secret-host")
	case "connect-internal":
		return nil, connect.NewError(connect.CodeInternal, errors.New("raw driver text"))
	case "panic":
		panic("kaboom")
	default:
		return connect.NewResponse(wrapperspb.String("echo:" + v)), nil
	}
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) lines(t *testing.T) []map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.buf.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line not JSON: %q", l)
		}
		out = append(out, m)
	}
	return out
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type testServer struct {
	url  string
	addr string
	logs *syncBuffer
	stop context.CancelFunc
	done chan error
}

func start(t *testing.T, opts ...server.Option) *testServer {
	t.Helper()
	logs := &syncBuffer{}
	log := logging.NewWithWriter(logs, "test", "debug")
	mux := http.NewServeMux()
	mux.Handle(echoProc, connect.NewUnaryHandler(echoProc, echo, server.HandlerOptions(log)...))
	ln, err := server.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ts := &testServer{url: "http://" + ln.Addr().String(), addr: ln.Addr().String(), logs: logs, stop: cancel, done: make(chan error, 1)}
	go func() {
		ts.done <- server.Run(ctx, ln, mux, append([]server.Option{server.WithLogger(log)}, opts...)...)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-ts.done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Run did not return")
		}
	})
	return ts
}

func grpcConn(t *testing.T, addr string) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

var rpcCases = []struct {
	in       string
	code     connect.Code
	message  string
	httpCode string
	kind     string
	reason   string
}{
	{"hello", 0, "echo:hello", "", "", ""},
	{"notfound", connect.CodeNotFound, "ไม่พบข้อมูล", "404", "not_found", "thing-not-found"},
	{"validation", connect.CodeInvalidArgument, "Invalid email", "422", "validation", "bad-email"},
	{"aborted", connect.CodeAborted, "Try again", "409", "aborted", "conflict"},
	{"boom", connect.CodeInternal, "internal error", "500", "internal", "internal"},
	{"connect-internal", connect.CodeInternal, "internal error", "500", "internal", "internal"},
	{"panic", connect.CodeInternal, "internal error", "500", "internal", "internal"},
}

func TestRPCOverConnect(t *testing.T) {
	t.Parallel()
	ts := start(t)
	client := connect.NewClient[wrapperspb.StringValue, wrapperspb.StringValue](http.DefaultClient, ts.url+echoProc)
	for _, tt := range rpcCases {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			res, err := client.CallUnary(context.Background(), connect.NewRequest(wrapperspb.String(tt.in)))
			if tt.code == 0 {
				if err != nil || res.Msg.GetValue() != tt.message {
					t.Fatalf("got %v, %v", res, err)
				}
				return
			}
			var ce *connect.Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v", err)
			}
			if ce.Code() != tt.code || ce.Message() != tt.message {
				t.Fatalf("got %v %q, want %v %q", ce.Code(), ce.Message(), tt.code, tt.message)
			}
			if got := ce.Meta().Get(apperr.MetaHTTPCode); got != tt.httpCode {
				t.Fatalf("x-http-code = %q, want %q", got, tt.httpCode)
			}
			if got := ce.Meta().Get(apperr.MetaReason); got != tt.reason {
				t.Fatalf("x-error-reason = %q, want %q", got, tt.reason)
			}
			if got := ce.Meta().Get(apperr.MetaKind); got != tt.kind {
				t.Fatalf("x-error-kind = %q, want %q", got, tt.kind)
			}
		})
	}
}

func TestRPCOverGRPC(t *testing.T) {
	t.Parallel()
	ts := start(t)
	conn := grpcConn(t, ts.addr)
	for _, tt := range rpcCases {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			out := &wrapperspb.StringValue{}
			var trailer metadata.MD
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			err := conn.Invoke(ctx, echoProc, wrapperspb.String(tt.in), out, grpc.Trailer(&trailer))
			if tt.code == 0 {
				if err != nil || out.GetValue() != tt.message {
					t.Fatalf("got %v, %v", out, err)
				}
				return
			}
			st := status.Convert(err)
			if st.Code() != codes.Code(tt.code) || st.Message() != tt.message {
				t.Fatalf("got %v %q, want %v %q", st.Code(), st.Message(), tt.code, tt.message)
			}
			if got := strings.Join(trailer.Get(apperr.MetaHTTPCode), ","); got != tt.httpCode {
				t.Fatalf("trailer x-http-code = %q, want %q", got, tt.httpCode)
			}
			if got := strings.Join(trailer.Get(apperr.MetaReason), ","); got != tt.reason {
				t.Fatalf("trailer x-error-reason = %q, want %q", got, tt.reason)
			}
			if got := strings.Join(trailer.Get(apperr.MetaKind), ","); got != tt.kind {
				t.Fatalf("trailer x-error-kind = %q, want %q", got, tt.kind)
			}
		})
	}
}

func TestLogsAndTracing(t *testing.T) {
	t.Parallel()
	ts := start(t)
	conn := grpcConn(t, ts.addr)
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	for _, in := range []string{"hello", "boom", "panic"} {
		ctx := metadata.AppendToOutgoingContext(context.Background(),
			"traceparent", "00-"+traceID+"-00f067aa0ba902b7-01")
		_ = conn.Invoke(ctx, echoProc, wrapperspb.String(in), &wrapperspb.StringValue{})
	}

	var access, failed, panics int
	for _, l := range ts.logs.lines(t) {
		switch l["msg"] {
		case "rpc":
			access++
			if l["procedure"] != echoProc || l["protocol"] != "grpc" || l["trace_id"] != traceID || l["service"] != "test" {
				t.Errorf("access line = %v", l)
			}
			if _, ok := l["duration_ms"].(float64); !ok {
				t.Errorf("no duration: %v", l)
			}
		case "rpc failed":
			failed++
			if !strings.Contains(fmt.Sprint(l["err"]), "db-secret-host") || l["trace_id"] != traceID {
				t.Errorf("failure line = %v", l)
			}
		case "rpc panic":
			panics++
			if l["panic"] != "kaboom" || !strings.Contains(fmt.Sprint(l["stack"]), "server_test.echo") || l["trace_id"] != traceID {
				t.Errorf("panic line = %v", l)
			}
		}
	}
	if access != 3 || failed != 1 || panics != 1 {
		t.Fatalf("access=%d failed=%d panics=%d; logs:\n%s", access, failed, panics, ts.logs)
	}
	codes := map[string]bool{}
	for _, l := range ts.logs.lines(t) {
		if l["msg"] == "rpc" {
			codes[fmt.Sprint(l["code"])] = true
		}
	}
	if !codes["ok"] || !codes["internal"] {
		t.Fatalf("codes logged = %v", codes)
	}
}

func get(t *testing.T, url string) (int, map[string]any) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var body map[string]any
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatalf("%s: body %q not JSON", url, b)
	}
	return res.StatusCode, body
}

func TestHealthAndReadiness(t *testing.T) {
	t.Parallel()
	var dbErr error
	var mu sync.Mutex
	ts := start(t,
		server.WithReadiness("nats", func(context.Context) error { return nil }),
		server.WithReadiness("db", func(context.Context) error {
			mu.Lock()
			defer mu.Unlock()
			return dbErr
		}),
	)
	if code, body := get(t, ts.url+"/healthz"); code != 200 || body["status"] != "ok" {
		t.Fatalf("healthz = %d %v", code, body)
	}
	code, body := get(t, ts.url+"/readyz")
	if code != 200 || body["status"] != "ok" {
		t.Fatalf("readyz = %d %v", code, body)
	}

	mu.Lock()
	dbErr = errors.New("dial tcp 10.0.0.9:5432: connection refused")
	mu.Unlock()
	code, body = get(t, ts.url+"/readyz")
	checks, _ := body["checks"].(map[string]any)
	if code != 503 || body["status"] != "unavailable" || checks["db"] != "fail" || checks["nats"] != "ok" {
		t.Fatalf("readyz = %d %v", code, body)
	}
	if strings.Contains(fmt.Sprint(body), "10.0.0.9") {
		t.Fatal("readiness error text leaked")
	}

	res, err := http.Post(ts.url+"/healthz", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("POST /healthz = %d", res.StatusCode)
	}
}

func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	ts := start(t, server.WithDrainDelay(700*time.Millisecond), server.WithShutdownTimeout(2*time.Second))
	if code, _ := get(t, ts.url+"/readyz"); code != 200 {
		t.Fatalf("readyz before shutdown = %d", code)
	}
	ts.stop()

	deadline := time.Now().Add(500 * time.Millisecond)
	for {
		code, body := get(t, ts.url+"/readyz")
		if code == 503 && body["status"] == "shutting_down" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("readyz still %d during shutdown", code)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Still live and serving RPCs while draining.
	if code, _ := get(t, ts.url+"/healthz"); code != 200 {
		t.Fatalf("healthz during drain = %d", code)
	}
	client := connect.NewClient[wrapperspb.StringValue, wrapperspb.StringValue](http.DefaultClient, ts.url+echoProc)
	if _, err := client.CallUnary(context.Background(), connect.NewRequest(wrapperspb.String("x"))); err != nil {
		t.Fatalf("rpc during drain: %v", err)
	}

	select {
	case err := <-ts.done:
		if err != nil {
			t.Fatalf("Run = %v, want nil", err)
		}
		ts.done <- nil // for Cleanup
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return")
	}
	if _, err := http.Get(ts.url + "/healthz"); err == nil {
		t.Fatal("server still accepting after Run returned")
	}
}

func TestListenError(t *testing.T) {
	t.Parallel()
	if _, err := server.Listen("256.0.0.1:0"); err == nil {
		t.Fatal("Listen accepted a bad address")
	}
}

// denyAll stands in for an auth interceptor passed as extra.
type denyAll struct{ connect.Interceptor }

func (denyAll) WrapUnary(connect.UnaryFunc) connect.UnaryFunc {
	return func(context.Context, connect.AnyRequest) (connect.AnyResponse, error) {
		return nil, apperr.New(apperr.PermissionDenied, "inactive", "User is inactive")
	}
}

func TestExtraInterceptorErrorsAreMapped(t *testing.T) {
	t.Parallel()
	log := logging.NewWithWriter(io.Discard, "test", "info")
	mux := http.NewServeMux()
	mux.Handle(echoProc, connect.NewUnaryHandler(echoProc, echo, server.HandlerOptions(log, denyAll{})...))
	srv := &http.Server{Handler: mux}
	ln, err := server.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	client := connect.NewClient[wrapperspb.StringValue, wrapperspb.StringValue](http.DefaultClient, "http://"+ln.Addr().String()+echoProc)
	_, err = client.CallUnary(context.Background(), connect.NewRequest(wrapperspb.String("hello")))
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodePermissionDenied || ce.Message() != "User is inactive" ||
		ce.Meta().Get(apperr.MetaHTTPCode) != "403" || ce.Meta().Get(apperr.MetaKind) != "permission_denied" ||
		ce.Meta().Get(apperr.MetaReason) != "inactive" {
		t.Fatalf("err = %v", err)
	}
}
