package postgres

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"

	"github.com/jackc/pgx/v5"
)

// keyID derives the key id of an Ed25519 public key: the first 12 bytes of
// its SHA-256, base64url.
func keyID(pub ed25519.PublicKey) string {
	s := sha256.Sum256(pub)
	return base64.RawURLEncoding.EncodeToString(s[:12])
}

// SigningSeed returns the development signing key seed, generating and
// storing it on first use. Concurrent starters agree on one key.
func (s *Store) SigningSeed(ctx context.Context) ([]byte, error) {
	var seed []byte
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('auth:signing_keys', 0))`); err != nil {
			return err
		}
		err := tx.QueryRow(ctx, `SELECT seed FROM signing_keys ORDER BY created_at, kid LIMIT 1`).Scan(&seed)
		if err == nil || !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		seed = make([]byte, ed25519.SeedSize)
		if _, err := rand.Read(seed); err != nil {
			return err
		}
		pub := ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
		_, err = tx.Exec(ctx, `INSERT INTO signing_keys (kid, seed) VALUES ($1, $2)`, keyID(pub), seed)
		return err
	})
	return seed, err
}

// ServerSecret returns the development secret name, generating n random
// bytes and storing them on first use.
func (s *Store) ServerSecret(ctx context.Context, name string, n int) ([]byte, error) {
	fresh := make([]byte, n)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	var v []byte
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`,
			name, fresh); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `SELECT value FROM server_secrets WHERE name = $1`, name).Scan(&v)
	})
	return v, err
}
