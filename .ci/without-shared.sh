#!/usr/bin/env bash
# Runs the test suite from a copy of the checkout with no ../shared beside it, as a fresh clone
# from a forge would have it: a test that reads ../shared must skip with a message, not fail.
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
echo "[without-shared] npm test in $root/loupe (no ../shared)" >&2
npm test -- "$@"
