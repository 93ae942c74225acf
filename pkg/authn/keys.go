package authn

import (
	"crypto/ed25519"
	"maps"
	"sync/atomic"
)

// StaticKeys is a fixed key set, keyed by kid.
type StaticKeys map[string]ed25519.PublicKey

// PublicKey implements KeySource.
func (k StaticKeys) PublicKey(kid string) (ed25519.PublicKey, bool) {
	pub, ok := k[kid]
	return pub, ok
}

// KeyRing is a key set that can be replaced while requests are verified,
// for services that refresh the auth service's public keys periodically.
// The zero value holds no keys and is ready to use.
type KeyRing struct {
	keys atomic.Pointer[StaticKeys]
}

// NewKeyRing returns a KeyRing holding a copy of keys.
func NewKeyRing(keys map[string]ed25519.PublicKey) *KeyRing {
	r := &KeyRing{}
	r.Replace(keys)
	return r
}

// Replace swaps in a copy of keys atomically; keep the previous key in the
// new set during rotation so tokens it signed stay valid until they expire.
func (r *KeyRing) Replace(keys map[string]ed25519.PublicKey) {
	cp := StaticKeys(maps.Clone(keys))
	r.keys.Store(&cp)
}

// PublicKey implements KeySource.
func (r *KeyRing) PublicKey(kid string) (ed25519.PublicKey, bool) {
	k := r.keys.Load()
	if k == nil {
		return nil, false
	}
	return k.PublicKey(kid)
}
