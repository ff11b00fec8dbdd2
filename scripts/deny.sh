#!/usr/bin/env bash
# cargo-deny over the whole workspace (deny.toml): licences, bans (duplicate
# versions are warnings), sources, and security advisories when the RustSec
# database is on disk.
#
#   bash scripts/deny.sh            # offline: advisories only from a local copy of the database
#   bash scripts/deny.sh --fetch    # also fetch/update the database first (needs github.com)
#
# The advisory database is a git repository on GitHub, which the project's
# machines cannot reach: without a local copy the advisories check is skipped
# and says so; licences, bans and sources still run and decide the exit code.
# Installs nothing: scripts/setup.sh --test installs cargo-deny (pinned).
set -euo pipefail
self=$(readlink -f "${BASH_SOURCE[0]}")
root=$(cd "$(dirname "$self")/.." && pwd)
cd "$root"

fetch=0
for arg in "$@"; do
  case "$arg" in
    --fetch) fetch=1 ;;
    -h | --help) sed -n '2,12p' "$self" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "deny: unknown argument: $arg (usage: $0 [--fetch])" >&2; exit 2 ;;
  esac
done

export PATH="$PATH:${CARGO_HOME:-$HOME/.cargo}/bin"
if ! command -v cargo-deny >/dev/null; then
  echo "deny: cargo-deny is not installed: run bash scripts/setup.sh --test" >&2
  exit 1
fi
color=(--color never)
[[ -t 2 ]] && color=(--color auto)

t0=$(date +%s%N)
cargo deny "${color[@]}" --locked check --hide-inclusion-graph licenses bans sources

# deny.toml's db-path: $CARGO_HOME/advisory-dbs, one advisory-db-<hash> folder per URL.
db_root="${CARGO_HOME:-$HOME/.cargo}/advisory-dbs"
if [[ $fetch -eq 1 ]]; then
  cargo deny "${color[@]}" --locked check --hide-inclusion-graph advisories
elif compgen -G "$db_root/advisory-db-*/crates" >/dev/null; then
  echo "deny: advisories against the local copy of the RustSec database in $db_root (not updated: use --fetch to update it)"
  cargo deny "${color[@]}" --offline check --hide-inclusion-graph advisories
else
  echo "deny: advisories skipped: the RustSec advisory database is not on this machine ($db_root)"
  echo "      and it is fetched from github.com, which this machine cannot reach;"
  echo "      where github.com is reachable, run: bash scripts/deny.sh --fetch"
fi
echo "deny: done in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
