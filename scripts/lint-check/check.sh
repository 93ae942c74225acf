#!/usr/bin/env bash
# Proves that the layer rules of .golangci.yml bite. services/fixture here is
# a small service whose files break each rule once (a port importing an
# adapter, the domain importing the app or net/http, ...) next to files that
# import what they may (the assembly, benchkit, tests). The linter must
# report exactly the lines marked `// want <linter>`: a rule that stops
# firing, or one that fires on an allowed import, fails the check.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
lint=${GOLANGCI_LINT:-$root/bin/golangci-lint}
fixture=scripts/lint-check/services/fixture

cd "$root" || exit 1
want=$(grep -rnE --include='*.go' '// want [a-z]+$' "$fixture" |
  sed -E 's#^([^:]+):([0-9]+):.*// want ([a-z]+)$#\1:\2 \3#' | sort)
# The fixture is a module of its own, outside go.work.
out=$(cd "$fixture" && GOWORK=off "$lint" run --config "$root/.golangci.yml" ./... 2>&1)
got=$(sed -nE 's#^([^ :]+\.go):([0-9]+):[0-9]+: .*\(([a-z]+)\)$#\1:\2 \3#p' <<<"$out" | sort)

if [ -z "$want" ]; then echo "no '// want' marks found under $fixture"; exit 1; fi
if [ "$want" != "$got" ]; then
  echo "the layer rules did not report what the fixture expects"
  diff <(echo "$want") <(echo "$got") | sed -e 's/^</  missing:   /' -e 's/^>/  unexpected:/' | grep -E '^  '
  echo "--- linter output"; echo "$out"
  exit 1
fi
echo "layer rules: $(wc -l <<<"$want") refusals as expected in $fixture"
