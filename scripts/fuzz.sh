#!/usr/bin/env bash
# Coverage-guided fuzzing of what a hostile MCP server controls, with
# libFuzzer through cargo-fuzz on the stable toolchain (`--sanitizer none`:
# SanitizerCoverage and libFuzzer need no nightly flag; only the sanitizers
# do). Targets, corpus and properties: fuzz/README.md.
#
#   bash scripts/fuzz.sh TARGET|all [--minutes N] [--no-save]
#   bash scripts/fuzz.sh list
#   (or: cargo xtask fuzz ...)
#
# TARGET is url_inspect, form_schema, config_import, server_messages or
# scan_definition; `all`
# runs each in turn for N minutes (default 10). Each run starts from the
# seeds (fuzz/corpus/TARGET/), the saved corpus (fuzz/corpus/TARGET.pack,
# one input a line: scripts/fuzz-corpus.py) and the regressions, prints
# executions, coverage, corpus size, crashes and hangs, then merges what it
# found into the pack, minimised (--no-save leaves it alone), and copies any
# crash, hang or out-of-memory input to fuzz/regressions/TARGET, where
# `cargo test -p airlock-fuzz` replays it. Exits 1 when a target crashed or
# hung.
#
# Instrumented builds go to $AIRLOCK_FUZZ_TARGET_DIR (default
# $HOME/.cache/airlock/target-fuzz), never to the shared cache; the working
# corpus and artifacts to $AIRLOCK_FUZZ_WORK (default
# $HOME/.cache/airlock/fuzz-work). Everything heavy runs under nice -n 19.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

targets_all=(url_inspect form_schema config_import server_messages scan_definition)
# cargo-fuzz from crates.io, pinned (its libFuzzer comes with libfuzzer-sys).
cargo_fuzz_version=0.13.2

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}

minutes=10
save=1
targets=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --minutes)
      [[ $# -ge 2 && "$2" =~ ^[0-9]+$ && "$2" -ge 1 ]] || { echo "fuzz: --minutes takes a whole number >= 1" >&2; exit 2; }
      minutes=$2
      shift 2
      ;;
    --no-save) save=0; shift ;;
    list) printf '%s\n' "${targets_all[@]}"; exit 0 ;;
    all) targets+=("${targets_all[@]}"); shift ;;
    -h | --help | help) usage ;;
    *)
      if printf '%s\n' "${targets_all[@]}" | grep -qx -- "$1"; then
        targets+=("$1")
        shift
      else
        echo "fuzz: unknown target or option: $1 (targets: ${targets_all[*]})" >&2
        exit 2
      fi
      ;;
  esac
done
[[ ${#targets[@]} -gt 0 ]] || usage

export CARGO_TARGET_DIR="${AIRLOCK_FUZZ_TARGET_DIR:-$HOME/.cache/airlock/target-fuzz}"
work="${AIRLOCK_FUZZ_WORK:-$HOME/.cache/airlock/fuzz-work}"
export PATH="$PATH:${CARGO_HOME:-$HOME/.cargo}/bin"

if ! cargo fuzz --version 2>/dev/null | grep -q "$cargo_fuzz_version"; then
  echo "== installing cargo-fuzz $cargo_fuzz_version (crates.io)"
  nice -n 19 cargo install cargo-fuzz --locked --version "$cargo_fuzz_version"
fi

echo "== build (instrumented, release with debug assertions) in $CARGO_TARGET_DIR"
nice -n 19 cargo fuzz build --fuzz-dir fuzz/libfuzzer --sanitizer none --release --debug-assertions \
  --target-dir "$CARGO_TARGET_DIR"
host=$(rustc -vV | sed -n 's/^host: //p')
bindir="$CARGO_TARGET_DIR/$host/release"

# Per target: longest input (bytes), time one input may take (s), memory
# (MB), most inputs the pack keeps (0: all the merge keeps; a cap keeps the
# replay of cargo test fast where each input is costly).
limits() {
  case "$1" in
    url_inspect) echo "9000 10 2048 0" ;;        # just above MAX_URL_LEN (8192)
    form_schema) echo "16384 10 2048 0" ;;
    config_import) echo "16384 10 2048 0" ;;
    server_messages) echo "16384 30 4096 200" ;; # a session: open, handshake, lines, hang-up
    scan_definition) echo "65536 10 2048 0" ;;
  esac
}

# Airlock's data dirs (one per server_messages input, one per process for
# config_import) go to memory where it can: SQLite's syncs on a disk cost
# more than the session itself.
if [[ -d /dev/shm && -w /dev/shm ]]; then
  TMPDIR=$(mktemp -d /dev/shm/airlock-fuzz.XXXXXX)
  export TMPDIR
  trap 'rm -rf "$TMPDIR"' EXIT
