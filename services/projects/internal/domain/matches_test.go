package domain_test

import (
	"slices"
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

// An import's users are told in events of at most MaxImportUsersPerEvent
// users and about MaxImportEventBytes, every user once, in order; a user
// too large for one event is an event alone.
func TestImportChunks(t *testing.T) {
	users := func(n, projects int) []domain.ImportUser {
		out := make([]domain.ImportUser, n)
		for i := range out {
			out[i].UserID = strings.Repeat("u", 3) + string(rune('a'+i%26)) + strings.Repeat("x", i%7)
			for j := range projects {
				out[i].ProjectIDs = append(out[i].ProjectIDs, "6900000"+strings.Repeat("1", 4)+string(rune('0'+j%10)))
			}
		}
		return out
	}
	for _, c := range []struct {
		us   []domain.ImportUser
		want []int // users per event
	}{
		{nil, nil},
		{users(1, 2), []int{1}},
		{users(2500, 3), []int{1000, 1000, 500}},
		{users(5, 30000), []int{1, 1, 1, 1, 1}},                 // 30,000 ids of 12 bytes + 3: 450 KB each
		{append(users(1, 100000), users(3, 2)...), []int{1, 3}}, // 1.5 MB alone, then the rest
	} {
		chunks := domain.ImportChunks(c.us)
		var got []int
		var all []domain.ImportUser
		for _, ch := range chunks {
			got = append(got, len(ch))
			all = append(all, ch...)
		}
		if !slices.Equal(got, c.want) || len(all) != len(c.us) {
			t.Fatalf("%d users: events of %v users, want %v", len(c.us), got, c.want)
		}
		for i := range all {
			if all[i].UserID != c.us[i].UserID || len(all[i].ProjectIDs) != len(c.us[i].ProjectIDs) {
				t.Fatalf("user %d out of order", i)
			}
		}
	}
}
