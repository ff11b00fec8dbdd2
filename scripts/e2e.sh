#!/usr/bin/env bash
# End-to-end tests of the desktop app (tests/e2e): build what they need, then
# drive the real window through tauri-driver (WebDriver) inside a private
# desktop session (Xvfb, D-Bus, an unlocked gnome-keyring, dunst), with real
# MCP peers, the native consent dialog (xdotool) and desktop notifications.
#
#   bash scripts/e2e.sh                      # everything
#   bash scripts/e2e.sh 03-required-error    # only the test files whose name contains this
#   AIRLOCK_E2E_KNOWN_BUGS=1 bash scripts/e2e.sh   # also run the tests skipped as known product bugs
#   AIRLOCK_E2E_JOBS=1 bash scripts/e2e.sh          # one test file at a time (default 2)
#
# Screenshots of every step: test-artifacts/e2e/<test>/NN-<step>.png.
# Exits non-zero when a test fails; prints node:test's summary at the end.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export CARGO_TERM_COLOR=never
export CI="${CI:-true}"
export NO_COLOR=1
t0=$SECONDS
section() { printf '\n== e2e: %s (%d s so far)\n' "$1" "$((SECONDS - t0))"; }

sha() { sha256sum "$@" | awk '{print $1}' | sha256sum | awk '{print $1}'; }

# npm ci only when node_modules does not match the lock file.
npm_ci() {
  local dir=$1 stamp="$1/node_modules/.airlock-e2e-stamp" hash
  hash=$(sha "$dir/package.json" "$dir/package-lock.json")
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$hash" ]]; then
    echo "e2e: $dir/node_modules is up to date"
  else
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$hash" >"$stamp"
  fi
}

section "setup (system packages, test peers, tauri-driver)"
bash scripts/setup.sh --e2e
export PATH="$PATH:${CARGO_HOME:-$HOME/.cargo}/bin"

section "ui build"
bash scripts/ui.sh install build

section "cargo build (desktop app, CLI, demo server)"
# The whole workspace with every target: the same feature set as
# `cargo test --workspace`, so after the test run nothing is compiled twice.
cargo build --workspace --all-targets

section "tests/e2e: npm ci"
npm_ci tests/e2e

section "run (each file: Xvfb + D-Bus + keyring + dunst of its own)"
files=()
for f in tests/e2e/*.test.mjs; do
  if [[ $# -eq 0 ]]; then files+=("${f#tests/e2e/}"); continue; fi
  for want in "$@"; do
    if [[ "$f" == *"$want"* ]]; then files+=("${f#tests/e2e/}"); break; fi
  done
done
if [[ ${#files[@]} -eq 0 ]]; then
  echo "e2e: no test file matches: $*" >&2
  exit 2
fi
# A full run starts from an empty artifacts folder (each test also empties its own).
if [[ $# -eq 0 ]]; then rm -rf test-artifacts/e2e; fi
mkdir -p test-artifacts/e2e
set +e
# Each test file in its own private session (display, D-Bus, keyring,
# dunst), AIRLOCK_E2E_JOBS files at once (default 2), longest first
# (scripts/run-tests.py --e2e).
python3 scripts/run-tests.py --e2e "${files[@]}" 2>&1 \
  | grep --line-buffered -v -e 'dbus-daemon\[' -e '^Joined session keyring' -e 'SpiRegistry daemon'
rc=${PIPESTATUS[0]}
set -e
section "done: exit $rc; screenshots in test-artifacts/e2e/"
exit "$rc"
