// Package egphttp is the polite HTTP getter shared by the e-GP adapters (the
// announcement feed and the single-project endpoint): a timeout, the headers
// e-GP's firewall wants, retries with exponential backoff and jitter on network
// errors, 429 and 5xx, honouring Retry-After up to a cap.
package egphttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ErrPermanent marks an answer that retrying will not fix.
var ErrPermanent = errors.New("permanent e-GP error")

// ErrNotFound is a 404; it is permanent too.
var ErrNotFound = fmt.Errorf("%w: not found", ErrPermanent)

// Getter fetches URLs politely.
type Getter struct {
	HTTP       *http.Client
	UserAgent  string
	Referer    string // e-GP refuses requests without one
	Accept     string
	MaxBody    int64
	MaxRetries int
	Backoff    time.Duration // first retry delay; doubles, with up to 50 % jitter
	MaxBackoff time.Duration // cap, also for Retry-After; 0 = no cap
	Sleep      func(ctx context.Context, d time.Duration) error
}

// UserAgent names us to e-GP's operators.
const UserAgent = "BidRadar/1.0 (+https://bidradar.example)"

// Get returns the body of a 200 answer.
func (g *Getter) Get(ctx context.Context, u string) ([]byte, error) {
	var lastErr error
	delay := g.Backoff
	for attempt := 0; attempt <= g.MaxRetries; attempt++ {
		if attempt > 0 {
			wait := delay + time.Duration(rand.Int64N(int64(delay)/2+1))
			var ra *retryAfter
			if errors.As(lastErr, &ra) && ra.wait > wait {
				wait = ra.wait
			}
			if g.MaxBackoff > 0 && wait > g.MaxBackoff {
				wait = g.MaxBackoff
			}
			if err := g.sleep(ctx, wait); err != nil {
				return nil, err
			}
			delay *= 2
		}
		body, err := g.once(ctx, u)
		if err == nil {
			return body, nil
		}
		lastErr = err
		if errors.Is(err, ErrPermanent) || ctx.Err() != nil {
			break
		}
	}
	return nil, lastErr
}

type retryAfter struct {
	err  error
	wait time.Duration
}

func (r *retryAfter) Error() string { return r.err.Error() }
func (r *retryAfter) Unwrap() error { return r.err }

func (g *Getter) once(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPermanent, err)
	}
	req.Header.Set("User-Agent", g.UserAgent)
	if g.Referer != "" {
		req.Header.Set("Referer", g.Referer)
	}
	if g.Accept != "" {
		req.Header.Set("Accept", g.Accept)
	}
	resp, err := g.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", u, err)
	}
	defer resp.Body.Close()
	limit := g.MaxBody
	if limit <= 0 {
		limit = 16 << 20
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", u, err)
	}
	switch {
	case resp.StatusCode == http.StatusOK:
		return body, nil
	case resp.StatusCode == http.StatusNotFound:
		return nil, fmt.Errorf("%w: get %s", ErrNotFound, u)
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		err := fmt.Errorf("get %s: e-GP answered %d", u, resp.StatusCode)
		if s, e := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Retry-After"))); e == nil && s > 0 {
			return nil, &retryAfter{err: err, wait: time.Duration(s) * time.Second}
		}
		return nil, err
	default:
		return nil, fmt.Errorf("%w: get %s: e-GP answered %d", ErrPermanent, u, resp.StatusCode)
	}
}

func (g *Getter) sleep(ctx context.Context, d time.Duration) error {
	if g.Sleep != nil {
		return g.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
