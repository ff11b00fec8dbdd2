#!/usr/bin/env bash
# Set up what is missing, then run every check and test:
#   the UI's unit tests and build (scripts/ui.sh), every static check
#   (scripts/lint.sh: rustfmt, clippy -D warnings, the UI's type check and
#   eslint, cargo-deny), the whole cargo test suite inside a private D-Bus
#   session with an unlocked gnome-keyring (real OS keychain) and real MCP
#   peers, the MCP conformance suite, the desktop end-to-end tests, and the
#   TypeScript bindings check (scripts/bindings.sh). Ends with one line
#   `summary: N passed, M failed` over every test runner above.
#
#   bash scripts/test.sh              (or: cargo xtask test)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export CARGO_TERM_COLOR=never
t0=$SECONDS
section() { printf '\n== %s (%d s so far)\n' "$1" "$((SECONDS - t0))"; }

section "setup"
bash scripts/setup.sh --test

log=$(mktemp)
trap 'rm -f "$log"' EXIT

section "ui: install, unit tests (Vitest), build"
bash scripts/ui.sh install test build 2>&1 | tee -a "$log"

section "lint: rustfmt, clippy -D warnings, ui type check and eslint, cargo-deny"
bash scripts/lint.sh

section "cargo test (real keychain, real MCP peers)"
bash scripts/with-session.sh cargo test --workspace --locked --no-fail-fast 2>&1 | tee -a "$log"

section "official MCP conformance suite (client scenarios)"
bash scripts/conformance.sh 2>&1 | tee -a "$log"

section "desktop end-to-end (tests/e2e: the real app under Xvfb via WebDriver)"
bash scripts/e2e.sh 2>&1 | tee -a "$log"

section "generated files match the Rust types and the API declaration"
# The cargo test run above regenerated ui/src/lib/bindings; the desktop build
# wrote the capability and the isolation hook's allow-list.
bash scripts/bindings.sh --check

section "done"
# One closing line for everything above: the UI's unit tests, cargo's test
# results, the conformance checks and the end-to-end tests (node:test).
awk '/^test result:/ {p += $4; f += $6}
     /^[0-9]+ passed, [0-9]+ failed$/ {p += $1; f += $3}
     NF == 3 && ($1 == "#" || $1 == "ℹ") && $2 == "pass" && $3 ~ /^[0-9]+$/ {p += $3}
     NF == 3 && ($1 == "#" || $1 == "ℹ") && $2 == "fail" && $3 ~ /^[0-9]+$/ {f += $3}
     END {printf "summary: %d passed, %d failed\n", p, f}' "$log"
