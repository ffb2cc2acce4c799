#!/usr/bin/env bash
# Runs tests from a copy of the checkout with no ../shared beside it, as a fresh clone from a forge
# would have it: a test that reads ../shared must skip with a message, not fail. Arguments are
# passed to vitest (file names: those files; none: the tests that read ../shared, see below).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
mkdir "$root/loupe"
# Tracked and new files as they are on disk (a file deleted but not yet committed is skipped).
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
  if [ -e "$f" ]; then cp --parents -- "$f" "$root/loupe"; fi
done
ln -s "$PWD/node_modules" "$root/loupe/node_modules"
[ ! -e "$root/shared" ] || { echo "[without-shared] $root/shared exists" >&2; exit 1; }
cd "$root/loupe"
if [ "$#" -eq 0 ]; then
  # The tests whose behaviour differs without ../shared: those that read it, directly or through a
  # test helper that does (found afresh on every run, so a new one is included), and the fresh-clone
  # smoke tests of what must be committed (server start, /docs, /console, openapi.json), by name. The whole
  # suite again took 9 minutes and brought CI over its 25 (PostgreSQL suite alone: 14 minutes).
  pattern='\.\./shared|shared/(datasets|catalogs)'
  files="$(grep -rlE "$pattern" test src --include='*.test.ts' || true)"
  for helper in $(grep -rlE "$pattern" test/helpers --include='*.ts' | xargs -r -n1 basename | sed 's/\.ts$//'); do
    files="$files $(grep -rlE "helpers/$helper(\.ts)?['\"]" test src --include='*.test.ts' || true)"
  done
  set -- $(printf '%s\n' $files | sort -u)
  echo "[without-shared] npm test in $root/loupe (no ../shared): $*" >&2
  npm test -- "$@"
  # The fresh-clone smoke tests, by name: one server start and stop, the committed /docs page, console bundle and
  # openapi.json. Their files whole ran the main run's tests again: 175 s of this run's 200 on a slow machine (server.test.ts
  # 84 s, the console's 57 s), where CI came to 1,478 s of its 1,500.
  smoke='^(server process shuts down gracefully|API documentation page|OpenAPI |web console \(/console\): the built bundle|web console.* signs in with a token)'
  echo "[without-shared] the fresh-clone smoke tests in $root/loupe: -t '$smoke'" >&2
  exec npm test -- test/server.test.ts test/http/docs-ui.test.ts test/http/console.test.ts test/http/openapi.test.ts -t "$smoke"
fi
echo "[without-shared] npm test in $root/loupe (no ../shared): $*" >&2
npm test -- "$@"