fi

summary=()
failed=0
for t in "${targets[@]}"; do
  read -r max_len timeout rss cap <<<"$(limits "$t")"
  dir="$work/$t"
  rm -rf "$dir"
  mkdir -p "$dir/corpus" "$dir/artifacts" fuzz/corpus/"$t" fuzz/regressions/"$t"
  python3 scripts/fuzz-corpus.py unpack "fuzz/corpus/$t.pack" "$dir/saved" >/dev/null
  log="$dir/fuzz.log"
  echo
  echo "== $t: $minutes min (max_len $max_len, timeout ${timeout}s, rss ${rss} MB); log $log"
  set +e
  # New inputs go to the first folder (the working copy); the seeds, the
  # saved corpus and the regressions are read as seeds.
  nice -n 19 "$bindir/$t" "$dir/corpus" "fuzz/corpus/$t" "$dir/saved" "fuzz/regressions/$t" \
    -dict="fuzz/dict/$t.dict" -max_total_time=$((minutes * 60)) -max_len="$max_len" \
    -timeout="$timeout" -rss_limit_mb="$rss" -artifact_prefix="$dir/artifacts/" \
    -print_final_stats=1 -reload=0 >"$log" 2>&1
  rc=$?
  set -e
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
  crashes=$(find "$dir/artifacts" -name 'crash-*' | wc -l)
  hangs=$(find "$dir/artifacts" -name 'timeout-*' | wc -l)
  ooms=$(find "$dir/artifacts" -name 'oom-*' | wc -l)
  if [[ $((crashes + hangs + ooms)) -gt 0 ]]; then
    failed=1
    find "$dir/artifacts" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' \) \
      -exec cp -t fuzz/regressions/"$t"/ {} +
    grep -m3 -E "panicked at|hang:|ERROR: libFuzzer" "$log" | sed 's/^/   /' || true
    echo "   saved to fuzz/regressions/$t/: $(cd "$dir/artifacts" && ls)"
  elif [[ $rc -ne 0 ]]; then
    failed=1
    echo "   libFuzzer exited $rc without an artifact; see $log" >&2
    tail -5 "$log" >&2
  fi
  if [[ $save -eq 1 ]]; then
    # Minimise: starting from the seeds, the smallest inputs that together
    # reach every edge the saved corpus and this run's finds reach (edges
    # only, -use_counters=0: hit counts would keep ten times the inputs),
    # packed into one file (at most $cap inputs when capped).
    merged="$dir/merged"
    mkdir -p "$merged"
    find fuzz/corpus/"$t" -maxdepth 1 -type f -exec cp -t "$merged"/ {} +
    max=()
    [[ $cap -gt 0 ]] && max=(--control "$dir/merge.ctl" --max "$cap")
    if nice -n 19 "$bindir/$t" -merge=1 -use_counters=0 -merge_control_file="$dir/merge.ctl" \
      -max_len="$max_len" -timeout="$timeout" -rss_limit_mb="$rss" \
      "$merged" "$dir/saved" "$dir/corpus" >"$dir/merge.log" 2>&1; then
      python3 scripts/fuzz-corpus.py pack "$merged" "fuzz/corpus/$t.pack" --seeds "fuzz/corpus/$t" "${max[@]}"
    else
      echo "   merge failed; fuzz/corpus/$t.pack left as it was (see $dir/merge.log)" >&2
    fi
  fi
  seeds=$(find fuzz/corpus/"$t" -type f | wc -l)
  packed=$(grep -vc '^#' "fuzz/corpus/$t.pack" 2>/dev/null || true)
  files="$seeds+${packed:-0}"
  bytes=$(find fuzz/corpus/"$t" fuzz/corpus/"$t.pack" -type f -printf '%s\n' 2>/dev/null | awk '{s += $1} END {print s + 0}')
  line=$(printf '%-16s %3s min  %10s execs  %7s exec/s  %-22s corpus %9s inputs %8s bytes  crashes %s  hangs %s  ooms %s' \
    "$t" "$minutes" "${execs:-?}" "${rate:-?}" "${cov:-cov: ?}" "$files" "$bytes" "$crashes" "$hangs" "$ooms")
  echo "   $line"
  summary+=("$line")
done

echo
echo "== summary (corpus after merge: seeds+packed, fuzz/corpus/TARGET/ and TARGET.pack; replay: cargo test -p airlock-fuzz)"
printf '%s\n' "${summary[@]}"
exit "$failed"
