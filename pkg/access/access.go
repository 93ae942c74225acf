// Package access reads the access rule of every RPC (proto/access/v1, the
// `(access.v1.rule)` method option) and the endpoint of every service (the
// `(access.v1.endpoint)` service option) from the generated descriptors. The
// rules are declared once, in the proto, and everything that enforces them
// reads them from here: the services' authn interceptor (internal calls need
// a service token), the gateway's routes, internal-call blocking,
// password-burst shedding and upload limit, the refresh cookie's paths (the
// frontend reads the same options from its generated descriptors). The REST
// paths of each method come from gateway/http_rules.yaml through the
// generated registry.
package access

import (
	"fmt"
	"sort"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	accessv1 "bidradar/gen/access/v1"
	// Every service's generated package, so that All sees them.
	"bidradar/gen/registry"
)

// Audience says who may call an RPC.
type Audience = accessv1.Audience

// The audiences of proto/access/v1/access.proto.
const (
	Public   = accessv1.Audience_AUDIENCE_PUBLIC
	User     = accessv1.Audience_AUDIENCE_USER
	Internal = accessv1.Audience_AUDIENCE_INTERNAL
	Admin    = accessv1.Audience_AUDIENCE_ADMIN
)

// Rule is the access rule of one procedure.
type Rule struct {
	Audience Audience
	// PasswordHash: the call costs an argon2id hash (shed at the edge).
	PasswordHash bool
	// RefreshCookie: the call reads the refresh cookie, which is scoped to
	// the paths of these calls only.
	RefreshCookie bool
	// LargeBody: the call may carry an upload larger than the gateway's
	// default body limit.
	LargeBody bool
	// TeamKey is the scope a team API key needs to call it; unspecified:
	// keys are refused (docs/architecture.md#teams).
	TeamKey TeamKeyScope
}

// TeamKeyScope is the scope a team API key needs for a procedure.
type TeamKeyScope = accessv1.TeamKeyScope

// The scopes of proto/access/v1/access.proto.
const (
	KeyRefused = accessv1.TeamKeyScope_TEAM_KEY_SCOPE_UNSPECIFIED
	KeyRead    = accessv1.TeamKeyScope_TEAM_KEY_SCOPE_READ
	KeyWrite   = accessv1.TeamKeyScope_TEAM_KEY_SCOPE_WRITE
)

// Policy maps procedures ("/auth.v1.AuthService/Login") to their rules.
type Policy map[string]Rule

// Rule returns the rule of a procedure; ok is false for a procedure the
// policy does not know, which callers must refuse.
func (p Policy) Rule(procedure string) (r Rule, ok bool) {
	r, ok = p[procedure]
	return r, ok
}

// Procedures returns the procedures whose rule satisfies keep, sorted.
func (p Policy) Procedures(keep func(Rule) bool) []string {
	var out []string
	for proc, r := range p {
		if keep(r) {
			out = append(out, proc)
		}
	}
	sort.Strings(out)
	return out
}

// ForService returns the policy of one service by its full name (e.g.
// authv1connect.AuthServiceName). Its generated package must be linked in.
// It fails when any method lacks a rule or declares no audience.
func ForService(name string) (Policy, error) {
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(name))
	if err != nil {
		return nil, fmt.Errorf("access: service %s is not linked in: %w", name, err)
	}
	sd, ok := d.(protoreflect.ServiceDescriptor)
	if !ok {
		return nil, fmt.Errorf("access: %s is not a service", name)
	}
	p := Policy{}
	return p, p.add(sd)
}

// All returns the policy of every BidRadar service: every service of a
// linked-in file that imports access/v1/access.proto. Third-party services
// linked into a binary (grpc.health.v1, OpenTelemetry's OTLP collector) do
// not, and are not ours to serve; that each of our service files declares
// its rules is checked by the tests over proto/.
func All() (Policy, error) {
	p := Policy{}
	var errs []string
	protoregistry.GlobalFiles.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		if !importsAccess(fd) {
			return true
		}
		for i := 0; i < fd.Services().Len(); i++ {
			if err := p.add(fd.Services().Get(i)); err != nil {
				errs = append(errs, err.Error())
			}
		}
		return true
	})
	if len(errs) > 0 {
		sort.Strings(errs)
		return nil, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return p, nil
}

