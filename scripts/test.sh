#!/usr/bin/env bash
# Set up what is missing, then run every check and test:
#   format, clippy (warnings are errors), the UI's type check, linter and build,
#   and the whole cargo test suite inside a private D-Bus session with an
#   unlocked gnome-keyring (real OS keychain) and real MCP peers.
#
#   bash scripts/test.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export CARGO_TERM_COLOR=never
t0=$SECONDS
section() { printf '\n== %s (%d s so far)\n' "$1" "$((SECONDS - t0))"; }

section "setup"
bash scripts/setup.sh --test

if [[ -f ui/package.json ]]; then
  section "ui: install, type check, lint, build"
  (cd ui && npm ci --no-audit --no-fund --loglevel=error \
    && npm run --silent check && npm run --silent lint && npm run --silent build)
fi

section "cargo fmt --check"
cargo fmt --all -- --check

section "cargo clippy -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings

log=$(mktemp)
trap 'rm -f "$log"' EXIT

section "cargo test (real keychain, real MCP peers)"
bash scripts/with-session.sh cargo test --workspace --locked --no-fail-fast 2>&1 | tee -a "$log"

section "official MCP conformance suite (client scenarios)"
bash scripts/conformance.sh 2>&1 | tee -a "$log"

section "desktop end-to-end (tests/e2e: the real app under Xvfb via WebDriver)"
bash scripts/e2e.sh 2>&1 | tee -a "$log"

section "generated files match the Rust types and the API declaration"
# `cargo test -p airlock-desktop` regenerates ui/src/lib/bindings, and the
# desktop build writes the capability and the isolation hook's allow-list from
# src-tauri/src/api_declaration.rs; a diff means someone changed a Rust type or
# the declaration without committing what it generates.
generated=(ui/src/lib/bindings src-tauri/capabilities src-tauri/isolation)
if [[ -e .git ]] && { ! git diff --quiet -- "${generated[@]}" \
  || [[ -n "$(git ls-files --others --exclude-standard "${generated[@]}")" ]]; }; then
  git status --short "${generated[@]}"
  echo "generated files are out of date: run cargo test -p airlock-desktop and commit the result" >&2
  exit 1
fi

section "done"
# One closing line for everything above: cargo's test results and the
# conformance checks.
awk '/^test result:/ {p += $4; f += $6}
     /^[0-9]+ passed, [0-9]+ failed$/ {p += $1; f += $3}
     NF == 3 && ($1 == "#" || $1 == "ℹ") && $2 == "pass" && $3 ~ /^[0-9]+$/ {p += $3}
     NF == 3 && ($1 == "#" || $1 == "ℹ") && $2 == "fail" && $3 ~ /^[0-9]+$/ {f += $3}
     END {printf "summary: %d passed, %d failed\n", p, f}' "$log"
