#!/usr/bin/env bash
# The UI's steps, in ui/ (Svelte 5 + TypeScript):
#
#   bash scripts/ui.sh [STEP...]     default: install check lint test build
#
#   install  npm ci, only when node_modules does not match package-lock.json
#   check    svelte-check and tsc (warnings are errors)
#   lint     eslint (warnings are errors)
#   test     Vitest unit tests of src/lib (form, schema and format logic);
#            ends with a line `N passed, M failed` (counted by scripts/test.sh)
#   build    vite build into ui/dist (embedded by the desktop app)
#
# Steps other than install expect node_modules: name install first on a fresh clone.
set -euo pipefail
self=$(readlink -f "${BASH_SOURCE[0]}")
root=$(cd "$(dirname "$self")/.." && pwd)
cd "$root/ui"
export CI="${CI:-true}"

steps=("$@")
[[ ${#steps[@]} -gt 0 ]] || steps=(install check lint test build)

for step in "${steps[@]}"; do
  case "$step" in
    install)
      hash=$(cat package.json package-lock.json | sha256sum | awk '{print $1}')
      stamp=node_modules/.airlock-ui-stamp
      if [[ -f "$stamp" && "$(cat "$stamp")" == "$hash" ]]; then
        echo "ui: install skipped (node_modules matches package-lock.json)"
      else
        t0=$SECONDS
        npm ci --no-audit --no-fund --loglevel=error
        echo "$hash" >"$stamp"
        echo "ui: npm ci ($((SECONDS - t0)) s)"
      fi
      ;;
    check) npm run --silent check ;;
    lint) npm run --silent lint ;;
    test) npm run --silent test ;;
    build) npm run --silent build ;;
    -h | --help) sed -n '2,13p' "$self" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "ui: unknown step: $step (steps: install check lint test build)" >&2; exit 2 ;;
  esac
done
