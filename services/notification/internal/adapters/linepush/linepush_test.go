package linepush_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"bidradar/services/notification/internal/adapters/linepush"
)

// fakeLINE accepts each retry key once; like LINE, a repeat answers 409
// with X-Line-Accepted-Request-Id. The first request is accepted but not
// answered before the client gives up (a timeout).
type fakeLINE struct {
	mu       sync.Mutex
	accepted map[string]bool
	messages []string
	slowOnce bool
}

func (f *fakeLINE) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v2/bot/message/push" || r.Header.Get("Authorization") != "Bearer tok" {
		http.Error(w, "bad", http.StatusUnauthorized)
		return
	}
	var body struct {
		To       string                  `json:"to"`
		Messages []struct{ Text string } `json:"messages"`
	}
	_ = json.NewDecoder(r.Body).Decode(&body)
	key := r.Header.Get("X-Line-Retry-Key")
	f.mu.Lock()
	if f.accepted[key] {
		f.mu.Unlock()
		w.Header().Set("X-Line-Accepted-Request-Id", "req-1")
		w.WriteHeader(http.StatusConflict)
		return
	}
	f.accepted[key] = true
	f.messages = append(f.messages, body.To+": "+body.Messages[0].Text)
	slow := f.slowOnce
	f.slowOnce = false
	f.mu.Unlock()
	if slow {
		<-r.Context().Done() // answered only after the client gave up
		return
	}
	_, _ = w.Write([]byte("{}"))
}

func TestRetryAfterTimeoutSendsOnce(t *testing.T) {
	f := &fakeLINE{accepted: map[string]bool{}, slowOnce: true}
	srv := httptest.NewServer(f)
	defer srv.Close()
	c := linepush.New(srv.URL, "tok")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	err := c.Push(ctx, "U1", "สวัสดี", "key-1")
	cancel()
	if err == nil {
		t.Fatal("the first attempt should time out")
	}
	if err := c.Push(context.Background(), "U1", "สวัสดี", "key-1"); err != nil {
		t.Fatalf("retry: %v", err)
	}
	if err := c.Push(context.Background(), "U1", "อีกข้อความ", "key-2"); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.messages) != 2 || f.messages[0] != "U1: สวัสดี" {
		t.Fatalf("messages %v", f.messages)
	}
	if err := linepush.New(srv.URL, "wrong").Push(context.Background(), "U1", "x", "key-3"); err == nil {
		t.Fatal("a refused token is an error")
	}
}
