package searchowners_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"connectrpc.com/connect"

	projectsv1 "bidradar/gen/projects/v1"
	"bidradar/services/notification/internal/adapters/searchowners"
)

// rpc is the projects service: it knows the searches in owners and counts
// the calls and keys it is asked for.
type rpc struct {
	owners      map[[16]byte]string
	version     int64 // of the saved searches, sent with every answer
	calls, keys int
	err         error
}

func (r *rpc) GetSearchOwners(_ context.Context, req *connect.Request[projectsv1.GetSearchOwnersRequest]) (*connect.Response[projectsv1.GetSearchOwnersResponse], error) {
	r.calls++
	if r.err != nil {
		return nil, r.err
	}
	ks := req.Msg.CriteriaKeys
	if len(ks)%16 != 0 || len(ks) > 16*2000 {
		return nil, errors.New("bad request")
	}
	r.keys += len(ks) / 16
	res := &projectsv1.GetSearchOwnersResponse{CriteriaVersion: r.version}
	for i := 0; i < len(ks); i += 16 {
		k := [16]byte(ks[i : i+16])
		if name, ok := r.owners[k]; ok {
			res.Searches = append(res.Searches, &projectsv1.SearchOwner{CriteriaKey: k[:], UserId: "u-" + name, Name: name})
		}
	}
	return connect.NewResponse(res), nil
}

func key(i int) [16]byte { return [16]byte{byte(i), byte(i >> 8), 7: 1} }

// Owners asks the projects service only for keys it has not seen within
// the TTL (found or not: a deleted search is not asked for again), at most
// 2 000 keys a call, and fails when the service does.
func TestOwnersCache(t *testing.T) {
	r := &rpc{owners: map[[16]byte]string{}}
	for i := range 3000 {
		if i%3 != 0 { // a third deleted
			r.owners[key(i)] = "s" + string(rune('a'+i%26))
		}
	}
	now := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	c := searchowners.NewWith(r, time.Second, func() time.Time { return now })
	ctx := context.Background()
	ask := func(from, to int) int {
		t.Helper()
		var ks [][16]byte
		for i := from; i < to; i++ {
			ks = append(ks, key(i), key(i)) // named twice: asked once
		}
		got, err := c.Owners(ctx, ks, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i := from; i < to; i++ {
			o, ok := got[key(i)]
			if name, exists := r.owners[key(i)]; ok != exists || ok && (o.Name != name || o.UserID != "u-"+name) {
				t.Fatalf("key %d: %+v %v, want %q %v", i, o, ok, name, exists)
			}
		}
		return len(got)
	}
	if n := ask(0, 2500); n != 1666 || r.calls != 2 || r.keys != 2500 {
		t.Fatalf("first: %d found, %d calls for %d keys", n, r.calls, r.keys)
	}
	ask(1000, 3000) // 500 new
	if r.calls != 3 || r.keys != 3000 {
		t.Fatalf("second: %d calls for %d keys", r.calls, r.keys)
	}
	now = now.Add(searchowners.TTL)
	r.err = errors.New("unavailable")
	if _, err := c.Owners(ctx, [][16]byte{key(1)}, 0); err == nil {
		t.Fatal("no error from a failed lookup")
	}
	r.err = nil
	ask(0, 10) // expired: asked again
	if r.calls != 5 || r.keys != 3010 {
		t.Fatalf("after the TTL: %d calls for %d keys", r.calls, r.keys)
	}
}

// An answer read at an older version of the saved searches than the one an
// event matched at is asked again, within the TTL: a search renamed before
// a project matched it is named by its new name. Events of the same
// version, or of none (older producers), keep using the answer.
func TestOwnersAskAgainAfterAChange(t *testing.T) {
	r := &rpc{owners: map[[16]byte]string{key(1): "ถนน", key(2): "สะพาน"}, version: 7}
	now := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	c := searchowners.NewWith(r, time.Second, func() time.Time { return now })
	ctx := context.Background()
	name := func(k [16]byte, asOf int64) string {
		t.Helper()
		got, err := c.Owners(ctx, [][16]byte{key(1), key(2)}, asOf)
		if err != nil {
			t.Fatal(err)
		}
		return got[k].Name
	}
	if n := name(key(1), 7); n != "ถนน" || r.calls != 1 {
		t.Fatalf("first: %q after %d calls", n, r.calls)
	}
	r.owners[key(1)], r.version = "ถนนลาดยาง", 8 // renamed
	for _, asOf := range []int64{7, 0, 6} {
		if n := name(key(1), asOf); n != "ถนน" || r.calls != 1 {
			t.Fatalf("as of %d: %q after %d calls, want the cached answer", asOf, n, r.calls)
		}
	}
	if n := name(key(1), 8); n != "ถนนลาดยาง" || r.calls != 2 || r.keys != 4 {
		t.Fatalf("as of 8: %q after %d calls for %d keys", n, r.calls, r.keys)
	}
	if n := name(key(2), 8); n != "สะพาน" || r.calls != 2 {
		t.Fatalf("again as of 8: %q after %d calls", n, r.calls)
	}
	delete(r.owners, key(2)) // deleted: version 9
	r.version = 9
	if got, err := c.Owners(ctx, [][16]byte{key(2)}, 9); err != nil || len(got) != 0 || r.calls != 3 {
		t.Fatalf("deleted, as of 9: %v %v after %d calls", got, err, r.calls)
	}
}
