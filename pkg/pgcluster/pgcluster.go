// Package pgcluster makes private PostgreSQL clusters with the machine's own
// binaries: a primary made with initdb and a hot-standby streaming replica
// made from it with pg_basebackup (docs/architecture.md#beyond-one-machine).
// `make run-cluster` supervises them; pkg/testutil/pgreplica gives a test
// a pair of its own.
package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// BinDir is the newest /usr/lib/postgresql/<version>/bin holding postgres
// (PG_BIN overrides it).
func BinDir() (string, error) {
	if d := os.Getenv("PG_BIN"); d != "" {
		return d, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	if len(dirs) == 0 {
		if p, err := exec.LookPath("postgres"); err == nil {
			return filepath.Dir(p), nil
		}
		return "", errors.New("pgcluster: no PostgreSQL binaries (/usr/lib/postgresql/*/bin): apt-get install postgresql")
	}
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) < version(dirs[j]) })
	return filepath.Dir(dirs[len(dirs)-1]), nil
}

func version(path string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(path))))
	return n
}

// Node is one PostgreSQL data directory served on 127.0.0.1:Port.
type Node struct {
	Dir  string // data directory
	Port int
}

// URL is the superuser's URL of database db on the node.
func (n Node) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", n.Port, db)
}

// Exists reports whether the data directory has been made.
func (n Node) Exists() bool {
	_, err := os.Stat(filepath.Join(n.Dir, "PG_VERSION"))
	return err == nil
}

// settings every node runs with: loopback only, its socket in its own
// directory, streaming replication on, and the durability a laptop cluster
// does not need off (a killed postgres still recovers from its WAL;
// fsync only matters on a power loss).
func (n Node) settings() string {
	return strings.Join([]string{
		"listen_addresses = '127.0.0.1'",
		fmt.Sprintf("port = %d", n.Port),
		fmt.Sprintf("unix_socket_directories = '%s'", n.Dir),
		"wal_level = replica",
		"max_wal_senders = 10",
		"wal_keep_size = '512MB'",
		"hot_standby = on",
		"hot_standby_feedback = on",
		"max_connections = 300",
		"shared_buffers = '128MB'",
		"fsync = off",
		"synchronous_commit = off",
		"full_page_writes = off",
		"logging_collector = off",
	}, "\n") + "\n"
}

// InitPrimary makes n's data directory with initdb (superuser postgres,
// trust on loopback, replication allowed, UTF-8 with the C.UTF-8 locale).
func InitPrimary(ctx context.Context, n Node) error {
	bin, err := BinDir()
	if err != nil {
		return err
	}
	if err := makeOwned(n.Dir); err != nil {
		return err
	}
	out, err := asPostgres(exec.CommandContext(ctx, filepath.Join(bin, "initdb"), "-D", n.Dir, "-U", "postgres",
		"--auth=trust", "-E", "UTF8", "--locale=C.UTF-8")).CombinedOutput()
	if err != nil {
		return fmt.Errorf("pgcluster: initdb %s: %w\n%s", n.Dir, err, out)
	}
	hba := "host all all 127.0.0.1/32 trust\nhost replication all 127.0.0.1/32 trust\nlocal all all trust\nlocal replication all trust\n"
	if err := writeOwned(filepath.Join(n.Dir, "pg_hba.conf"), hba); err != nil {
		return err
	}
	return appendOwned(filepath.Join(n.Dir, "postgresql.auto.conf"), n.settings())
}

// BaseBackup makes replica's data directory from the running primary with
// pg_basebackup -R (streaming the WAL it needs, writing standby.signal and
// primary_conninfo), then gives it its own port and socket.
func BaseBackup(ctx context.Context, primary, replica Node) error {
	bin, err := BinDir()
	if err != nil {
		return err
	}
	if err := os.RemoveAll(replica.Dir); err != nil {
		return err
	}
	if err := makeOwned(replica.Dir); err != nil {
		return err
	}
	out, err := asPostgres(exec.CommandContext(ctx, filepath.Join(bin, "pg_basebackup"), "-D", replica.Dir,
		"-h", "127.0.0.1", "-p", strconv.Itoa(primary.Port), "-U", "postgres", "-X", "stream", "-R", "-c", "fast")).CombinedOutput()
	if err != nil {
		return fmt.Errorf("pgcluster: pg_basebackup into %s: %w\n%s", replica.Dir, err, out)
	}
	return appendOwned(filepath.Join(replica.Dir, "postgresql.auto.conf"), replica.settings())
}

// Command is the postmaster of n on n.Port, run as the postgres user when
// this process is root (PostgreSQL refuses root); its pid is the
// postmaster's. A replica is given its primary's current address.
func Command(n Node, primary *Node) (*exec.Cmd, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	args := []string{"-D", n.Dir, "-p", strconv.Itoa(n.Port)}
	if primary != nil {
		args = append(args, "-c", fmt.Sprintf("primary_conninfo=host=127.0.0.1 port=%d user=postgres application_name=replica", primary.Port))
	}
	return asPostgres(exec.Command(filepath.Join(bin, "postgres"), args...)), nil
}

// WaitReady waits until n accepts connections to database postgres.
func WaitReady(ctx context.Context, n Node, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		c, err := pgx.Connect(ctx, n.URL("postgres"))
		if err == nil {
			err = c.Ping(ctx)
			_ = c.Close(context.WithoutCancel(ctx))
			if err == nil {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("pgcluster: 127.0.0.1:%d not ready after %s: %w", n.Port, limit, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// postgresIDs are the uid and gid of the postgres user when this process
// runs as root, else ok is false.
func postgresIDs() (uid, gid uint32, ok bool) {
	if os.Geteuid() != 0 {
		return 0, 0, false
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return 0, 0, false
	}
	a, _ := strconv.Atoi(u.Uid)
	b, _ := strconv.Atoi(u.Gid)
	return uint32(a), uint32(b), true
}

func asPostgres(cmd *exec.Cmd) *exec.Cmd {
	if uid, gid, ok := postgresIDs(); ok {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: gid}}
	}
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
	return cmd
}

// makeOwned creates dir (0700) owned by the postgres user when root, and
// makes its parents traversable by that user.
func makeOwned(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	uid, gid, ok := postgresIDs()
	if !ok {
		return nil
	}
	for p := filepath.Dir(dir); p != "/" && p != "."; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		if st.Mode().Perm()&0o001 == 0 {
			if err := os.Chmod(p, st.Mode().Perm()|0o011); err != nil {
				return err
			}
		}
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return err
	}
	return os.Chown(dir, int(uid), int(gid))
}

func writeOwned(path, text string) error {
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return err
	}
	return chownPostgres(path)
}

func appendOwned(path, text string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return chownPostgres(path)
}

func chownPostgres(path string) error {
	if uid, gid, ok := postgresIDs(); ok {
		return os.Chown(path, int(uid), int(gid))
	}
	return nil
}
