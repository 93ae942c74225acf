package domain_test

import (
	"strings"
	"testing"

	"bidradar/services/projects/internal/domain"
)

// A project's new matches are told in events of at most MaxMatchesPerEvent
// searches, every search once, in order.
func TestProjectMatchesChunks(t *testing.T) {
	for _, n := range []int{0, 1, domain.MaxMatchesPerEvent - 1, domain.MaxMatchesPerEvent, domain.MaxMatchesPerEvent + 1, 2*domain.MaxMatchesPerEvent + 7} {
		m := domain.ProjectMatches{Project: &domain.Project{ID: "p"}}
		for i := range n {
			m.Keys = append(m.Keys, domain.SearchKey{byte(i), byte(i >> 8)})
		}
		chunks := m.Chunks()
		if want := (n + domain.MaxMatchesPerEvent - 1) / domain.MaxMatchesPerEvent; len(chunks) != want {
			t.Fatalf("%d searches: %d events, want %d", n, len(chunks), want)
		}
		next := 0
		for _, c := range chunks {
			if len(c) == 0 || len(c) > domain.MaxMatchesPerEvent {
				t.Fatalf("%d searches: an event of %d", n, len(c))
			}
			for _, k := range c {
				if k != (domain.SearchKey{byte(next), byte(next >> 8)}) {
					t.Fatalf("%d searches: %x where %d was due", n, k, next)
				}
				next++
			}
		}
		if next != n {
			t.Fatalf("%d searches: %d told", n, next)
		}
	}
}

// A search id reads as its 16 bytes in either case and spells back in
// lower case; anything that is not a UUID is refused, never a panic.
func TestSearchKey(t *testing.T) {
	const id = "0a1b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2d3"
	k, ok := domain.ParseSearchKey(strings.ToUpper(id))
	if !ok || k.String() != id || k != (domain.SearchKey{0x0a, 0x1b, 0x2c, 0x3d, 0x4e, 0x5f, 0x4a, 0x6b, 0x8c, 0x7d, 0x8e, 0x9f, 0xa0, 0xb1, 0xc2, 0xd3}) {
		t.Fatalf("%s: %x %v", id, k, ok)
	}
	for _, bad := range []string{"", id[:35], id + "0", strings.Replace(id, "-", "0", 1), "0a-b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2d3",
		"0a1b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2dg", "0a1b2c3d04e5f-4a6b-8c7d-8e9fa0b1c2d3-", "------------------------------------"} {
		if k, ok := domain.ParseSearchKey(bad); ok {
			t.Errorf("%q read as %s", bad, k)
		}
	}
}
