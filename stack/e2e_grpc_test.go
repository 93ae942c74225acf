package stack_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"bidradar/pkg/access"
	"bidradar/pkg/authn"
)

// TestHardeningServicesOverGRPC calls every service on its own port, as the
// cluster and a team using the typed API do: each answers gRPC health
// checks (SERVING once ready) and lists its methods through reflection,
// exactly those its protos declare; each refuses every internal RPC to a
// caller without a valid service token, a signed-in user included. The
// gateway passes neither health, reflection nor an internal RPC on.
func TestHardeningServicesOverGRPC(t *testing.T) {
	e := startStack(t, nil)
	eps, err := access.Endpoints()
	if err != nil {
		t.Fatal(err)
	}
	policy, err := access.All()
	if err != nil {
		t.Fatal(err)
	}
	serves := map[string]string{} // target variable → the BidRadar service behind it
	for _, ep := range eps {
		serves[ep.TargetEnv] = ep.Service
	}
	if len(e.targets) != len(eps)+1 { // and realtime, which serves no proto
		t.Fatalf("stack targets %v, endpoints %v", e.targets, eps)
	}
	conns := map[string]*grpc.ClientConn{}
	for env, addr := range e.targets {
		cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cc.Close() })
		conns[env] = cc
	}

	t.Run("health", func(t *testing.T) {
		for env, cc := range conns {
			names := []string{"", "liveness"}
			if s := serves[env]; s != "" {
				names = append(names, s)
			}
			for _, name := range names {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				res, err := healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{Service: name})
				cancel()
				if err != nil || res.GetStatus() != healthpb.HealthCheckResponse_SERVING {
					t.Errorf("%s: health of %q: %v %v", env, name, res.GetStatus(), err)
				}
			}
		}
	})

	t.Run("reflection lists every method", func(t *testing.T) {
		for env, cc := range conns {
			listed, methods := reflect(t, cc)
			want := []string{"grpc.health.v1.Health"}
			if s := serves[env]; s != "" {
				want = append(want, s)
			}
			slices.Sort(want)
			if !slices.Equal(listed, want) {
				t.Errorf("%s lists %v, want %v", env, listed, want)
			}
			s := serves[env]
			if s == "" {
				continue
			}
			declared := policy.Procedures(func(access.Rule) bool { return true })
			declared = slices.DeleteFunc(declared, func(p string) bool { return !strings.HasPrefix(p, "/"+s+"/") })
			if !slices.Equal(methods, declared) {
				t.Errorf("%s: reflection describes %v,\nthe protos declare %v", env, methods, declared)
			}
			t.Logf("%s: %d methods through reflection", s, len(methods))
		}
	})

	t.Run("internal RPCs need a service token", func(t *testing.T) {
		u := e.registerVerified("grpcuser", "grpcuser@example.com", "grpc user password")
		token := u.str("access_token")
		if token == "" {
			t.Fatalf("no access token: %v", u)
		}
		internal := policy.Procedures(func(r access.Rule) bool { return r.Audience == access.Internal })
		if len(internal) == 0 {
			t.Fatal("no internal RPC declared")
		}
		for _, ep := range eps {
			cc := conns[ep.TargetEnv]
			for _, proc := range internal {
				if !strings.HasPrefix(proc, "/"+ep.Service+"/") {
					continue
				}
				for name, md := range map[string]metadata.MD{
					"nothing":                      nil,
					"a user's access token":        metadata.Pairs("authorization", "Bearer "+token),
					"an access token as a service": metadata.Pairs(strings.ToLower(authn.ServiceTokenHeader), token),
					"a made-up service token":      metadata.Pairs(strings.ToLower(authn.ServiceTokenHeader), "eyJhbGciOiJIUzI1NiIsInR5cCI6InN2Yytqd3QifQ.e30.AAAA"),
				} {
					code := invoke(t, cc, proc, md)
					if code != codes.Unauthenticated {
						t.Errorf("%s with %s: %v, want Unauthenticated", proc, name, code)
					}
				}
			}
		}
	})

	t.Run("the gateway keeps them inside", func(t *testing.T) {
		for _, p := range []string{"/grpc.health.v1.Health/Check", "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"} {
			req, _ := http.NewRequest("POST", e.url+p, strings.NewReader("{}"))
			req.Header.Set("Content-Type", "application/json")
			resp, err := e.http.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("gateway %s: %d, want 404", p, resp.StatusCode)
			}
		}
		for _, proc := range policy.Procedures(func(r access.Rule) bool { return r.Audience == access.Internal }) {
			req, _ := http.NewRequest("POST", e.url+proc, strings.NewReader("{}"))
			req.Header.Set("Content-Type", "application/json")
			resp, err := e.http.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("gateway %s: %d, want 404", proc, resp.StatusCode)
			}
		}
	})
}

// reflect lists a server's services with grpc-go's reflection client and
// the procedures of every service it describes (health's left out).
func reflect(t *testing.T, cc *grpc.ClientConn) (services, procedures []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stream, err := reflectionpb.NewServerReflectionClient(cc).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stream.CloseSend() }()
	ask := func(req *reflectionpb.ServerReflectionRequest) *reflectionpb.ServerReflectionResponse {
		if err := stream.Send(req); err != nil {
			t.Fatal(err)
		}
		res, err := stream.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if e := res.GetErrorResponse(); e != nil {
			t.Fatalf("reflection: %s", e.GetErrorMessage())
		}
		return res
	}
	res := ask(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}})
	for _, s := range res.GetListServicesResponse().GetService() {
		services = append(services, s.GetName())
	}
	slices.Sort(services)
	for _, name := range services {
		if name == "grpc.health.v1.Health" {
			continue
		}
		res := ask(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_FileContainingSymbol{FileContainingSymbol: name}})
		for _, raw := range res.GetFileDescriptorResponse().GetFileDescriptorProto() {
			var fd descriptorpb.FileDescriptorProto
			if err := proto.Unmarshal(raw, &fd); err != nil {
				t.Fatal(err)
			}
			for _, s := range fd.GetService() {
				if fd.GetPackage()+"."+s.GetName() != name {
					continue
				}
				for _, m := range s.GetMethod() {
					procedures = append(procedures, "/"+name+"/"+m.GetName())
				}
			}
		}
		if !slices.ContainsFunc(procedures, func(p string) bool { return strings.HasPrefix(p, "/"+name+"/") }) {
			t.Errorf("reflection described no method of %s", name)
		}
	}
	slices.Sort(procedures)
	return services, procedures
}

// invoke calls proc over gRPC with an empty request and returns the code.
func invoke(t *testing.T, cc *grpc.ClientConn, proc string, md metadata.MD) codes.Code {
	t.Helper()
	svc, method, _ := strings.Cut(strings.TrimPrefix(proc, "/"), "/")
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(svc))
	if err != nil {
		t.Fatal(err)
	}
	m := d.(protoreflect.ServiceDescriptor).Methods().ByName(protoreflect.Name(method))
	in, out := dynamicpb.NewMessage(m.Input()), dynamicpb.NewMessage(m.Output())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if md != nil {
		ctx = metadata.NewOutgoingContext(ctx, md)
	}
	return status.Code(cc.Invoke(ctx, proc, in, out))
}
