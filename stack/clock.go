package stack

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"time"
)

// Clock is real time plus an offset that tests move, handed to the auth
// service as Options.AuthClock: one-time-code expiry, the resend interval
// and refresh grace windows are then crossed without waiting.
type Clock struct{ offset atomic.Int64 }

// Now is the clock's time.
func (c *Clock) Now() time.Time { return time.Now().Add(c.Offset()) }

// Offset is how far the clock runs ahead of real time.
func (c *Clock) Offset() time.Duration { return time.Duration(c.offset.Load()) }

// Set makes the clock run d ahead of real time (0: real time again).
func (c *Clock) Set(d time.Duration) { c.offset.Store(int64(d)) }

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) { c.offset.Add(int64(d)) }

// ServeHTTP is the control of the browser tests, which drive a stack in
// another process: PUT ?offset=61s sets the offset, GET reads it.
func (c *Clock) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
	case http.MethodPut:
		d, err := time.ParseDuration(r.URL.Query().Get("offset"))
		if err != nil {
			http.Error(w, "offset: want a duration such as 61s", http.StatusBadRequest)
			return
		}
		c.Set(d)
	default:
		w.Header().Set("Allow", "GET, PUT")
		http.Error(w, "GET or PUT", http.StatusMethodNotAllowed)
		return
	}
	fmt.Fprintln(w, c.Offset())
}
