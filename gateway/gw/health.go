package gw

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// upstreamHealth asks every service's /readyz.
type upstreamHealth struct {
	targets map[string]string
	client  *http.Client
}

func newUpstreamHealth(cfg Config) *upstreamHealth {
	targets := map[string]string{"realtime": cfg.RealtimeTarget}
	for name, target := range cfg.Targets {
		targets[name] = target
	}
	return &upstreamHealth{targets: targets, client: &http.Client{Timeout: 2 * time.Second}}
}

func (u *upstreamHealth) check(ctx context.Context) error {
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	for name, target := range u.targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+target+"/readyz", nil)
			resp, err := u.client.Do(req)
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					err = fmt.Errorf("status %d", resp.StatusCode)
				}
			}
			if err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("%s: %w", name, err))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
