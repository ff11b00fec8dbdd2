#!/usr/bin/env bash
# Set up what is missing, then run every check and test:
#   the UI's unit tests and build (scripts/ui.sh), every static check
#   (scripts/lint.sh: rustfmt, import circles, the UI's type check and
#   eslint, cargo-deny; clippy -D warnings while the tests are built), the
#   whole cargo test suite inside a private D-Bus
#   session with an unlocked gnome-keyring (real OS keychain) and real MCP
#   peers, the MCP conformance suite, the desktop end-to-end tests, and the
#   TypeScript bindings check (scripts/bindings.sh). Ends with a table of
#   where the time went and one line `summary: N passed, M failed` over every
#   test runner above.
#
#   bash scripts/test.sh              (or: cargo xtask test)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export CARGO_TERM_COLOR=never
t0=$SECONDS
# Where the time goes: each section's seconds, printed as a table at the end.
timings=()
last_name=""
last_at=$SECONDS
section() {
  if [[ -n $last_name ]]; then
    timings+=("$last_name|$((SECONDS - last_at))")
  fi
  last_name=$1
  last_at=$SECONDS
  printf '\n== %s (%d s so far)\n' "$1" "$((SECONDS - t0))"
}

section "setup"
bash scripts/setup.sh --test
# The packaging script's own tools (rpm, help2man, dpkg-dev, the Tauri CLI):
# installed and checked here, so packaging works on a fresh machine.
bash scripts/package.sh --tools-only

# Clippy lints the workspace while its tests are built: clippy-driver is the
# compiler of the workspace's own crates (warnings are errors, the lints of
# the root Cargo.toml), so the crates and their dependencies are compiled
# once, not once for clippy and again for the tests. Every later cargo
# command here keeps the same wrapper, so nothing is rebuilt for it.
# `bash scripts/lint.sh` alone still runs `cargo clippy`.
RUSTC_WORKSPACE_WRAPPER="$(rustc --print sysroot)/bin/clippy-driver"
export RUSTC_WORKSPACE_WRAPPER
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"

log=$(mktemp)
trap 'rm -f "$log"' EXIT

section "ui: install, unit tests (Vitest), build"
bash scripts/ui.sh install test build 2>&1 | tee -a "$log"

section "lint: rustfmt, import circles, ui type check and eslint, cargo-deny"
bash scripts/lint.sh --no-clippy

section "build every test target, linted by clippy -D warnings"
artifacts=$(mktemp)
trap 'rm -f "$log" "$artifacts"' EXIT
cargo test --workspace --locked --no-run --message-format=json-render-diagnostics >"$artifacts"

section "cargo test (real keychain, real MCP peers; AIRLOCK_TEST_JOBS executables at once) and, beside it, the MCP conformance suite"
# The official MCP conformance suite (client scenarios, the gateway as a
# server) runs beside the test executables: both mostly wait on the
# processes they start. Its output is printed whole when it ends.
conf_log=$(mktemp)
bash -c 't=$SECONDS; bash scripts/conformance.sh; rc=$?
  echo "conformance: ended in $((SECONDS - t)) s, beside the tests"; exit $rc' >"$conf_log" 2>&1 </dev/null &
conf_pid=$!
trap 'kill "$conf_pid" 2>/dev/null || true; rm -f "$log" "$artifacts" "$conf_log"' EXIT
# Each test executable in its own private session (scripts/run-tests.py),
# a few at once: most of them wait on the processes they start. Then the
# doc tests, which cargo alone runs. `set -o pipefail` keeps a failure.
python3 scripts/run-tests.py "$artifacts" 2>&1 | tee -a "$log"
bash scripts/with-session.sh cargo test --workspace --locked --doc 2>&1 | tee -a "$log"
conf_rc=0
wait "$conf_pid" || conf_rc=$?
printf '\n== official MCP conformance suite (client scenarios; the gateway as a server)\n' | tee -a "$log"
tee -a "$log" <"$conf_log"
if [[ $conf_rc -ne 0 ]]; then
  echo "test.sh: the MCP conformance suite failed (exit $conf_rc)" >&2
  exit "$conf_rc"
fi

section "desktop end-to-end (tests/e2e: the real app under Xvfb via WebDriver)"
bash scripts/e2e.sh 2>&1 | tee -a "$log"

section "generated files match the Rust types and the API declaration"
# The cargo test run above regenerated ui/src/lib/bindings; the desktop build
# wrote the capability and the isolation hook's allow-list.
bash scripts/bindings.sh --check

section "done"
printf '\nwhere the time went (s):\n'
for t in "${timings[@]}"; do
  printf '  %6d  %s\n' "${t##*|}" "${t%|*}"
done
printf '  %6d  in all\n' "$((SECONDS - t0))"
# One closing line for everything above: the UI's unit tests, cargo's test
# results, the conformance checks and the end-to-end tests (node:test).
awk '/^test result:/ {p += $4; f += $6}
     /^[0-9]+ passed, [0-9]+ failed$/ {p += $1; f += $3}
     NF == 3 && ($1 == "#" || $1 == "ℹ") && $2 == "pass" && $3 ~ /^[0-9]+$/ {p += $3}
     NF == 3 && ($1 == "#" || $1 == "ℹ") && $2 == "fail" && $3 ~ /^[0-9]+$/ {f += $3}
     END {printf "summary: %d passed, %d failed\n", p, f}' "$log"