func importsAccess(fd protoreflect.FileDescriptor) bool {
	for i := 0; i < fd.Imports().Len(); i++ {
		if fd.Imports().Get(i).Path() == accessv1.File_access_v1_access_proto.Path() {
			return true
		}
	}
	return false
}

func (p Policy) add(sd protoreflect.ServiceDescriptor) error {
	var missing []string
	for i := 0; i < sd.Methods().Len(); i++ {
		m := sd.Methods().Get(i)
		r, ok := RuleOf(m)
		if !ok {
			missing = append(missing, string(m.Name()))
			continue
		}
		p["/"+string(sd.FullName())+"/"+string(m.Name())] = r
	}
	if len(missing) > 0 {
		return fmt.Errorf("access: %s: no (access.v1.rule) audience on %s", sd.FullName(), strings.Join(missing, ", "))
	}
	return nil
}

// RuleOf returns a method's declared rule; ok is false when it has none or
// its audience is unspecified.
func RuleOf(m protoreflect.MethodDescriptor) (Rule, bool) {
	opts := m.Options()
	if opts == nil || !proto.HasExtension(opts, accessv1.E_Rule) {
		return Rule{}, false
	}
	r, _ := proto.GetExtension(opts, accessv1.E_Rule).(*accessv1.Rule)
	if r.GetAudience() == accessv1.Audience_AUDIENCE_UNSPECIFIED {
		return Rule{}, false
	}
	return Rule{
		Audience: r.GetAudience(), PasswordHash: r.GetPasswordHash(),
		RefreshCookie: r.GetRefreshCookie(), LargeBody: r.GetLargeBody(), TeamKey: r.GetTeamKey(),
	}, true
}

// Paths returns the request paths of the procedures whose rule satisfies
// keep, sorted: each procedure's Connect/gRPC path and its REST path
// templates (gateway/http_rules.yaml).
func (p Policy) Paths(keep func(Rule) bool) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, proc := range p.Procedures(keep) {
		add(proc)
		for _, b := range REST(proc) {
			add(b.Path)
		}
	}
	sort.Strings(out)
	return out
}

// Binding is one REST route of a procedure.
type Binding = registry.Binding

// REST returns the REST bindings of a procedure ("/auth.v1.AuthService/Login"),
// as gateway/http_rules.yaml declares them; none for a procedure without a rule.
func REST(procedure string) []Binding { return registry.REST[procedure] }

// ServiceName returns the service part of a procedure path
// ("/auth.v1.AuthService/Login" → "auth.v1.AuthService"); ok is false when
// the path is not /<service>/<method>.
func ServiceName(procedure string) (name string, ok bool) {
	rest, ok := strings.CutPrefix(procedure, "/")
	if !ok {
		return "", false
	}
	name, method, ok := strings.Cut(rest, "/")
	if !ok || name == "" || method == "" || strings.Contains(method, "/") {
		return "", false
	}
	return name, true
}

// Endpoint is where the callers of one BidRadar service find it.
type Endpoint struct {
	// Service is its full name, e.g. auth.v1.AuthService.
	Service string
	// TargetEnv names the variable with its host:port, e.g. AUTH_TARGET.
	TargetEnv string
	// Descriptor is the service's descriptor.
	Descriptor protoreflect.ServiceDescriptor
}

// Endpoints returns every BidRadar service with its declared target
// variable, in the order of their proto files. It fails when a service
// declares none.
func Endpoints() ([]Endpoint, error) {
	var out []Endpoint
	var missing []string
	for _, s := range registry.Services {
		e, _ := proto.GetExtension(s.Descriptor.Options(), accessv1.E_Endpoint).(*accessv1.Endpoint)
		if e.GetTargetEnv() == "" {
			missing = append(missing, string(s.Descriptor.FullName()))
			continue
		}
		out = append(out, Endpoint{Service: string(s.Descriptor.FullName()), TargetEnv: e.GetTargetEnv(), Descriptor: s.Descriptor})
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("access: no (access.v1.endpoint) target_env on %s", strings.Join(missing, ", "))
	}
	return out, nil
}
