package pgdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

// VersionTable is goose's history table, one per service schema.
const VersionTable = "goose_db_version"

// Migrate applies the goose migrations in fsys (NNNNN_name.sql files at its
// root or, for `//go:embed migrations/*.sql`, in its "migrations"
// directory) to schema. Every file starts with `-- +goose Up`; a file marked
// `-- +goose NO TRANSACTION` runs statement by statement outside a
// transaction (CREATE INDEX CONCURRENTLY on a large table never blocks
// writes), every other file in one transaction.
//
// Migrations run with search_path = schema, public and are recorded in
// <schema>.goose_db_version. Replicas starting at once are serialized by a
// session advisory lock keyed on the schema name, so exactly one applies each
// version. A schema migrated by the earlier runner (<schema>.schema_migrations)
// is adopted in place: its applied versions are copied into goose's table
// once, and nothing is re-run.
func Migrate(ctx context.Context, pool *pgxpool.Pool, schema string, fsys fs.FS) error {
	return MigrateLogged(ctx, pool, schema, fsys, nil)
}

// MigrateLogged is Migrate reporting each applied version to log (nil: quiet).
func MigrateLogged(ctx context.Context, pool *pgxpool.Pool, schema string, fsys fs.FS, log *slog.Logger) error {
	p, db, err := newProvider(pool, schema, fsys, log)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := adoptLegacyHistory(ctx, pool, schema); err != nil {
		return fmt.Errorf("pgdb: adopt schema_migrations in %q: %w", schema, err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("pgdb: migrate %q: %w", schema, err)
	}
	return nil
}

// MigrateUpTo applies the migrations up to and including version (tests of
// an upgrade from an older schema holding data).
func MigrateUpTo(ctx context.Context, pool *pgxpool.Pool, schema string, fsys fs.FS, version int64) error {
	p, db, err := newProvider(pool, schema, fsys, nil)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := adoptLegacyHistory(ctx, pool, schema); err != nil {
		return err
	}
	if _, err := p.UpTo(ctx, version); err != nil {
		return fmt.Errorf("pgdb: migrate %q up to %d: %w", schema, version, err)
	}
	return nil
}

// MigrateDownTo rolls schema back to version (operators; tests of the down
// migrations). Files without a `-- +goose Down` section roll back nothing.
func MigrateDownTo(ctx context.Context, pool *pgxpool.Pool, schema string, fsys fs.FS, version int64) error {
	p, db, err := newProvider(pool, schema, fsys, nil)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := p.DownTo(ctx, version); err != nil {
		return fmt.Errorf("pgdb: migrate %q down to %d: %w", schema, version, err)
	}
	return nil
}

func newProvider(pool *pgxpool.Pool, schema string, fsys fs.FS, log *slog.Logger) (*goose.Provider, *sql.DB, error) {
	if files, err := fs.Glob(fsys, "*.sql"); err == nil && len(files) == 0 {
		if sub, err := fs.Sub(fsys, "migrations"); err == nil {
			fsys = sub
		}
	}
	// A database/sql handle of its own (goose needs one) whose connections
	// resolve the migrations' unqualified names in the service schema.
	cfg := pool.Config().ConnConfig.Copy()
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	cfg.RuntimeParams["search_path"] = pgx.Identifier{schema}.Sanitize() + ", public"
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(2) // the lock's session and the migration's
	opts := []goose.ProviderOption{
		goose.WithTableName(schema + "." + VersionTable),
		goose.WithSessionLocker(blockingLock{key: lockKey(schema)}),
		goose.WithDisableGlobalRegistry(true),
	}
	if log != nil {
		opts = append(opts, goose.WithSlog(log.With("schema", schema)))
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, fsys, opts...)
	if err != nil {
		_ = db.Close()
		return nil, nil, fmt.Errorf("pgdb: migrations of %q: %w", schema, err)
	}
	return p, db, nil
}

func lockKey(schema string) string { return "goose:" + schema }

// blockingLock is goose's SessionLocker on a blocking pg_advisory_lock: a
// replica waits exactly as long as the migrating one holds it (goose's own
// Postgres locker polls every 5 s), and a cancelled context ends the wait.
type blockingLock struct{ key string }

var _ lock.SessionLocker = blockingLock{}

func (l blockingLock) SessionLock(ctx context.Context, conn *sql.Conn) error {
	_, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(hashtextextended($1, 0))", l.key)
	return err
}

func (l blockingLock) SessionUnlock(ctx context.Context, conn *sql.Conn) error {
	var ok bool
	if err := conn.QueryRowContext(ctx, "SELECT pg_advisory_unlock(hashtextextended($1, 0))", l.key).Scan(&ok); err != nil {
		return err
	}
	if !ok {
		return errors.New("advisory lock was not held")
	}
	return nil
}

// adoptLegacyHistory creates the schema when missing, then goose's table from the earlier runner's
// schema_migrations(version, name) when only the latter exists, under the
// same lock key so a concurrent replica sees either neither or both.
func adoptLegacyHistory(ctx context.Context, pool *pgxpool.Pool, schema string) error {
	s := pgx.Identifier{schema}.Sanitize()
	if _, err := pool.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+s); err != nil && !hasCode(err, codeDuplicateSchema) && !hasCode(err, codeUniqueViolation) {
		return err
	}
	needed := func(q interface {
		QueryRow(context.Context, string, ...any) pgx.Row
	}) (bool, error) {
		var legacy, adopted bool
		err := q.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL, to_regclass($2) IS NOT NULL`,
			s+".schema_migrations", s+"."+VersionTable).Scan(&legacy, &adopted)
		return legacy && !adopted, err
	}
	if ok, err := needed(pool); err != nil || !ok {
		return err
	}
	// The lock is a session lock taken before the transaction that checks
	// again: a transaction that waited on an advisory lock keeps the catalog
	// view it started with, and would not see the table another replica
	// created meanwhile.
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(hashtextextended($1, 0))", lockKey(schema)); err != nil {
		return err
	}
	defer func() {
		_, _ = conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(hashtextextended($1, 0))", lockKey(schema))
	}()
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if ok, err := needed(tx); err != nil || !ok {
			return err
		}
		// goose's own DDL for its Postgres table, and its version-0 row.
		if _, err := tx.Exec(ctx, `CREATE TABLE `+s+`.`+VersionTable+` (
			id integer PRIMARY KEY GENERATED BY DEFAULT AS IDENTITY,
			version_id bigint NOT NULL,
			is_applied boolean NOT NULL,
			tstamp timestamp NOT NULL DEFAULT now())`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO `+s+`.`+VersionTable+` (version_id, is_applied, tstamp)
			SELECT 0, true, now()
			UNION ALL
			SELECT version, true, applied_at FROM `+s+`.schema_migrations ORDER BY 1`)
		return err
	})
}
