#!/usr/bin/env bash
# Installs the system packages the tests need when they are missing: Debian's
# Chromium and Thai fonts for the browser tests, PostgreSQL when absent.
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
fc-list 2>/dev/null | grep -qi garuda || need+=(fonts-thai-tlwg)
ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || need+=(postgresql)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then echo "missing ${need[*]}: install them (apt-get install ${need[*]})" >&2; exit 1; fi
  echo "installing ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
