#!/usr/bin/env bash
# Installs Debian's Chromium and the Thai fonts the browser tests need (no
# Playwright browser download). Idempotent; needs root (CI) or sudo.
set -euo pipefail
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
dpkg -s fonts-thai-tlwg >/dev/null 2>&1 || need+=(fonts-thai-tlwg)
[ ${#need[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y --no-install-recommends "${need[@]}" || { $SUDO apt-get update && $SUDO apt-get install -y --no-install-recommends "${need[@]}"; }
