#!/usr/bin/env bash
# Desktop benchmark: cold start of the built app until its main window is
# mapped and until the frame after the one that drew the server list (the
# servers page tells the shell, which prints the wall clock of that frame:
# src-tauri/src/startup.rs) with the milestones on the way (main() began,
# Tauri's setup, core ready, page load started/finished, the page's first
# request for the list), and idle memory (PSS of the app and all its
# WebKit processes together) 5 s later, with the demo server connected. Medians over N runs (default 5), under Xvfb inside a private
# D-Bus session.
#
#   bash scripts/bench-desktop.sh [--runs N] [--debug | --installed]
#   bash scripts/bench-desktop.sh --data [--runs N]      # start to the first frame showing data
#   bash scripts/bench-desktop.sh --flood [--seconds S]  # click-to-render and PSS under a flood
#   bash scripts/bench-desktop.sh --consent [--requests N]  # elicitation written -> native dialog mapped
#   bash scripts/bench-desktop.sh --pages [--rows N] [--data-dir DIR] [--scroll-rows M]
#       History/Elicitations at N tool calls (N/10 elicitations): click to the
#       first page painted, then a scroll through M rows of each virtual list
#       (frame times, rows in the DOM) and the app's memory before/after.
#       --data-dir keeps the generated database there and reuses it next time
#       (a million rows take about a minute with the release generator).
#   --release with any of these four: drive the release build of the app
#       (the e2e harness's AIRLOCK_E2E_PROFILE=release) instead of the debug one.
#
# The four window benches drive the window over WebDriver (tests/e2e/bench/*.mjs,
# the e2e harness: the debug build, or the release build with --release): --data measures from the app
# process's start to the frame after the one that drew the server list (a
# performance mark), against stock Tauri settings in the same run; --flood
# runs tests/e2e/peers/hostile_peer.py's flood (one URL elicitation every
# 10 ms) while clicking through the sidebar.
#
# --installed measures the app as a user gets it: the .deb from
# scripts/package.sh (built if needed) installed with apt-get, started as
# /usr/bin/airlock-desktop, the demo server (release build) configured with
# the installed `airlock` CLI; prints the package sizes; purges the package
# afterwards if it was not installed before. Needs root or sudo.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
runs=5
profile=release
window_bench=""
seconds=60
requests=50
rows=1000000
pages_dir=""
scroll_rows=5000
window_profile=debug
while [[ $# -gt 0 ]]; do
  case "$1" in
    --data) window_bench=start; shift ;;
    --flood) window_bench=flood; shift ;;
    --consent) window_bench=consent; shift ;;
    --pages) window_bench=pages; shift ;;
    --rows) rows=$2; shift 2 ;;
    --data-dir) pages_dir=$2; shift 2 ;;
    --scroll-rows) scroll_rows=$2; shift 2 ;;
    --requests) requests=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --debug) profile=debug; shift ;;
    --installed) profile=installed; shift ;;
    --release) window_profile=release; shift ;;
    *) echo "usage: $0 [--runs N] [--debug | --installed] | --data [--runs N] | --flood [--seconds S] | --consent [--requests N] | --pages [--rows N] [--data-dir DIR] [--scroll-rows M]; window benches take --release" >&2; exit 2 ;;
  esac
done
if [[ -n $window_bench ]]; then
  bash scripts/setup.sh --e2e >/dev/null
  bash scripts/ui.sh install build >/dev/null
  cargo build --locked -q -p airlock-desktop -p airlock-cli -p airlock-demo-server
  if [[ $window_profile == release ]]; then
    # The app as users get it; its peers (CLI, demo server) stay debug.
    cargo build --locked -q --release -p airlock-desktop
  fi
  export PATH="$PATH:${CARGO_HOME:-$HOME/.cargo}/bin"
  case $window_bench in
    start) extra=(--runs "$runs") ;;
    flood) extra=(--seconds "$seconds") ;;
    consent) extra=(--requests "$requests") ;;
    pages)
      if [[ -n $pages_dir && -f $pages_dir/airlock.sqlite3 ]]; then
        data=$pages_dir
        echo "reusing the database in $data" >&2
      else
        cargo build --locked -q --release -p airlock-bench
        target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
        if [[ -n $pages_dir ]]; then
          data=$pages_dir
        else
          data=$(mktemp -d)
          trap 'rm -rf "$data"' EXIT
        fi
        "$target_dir/release/airlock-bench" history --rows "$rows" --fill "$data"
      fi
      extra=(--data-dir "$data" --scroll-rows "$scroll_rows")
      ;;
  esac
  cd tests/e2e
  AIRLOCK_E2E_PROFILE=$window_profile AIRLOCK_SESSION_XVFB=1 bash "$root/scripts/with-session.sh" node "bench/$window_bench.mjs" "${extra[@]}"
  exit
