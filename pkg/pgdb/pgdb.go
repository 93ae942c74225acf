// Package pgdb opens PostgreSQL connection pools for a service schema, creates
// databases on first start, runs embedded SQL migrations and classifies
// PostgreSQL errors.
package pgdb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// SQLSTATE codes used by this package.
const (
	codeUniqueViolation   = "23505"
	codeDuplicateDatabase = "42P04"
	codeDuplicateSchema   = "42P06"
)

// EnsureDatabase creates the database named in url when it does not exist
// yet. It connects to the "postgres" database of the same server and creates
// the database from template0 with UTF-8 encoding and the C.UTF-8 collation
// and character class (Thai search needs a UTF-8 LC_CTYPE). A concurrent
// creator is tolerated.
func EnsureDatabase(ctx context.Context, url string) error {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return fmt.Errorf("pgdb: parse url: %w", err)
	}
	name := cfg.Database
	if name == "" {
		return errors.New("pgdb: url names no database")
	}
	if name == "postgres" {
		return nil
	}
	admin := cfg.Copy()
	admin.Database = "postgres"
	conn, err := pgx.ConnectConfig(ctx, admin)
	if err != nil {
		return fmt.Errorf("pgdb: connect to postgres database: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))

	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return fmt.Errorf("pgdb: look up database %q: %w", name, err)
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, CreateDatabaseSQL(name))
	// A concurrent creator shows up as duplicate_database, or as a unique
	// violation on pg_database when both passed the existence check.
	if err != nil && !hasCode(err, codeDuplicateDatabase) && !hasCode(err, codeUniqueViolation) {
		return fmt.Errorf("pgdb: create database %q: %w", name, err)
	}
	return nil
}

// CreateDatabaseSQL returns the CREATE DATABASE statement used for new
// databases: template0, UTF-8, C.UTF-8 collation and character class.
func CreateDatabaseSQL(name string) string {
	return "CREATE DATABASE " + pgx.Identifier{name}.Sanitize() +
		" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'"
}

// Open connects a pool to url whose connections use search_path
// "<schema>, public". It creates the schema if it is missing, traces every
// query with OpenTelemetry (statement text only, never arguments) and pings
// the server before returning.
func Open(ctx context.Context, url, schema string) (*pgxpool.Pool, error) {
	if schema == "" {
		return nil, errors.New("pgdb: empty schema")
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("pgdb: parse url: %w", err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{schema}.Sanitize() + ", public"
	cfg.ConnConfig.Tracer = NewTracer()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgdb: create pool: %w", err)
	}
	if err := ensureSchema(ctx, pool, schema); err != nil {
		pool.Close()
		return nil, err
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pingCtx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("pgdb: ping: %w", err)
	}
	return pool, nil
}

func ensureSchema(ctx context.Context, pool *pgxpool.Pool, schema string) error {
	_, err := pool.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{schema}.Sanitize())
	// Two creators racing on IF NOT EXISTS may still collide on the catalog.
	if err != nil && !hasCode(err, codeDuplicateSchema) && !hasCode(err, codeUniqueViolation) {
		return fmt.Errorf("pgdb: create schema %q: %w", schema, err)
	}
	return nil
}

// IsUniqueViolation reports whether err is a PostgreSQL unique_violation
// (SQLSTATE 23505).
func IsUniqueViolation(err error) bool {
	return hasCode(err, codeUniqueViolation)
}

// IsNoRows reports whether err means that a query returned no row.
func IsNoRows(err error) bool {
	return errors.Is(err, pgx.ErrNoRows)
}

func hasCode(err error, code string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == code
}
