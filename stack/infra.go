package stack

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"bidradar/pkg/events"
	"bidradar/pkg/pgdb"
)

// defaultDatabaseURL is the default when DATABASE_URL is unset
// (docs/architecture.md#runtime-contract).
const defaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/procurement?sslmode=disable"

// resolveDatabase returns the database URL to use, creating the database (from
// template0, C.UTF-8) when missing. Without DATABASE_URL and without a server on
// 127.0.0.1:5432 it starts a private cluster under dataDir with the local binaries.
func resolveDatabase(ctx context.Context, given, dataDir string) (string, error) {
	dbURL := given
	if dbURL == "" {
		dbURL = defaultDatabaseURL
		if !answers("127.0.0.1:5432") {
			admin, err := privateCluster(ctx, dataDir)
			if err != nil {
				return "", err
			}
			u, err := url.Parse(admin)
			if err != nil {
				return "", err
			}
			u.Path = "/procurement"
			dbURL = u.String()
		}
	}
	if err := pgdb.EnsureDatabase(ctx, dbURL); err != nil {
		return "", fmt.Errorf("database: %w", err)
	}
	return dbURL, nil
}

func answers(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 500*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// privateCluster runs scripts/ensure-postgres.sh (initdb + pg_ctl as the postgres
// user) with its data under dataDir/pg, and returns the admin URL it prints.
func privateCluster(ctx context.Context, dataDir string) (string, error) {
	script, err := findUp("scripts/ensure-postgres.sh")
	if err != nil {
		return "", fmt.Errorf("no PostgreSQL on 127.0.0.1:5432 and %w", err)
	}
	dir, err := filepath.Abs(filepath.Join(dataDir, "pg"))
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Env = append(os.Environ(), "PG_DIR="+dir, "PG_PORT=55433", "TEST_DATABASE_URL=")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("start private PostgreSQL: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// findUp looks for rel in the working directory and its parents (go run and go
// test start in different folders).
func findUp(rel string) (string, error) {
	dir, _ := os.Getwd()
	for {
		p := filepath.Join(dir, rel)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("%s not found", rel)
		}
		dir = parent
	}
}

// startNATS returns NATS_URL when given, else starts an embedded JetStream server.
func startNATS(given, dataDir string) (string, func(), error) {
	if given != "" {
		return given, func() {}, nil
	}
	store := filepath.Join(dataDir, "nats")
	if err := os.MkdirAll(store, 0o755); err != nil {
		return "", nil, err
	}
	srv, clientURL, err := events.StartEmbedded(events.EmbeddedOptions{StoreDir: store, Port: -1})
	if err != nil {
		return "", nil, fmt.Errorf("embedded NATS: %w", err)
	}
	return clientURL, func() { srv.Shutdown(); srv.WaitForShutdown() }, nil
}
