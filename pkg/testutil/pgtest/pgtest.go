// Package pgtest gives each test a fresh, throwaway PostgreSQL database.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultURL is used when TEST_DATABASE_URL is unset.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

var unsafeChars = regexp.MustCompile(`[^a-z0-9]+`)

// AdminURL returns TEST_DATABASE_URL, or DefaultURL when it is unset.
func AdminURL() string {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return u
	}
	return DefaultURL
}

// NewDatabase creates a uniquely named database (template0, UTF-8, C.UTF-8
// collation and character class) on the server of TEST_DATABASE_URL and
// returns its URL. The database is dropped WITH (FORCE) when the test ends.
// When the server cannot be reached the test is skipped, unless the
// environment variable CI is "true", in which case it fails. It is also
// skipped under `go test -short`.
func NewDatabase(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("pgtest: integration test skipped in -short mode")
	}
	admin := AdminURL()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("pgtest: PostgreSQL unreachable at TEST_DATABASE_URL: %v", err)
		}
		t.Skipf("pgtest: PostgreSQL unreachable, skipping: %v", err)
	}
	defer conn.Close(context.Background())

	name := databaseName(t.Name())
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+
		" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'")
	if err != nil {
		t.Fatalf("pgtest: create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Errorf("pgtest: drop database %s: %v", name, err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: drop database %s: %v", name, err)
		}
	})

	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("pgtest: parse TEST_DATABASE_URL: %v", err)
	}
	u.Path = "/" + name
	u.RawPath = ""
	return u.String()
}

// databaseName builds "t_<test name>_<random>" within PostgreSQL's 63-byte
// identifier limit.
func databaseName(testName string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	slug := strings.Trim(unsafeChars.ReplaceAllString(strings.ToLower(testName), "_"), "_")
	if len(slug) > 40 {
		slug = slug[:40]
	}
	return "t_" + slug + "_" + hex.EncodeToString(b)
}