fi
if [[ "${_AIRLOCK_BENCH_INNER:-}" != 1 && $profile == installed ]]; then
  sudo_cmd=(); [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo -n)
  bash scripts/package.sh | grep -E '^package: (build|bundle|done)' >&2
  nice -n 19 cargo build --locked -q --release -p airlock-demo-server
  deb=$(ls packages/airlock_*.deb)
  installed_before=$(dpkg-query -W -f='${Status} ${Version}' airlock 2>/dev/null || true)
  if [[ "$installed_before" != "install ok installed $(dpkg-deb -f "$deb" Version)" ]]; then
    (cd packages && "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
      -o DPkg::Lock::Timeout=300 "./$(basename "$deb")" >/dev/null)
    echo "installed $(basename "$deb")" >&2
  fi
  rc=0
  _AIRLOCK_BENCH_INNER=1 AIRLOCK_SESSION_XVFB=1 bash scripts/with-session.sh bash "$0" --runs "$runs" --installed || rc=$?
  if [[ "$installed_before" != *" installed"* ]]; then
    "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q -o DPkg::Lock::Timeout=300 airlock >/dev/null
    echo "purged the airlock package again" >&2
  fi
  exit "$rc"
fi
if [[ "${_AIRLOCK_BENCH_INNER:-}" != 1 ]]; then
  bash scripts/setup.sh >/dev/null
  bash scripts/ui.sh install build >/dev/null
  flag=(); [[ $profile == release ]] && flag=(--release)
  cargo build --locked -q "${flag[@]}" -p airlock-desktop -p airlock-demo-server
  export _AIRLOCK_BENCH_INNER=1 AIRLOCK_SESSION_XVFB=1
  exec bash scripts/with-session.sh bash "$0" --runs "$runs" $([[ $profile == debug ]] && echo --debug)
fi

target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
app="$target_dir/$profile/airlock-desktop"
demo=""
if [[ $profile == installed ]]; then
  app=/usr/bin/airlock-desktop
  # Nothing sits next to /usr/bin/airlock-desktop, so the app configures no
  # demo server by itself: add the release one, as a user adds a server.
  demo="$target_dir/release/airlock-demo-server"
