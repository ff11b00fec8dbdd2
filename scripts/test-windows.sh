#!/usr/bin/env bash
# Test the Windows build under Wine: the x86_64-pc-windows-gnu binaries of
# scripts/build-windows.sh (release unless --dev), run in a new Wine prefix
# of their own. No Node and no Python: the MCP client on the gateway's far
# side is `mcp_client.exe` (the official Rust SDK, rmcp), and the page of
# the demo server is pressed with curl.
#
#   bash scripts/test-windows.sh [--dev]
#
# Checks, each printed as `ok` or `FAIL`:
#   - the demo server added, its tools listed and `echo` called (2026-07-28);
#   - a URL elicitation with `--consent accept --open print` (2025-11-25): the
#     printed URL is the demo's page, the page is pressed, the call succeeds;
#   - history, audit and elicitations read back from the database;
#   - a secret (`--secret-env`) lands in the Windows Credential Manager
#     (CredWrite, through keyring) and nowhere in Airlock's data folder, which
#     is %LOCALAPPDATA%\Airlock; removing the server deletes the credential;
#   - `airlock daemon` serves a named pipe, `airlock gateway --stdio` attaches
#     to it and an rmcp client calls a tool through it; the call is in the
#     history under the client's name; a second daemon is refused; with no
#     daemon running, the gateway starts one itself.
# What Wine cannot show (not tested here): the pipe's ACL and the client SID
# check against a process of another user (Wine runs every process as one
# user, and does not enforce ACLs), ACLs on the private files, that the host
# a gateway starts does not hold the app's pipe (Wine's process start passes
# the Unix stdout on), the desktop app (no WebView2 runtime in Wine), the
# TaskDialog and the toasts.
#
# Installs what is missing (Debian's wine and curl; the build's own needs via
# build-windows.sh). Exits 1 when any check fails. About 45 s once built.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export DEBIAN_FRONTEND=noninteractive CARGO_TERM_COLOR=never

profile_flag=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dev) profile_flag=(--dev); shift ;;
    -h | --help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 [--dev]" >&2; exit 2 ;;
  esac
done

t_start=$SECONDS
say() { printf 'test-windows: %s\n' "$*"; }
die() { say "$*" >&2; exit 1; }
sudo_cmd=(); [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo -n)

# ---- 1. tools and binaries -----------------------------------------------------
missing=()
for p in wine wine64 curl; do
  dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  "${sudo_cmd[@]}" apt-get update -q >/dev/null || die "apt-get update failed"
  "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=300 "${missing[@]}" >/dev/null \
    || die "cannot install ${missing[*]}"
  say "installed ${missing[*]}"
fi

