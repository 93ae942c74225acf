package cluster

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// balancer hands each TCP connection to the next of its backends that
// accepts one: on this machine, what a Kubernetes Service is to a
// service's pods. A killed backend's connections break (their callers
// retry) and new ones go to the live backends.
type balancer struct {
	ln       net.Listener
	backends []string
	next     atomic.Uint32
	wg       sync.WaitGroup
}

// listenBalancer binds a balancer's address; start gives it its backends.
func listenBalancer() (*balancer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	return &balancer{ln: ln}, nil
}

func (b *balancer) start(backends []string) {
	b.backends = backends
	b.wg.Go(b.serve)
}

func (b *balancer) Addr() string { return b.ln.Addr().String() }

func (b *balancer) Close() {
	b.ln.Close()
	b.wg.Wait()
}

func (b *balancer) serve() {
	for {
		conn, err := b.ln.Accept()
		if err != nil {
			return
		}
		go b.handle(conn)
	}
}

func (b *balancer) handle(conn net.Conn) {
	defer conn.Close()
	start := b.next.Add(1)
	for i := range len(b.backends) {
		addr := b.backends[(int(start)+i)%len(b.backends)]
		up, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			continue
		}
		defer up.Close()
		done := make(chan struct{}, 2)
		pipe := func(dst, src net.Conn) {
			_, _ = io.Copy(dst, src)
			if tc, ok := dst.(*net.TCPConn); ok {
				_ = tc.CloseWrite()
			}
			done <- struct{}{}
		}
		go pipe(up, conn)
		go pipe(conn, up)
		<-done
		// One side ended: give the other a moment to flush, then close.
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		return
	}
}
