#!/usr/bin/env bash
# Set up what is missing, build Airlock and start the desktop app with the
# bundled demo server, which asks at once for a URL elicitation: the native
# consent dialog appears within a minute. Without a display, the same flow
# runs in the terminal through the `airlock` CLI.
#
#   bash scripts/run.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash scripts/setup.sh
target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
export AIRLOCK_DATA_DIR="${AIRLOCK_DATA_DIR:-$root/.airlock-demo}"

if [[ -n "${DISPLAY:-}" || -n "${WAYLAND_DISPLAY:-}" ]]; then
  bash scripts/ui.sh install build
  cargo build --locked -q -p airlock-desktop -p airlock-demo-server -p airlock-cli
  echo "Starting Airlock (data in $AIRLOCK_DATA_DIR). The demo server asks you to connect a demo account:"
  echo "the consent dialog shows who asks, why, the domain and the full URL. Decline is the default."
  AIRLOCK_DEMO_AUTORUN=1 exec "$target_dir/debug/airlock-desktop"
fi

cargo build --locked -q -p airlock-cli -p airlock-demo-server
airlock="$target_dir/debug/airlock"
if ! "$airlock" servers show demo >/dev/null 2>&1; then
  # Confined, on this computer's network: its page is served on 127.0.0.1 for your browser.
  "$airlock" servers add demo --host-network --command "$target_dir/debug/airlock-demo-server"
fi
"$airlock" connect demo
cat <<MSG

No display found: here is the same flow in the terminal. The demo server asks
you to open a local page; answer y to open it in your browser (press the page's
button, then Enter here), or just Enter to decline.
MSG
"$airlock" --consent ask call demo connect_demo_account || true
echo
echo "Elicitation history:"
"$airlock" elicitations --limit 5
