package gw

import (
	"context"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"bidradar/pkg/access"
)

// shedMessage answers a password call refused at the edge.
const shedMessage = "Too many login attempts. Please try again shortly."

// errShed is a REST password call refused at the edge (restError knows it).
var errShed = status.Error(codes.ResourceExhausted, shedMessage)

// passwordProcedures are the RPCs whose proto says they cost an argon2id
// hash (access rule password_hash).
var passwordProcedures = func() map[string]bool {
	policy, err := access.All()
	if err != nil {
		panic("gateway: access rules: " + err.Error())
	}
	out := map[string]bool{}
	for _, p := range policy.Procedures(func(r access.Rule) bool { return r.PasswordHash }) {
		out[p] = true
	}
	return out
}()

// passwordSlots bound the password-hashing calls in flight through this
// gateway, and each client's share of them, answering the excess with 429 at
// once. The auth service sheds too (its hashing pool), but a request that
// reaches it has already cost a trip through every layer. A slot is taken
// only once the request body has been read (guardInput runs first), so a
// slow client holds none; a client may hold at most a quarter of the slots,
// so one client's burst cannot refuse everyone else's logins.
type passwordSlots struct {
	slots     chan struct{}
	perClient int
	mu        sync.Mutex
	held      map[string]int
}

func newPasswordSlots(limit int) *passwordSlots {
	if limit <= 0 {
		limit = 8 * runtime.GOMAXPROCS(0)
	}
	return &passwordSlots{slots: make(chan struct{}, limit), perClient: max(1, limit/4), held: map[string]int{}}
}

// acquire takes a slot for client; ok is false when none is free for it.
func (p *passwordSlots) acquire(client string) (release func(), ok bool) {
	p.mu.Lock()
	if p.held[client] >= p.perClient {
		p.mu.Unlock()
		return nil, false
	}
	p.held[client]++
	p.mu.Unlock()
	undo := func() {
		p.mu.Lock()
		if p.held[client]--; p.held[client] <= 0 {
			delete(p.held, client)
		}
		p.mu.Unlock()
	}
	select {
	case p.slots <- struct{}{}:
		return func() { <-p.slots; undo() }, true
	default:
		undo()
		return nil, false
	}
}

// connect sheds Connect, gRPC-Web and gRPC calls, whose path is the procedure.
func (p *passwordSlots) connect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !passwordProcedures[r.URL.Path] {
			next.ServeHTTP(w, r)
			return
		}
		release, ok := p.acquire(remoteIP(r.RemoteAddr))
		if !ok {
			w.Header().Set("Retry-After", "1")
			gatewayError(w, r, http.StatusTooManyRequests, reasonShed, shedMessage)
			return
		}
		defer release()
		next.ServeHTTP(w, r)
	})
}

// unary sheds the REST calls on their way to the services: grpc-gateway has
// decoded the body by then, and put the client's address last in
// x-forwarded-for.
func (p *passwordSlots) unary(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	if !passwordProcedures[method] {
		return invoker(ctx, method, req, reply, cc, opts...)
	}
	client := ""
	if md, ok := metadata.FromOutgoingContext(ctx); ok {
		if xff := md.Get("x-forwarded-for"); len(xff) > 0 {
			parts := strings.Split(xff[len(xff)-1], ",")
			client = strings.TrimSpace(parts[len(parts)-1])
		}
	}
	release, ok := p.acquire(client)
	if !ok {
		return errShed
	}
	defer release()
	return invoker(ctx, method, req, reply, cc, opts...)
}

func remoteIP(addr string) string {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return addr
}
