#!/usr/bin/env bash
# The README's test command on a machine as fresh as this one allows: a clone
# of this checkout's HEAD under an empty HOME, so no cargo registry, no
# cargo-deny or tauri-driver, no npm or pip cache and no build cache
# (~/.cache/airlock) are there; the apt packages, rustup's toolchain, pyenv's
# Python and Debian's node stay (a machine that cannot fetch them keeps them).
# Prints CI's own table of where the time went, then the whole run's seconds.
#
#   bash scripts/test-fresh.sh [DIR]   # DIR (default: a new temporary one) holds
#                                      # the HOME and the clone; about 10 GB
#
# Takes about 16 minutes on 2 cores; run it alone (it measures).
set -euo pipefail
self=$(readlink -f "${BASH_SOURCE[0]}")
root=$(cd "$(dirname "$self")/.." && pwd)
case "${1:-}" in
  -h | --help) sed -n '2,12p' "$self" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
base=${1:-$(mktemp -d /tmp/airlock-fresh.XXXXXX)}
if [[ -e "$base/home" || -e "$base/repo" ]]; then
  echo "test-fresh: $base already holds a home/ or repo/; give an empty or new folder" >&2
  exit 2
fi
mkdir -p "$base/home" "$base/bin"
real_home=$HOME
# What the scripts need from the real HOME: npm's settings (nodedir: headers
# without a download), git's identity, pip's certificates.
for f in .npmrc .gitconfig; do
  if [[ -f "$real_home/$f" ]]; then cp "$real_home/$f" "$base/home/"; fi
done
# The cargo-installed tools' folder leaves PATH; rustup's proxies in it
# (cargo, rustc, ...) are linked into a folder of their own.
cargo_bin=${CARGO_HOME:-$real_home/.cargo}/bin
for b in cargo cargo-clippy cargo-fmt clippy-driver rustc rustdoc rustfmt rustup; do
  if [[ -x "$cargo_bin/$b" ]]; then ln -s "$cargo_bin/$b" "$base/bin/$b"; fi
done
path=$base/home/.cargo/bin:$base/bin
IFS=: read -r -a parts <<<"$PATH"
for p in "${parts[@]}"; do
  [[ "$p" == "$cargo_bin" || -z "$p" ]] || path=$path:$p
done
git clone -q "$root" "$base/repo"
echo "test-fresh: $(git -C "$base/repo" log --oneline -1) under HOME=$base/home"
start=$SECONDS
rc=0
(
  cd "$base/repo"
  env -u CARGO_TARGET_DIR HOME="$base/home" CARGO_HOME="$base/home/.cargo" \
    RUSTUP_HOME="${RUSTUP_HOME:-$real_home/.rustup}" \
    PYENV_ROOT="${PYENV_ROOT:-$real_home/.pyenv}" PATH="$path" CI=true \
    bash .ci/run </dev/null
) || rc=$?
echo "test-fresh: exit $rc, $((SECONDS - start)) s in all (the HOME and clone stay in $base)"
exit "$rc"
