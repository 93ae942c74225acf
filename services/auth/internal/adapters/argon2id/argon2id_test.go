package argon2id_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"bidradar/services/auth/internal/adapters/argon2id"
	"bidradar/services/auth/internal/domain"
)

var cheap = argon2id.Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

func TestHashVerify(t *testing.T) {
	t.Parallel()
	h, err := cheap.Hash("รหัสผ่านลับมาก")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Fatalf("PHC %q", h)
	}
	if ok, err := argon2id.Verify("รหัสผ่านลับมาก", h); err != nil || !ok {
		t.Fatalf("right password: %v %v", ok, err)
	}
	if ok, err := argon2id.Verify("wrong", h); err != nil || ok {
		t.Fatalf("wrong password: %v %v", ok, err)
	}
	h2, _ := cheap.Hash("รหัสผ่านลับมาก")
	if h2 == h {
		t.Fatal("salt not random")
	}
	for _, bad := range []string{"", "$argon2i$v=19$m=64,t=1,p=1$AAAA$AAAA", "$argon2id$v=19$m=9999999999,t=1,p=1$AAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAA", "$argon2id$v=19$m=64,t=1,p=1$!!$AAAA"} {
		if _, err := argon2id.Verify("x", bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestDefaultParamsAreDesigns(t *testing.T) {
	t.Parallel()
	p := argon2id.DefaultParams
	if p.Memory != 19*1024 || p.Time != 2 || p.Threads != 1 {
		t.Fatalf("default params %+v", p)
	}
	h, err := p.Hash("x")
	if err != nil || !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("%q %v", h, err)
	}
}

// A burst larger than the pool plus its queue is shed with ErrBusy instead
// of piling up.
func TestPoolSheds(t *testing.T) {
	t.Parallel()
	slow := argon2id.Params{Memory: 8 * 1024, Time: 3, Threads: 1, SaltLen: 16, KeyLen: 32}
	p, err := argon2id.NewPool(argon2id.PoolOptions{Params: slow, Concurrency: 1, QueueSize: 1, MaxWait: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	busy, done := 0, 0
	for range 12 {
		wg.Go(func() {
			_, err := p.Hash(context.Background(), "password")
			mu.Lock()
			defer mu.Unlock()
			switch {
			case errors.Is(err, domain.ErrBusy):
				busy++
			case err == nil:
				done++
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if busy == 0 || done < 1 {
		t.Fatalf("busy %d done %d: want some shed and some served", busy, done)
	}
	// Unknown users cost a dummy verification and never match.
	if ok, err := p.Verify(context.Background(), "password", ""); err != nil || ok {
		t.Fatalf("dummy verify: %v %v", ok, err)
	}
}
