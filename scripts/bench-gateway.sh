#!/usr/bin/env bash
# Benchmark: the official TypeScript SDK client calling server-everything's
# `echo` directly (its own stdio child) versus through Airlock's gateway
# (`airlock gateway --stdio` -> `airlock daemon` -> the same server), runs
# alternated in one command. Prints medians of both, the calls/s ratio and
# the p50 latency the gateway adds. Goal (issue 12): ratio >= 0.8, added
# p50 <= 0.2 ms. Then where the host's time goes per call: CPU of its
# async thread and of its history writer (from /proc) and its context
# switches.
# Beside them, the floor any proxy process pays: the same client through one
# and through two `airlock-bench relay` processes that copy bytes unread
# (relay1, relay2; the gateway has two processes on the path: the shim and
# the host), so the gateway's own cost reads as gateway vs relay2.
# `--before PATH` adds another `airlock` build (say, main's) as
# "before" in the same rounds (its own daemon and data dir).
# Then calls in flight (issue 26): the same client with N calls outstanding
# at once (`--in-flight N`, default 8; 0: off), as apps that issue a batch
# of tool calls per model turn do, direct and through the gateway (and
# "before"), printed beside the sequential figures; with
# `--fastmcp PYTHON` (a python that has PyPI `fastmcp`), FastMCP's proxy in
# front of the same server as a peer figure (tests/peers/fastmcp_proxy.py).
# Last, the noisy neighbours (issue 25): a quiet server's calls while
# another server misbehaves, each way, beside the quiet figures
# (`airlock-bench noisy`; goal: p99 within +50 ms of quiet).
#
#   bash scripts/bench-gateway.sh [--calls N] [--rounds R] [--before PATH] [--in-flight N] [--fastmcp PYTHON]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
calls=3000
rounds=3
before=""
in_flight=8
fastmcp=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --calls) calls=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --before) before=$2; shift 2 ;;
    --in-flight) in_flight=$2; shift 2 ;;
    --fastmcp) fastmcp=$2; shift 2 ;;
    *) echo "usage: $0 [--calls N] [--rounds R] [--before PATH] [--in-flight N] [--fastmcp PYTHON]" >&2; exit 2 ;;
  esac
done
bash scripts/setup.sh >/dev/null
cargo build --release --locked -q -p airlock-cli -p airlock-bench --bin airlock --bin airlock-bench
target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
airlock="$target_dir/release/airlock"
relay=$(printf '"%s","relay","--"' "$target_dir/release/airlock-bench")
js="$root/tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"

