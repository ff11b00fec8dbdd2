#!/usr/bin/env bash
# The TypeScript bindings in ui/src/lib/bindings are generated from the Rust
# types (ts-rs) by a test of the desktop app; a difference from what git has
# means someone changed a Rust type without committing the new bindings.
#
#   bash scripts/bindings.sh           # regenerate them, then check
#   bash scripts/bindings.sh --check   # only check (after a full cargo test regenerated them)
set -euo pipefail
self=$(readlink -f "${BASH_SOURCE[0]}")
root=$(cd "$(dirname "$self")/.." && pwd)
cd "$root"

regen=1
case "${1:-}" in
  "") ;;
  --check) regen=0 ;;
  -h | --help) sed -n '2,7p' "$self" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "bindings: unknown argument: $1 (usage: $0 [--check])" >&2; exit 2 ;;
esac

if [[ $regen -eq 1 ]]; then
  out=$(cargo test --locked -p airlock-desktop --bin airlock-desktop export_typescript_bindings 2>&1) || {
    echo "$out" >&2
    exit 1
  }
  # A renamed test would otherwise pass here without writing anything.
  if ! grep -q '^test result: ok\. [1-9]' <<<"$out"; then
    echo "$out" >&2
    echo "bindings: no test named export_typescript_bindings ran (src-tauri/src/commands.rs)" >&2
    exit 1
  fi
fi

# What the desktop build generates from the Rust types and from
# src-tauri/src/api_declaration.rs (the capability and the isolation hook's
# allow-list) is committed too.
generated=(ui/src/lib/bindings src-tauri/capabilities src-tauri/isolation)
if [[ -d .git || -f .git ]] && { ! git diff --quiet -- "${generated[@]}" \
  || [[ -n "$(git ls-files --others --exclude-standard "${generated[@]}")" ]]; }; then
  git status --short "${generated[@]}"
  echo "bindings: generated files are out of date: run bash scripts/bindings.sh and commit the result" >&2
  exit 1
fi
echo "bindings: ui/src/lib/bindings, the capability and the isolation allow-list match the Rust declarations"
