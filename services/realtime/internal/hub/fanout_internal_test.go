package hub

import (
	"context"
	"testing"

	notificationv1 "bidradar/gen/notification/v1"
	"bidradar/pkg/events"
)

func created(t *testing.T, h *Handler, user, id string) {
	t.Helper()
	ev := &notificationv1.NotificationCreated{UserId: user, UnreadCount: 1,
		Notification: &notificationv1.Notification{Id: id, Type: "bell_notification"}}
	if err := h.notificationCreated(context.Background(), ev, events.Meta{}); err != nil {
		t.Fatal(err)
	}
}

func queued(s *socket) []string {
	var ids []string
	for {
		select {
		case m := <-s.queue:
			ids = append(ids, string(m.Data))
		default:
			return ids
		}
	}
}

// The shared subscription hands an event to every socket of its user and
// to no other; a closed socket leaves the registry.
func TestFanOutToTheUsersSockets(t *testing.T) {
	h := &Handler{users: map[string]map[*socket]struct{}{}, done: make(chan struct{})}
	a1, closeA1 := h.register("u1")
	a2, closeA2 := h.register("u1")
	b, closeB := h.register("u2")
	created(t, h, "u1", "n1")
	if len(queued(a1)) != 1 || len(queued(a2)) != 1 || len(queued(b)) != 0 {
		t.Fatal("u1's event must reach both of u1's sockets and not u2's")
	}
	created(t, h, "u10", "n2") // a user whose id starts like another's
	if err := h.notificationCreated(context.Background(), &notificationv1.NotificationCreated{UserId: "u1"}, events.Meta{}); err != nil {
		t.Fatal(err)
	}
	if len(queued(a1))+len(queued(a2))+len(queued(b)) != 0 {
		t.Fatal("other users' events and ones without a notification reach nobody")
	}
	closeA1()
	created(t, h, "u1", "n3")
	if len(queued(a1)) != 0 || len(queued(a2)) != 1 {
		t.Fatal("a closed socket gets nothing more; the user's other socket still does")
	}
	closeA2()
	closeB()
	if len(h.users) != 0 {
		t.Fatalf("registry keeps %d users after every socket closed", len(h.users))
	}
}

// A socket whose queue is full is marked to close instead of blocking the
// subscription shared by every socket.
func TestFullQueueMarksSlowSocket(t *testing.T) {
	h := &Handler{users: map[string]map[*socket]struct{}{}, done: make(chan struct{})}
	s, done := h.register("u1")
	defer done()
	for i := 0; i < queueSize; i++ {
		created(t, h, "u1", "n")
	}
	select {
	case <-s.overflow:
		t.Fatal("marked slow with room left in the queue")
	default:
	}
	created(t, h, "u1", "n")
	created(t, h, "u1", "n") // again: no double close
	select {
	case <-s.overflow:
	default:
		t.Fatal("a full queue must mark the socket slow")
	}
}
