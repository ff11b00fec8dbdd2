#!/usr/bin/env bash
# Set up what is missing, build Airlock, configure a local demo server and
# show a URL elicitation end to end in the terminal. With a display, the
# desktop shell starts too.
#
#   bash scripts/run.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash scripts/setup.sh
cargo build --locked -q -p airlock-cli
target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
airlock="$target_dir/debug/airlock"
export AIRLOCK_DATA_DIR="${AIRLOCK_DATA_DIR:-$root/.airlock-demo}"
js="$root/tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
if ! "$airlock" servers show demo >/dev/null 2>&1; then
  "$airlock" servers add demo --command node -- "$js" stdio
fi
"$airlock" connect demo
if [[ -n "${DISPLAY:-}" && -f src-tauri/Cargo.toml ]]; then
  (cd ui && npm ci --no-audit --no-fund --loglevel=error && npm run --silent build)
  cargo build --locked -q -p airlock-desktop
  "$target_dir/debug/airlock-desktop" &
  echo "Desktop shell started (pid $!)."
fi
cat <<MSG

The demo server now asks you to open a page. Airlock shows who asks, why,
the registrable domain and every warning; a bare Enter declines.
MSG
"$airlock" --consent ask call demo trigger-url-elicitation \
  --args '{"url":"https://accounts.example.com/connect?session=demo","message":"Connect your demo account"}' || true
echo
echo "History:"
"$airlock" elicitations --limit 5
