#!/usr/bin/env bash
# Makes sure a PostgreSQL server answers for the tests; prints the admin URL to use.
# Order: TEST_DATABASE_URL as given; the machine's server on 127.0.0.1:5432 (started
# with pg_ctlcluster when installed but stopped); else a private cluster under .data/.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -n "${TEST_DATABASE_URL:-}" ]; then echo "$TEST_DATABASE_URL"; exit 0; fi
default="postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
answers() { pg_isready -q -h 127.0.0.1 -p "$1" 2>/dev/null; }

if answers 5432; then echo "$default"; exit 0; fi
if command -v pg_ctlcluster >/dev/null 2>&1 && ls /etc/postgresql/*/main >/dev/null 2>&1; then
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start >&2 || true
  for _ in $(seq 1 30); do answers 5432 && { echo "$default"; exit 0; }; sleep 0.5; done
fi

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$bin" ] || { echo "no PostgreSQL binaries: apt-get install postgresql" >&2; exit 1; }
dir="${PG_DIR:-$PWD/.data/pg-test}"; port="${PG_PORT:-55432}"
run_as=(); if [ "$(id -u)" = 0 ]; then run_as=(runuser -u postgres --); fi
if ! answers $port; then
  mkdir -p "$dir"; [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
  [ -f "$dir/data/PG_VERSION" ] || "${run_as[@]}" "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >&2
  "${run_as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" start >&2
fi
echo "postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
