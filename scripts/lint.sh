#!/usr/bin/env bash
# Every static check, each run even when an earlier one failed:
#   rustfmt --check, clippy over every target (warnings are errors; lints in
#   the root Cargo.toml), the UI's type check and eslint, cargo-deny.
#
#   bash scripts/lint.sh [--no-clippy]
#
# --no-clippy: leave clippy out (scripts/test.sh runs clippy while it builds
# the tests: one compile instead of two). Exits 1 if any check failed, naming them. Needs cargo-deny
# (bash scripts/setup.sh --test) and ui/node_modules (installed here if missing).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

clippy=1
case "${1:-}" in
  "") ;;
  --no-clippy) clippy=0 ;;
  *) echo "lint: unknown argument: $1 (usage: $0 [--no-clippy])" >&2; exit 2 ;;
esac

failed=()
check() {
  local name=$1
  shift
  printf '\n-- lint: %s\n' "$name"
  "$@" || failed+=("$name")
}

check "rustfmt" cargo fmt --all -- --check
if [[ $clippy -eq 1 ]]; then
  check "clippy" cargo clippy --workspace --all-targets --locked -- -D warnings
fi
check "import circles" python3 scripts/check-cycles.py
check "ui: type check, eslint" bash scripts/ui.sh install check lint
check "cargo-deny" bash scripts/deny.sh

echo
if [[ ${#failed[@]} -gt 0 ]]; then
  printf 'lint: FAILED: %s\n' "${failed[*]}" >&2
  exit 1
fi
echo "lint: all clean (rustfmt, clippy, import circles, ui type check and eslint, cargo-deny)"