fi
tree_pids() { # a process and all its descendants
  ps -e -o pid=,ppid= | awk -v root="$1" '
    {parent[$1]=$2} END {n=1; keep[root]=1; changed=1
      while (changed) {changed=0; for (p in parent) if (!(p in keep) && (parent[p] in keep)) {keep[p]=1; changed=1}}
      for (p in keep) print p}'
}
pss_mappings() { # per process: PSS and the 8 largest mappings (MB), from /proc/PID/smaps
  local p top
  for p in $(tree_pids "$1"); do
    [[ -r /proc/$p/smaps ]] || continue
    top=$(awk '/^[0-9a-f]+-[0-9a-f]+ / {m=$6; if (m == "") m="[anon]"; sub(/.*\//, "", m)}
      /^Pss:/ {s[m]+=$2} END {for (m in s) printf "%.1f %s\n", s[m]/1024, m}' "/proc/$p/smaps" |
      sort -rn | head -8 | awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $1}')
    echo "    $(cat "/proc/$p/comm") $(( $(awk '/^Pss:/ {print $2}' "/proc/$p/smaps_rollup") / 1024 )) MB: $top"
  done
}
pss_tree() { # PSS in kB of a process and all its descendants
  local pids total=0 p
  pids=$(tree_pids "$1")
  for p in $pids; do
    [[ -r /proc/$p/smaps_rollup ]] || continue
    total=$((total + $(awk '/^Pss:/ {print $2}' /proc/$p/smaps_rollup)))
  done
  echo "$total"
}
# Each round runs Airlock as shipped, then the same binary with WebKit's GPU
# compositing on (stock Tauri; WEBKIT_DISABLE_COMPOSITING_MODE=0) as the peer.
declare -A starts mems datas steps mappings
for i in $(seq "$runs"); do
  for variant in airlock stock; do
    data=$(mktemp -d); home=$(mktemp -d)
    env_extra=(); [[ $variant == stock ]] && env_extra=(WEBKIT_DISABLE_COMPOSITING_MODE=0)
    [[ -z $demo ]] || /usr/bin/airlock --data-dir "$data" servers add demo --command "$demo" >/dev/null
    t0=$(date +%s%N)
    env "${env_extra[@]}" HOME="$home" AIRLOCK_DATA_DIR="$data" "$app" >/dev/null 2>"$home/stderr" &
    pid=$!
    # The demo server is configured and connected on first run.
    for _ in $(seq 600); do
      if xdotool search --onlyvisible --name '^Airlock' >/dev/null 2>&1; then break; fi
      sleep 0.01
    done
    t1=$(date +%s%N)
    sleep 5
    mem=$(pss_tree "$pid")
    # Where the memory is, in the last run of each variant.
    [[ $i != "$runs" ]] || mappings[$variant]=$(pss_mappings "$pid")
    # The servers page tells the shell when the list is on screen
    # (src-tauri/src/startup.rs prints the wall clock of that frame).
    painted=$(sed -n 's/.*the window showed its data .* (unix ms \([0-9]*\)).*/\1/p' "$home/stderr" | head -1)
    # And the milestones on the way, in ms after main() began.
    since_main=$(sed -n 's/.*the window showed its data \([0-9]*\) ms after main.*/\1/p' "$home/stderr" | head -1)
    way=$(sed -n 's/.*on the way, ms after main(): //p' "$home/stderr" | head -1)
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    rm -rf "$data" "$home"
    starts[$variant]+="$(( (t1 - t0) / 1000000 )) "
    mems[$variant]+="$(( mem / 1024 )) "
    data_ms=none; [[ -n $painted ]] && data_ms=$(( painted - t0 / 1000000 ))
    datas[$variant]+="$data_ms "
    if [[ -n $painted && -n $since_main ]]; then
      steps[$variant.main]+="$(( data_ms - since_main )) "
      while IFS= read -r step; do
        [[ $step =~ ^(.*)\ ([0-9]+)$ ]] || continue
        steps[$variant.${BASH_REMATCH[1]}]+="$(( BASH_REMATCH[2] + data_ms - since_main )) "
      done < <(tr ',' '\n' <<<"$way" | sed 's/^ *//')
      steps[$variant.painted]+="$data_ms "
    fi
    echo "run $i $variant: window mapped after $(( (t1 - t0) / 1000000 )) ms, server list painted after $data_ms ms, idle PSS $(( mem / 1024 )) MB" >&2
  done
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
echo "airlock-desktop ($([[ $profile == installed ]] && echo "installed from the .deb, $app" || echo "$profile")), $runs runs each, demo server connected:"
for variant in airlock stock; do
  label=$([[ $variant == airlock ]] && echo "as shipped (compositing off)" || echo "peer: compositing on (stock)")
  # shellcheck disable=SC2086
  echo "  $label: start to mapped window median $(median ${starts[$variant]}) ms; to the server list painted median $(median ${datas[$variant]}) ms (runs: ${datas[$variant]}); idle PSS median $(median ${mems[$variant]}) MB (runs: ${mems[$variant]})"
done
for variant in airlock stock; do
  line=""
  for step in main setup "core ready" "page load started" "page loaded" "list asked" painted; do
    # shellcheck disable=SC2086
    label=$step; [[ $step == main ]] && label="main() began"; [[ $step == painted ]] && label="list painted"
    [[ -n ${steps[$variant.$step]:-} ]] && line+="${line:+, }$label $(median ${steps[$variant.$step]})"
  done
  [[ -z $line ]] || echo "  $variant, medians in ms after the process was started: $line"
done
for variant in airlock stock; do
  echo "  $variant, PSS by process and its largest mappings (MB) in the last run:"
  echo "${mappings[$variant]}"
done
# shellcheck disable=SC2086
awk -v a="$(median ${mems[airlock]})" -v b="$(median ${mems[stock]})" 'BEGIN {printf "  memory ratio as shipped / stock: %.2f\n", a / b}'
if [[ $profile == installed ]]; then
  mib() { awk -v b="$1" 'BEGIN {printf "%.1f MiB", b / 1048576}'; }
  echo "packages:"
  for f in packages/airlock_*.deb packages/airlock-*.rpm; do
    extra=""; [[ $f == *.deb ]] && extra=", installed $(mib $(($(dpkg-deb -f "$f" Installed-Size) * 1024)))"
    echo "  $(basename "$f"): $(mib "$(stat -c %s "$f")")$extra"
  done
fi
