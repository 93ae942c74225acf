package server_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	accessv1 "bidradar/gen/access/v1"
	"bidradar/pkg/server"
)

// gRPC health answers like /readyz (the empty name and every served
// service), "liveness" like /healthz; an unknown service is NOT_FOUND.
// Without the option a server answers neither (the gateway's case).
func TestGRPCHealth(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var dbErr error
	const svc = "test.v1.TestService"
	ts := start(t, server.WithHealthAndReflection(svc), server.WithReadiness("db", func(context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		return dbErr
	}))
	health := healthpb.NewHealthClient(grpcConn(t, ts.addr))
	check := func(service string) (healthpb.HealthCheckResponse_ServingStatus, codes.Code) {
		res, err := health.Check(context.Background(), &healthpb.HealthCheckRequest{Service: service})
		return res.GetStatus(), status.Code(err)
	}
	for _, s := range []string{"", svc, server.LivenessService} {
		if st, code := check(s); st != healthpb.HealthCheckResponse_SERVING || code != codes.OK {
			t.Errorf("%q while ready: %v %v", s, st, code)
		}
	}
	if _, code := check("other.v1.Nope"); code != codes.NotFound {
		t.Errorf("unknown service: %v", code)
	}
	mu.Lock()
	dbErr = errors.New("down")
	mu.Unlock()
	for _, s := range []string{"", svc} {
		if st, _ := check(s); st != healthpb.HealthCheckResponse_NOT_SERVING {
			t.Errorf("%q with its database down: %v", s, st)
		}
	}
	if st, _ := check(server.LivenessService); st != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("liveness with the database down: %v", st)
	}

	plain := start(t)
	_, err := healthpb.NewHealthClient(grpcConn(t, plain.addr)).Check(context.Background(), &healthpb.HealthCheckRequest{})
	if status.Code(err) == codes.OK {
		t.Error("a server without the option answers health checks")
	}
}

// Reflection lists the served services and describes them; access.proto's
// descriptors stand in for a service here.
func TestGRPCReflection(t *testing.T) {
	t.Parallel()
	ts := start(t, server.WithHealthAndReflection("test.v1.TestService"))
	stream, err := reflectionpb.NewServerReflectionClient(grpcConn(t, ts.addr)).ServerReflectionInfo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	res, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range res.GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"grpc.health.v1.Health", "test.v1.TestService"}) {
		t.Fatalf("services %v", names)
	}
	if err := stream.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_FileByFilename{
		FileByFilename: accessv1.File_access_v1_access_proto.Path()}}); err != nil {
		t.Fatal(err)
	}
	if res, err = stream.Recv(); err != nil || len(res.GetFileDescriptorResponse().GetFileDescriptorProto()) == 0 {
		t.Fatalf("file by name: %v %v", res, err)
	}
	_ = stream.CloseSend()
	if _, err := stream.Recv(); err != io.EOF {
		t.Fatalf("close: %v", err)
	}
	// Over HTTP/1.1 as Connect serves it too, for tools that speak it.
	resp, err := http.Post(ts.url+"/grpc.health.v1.Health/Check", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("Connect health check: %d", resp.StatusCode)
	}
}
