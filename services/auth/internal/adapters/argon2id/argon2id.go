// Package argon2id hashes passwords with argon2id into PHC strings, in a
// bounded pool: at most Concurrency hashes run at once, at most QueueSize
// callers wait for a slot (up to MaxWait), and everyone else is refused at
// once with domain.ErrBusy. A login burst then gets 429s instead of
// exhausting CPU and memory (each hash holds Memory KiB).
package argon2id

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/argon2"

	"bidradar/services/auth/internal/domain"
)

// Params are argon2id cost parameters.
type Params struct {
	Memory  uint32 // KiB
	Time    uint32 // iterations
	Threads uint8
	SaltLen uint32
	KeyLen  uint32
}

// DefaultParams are those of docs/architecture.md#accounts-and-passwords: m = 19 MiB, t = 2, p = 1.
var DefaultParams = Params{Memory: 19 * 1024, Time: 2, Threads: 1, SaltLen: 16, KeyLen: 32}

// Validate rejects unusable parameters.
func (p Params) Validate() error {
	switch {
	case p.Memory < 8*uint32(p.Threads) || p.Memory < 8:
		return fmt.Errorf("argon2id: memory %d KiB too small", p.Memory)
	case p.Time < 1:
		return errors.New("argon2id: time must be at least 1")
	case p.Threads < 1:
		return errors.New("argon2id: threads must be at least 1")
	case p.SaltLen < 8 || p.KeyLen < 16:
		return errors.New("argon2id: salt or key too short")
	}
	return nil
}

// Hash returns the PHC string of password with a fresh salt.
func (p Params) Hash(password string) (string, error) {
	salt := make([]byte, p.SaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, p.KeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.Memory, p.Time, p.Threads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// maxMemory bounds the cost a stored hash may demand (guards against a
// tampered row asking for gigabytes).
const maxMemory = 1 << 20 // 1 GiB in KiB

// Verify checks password against a PHC string, with the parameters the
// string records.
func Verify(password, phc string) (bool, error) {
	parts := strings.Split(phc, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return false, errors.New("argon2id: not an argon2id PHC string")
	}
	if parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return false, errors.New("argon2id: unsupported version")
	}
	var p Params
	var threads uint32
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.Memory, &p.Time, &threads); err != nil {
		return false, fmt.Errorf("argon2id: parameters: %w", err)
	}
	if threads < 1 || threads > 255 || p.Memory > maxMemory || p.Time > 64 {
		return false, errors.New("argon2id: parameters out of range")
	}
	p.Threads = uint8(threads)
	b64 := base64.RawStdEncoding
	salt, err := b64.DecodeString(parts[4])
	if err != nil {
		return false, fmt.Errorf("argon2id: salt: %w", err)
	}
	want, err := b64.DecodeString(parts[5])
	if err != nil || len(want) < 16 {
		return false, errors.New("argon2id: bad key")
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// Pool runs hashes with bounded concurrency and a bounded wait queue.
type Pool struct {
	params  Params
	slots   chan struct{}
	waiting atomic.Int64
	queue   int64
	maxWait time.Duration
	dummy   string
}

// PoolOptions configure a Pool.
type PoolOptions struct {
	Params      Params
	Concurrency int           // hashes at once; at least 1
	QueueSize   int           // callers allowed to wait; default 2×Concurrency
	MaxWait     time.Duration // longest wait for a slot; default 2 s
}

// NewPool returns a pool; it precomputes the dummy hash that Verify uses
// for unknown users.
func NewPool(o PoolOptions) (*Pool, error) {
	if err := o.Params.Validate(); err != nil {
		return nil, err
	}
	if o.Concurrency < 1 {
		return nil, errors.New("argon2id: concurrency must be at least 1")
	}
	if o.QueueSize <= 0 {
		o.QueueSize = 2 * o.Concurrency
	}
	if o.MaxWait <= 0 {
		o.MaxWait = 2 * time.Second
	}
	dummy, err := o.Params.Hash("dummy password for unknown users")
	if err != nil {
		return nil, err
	}
	return &Pool{
		params: o.Params, slots: make(chan struct{}, o.Concurrency), queue: int64(o.QueueSize),
		maxWait: o.MaxWait, dummy: dummy,
	}, nil
}

func (p *Pool) acquire(ctx context.Context) (func(), error) {
	release := func() { <-p.slots }
	select {
	case p.slots <- struct{}{}:
		return release, nil
	default:
	}
	if p.waiting.Add(1) > p.queue {
		p.waiting.Add(-1)
		return nil, domain.ErrBusy
	}
	defer p.waiting.Add(-1)
	t := time.NewTimer(p.maxWait)
	defer t.Stop()
	select {
	case p.slots <- struct{}{}:
		return release, nil
	case <-t.C:
		return nil, domain.ErrBusy
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Hash hashes password with the pool's parameters.
func (p *Pool) Hash(ctx context.Context, password string) (string, error) {
	release, err := p.acquire(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	return p.params.Hash(password)
}

// Verify checks password against phc; an empty phc verifies against the
// dummy hash (same cost) and reports false.
func (p *Pool) Verify(ctx context.Context, password, phc string) (bool, error) {
	release, err := p.acquire(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	if phc == "" {
		_, _ = Verify(password, p.dummy)
		return false, nil
	}
	return Verify(password, phc)
}
