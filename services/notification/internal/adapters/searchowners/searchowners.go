// Package searchowners looks up the owner and name of saved searches in the
// projects service (projects.v1.ProjectsService/GetSearchOwners, an
// internal RPC), for the instant alerts' project.matched events, which name
// their searches by key only. Answers are kept for a while: a bulk import
// names the same 100,000 searches over and over. Each answer carries the
// version of the saved searches it was read at, and each event the version
// it was matched at: an answer older than the event's is asked again, so a
// search renamed before a project matched it is named by its new name.
package searchowners

import (
	"context"
	"net/http"
	"sync"
	"time"

	"connectrpc.com/connect"

	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/gen/projects/v1/projectsv1connect"
	"bidradar/services/notification/internal/domain"
)

// Defaults of the cache.
const (
	// TTL bounds how long an answer is kept, and how long a renamed search
	// keeps its old name in the alerts of producers that send no version.
	TTL = 10 * time.Minute
	// MaxCached bounds the memory (~150 bytes a search): past it the cache
	// starts again empty.
	MaxCached = 500_000
	// perCall is the most keys one call asks for (the RPC's limit).
	perCall = 2000
)

// Lookup is the RPC the client calls (projectsv1connect.ProjectsServiceClient
// has it; tests give a fake).
type Lookup interface {
	GetSearchOwners(context.Context, *connect.Request[projectsv1.GetSearchOwnersRequest]) (*connect.Response[projectsv1.GetSearchOwnersResponse], error)
}

// Client implements domain.SearchOwners.
type Client struct {
	rpc     Lookup
	timeout time.Duration
	now     func() time.Time

	mu     sync.Mutex
	cached map[[16]byte]cachedOwner
}

type cachedOwner struct {
	owner   domain.SearchOwner
	found   bool  // false: the search does not exist (deleted)
	version int64 // of the saved searches, when it was read
	at      time.Time
}

// New returns a client of the projects service at target (host:port, h2c);
// httpClient presents the service token GetSearchOwners needs (runner's
// srv.Client()).
func New(httpClient *http.Client, target string, timeout time.Duration) *Client {
	return NewWith(projectsv1connect.NewProjectsServiceClient(httpClient, "http://"+target, connect.WithGRPC()), timeout, nil)
}

// NewWith returns a client of rpc; now may be nil (time.Now).
func NewWith(rpc Lookup, timeout time.Duration, now func() time.Time) *Client {
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	if now == nil {
		now = time.Now
	}
	return &Client{rpc: rpc, timeout: timeout, now: now, cached: map[[16]byte]cachedOwner{}}
}

// Owners implements domain.SearchOwners: the searches among keys that
// exist, as of version asOf of the saved searches or later.
func (c *Client) Owners(ctx context.Context, keys [][16]byte, asOf int64) (map[[16]byte]domain.SearchOwner, error) {
	out := make(map[[16]byte]domain.SearchOwner, len(keys))
	var missing []byte
	asked := map[[16]byte]bool{}
	now := c.now()
	c.mu.Lock()
	for _, k := range keys {
		e, ok := c.cached[k]
		switch {
		case ok && now.Sub(e.at) < TTL && e.version >= asOf:
			if e.found {
				out[k] = e.owner
			}
		case !asked[k]:
			asked[k] = true
			missing = append(missing, k[:]...)
		}
	}
	c.mu.Unlock()
	for len(missing) > 0 {
		n := min(len(missing), 16*perCall)
		if err := c.ask(ctx, missing[:n], now, out); err != nil {
			return nil, err
		}
		missing = missing[n:]
	}
	return out, nil
}

// ask looks keys up, caching what it learns (found or not).
func (c *Client) ask(ctx context.Context, keys []byte, now time.Time, out map[[16]byte]domain.SearchOwner) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	res, err := c.rpc.GetSearchOwners(ctx, connect.NewRequest(&projectsv1.GetSearchOwnersRequest{CriteriaKeys: keys}))
	if err != nil {
		return err
	}
	found := make(map[[16]byte]domain.SearchOwner, len(res.Msg.Searches))
	for _, s := range res.Msg.Searches {
		if len(s.CriteriaKey) == 16 {
			found[[16]byte(s.CriteriaKey)] = domain.SearchOwner{UserID: s.UserId, Name: s.Name}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.cached)+len(keys)/16 > MaxCached {
		c.cached = map[[16]byte]cachedOwner{}
	}
	for i := 0; i+16 <= len(keys); i += 16 {
		k := [16]byte(keys[i : i+16])
		o, ok := found[k]
		c.cached[k] = cachedOwner{owner: o, found: ok, version: res.Msg.CriteriaVersion, at: now}
		if ok {
			out[k] = o
		}
	}
	return nil
}
