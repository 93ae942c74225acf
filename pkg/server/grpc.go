package server

import (
	"context"
	"net/http"
	"slices"
	"sync/atomic"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"
	"connectrpc.com/grpcreflect"
)

// LivenessService is the health-check service name that answers like
// /healthz: SERVING while the process serves, whatever its dependencies
// (Kubernetes' startup and liveness probes ask for it). The empty name and
// every served service answer like /readyz.
const LivenessService = "liveness"

// WithHealthAndReflection makes Run serve grpc.health.v1.Health/Check and
// grpc.reflection (v1 and v1alpha) for services (full
// names), beside /healthz and /readyz, for the cluster's probes and for
// teams that call the services over gRPC. The gateway does not use it: the
// public origin serves neither.
func WithHealthAndReflection(services ...string) Option {
	return func(o *options) {
		o.grpc = true
		o.grpcServices = append(o.grpcServices, services...)
	}
}

// grpcRoutes returns the health and reflection handlers by path prefix
// (none without WithHealthAndReflection).
func grpcRoutes(o *options, stopping *atomic.Bool) map[string]http.Handler {
	out := map[string]http.Handler{}
	if !o.grpc {
		return out
	}
	checker := &readiness{o: o, stopping: stopping, services: o.grpcServices}
	path, h := grpchealth.NewHandler(checker)
	out[path] = h
	names := append([]string{grpchealth.HealthV1ServiceName}, o.grpcServices...)
	reflector := grpcreflect.NewStaticReflector(names...)
	path, h = grpcreflect.NewHandlerV1(reflector)
	out[path] = h
	path, h = grpcreflect.NewHandlerV1Alpha(reflector)
	out[path] = h
	return out
}

// readiness answers health checks from the readiness checks of /readyz.
type readiness struct {
	o        *options
	stopping *atomic.Bool
	services []string
}

func (r *readiness) Check(ctx context.Context, req *grpchealth.CheckRequest) (*grpchealth.CheckResponse, error) {
	switch {
	case req.Service == LivenessService:
		return &grpchealth.CheckResponse{Status: grpchealth.StatusServing}, nil
	case req.Service != "" && !slices.Contains(r.services, req.Service):
		return nil, connect.NewError(connect.CodeNotFound, nil)
	case r.stopping.Load():
		return &grpchealth.CheckResponse{Status: grpchealth.StatusNotServing}, nil
	}
	if status, _ := ready(ctx, r.o); status != http.StatusOK {
		return &grpchealth.CheckResponse{Status: grpchealth.StatusNotServing}, nil
	}
	return &grpchealth.CheckResponse{Status: grpchealth.StatusServing}, nil
}
