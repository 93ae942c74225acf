// Package ports serves the auth use cases over Connect, gRPC and gRPC-Web
// (one connect-go handler). Protobuf types stay here: requests are mapped
// to app commands, results to responses, and session results also set the
// access_token and refresh_token cookies through Set-Cookie headers, which
// the gateway passes on to browsers for both Connect and REST.
//
// connect.go holds the server and what every RPC shares (errors, the
// user's mapping). The RPCs are grouped by concern in login.go,
// registration.go, password.go, sessions.go, account.go (the account's
// self-service), line.go and internal_calls.go; cookies.go sets and reads the
// session cookies, caller.go tells what is known of the caller.
package ports

import (
	"crypto/ed25519"
	"errors"
	"strconv"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/gen/auth/v1/authv1connect"
	"bidradar/pkg/apperr"
	"bidradar/services/auth/internal/app"
	"bidradar/services/auth/internal/domain"
)

// tokenType is the token_type of every response that carries tokens.
const tokenType = "bearer"

// PublicKey is one access-token verification key.
type PublicKey struct {
	KID string
	Key ed25519.PublicKey
}

// Options configure the RPC server.
type Options struct {
	// SecureCookies adds the Secure attribute (APP_ENV=production).
	SecureCookies bool
	// PublicKeys returns the keys served by GetPublicKeys.
	PublicKeys func() []PublicKey
}

// Server implements authv1connect.AuthServiceHandler.
type Server struct {
	app  *app.App
	opts Options
}

var _ authv1connect.AuthServiceHandler = (*Server)(nil)

// NewServer returns the RPC server.
func NewServer(a *app.App, opts Options) (*Server, error) {
	if a == nil {
		return nil, errors.New("ports: nil app")
	}
	if opts.PublicKeys == nil {
		return nil, errors.New("ports: nil PublicKeys")
	}
	return &Server{app: a, opts: opts}, nil
}

// MaxRequestBytes bounds request messages: nothing of ours is larger.
const MaxRequestBytes = 64 << 10

// rpcErr converts a use-case error; rate limits also carry Retry-After.
func rpcErr(err error) error {
	var re *domain.RetryError
	if errors.As(err, &re) {
		ce := apperr.ToConnect(err)
		ce.Meta().Set("Retry-After", strconv.Itoa(int((re.RetryAfter+time.Second-1)/time.Second)))
		return ce
	}
	return err
}

func twoStep(enabled bool) string {
	if enabled {
		return "enabled"
	}
	return "disabled"
}

func userPB(u domain.User) *authv1.User {
	if u.ID == "" {
		return nil
	}
	pb := &authv1.User{
		IdUser: u.ID, Id: u.ID, Name: u.Name, Username: u.Username, Email: u.Email,
		PictureUrl: u.PictureURL, LineId1: u.LineID, TwoStepVerification: twoStep(u.TwoStep), IsActive: u.Active,
	}
	if !u.CreatedAt.IsZero() {
		pb.CreatedAt = timestamppb.New(u.CreatedAt)
	}
	return pb
}
