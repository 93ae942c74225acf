package runner

import (
	"context"
	"sync"
	"time"
)

// Wake brings forward the jobs registered with EveryOrWoken: work this
// process has just queued (a mail with a one-time code someone is waiting
// for) runs now, not at the next tick, and without a database listener:
// the replica that queued the work is the one woken. The zero value is
// ready to use.
type Wake struct {
	mu   sync.Mutex
	jobs []chan struct{}
}

// Signal runs every job of w as soon as it is idle (a job that is running
// runs once more when it returns). It never blocks.
func (w *Wake) Signal() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range w.jobs {
		select {
		case c <- struct{}{}:
		default: // already due
		}
	}
}

func (w *Wake) add() <-chan struct{} {
	c := make(chan struct{}, 1)
	w.mu.Lock()
	w.jobs = append(w.jobs, c)
	w.mu.Unlock()
	return c
}

// EveryOrWoken is Every, with fn also run whenever w is signalled. Register
// it several times with one w for jobs that should run side by side (each
// must claim its own rows, as Every's jobs do across replicas).
func (s *RPCServer) EveryOrWoken(d time.Duration, w *Wake, fn func(ctx context.Context)) {
	woken := w.add()
	s.Background(func(ctx context.Context) {
		tick := time.NewTicker(d)
		defer tick.Stop()
		for {
			fn(ctx)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			case <-woken:
			}
		}
	})
}
