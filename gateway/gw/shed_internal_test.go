package gw

import "testing"

func TestPasswordSlotsShareAmongClients(t *testing.T) {
	p := newPasswordSlots(8) // a client may hold 2
	var releases []func()
	take := func(client string) bool {
		r, ok := p.acquire(client)
		if ok {
			releases = append(releases, r)
		}
		return ok
	}
	if !take("a") || !take("a") || take("a") {
		t.Fatal("client a: want 2 slots, then refused")
	}
	for i, c := range []string{"b", "b", "c", "c", "d", "d"} {
		if !take(c) {
			t.Fatalf("slot %d for %s refused while a is capped", i, c)
		}
	}
	if take("e") {
		t.Fatal("a ninth slot")
	}
	releases[0]()
	if !take("e") {
		t.Fatal("a released slot is not reusable")
	}
	if take("a") {
		t.Fatal("a got a third slot back")
	}
	if !passwordProcedures["/auth.v1.AuthService/Login"] || passwordProcedures["/auth.v1.AuthService/GetMe"] {
		t.Fatalf("password procedures from the protos: %v", passwordProcedures)
	}
}
