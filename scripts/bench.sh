#!/usr/bin/env bash
# Benchmark: sequential tools/call of server-everything's `echo` through
# Airlock's core vs the official TypeScript SDK client and a bare rmcp
# client (same runtime, same server, no history), over stdio and Streamable
# HTTP, runs alternated in one command. Prints medians and ratios, then
# where the time of one stdio call through the core goes (tracing spans).
# `--before PATH` adds another airlock-bench build (say, main's) as
# "airlock-before" in the same rounds.
#
#   bash scripts/bench.sh [--calls N] [--rounds R] [--before PATH]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
calls=3000
rounds=3
before=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --calls) calls=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --before) before=$2; shift 2 ;;
    *) echo "usage: $0 [--calls N] [--rounds R] [--before PATH]" >&2; exit 2 ;;
  esac
done
bash scripts/setup.sh >/dev/null
cargo build --release --locked -q -p airlock-bench
target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
bench="$target_dir/release/airlock-bench"
js="$root/tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
PORT=$port node "$js" streamableHttp >/dev/null 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null || true' EXIT
for _ in $(seq 100); do (echo >/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
url="http://127.0.0.1:$port/mcp"
out=$(mktemp)
for r in $(seq "$rounds"); do
  for t in stdio http; do
    extra=(); [[ $t == http ]] && extra=(--url "$url")
    if [[ $t == stdio ]]; then target=(--server-js "$js"); else target=(--url "$url"); fi
    node tests/peers/bench_ts_client.mjs --transport "$t" "${extra[@]}" --calls "$calls" >>"$out"
    "$bench" --transport "$t" "${target[@]}" --calls "$calls" --client rmcp >>"$out"
    "$bench" --transport "$t" "${target[@]}" --calls "$calls" >>"$out"
    if [[ -n $before ]]; then
      "$before" --transport "$t" "${target[@]}" --calls "$calls" | sed 's/"airlock-core"/"airlock-before"/' >>"$out"
    fi
  done
  echo "round $r/$rounds done" >&2
done
python3 - "$out" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip().startswith("{")]
clients = ("typescript-sdk", "rmcp", "airlock-core", "airlock-before")
print(f"{'transport':<10}{'client':<22}{'calls/s (median)':>18}{'p50 ms':>10}{'p99 ms':>10}")
for t in ("stdio", "http"):
    med = {}
    for c in clients:
        rs = [r for r in rows if r["transport"] == t and r["client"] == c]
        if not rs:
            continue
        m = {k: statistics.median(r[k] for r in rs) for k in ("calls_per_sec", "p50_ms", "p99_ms")}
        med[c] = m
        print(f"{t:<10}{c:<22}{m['calls_per_sec']:>18.0f}{m['p50_ms']:>10.3f}{m['p99_ms']:>10.3f}")
    for a, b in (("airlock-core", "typescript-sdk"), ("airlock-core", "rmcp"), ("airlock-before", "typescript-sdk"), ("airlock-core", "airlock-before")):
        if a in med and b in med:
            ratio = med[a]["calls_per_sec"] / med[b]["calls_per_sec"]
            print(f"{t:<10}{'ratio ' + a + '/' + b:<40}{ratio:>6.2f}x calls/s")
PY
rm -f "$out"
"$bench" --transport stdio --server-js "$js" --calls "$calls" --stages | grep -v '^{'
