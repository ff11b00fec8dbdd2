#!/usr/bin/env bash
# Benchmark: the official TypeScript SDK client calling server-everything's
# `echo` directly (its own stdio child) versus through Airlock's gateway
# (`airlock gateway --stdio` -> `airlock daemon` -> the same server), runs
# alternated in one command. Prints medians of both, the calls/s ratio and
# the p50 latency the gateway adds. Goal (issue 12): ratio >= 0.8, added
# p50 <= 0.2 ms.
#
#   bash scripts/bench-gateway.sh [--calls N] [--rounds R]
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
cargo build --release --locked -q -p airlock-cli --bin airlock
target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
airlock="$target_dir/release/airlock"
js="$root/tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"

data=$(mktemp -d "${TMPDIR:-/tmp}/airlock-bench-gateway.XXXXXX")
daemon=""
cleanup() {
  if [[ -n "$daemon" ]]; then kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true; fi
  rm -rf "$data"
}
trap cleanup EXIT
"$airlock" --data-dir "$data/d" servers add everything --command node -- "$js" stdio >/dev/null
"$airlock" --data-dir "$data/d" --consent decline --open none daemon 2>"$data/daemon.log" &
daemon=$!
for _ in $(seq 200); do [[ -S "$data/d/gateway.sock" ]] && break; sleep 0.05; done
[[ -S "$data/d/gateway.sock" ]] || { cat "$data/daemon.log" >&2; exit 1; }

out="$data/results.jsonl"
ops=$(printf '[{"op":"bench","name":"everything__echo","arguments":{"message":"hello"},"calls":%d,"warmup":200}]' "$calls")
for r in $(seq "$rounds"); do
  node tests/peers/bench_ts_client.mjs --transport stdio --calls "$calls" \
    | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); r["path"]="direct"; print(json.dumps(r))' >>"$out"
  node tests/peers/gateway_client.mjs --name bench --ops "$ops" -- "$airlock" --data-dir "$data/d" gateway --stdio --client bench \
    | python3 -c 'import json,sys; r=json.loads(sys.stdin.read().strip().splitlines()[-1]); r["path"]="gateway"; print(json.dumps(r))' >>"$out"
  echo "round $r/$rounds done" >&2
done
python3 - "$out" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(f"{'path':<10}{'calls/s (median)':>18}{'p50 ms':>10}{'p99 ms':>10}   (TypeScript SDK client, server-everything echo, stdio)")
med = {}
for path in ("direct", "gateway"):
    rs = [r for r in rows if r["path"] == path]
    med[path] = {k: statistics.median(r[k] for r in rs) for k in ("calls_per_sec", "p50_ms", "p99_ms")}
    m = med[path]
    print(f"{path:<10}{m['calls_per_sec']:>18.0f}{m['p50_ms']:>10.3f}{m['p99_ms']:>10.3f}")
ratio = med["gateway"]["calls_per_sec"] / med["direct"]["calls_per_sec"]
added = med["gateway"]["p50_ms"] - med["direct"]["p50_ms"]
print(f"ratio gateway/direct: {ratio:.2f}x calls/s (goal >= 0.80); p50 added: {added:.3f} ms (goal <= 0.200)")
PY