work=$(mktemp -d)
export WINEPREFIX="$work/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
cleanup() {
  wineserver -k >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

if ! bash scripts/build-windows.sh --no-desktop "${profile_flag[@]}" --out "$work/dist" >"$work/build.log" 2>&1; then
  cat "$work/build.log" >&2
  die "the build failed"
fi
grep -E '^build-windows: (build|done)' "$work/build.log" | sed 's/^/  /'
bin="$work/dist/airlock"
cli="$bin/airlock.exe"
demo="$bin/airlock-demo-server.exe"
client="$work/dist/mcp_client.exe"

# ---- 2. a Wine prefix of its own -------------------------------------------------
t0=$SECONDS
wineboot -i >/dev/null 2>&1 || die "wineboot failed"
wineserver -w
sys32="$WINEPREFIX/drive_c/windows/system32"
if [[ ! -f $sys32/bcryptprimitives.dll ]]; then
  # Wine 8.0 (Debian 12) lacks the DLL that Rust's std takes random bytes
  # from; scripts/windows/bcryptprimitives.c stands in for it (test only).
  x86_64-w64-mingw32-gcc -O2 -shared -o "$sys32/bcryptprimitives.dll" \
    scripts/windows/bcryptprimitives.c scripts/windows/bcryptprimitives.def -ladvapi32 \
    || die "cannot build the bcryptprimitives.dll stand-in"
  say "Wine $(wine --version 2>/dev/null) has no bcryptprimitives.dll: the stand-in is in the prefix"
fi
say "Wine prefix ready ($((SECONDS - t0)) s)"

# ---- 3. the checks ---------------------------------------------------------------
passed=()
failed=()
ok() { passed+=("$1"); printf '  ok    %s\n' "$1"; }
fail() {
  failed+=("$1")
  printf '  FAIL  %s\n' "$1"
  [[ -z ${2:-} ]] || printf '%s\n' "$2" | tail -15 | sed 's/^/        /'
}
# airlock.exe with a time limit; stdout in $out, stderr in $err, status in $rc.
run() {
  timeout 90 wine "$cli" "$@" >"$work/stdout" 2>"$work/stderr"
  rc=$?
  out=$(tr -d '\r' <"$work/stdout")
  err=$(tr -d '\r' <"$work/stderr")
}
demo_win="Z:$demo"

run servers add demo --command "$demo_win"
[[ $rc -eq 0 ]] && ok "servers add demo (stdio, 2026-07-28 when offered)" || fail "servers add demo" "$out$err"

run tools demo
if [[ $rc -eq 0 && $out == *connect_demo_account* && $out == *echo* ]]; then
  ok "tools demo: $(awk '{print $1}' <<<"$out" | paste -sd' ')"
else
  fail "tools demo" "$out$err"
fi

run call demo echo --args '{"message":"hello from Wine"}'
[[ $rc -eq 0 && $out == *"hello from Wine"* ]] && ok "call demo echo" || fail "call demo echo" "$out$err"

# A URL elicitation on the request path (2025-11-25): the call waits for the
# demo page's button, pressed here with curl.
run servers add demo-old --protocol 2025-11-25 --command "$demo_win"
[[ $rc -eq 0 ]] || fail "servers add demo-old" "$out$err"
timeout 90 wine "$cli" --consent accept --open print call demo-old connect_demo_account \
  >"$work/call.out" 2>"$work/call.err" &
call_pid=$!
url=""
for _ in $(seq 1 120); do
  url=$(tr -d '\r' <"$work/call.out" | grep -m1 -E '^http://127\.0\.0\.1:[0-9]+/connect\?id=[0-9a-f]{32}$' || true)
  [[ -n $url ]] && break
  kill -0 "$call_pid" 2>/dev/null || break
  sleep 0.5
done
if [[ -n $url ]]; then
  ok "--open print printed the demo's page: $url"
  code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "${url/\/connect\?/\/complete?}")
  [[ $code == 200 ]] && ok "the page pressed (HTTP $code)" || fail "pressing the page (HTTP $code)"
else
  fail "--open print printed no URL" "$(cat "$work/call.out" "$work/call.err")"
fi
wait "$call_pid"
call_rc=$?
call_out=$(tr -d '\r' <"$work/call.out")
if [[ $call_rc -eq 0 && $call_out == *"Demo account connected"* ]]; then
  ok "call demo-old connect_demo_account: Demo account connected (accepted, completed)"
else
  fail "the elicited call (exit $call_rc)" "$call_out$(cat "$work/call.err")"
fi

run history
if [[ $rc -eq 0 && $out == *"demo-old/connect_demo_account ok"* && $out == *"demo/echo ok"* ]]; then
  ok "history: both calls read back"
else
  fail "history" "$out$err"
fi
run audit
if [[ $rc -eq 0 && $out == *'"state":"completed"'* && $out == *server_added* ]]; then
  ok "audit: server_added and the elicitation requested, accepted, opened, completed"
else
  fail "audit" "$out$err"
fi
run elicitations
[[ $rc -eq 0 && $out == *completed*"$url"* ]] && ok "elicitations: the URL, completed" || fail "elicitations" "$out$err"

data=$(find "$WINEPREFIX/drive_c/users" -path '*AppData/Local/Airlock/airlock.sqlite3' 2>/dev/null | head -1)
if [[ -n $data ]]; then
  ok "the database is in %LOCALAPPDATA%\\Airlock"
else
  fail "no airlock.sqlite3 under %LOCALAPPDATA%\\Airlock" "$(find "$WINEPREFIX/drive_c/users" -name 'airlock.sqlite3')"
fi
data_dir=$(dirname "${data:-$work/none/x}")

# A secret: in the Credential Manager (Wine keeps it in the registry under
# Software\Wine\Credential Manager, the password encrypted), never in the
# data folder.
canary="CANARY-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
run servers add vault --command "$demo_win" --secret-env "DEMO_TOKEN=$canary"
[[ $rc -eq 0 && $out$err != *"$canary"* ]] && ok "servers add vault --secret-env (the value not printed)" || fail "servers add vault" "$out$err"
creds() { wine reg query 'HKCU\Software\Wine\Credential Manager' /s 2>/dev/null | tr -d '\r'; }
reg=$(creds)
if grep -q 'Generic: .*/server/vault/env/DEMO_TOKEN' <<<"$reg"; then
  ok "the secret is a generic credential in the Windows credential store"
