#!/usr/bin/env bash
# Benchmark: sequential tools/call of server-everything's `echo` through
# Airlock's core vs the official TypeScript SDK client, over stdio and
# Streamable HTTP, runs alternated in one command. Prints medians and ratios.
#
#   bash scripts/bench.sh [--calls N] [--rounds R]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
calls=3000
rounds=3
while [[ $# -gt 0 ]]; do
  case "$1" in
    --calls) calls=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) echo "usage: $0 [--calls N] [--rounds R]" >&2; exit 2 ;;
  esac
done
bash scripts/setup.sh >/dev/null
cargo build --release --locked -q -p airlock-cli --bin airlock-bench
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
    node tests/peers/bench_ts_client.mjs --transport "$t" "${extra[@]}" --calls "$calls" >>"$out"
    if [[ $t == stdio ]]; then "$bench" --transport stdio --server-js "$js" --calls "$calls" >>"$out"
    else "$bench" --transport http --url "$url" --calls "$calls" >>"$out"; fi
  done
  echo "round $r/$rounds done" >&2
done
python3 - "$out" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip().startswith("{")]
print(f"{'transport':<10}{'client':<18}{'calls/s (median)':>18}{'p50 ms':>10}{'p99 ms':>10}")
for t in ("stdio", "http"):
    med = {}
    for c in ("typescript-sdk", "airlock-core"):
        rs = [r for r in rows if r["transport"] == t and r["client"] == c]
        if not rs:
            continue
        m = {k: statistics.median(r[k] for r in rs) for k in ("calls_per_sec", "p50_ms", "p99_ms")}
        med[c] = m
        print(f"{t:<10}{c:<18}{m['calls_per_sec']:>18.0f}{m['p50_ms']:>10.3f}{m['p99_ms']:>10.3f}")
    if len(med) == 2:
        ratio = med["airlock-core"]["calls_per_sec"] / med["typescript-sdk"]["calls_per_sec"]
        print(f"{t:<10}{'ratio airlock/ts':<18}{ratio:>18.2f}x calls/s")
PY
rm -f "$out"