data=$(mktemp -d "${TMPDIR:-/tmp}/airlock-bench-gateway.XXXXXX")
daemons=()
cleanup() {
  for d in "${daemons[@]}"; do kill "$d" 2>/dev/null || true; wait "$d" 2>/dev/null || true; done
  rm -rf "$data"
}
trap cleanup EXIT
# start_daemon NAME BINARY: a daemon on its own data dir $data/NAME.
start_daemon() {
  local dir="$data/$1"
  "$2" --data-dir "$dir" servers add everything --command node -- "$js" stdio >/dev/null
  "$2" --data-dir "$dir" --consent decline --open none daemon 2>"$data/$1.log" &
  daemons+=($!)
  echo $! >"$data/$1.pid"
  for _ in $(seq 200); do [[ -S "$dir/gateway.sock" ]] && break; sleep 0.05; done
  [[ -S "$dir/gateway.sock" ]] || { cat "$data/$1.log" >&2; exit 1; }
}
# cpu PID: "<main thread ticks> <history thread ticks> <voluntary+involuntary switches>".
cpu() {
  local main=0 hist=0 sw=0 t name ticks
  for t in /proc/"$1"/task/*; do
    name=$(cat "$t/comm" 2>/dev/null || true)
    ticks=$(awk '{print $14+$15}' "$t/stat" 2>/dev/null || echo 0)
    if [[ $name == airlock-history ]]; then hist=$((hist + ticks)); else main=$((main + ticks)); fi
    sw=$((sw + $(awk '/ctxt_switches/ {s+=$2} END {print s+0}' "$t/status" 2>/dev/null || echo 0)))
  done
  echo "$main $hist $sw"
}
# gateway NAME BINARY: one gateway round, with the host's figures for it.
gateway() {
  local pid before after
  pid=$(cat "$data/$1.pid")
  before=$(cpu "$pid")
  node tests/peers/gateway_client.mjs --name bench --ops "$ops" -- "$2" --data-dir "$data/$1" gateway --stdio --client bench \
    | tail -n 1 >"$data/round.json"
  after=$(cpu "$pid")
  python3 - "$1" "$before" "$after" "$(getconf CLK_TCK)" "$calls" "$data/round.json" >>"$out" <<'PY'
import json, sys
path, b, a, hz, calls = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), int(sys.argv[4]), int(sys.argv[5])
r = json.loads(open(sys.argv[6]).read())
d = [int(x) - int(y) for x, y in zip(a, b)]
n = calls + 200  # the op's warmup calls are in the figures too
r.update(path=path, host_main_us=d[0] * 1e6 / hz / n, host_history_us=d[1] * 1e6 / hz / n, host_switches=d[2] / n)
print(json.dumps(r))
PY
}

start_daemon gateway "$airlock"
[[ -n $before ]] && start_daemon before "$before"
out="$data/results.jsonl"
ops=$(printf '[{"op":"bench","name":"everything__echo","arguments":{"message":"hello"},"calls":%d,"warmup":200}]' "$calls")
for r in $(seq "$rounds"); do
  node tests/peers/bench_ts_client.mjs --transport stdio --calls "$calls" \
    | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); r["path"]="direct"; print(json.dumps(r))' >>"$out"
  node tests/peers/bench_ts_client.mjs --transport stdio --calls "$calls" --prefix "[$relay]" \
    | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); r["path"]="relay1"; print(json.dumps(r))' >>"$out"
  node tests/peers/bench_ts_client.mjs --transport stdio --calls "$calls" --prefix "[$relay,$relay]" \
    | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); r["path"]="relay2"; print(json.dumps(r))' >>"$out"
  gateway gateway "$airlock"
  [[ -n $before ]] && gateway before "$before"
  if [[ $in_flight -gt 0 ]]; then
    # Same client, N in flight; the ways alternate their order by round.
    ways=(direct gateway)
    [[ -n $before ]] && ways+=(before)
    [[ -n $fastmcp ]] && ways+=(fastmcp)
    (( r % 2 == 0 )) && ways=($(printf '%s\n' "${ways[@]}" | tac))
    for way in "${ways[@]}"; do
      case $way in
        direct) server=() ;;
        gateway | before)
          bin=$airlock; [[ $way == before ]] && bin=$before
          server=(--server "$(printf '["%s","--data-dir","%s","gateway","--stdio","--app","bench"]' "$bin" "$data/$way")" --tool everything__echo) ;;
        fastmcp)
          server=(--server "$(printf '["%s","%s","node","%s","stdio"]' "$fastmcp" "$root/tests/peers/fastmcp_proxy.py" "$js")") ;;
      esac
      node tests/peers/bench_ts_client.mjs --transport stdio --calls "$calls" --in-flight "$in_flight" "${server[@]}" \
        | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); r["path"]=sys.argv[1]; print(json.dumps(r))' "$way-n" >>"$out"
    done
  fi
  echo "round $r/$rounds done" >&2
done
python3 - "$out" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(f"{'path':<10}{'calls/s (median)':>18}{'p50 ms':>10}{'p99 ms':>10}   (TypeScript SDK client, server-everything echo, stdio)")
med = {}
for path in ("direct", "relay1", "relay2", "gateway", "before"):
    rs = [r for r in rows if r["path"] == path]
    if not rs:
        continue
    med[path] = {k: statistics.median(r[k] for r in rs) for k in rs[0] if isinstance(rs[0][k], (int, float))}
    m = med[path]
    print(f"{path:<10}{m['calls_per_sec']:>18.0f}{m['p50_ms']:>10.3f}{m['p99_ms']:>10.3f}")
for path in ("relay1", "relay2"):
    if path in med:
        ratio = med[path]["calls_per_sec"] / med["direct"]["calls_per_sec"]
        added = med[path]["p50_ms"] - med["direct"]["p50_ms"]
        print(f"ratio {path}/direct: {ratio:.2f}x calls/s; p50 added: {added:.3f} ms (do-nothing hops: the floor of any proxy)")
for path in ("gateway", "before"):
    if path not in med:
        continue
    if "relay2" in med:
        over = med[path]["p50_ms"] - med["relay2"]["p50_ms"]
        print(f"{path} vs relay2 (same two hops, doing the work): {med[path]['calls_per_sec'] / med['relay2']['calls_per_sec']:.2f}x calls/s; p50 +{over:.3f} ms")
    ratio = med[path]["calls_per_sec"] / med["direct"]["calls_per_sec"]
    added = med[path]["p50_ms"] - med["direct"]["p50_ms"]
    print(f"ratio {path}/direct: {ratio:.2f}x calls/s (goal >= 0.80); p50 added: {added:.3f} ms (goal <= 0.200)")
inf = [r for r in rows if r["path"].endswith("-n")]
if inf:
    n = inf[0]["in_flight"]
    print(f"\n{'path':<10}{'calls/s (median)':>18}{'p50 ms':>10}{'p99 ms':>10}   ({n} calls in flight, same client and server)")
    medn = {}
    for path in ("direct", "gateway", "before", "fastmcp"):
        rs = [r for r in inf if r["path"] == path + "-n"]
        if not rs:
            continue
        medn[path] = {k: statistics.median(r[k] for r in rs) for k in ("calls_per_sec", "p50_ms", "p99_ms")}
        m = medn[path]
        print(f"{path:<10}{m['calls_per_sec']:>18.0f}{m['p50_ms']:>10.3f}{m['p99_ms']:>10.3f}")
    for path in ("gateway", "before", "fastmcp"):
        if path in medn:
            ratio = medn[path]["calls_per_sec"] / medn["direct"]["calls_per_sec"]
            goal = " (goal >= 0.60)" if path == "gateway" else ""
            print(f"ratio {path}/direct at {n} in flight: {ratio:.2f}x calls/s{goal}")
    if "gateway" in medn and "gateway" in med:
        print(f"(one at a time the gateway is {med['gateway']['calls_per_sec'] / med['direct']['calls_per_sec']:.2f}x of direct)")
    print()
print("host per call (medians; /proc ticks, so +-10 ms over the round):")
for path in ("gateway", "before"):
    if path in med:
        m = med[path]
        print(f"  {path:<8} async thread {m['host_main_us']:.0f} us CPU, history writer {m['host_history_us']:.0f} us CPU, {m['host_switches']:.1f} context switches")
PY

# Each server a tenant (issue 25): a quiet server's calls while another
# misbehaves, beside the quiet ones (in-process gateway; airlock-bench noisy).
echo
"$target_dir/release/airlock-bench" noisy --calls 500
