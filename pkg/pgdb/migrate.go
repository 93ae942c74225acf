package pgdb

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

var migrationName = regexp.MustCompile(`^(\d+)_([A-Za-z0-9_\-]+)\.sql$`)

// Migration is one SQL migration file.
type Migration struct {
	Version int
	Name    string // file name without the version prefix and ".sql"
	SQL     string
}

// LoadMigrations reads the NNNNN_name.sql files at the root of fsys (or, when
// the root holds none, in its "migrations" directory, which suits
// `//go:embed migrations/*.sql`). Versions must start at 1 and have no gap
// or duplicate.
func LoadMigrations(fsys fs.FS) ([]Migration, error) {
	dir := "."
	files, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, fmt.Errorf("pgdb: list migrations: %w", err)
	}
	if len(files) == 0 {
		dir = "migrations"
		if files, err = fs.Glob(fsys, "migrations/*.sql"); err != nil {
			return nil, fmt.Errorf("pgdb: list migrations: %w", err)
		}
	}
	out := make([]Migration, 0, len(files))
	for _, f := range files {
		base := path.Base(f)
		m := migrationName.FindStringSubmatch(base)
		if m == nil {
			return nil, fmt.Errorf("pgdb: migration file %q is not named NNNNN_name.sql", base)
		}
		v, err := strconv.Atoi(m[1])
		if err != nil {
			return nil, fmt.Errorf("pgdb: migration file %q: %w", base, err)
		}
		body, err := fs.ReadFile(fsys, path.Join(dir, base))
		if err != nil {
			return nil, fmt.Errorf("pgdb: read migration %q: %w", base, err)
		}
		out = append(out, Migration{Version: v, Name: m[2], SQL: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i, m := range out {
		if m.Version != i+1 {
			return nil, fmt.Errorf("pgdb: migration versions must be 1..n without gaps or duplicates: expected %d, found %05d_%s", i+1, m.Version, m.Name)
		}
	}
	return out, nil
}

// Migrate applies the migrations in fsys (see LoadMigrations) to schema, in
// version order, each in its own transaction, and records them in
// <schema>.schema_migrations. Replicas migrating at once are serialized by a
// transaction-level advisory lock keyed on the schema name. Already applied
// versions are skipped, so Migrate is idempotent; an applied version whose
// name differs from its file is an error. Versions applied in the database
// but unknown to fsys (a newer release ran first) are left alone.
func Migrate(ctx context.Context, pool *pgxpool.Pool, schema string, migrations fs.FS) error {
	list, err := LoadMigrations(migrations)
	if err != nil {
		return err
	}
	s := pgx.Identifier{schema}.Sanitize()
	lockKey := "schema_migrations:" + schema

	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", lockKey); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+s); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+s+`.schema_migrations (
			version int PRIMARY KEY,
			name text NOT NULL,
			applied_at timestamptz NOT NULL DEFAULT now())`)
		return err
	})
	if err != nil {
		return fmt.Errorf("pgdb: prepare schema_migrations in %q: %w", schema, err)
	}

	for _, m := range list {
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", lockKey); err != nil {
				return err
			}
			var applied string
			err := tx.QueryRow(ctx, "SELECT name FROM "+s+".schema_migrations WHERE version = $1", m.Version).Scan(&applied)
			switch {
			case err == nil:
				if applied != m.Name {
					return fmt.Errorf("version %d was applied as %q but the file is now %q", m.Version, applied, m.Name)
				}
				return nil
			case !IsNoRows(err):
				return err
			}
			if _, err := tx.Exec(ctx, "SET LOCAL search_path TO "+s+", public"); err != nil {
				return err
			}
			// No arguments: pgx uses the simple protocol, so a file may hold
			// several statements.
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return err
			}
			_, err = tx.Exec(ctx, "INSERT INTO "+s+".schema_migrations (version, name) VALUES ($1, $2)", m.Version, m.Name)
			return err
		})
		if err != nil {
			return fmt.Errorf("pgdb: migration %05d_%s in %q: %w", m.Version, m.Name, schema, err)
		}
	}
	return nil
}
