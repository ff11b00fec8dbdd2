#!/usr/bin/env bash
# Consent latency benchmark (issue 15, goal 3), CLI: from the write of a
# server's URL elicitation (tests/peers/consent_bench_peer.py timestamps it)
# to the terminal prompt of `airlock call --consent ask` (a pseudo-terminal).
# Release build; prints p50/p99. A benchmark, not a test.
#
#   bash scripts/bench-consent.sh [--requests 50] [--per-process 10] [--debug]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
profile=release
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --debug) profile=debug; shift ;;
    --requests | --per-process) args+=("$1" "$2"); shift 2 ;;
    *) echo "usage: $0 [--requests N] [--per-process N] [--debug]" >&2; exit 2 ;;
  esac
done
bash scripts/setup.sh >/dev/null
flag=(); [[ $profile == release ]] && flag=(--release)
cargo build --locked -q "${flag[@]}" -p airlock-cli --bin airlock
target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
python3 scripts/bench-consent.py --airlock "$target_dir/$profile/airlock" "${args[@]}"