else
  fail "no credential for vault's DEMO_TOKEN" "$reg"
fi
wineserver -w
if grep -rqa "$canary" "$data_dir" "$work/stdout" "$work/stderr" 2>/dev/null || grep -qa "$canary" "$WINEPREFIX"/*.reg; then
  fail "the secret's value is in the data folder, the output or the registry in clear"
else
  ok "the secret's value is nowhere in the data folder (SQLite included), the output or the registry"
fi
run servers show vault
[[ $rc -eq 0 && $out == *"DEMO_TOKEN=<secret, in the OS keychain>"* ]] && ok "servers show vault: the secret named, not shown" || fail "servers show vault" "$out$err"
run servers remove vault
if [[ $rc -eq 0 ]] && ! creds | grep -q '/server/vault/'; then
  ok "servers remove vault deleted the credential"
else
  fail "servers remove vault" "$out$err$(creds)"
fi

# The gateway over the named pipe.
timeout 120 wine "$cli" daemon --idle-exit 30 >"$work/daemon.out" 2>"$work/daemon.err" &
daemon_pid=$!
pipe=""
for _ in $(seq 1 60); do
  pipe=$(tr -d '\r' <"$work/daemon.err" | grep -o -m1 '\\\\\.\\pipe\\airlock-gateway-[0-9a-f]*' || true)
  [[ -n $pipe ]] && break
  kill -0 "$daemon_pid" 2>/dev/null || break
  sleep 0.5
done
[[ -n $pipe ]] && ok "airlock daemon serves the named pipe $pipe" || fail "the daemon serves no pipe" "$(cat "$work/daemon.err")"

client_out=$(timeout 90 wine "$client" --call demo__echo '{"message":"through the pipe"}' \
  -- "Z:$cli" gateway --stdio 2>"$work/client.err" | tr -d '\r')
client_rc=$?
if [[ $client_rc -eq 0 && $client_out == *"server: airlock-gateway"* && $client_out == *"demo-old__connect_demo_account"* \
  && $client_out == *"call demo__echo: through the pipe"* ]]; then
  ok "rmcp client -> airlock gateway --stdio -> pipe -> daemon: tools listed, demo__echo called"
else
  fail "the rmcp client through the gateway (exit $client_rc)" "$client_out$(cat "$work/client.err")"
fi
if tr -d '\r' <"$work/daemon.err" | grep -q 'attached'; then
  ok "the daemon saw the app attach over the pipe"
else
  fail "the daemon saw no app attach" "$(cat "$work/daemon.err")"
fi
run history
[[ $out == *"[rmcp] demo/echo ok"* ]] && ok "history: the gateway call under the client's name [rmcp]" || fail "history after the gateway call" "$out$err"

run daemon
if [[ $rc -ne 0 && $err == *"already running"* ]]; then
  ok "a second daemon is refused: $(grep -m1 'already running' <<<"$err" | cut -c1-90)..."
else
  fail "a second daemon was not refused (exit $rc)" "$out$err"
fi
kill "$daemon_pid" 2>/dev/null
wait "$daemon_pid" 2>/dev/null

# No daemon running: the gateway starts one (detached) and attaches to it.
# Into a file, not a pipe: under Wine the host keeps the Unix side of the
# shim's stdout (Wine's process start hands it on whatever the handles say),
# so a pipe would never see EOF here. On Windows the shim makes its own
# standard handles non-inheritable before it starts the host
# (crates/airlock-gateway/src/wire/detached.rs); Wine cannot show that.
timeout 60 wine "$client" --call demo__echo '{"message":"host started"}' \
  -- "Z:$cli" gateway --stdio >"$work/client2.out" 2>"$work/client2.err"
client_rc=$?
client_out=$(tr -d '\r' <"$work/client2.out")
if [[ $client_rc -eq 0 && $client_out == *"call demo__echo: host started"* ]]; then
  ok "with no daemon running, the gateway started one and the call went through"
else
  fail "the gateway did not start a host (exit $client_rc)" "$client_out$(cat "$work/client2.err")"
fi

# ---- 4. the verdict --------------------------------------------------------------
echo
say "not shown by Wine: the pipe's ACL and the client-SID check against another user's process, file ACLs, the started host not holding the app's pipe, the desktop app (WebView2), the TaskDialog, toasts"
say "${#passed[@]} passed, ${#failed[@]} failed ($((SECONDS - t_start)) s)"
if [[ ${#failed[@]} -gt 0 ]]; then
  printf 'test-windows: FAILED: %s\n' "${failed[@]}" >&2
  exit 1
fi
