#!/usr/bin/env bash
# Benchmark: the shared-server advantage (issue 26 item 4). K = 1, 3, 5
# apps, each configured either with six real registry servers directly
# (npm @modelcontextprotocol/server-filesystem, server-memory,
# server-sequential-thinking; PyPI mcp-server-time, mcp-server-fetch,
# mcp-server-git; pinned below) or with one `airlock` entry
# (`airlock gateway --stdio`) and a running Airlock daemon that has the same
# six servers. Printed per K and way: time from the apps' start to all
# their tools listed (median of --reps runs; the last of the K apps), the
# server processes started, and the total PSS (/proc/PID/smaps_rollup) of
# the servers' and Airlock's processes (daemon and shims), the apps' own
# processes apart, and the shim's PSS per app. Apps: an app on the official
# Python SDK and one on the TypeScript SDK (tests/peers/config_app.py /
# .mjs: read an mcpServers config, connect every server at once, list all
# tools), and the real Claude Code's own health check (`claude mcp list`,
# from tests/apps when `scripts/setup.sh --test` installed it; time only:
# it exits once it has checked). Writes an SVG plot (docs/bench-apps.svg
# unless --svg) made here by hand, no plotting library.
#
# The servers are installed by this script into a cache folder it owns
# ($AIRLOCK_BENCH_APPS_CACHE, default ~/.cache/airlock/bench-apps; about
# 150 MB), not by setup.sh; a second run reuses it.
#
#   bash scripts/bench-apps.sh [--reps N] [--ks "1 3 5"] [--apps py,ts,claude] [--svg PATH]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
reps=5
ks="1 3 5"
apps="py,ts,claude"
svg="docs/bench-apps.svg"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --reps) reps=$2; shift 2 ;;
    --ks) ks=$2; shift 2 ;;
    --apps) apps=$2; shift 2 ;;
    --svg) svg=$2; shift 2 ;;
    *) echo "usage: $0 [--reps N] [--ks \"1 3 5\"] [--apps py,ts,claude] [--svg PATH]" >&2; exit 2 ;;
  esac
done

# Pinned servers (what "the six real registry servers" are here).
npm_servers=(
  "@modelcontextprotocol/server-filesystem@2026.8.31"
  "@modelcontextprotocol/server-memory@2026.8.31"
  "@modelcontextprotocol/server-sequential-thinking@2026.8.31"
)
py_servers=(
  "mcp-server-time==2026.10.19"
  "mcp-server-fetch==2026.10.24"
  "mcp-server-git==2026.10.19"
)
cache="${AIRLOCK_BENCH_APPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/airlock/bench-apps}"
mkdir -p "$cache"
stamp=$(printf '%s\n' "${npm_servers[@]}" "${py_servers[@]}" | sha256sum | awk '{print $1}')
if [[ ! -f "$cache/.stamp" || "$(cat "$cache/.stamp")" != "$stamp" ]]; then
  echo "bench-apps: installing the six servers into $cache" >&2
  rm -rf "$cache/npm" "$cache/py"
  mkdir -p "$cache/npm"
  (cd "$cache/npm" && echo '{"name":"airlock-bench-apps","private":true}' >package.json \
    && npm install --no-audit --no-fund --loglevel=error --save-exact "${npm_servers[@]}" >/dev/null)
  python3 -m venv "$cache/py"
  "$cache/py/bin/pip" install -q --disable-pip-version-check "${py_servers[@]}"
  echo "$stamp" >"$cache/.stamp"
fi

bash scripts/setup.sh >/dev/null
cargo build --release --locked -q -p airlock-cli --bin airlock
target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores" >&2
exec python3 scripts/bench-apps.py --airlock "$target_dir/release/airlock" --cache "$cache" \
  --reps "$reps" --ks "$ks" --apps "$apps" --svg "$svg"
