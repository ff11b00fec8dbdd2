#!/usr/bin/env bash
# Install what Airlock needs to build and test, idempotently and non-interactively.
#
#   scripts/setup.sh [--test] [--e2e]
#
#   (always)  the Rust toolchain of rust-toolchain.toml (rustup, when it is missing),
#             Debian packages for Tauri 2 and its tests (only apt-get when one is missing),
#             tests/peers: npm ci (server-everything, TypeScript SDK) and the Python
#             venv tests/peers/.venv with requirements.txt (mcp SDK); these and
#             the apps below are installed once per machine and content hash under
#             ~/.cache/airlock/deps and linked into the checkout (a fresh clone
#             links them in a second).
#   --test    also `cargo install cargo-deny` (pinned) when it is not on PATH
#             (5-9 min on 2 cores; scripts/deny.sh runs it), and the real AI
#             apps of tests/apps (pinned versions and lockfile: Claude Code, Gemini
#             CLI, Codex CLI, opencode, Qwen Code, Copilot CLI, Continue's and
#             Cline's CLIs, the MCP Inspector, Node 22 for them; about 2.5 min
#             and 2.4 GB cold, skipped in under a second when the lockfile
#             matches; crates/airlock-cli/tests/apps_real.rs runs them).
#   --e2e     also `cargo install tauri-driver` (2.x) when it is not on PATH (~1 min).
#
# Prints one line per step, saying whether it did something or skipped.
# A second run is a fast no-op.
set -euo pipefail

e2e=0
test=0
for arg in "$@"; do
  case "$arg" in
    --test) test=1 ;;
    --e2e) e2e=1 ;;
    -h | --help)
      sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "setup: unknown argument: $arg (usage: $0 [--test] [--e2e])" >&2
      exit 2
      ;;
  esac
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
peers="$root/tests/peers"
export DEBIAN_FRONTEND=noninteractive
export CI="${CI:-true}"

step() { printf 'setup: %-14s %s\n' "$1:" "$2"; }

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null; then sudo_cmd=(sudo -n); else
    echo "setup: not root and no sudo: cannot install Debian packages" >&2
  fi
fi

sha() { sha256sum "$@" | awk '{print $1}' | sha256sum | awk '{print $1}'; }

# ---- 0. Rust toolchain (rust-toolchain.toml) ---------------------------------
channel=$(sed -n 's/^channel *= *"\(.*\)"/\1/p' "$root/rust-toolchain.toml")
if ! command -v rustup >/dev/null; then
  step toolchain "skipped (no rustup: using $(cargo --version 2>/dev/null || echo 'no cargo'))"
elif rustup toolchain list | grep -q "^$channel-"; then
  step toolchain "skipped ($channel already installed)"
else
  t0=$SECONDS
  (cd "$root" && rustup toolchain install)
  step toolchain "rustup toolchain install $channel ($((SECONDS - t0)) s)"
fi

# ---- 1. Debian packages ----------------------------------------------------
# From docs (recipes.md, "System packages for Tauri 2 and its tests").
packages=(
  libwebkit2gtk-4.1-dev libgtk-3-dev libsoup-3.0-dev libjavascriptcoregtk-4.1-dev
  librsvg2-dev libayatana-appindicator3-dev libssl-dev libdbus-1-dev pkg-config build-essential
  xvfb xdotool imagemagick dbus dbus-x11 at-spi2-core webkit2gtk-driver
  dunst gnome-keyring libsecret-tools keyutils xdg-utils tmux
  bubblewrap
)
# Tools the test peers need; Debian's versions are the fallback when absent
# (this image has Node 20 from NodeSource and Python 3.11 from pyenv).
command -v python3 >/dev/null || packages+=(python3)
command -v node >/dev/null || packages+=(nodejs)
command -v npm >/dev/null || packages+=(npm)
command -v curl >/dev/null || packages+=(curl)
# Debian's python3 needs python3-venv for `python3 -m venv` (ensurepip);
# pyenv's python has it built in.
if ! command -v python3 >/dev/null || ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
  packages+=(python3-venv)
fi

installed=" $(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' "${packages[@]}" 2>/dev/null \
  | awk '$1 == "ii" {printf "%s ", $2}' || true)"
missing=()
for p in "${packages[@]}"; do
  [[ "$installed" == *" $p "* ]] || missing+=("$p")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  step apt "skipped (${#packages[@]} packages already installed)"
else
  t0=$SECONDS
  apt_opts=(-y -q --no-install-recommends -o DPkg::Lock::Timeout=300)
  "${sudo_cmd[@]}" apt-get update -q >/dev/null
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install "${apt_opts[@]}" "${missing[@]}" >/dev/null
  step apt "installed ${missing[*]} ($((SECONDS - t0)) s)"
fi

# ---- 2a. cargo tools, built in the background --------------------------------
# cargo-deny (--test) and tauri-driver (--e2e) compile from crates.io (about
# 1.5 minutes and 30 s on two cores); they build while the npm and pip installs
# below wait on the network, and steps 4-5 wait for them.
cargo_deny_version=0.20.2 # the one place that names it; scripts/deny.sh runs it
cargo_bin="${CARGO_HOME:-$HOME/.cargo}/bin"
has() { PATH="$PATH:$cargo_bin" command -v "$1" >/dev/null; }
bg_logs=$(mktemp -d)
deny_pid="" driver_pid=""
# A setup that stops early stops these too.
trap 'for p in $deny_pid $driver_pid; do pkill -P "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done; rm -rf "$bg_logs"' EXIT
if [[ $test -eq 1 ]] && ! has cargo-deny; then
  command -v cargo >/dev/null || { echo "setup: --test needs cargo (rustup) on PATH" >&2; exit 1; }
  deny_t0=$SECONDS
  # Its own release profile (fat LTO, one codegen unit) took 173 s here on
  # two cores; without LTO at opt-level 1 it builds in 82 s and checks the
  # workspace as fast (about 1.5 s either way).
  (cd "$root" && nice -n 10 cargo --config 'profile.release.lto=false' \
    --config 'profile.release.codegen-units=16' --config 'profile.release.opt-level=1' \
    install --locked --quiet "cargo-deny@$cargo_deny_version") \
    >"$bg_logs/cargo-deny.log" 2>&1 &
  deny_pid=$!
fi
if [[ $e2e -eq 1 ]] && ! has tauri-driver; then
  command -v cargo >/dev/null || { echo "setup: --e2e needs cargo (rustup) on PATH" >&2; exit 1; }
  driver_t0=$SECONDS
  (cd "$root" && nice -n 10 cargo install tauri-driver --locked --version '^2' --quiet) \
    >"$bg_logs/tauri-driver.log" 2>&1 &
  driver_pid=$!
fi
# waited NAME PID T0: wait for a background install; its log when it failed.
waited() {
  if ! wait "$2"; then
    cat "$bg_logs/$1.log" >&2
    echo "setup: cargo install $1 failed (its output above)" >&2
    exit 1
  fi
  step "$1" "cargo install $1 ($((SECONDS - $3)) s, beside the installs above)"
}

# ---- 2-3b. the test peers' dependencies ---------------------------------------
# Each is installed once per machine for each content hash, in its own folder
# under ~/.cache/airlock/deps (made under a lock, finished when its `.done`
# stamp is there), and linked into the checkout: a fresh clone (CI) links
# what an earlier run installed instead of installing it again. The two
# newest folders of each kind are kept.
deps_cache="${XDG_CACHE_HOME:-$HOME/.cache}/airlock/deps"
mkdir -p "$deps_cache"

# cached KIND HASH LINK INSTALL NAME PROBE: make LINK (a path in the
# checkout) a link to DIR/NAME, DIR being the folder of KIND and HASH,
# running `INSTALL DIR` to fill it when DIR/NAME/PROBE is missing (a folder
# left by an install that failed, or made by an older layout, is made
# again). NAME is `node_modules` for npm: Node finds a package's own
# dependencies by its real path, in a folder of that name. Sets `did` for
# `step`; an install that fails stops the setup with its error.
cached() {
  local kind=$1 hash=$2 link=$3 install=$4 name=$5 probe=$6
  local dir="$deps_cache/$kind-${hash:0:16}"
  did="linked (cached)"
  if [[ ! -f "$dir/.done" || ! -e "$dir/$name/$probe" ]]; then
    exec 9>"$deps_cache/.lock"
    flock 9
    if [[ ! -f "$dir/.done" || ! -e "$dir/$name/$probe" ]]; then
      local t0=$SECONDS
      rm -rf "$dir"
      mkdir -p "$dir"
      if ! "$install" "$dir" || [[ ! -e "$dir/$name/$probe" ]]; then
        rm -rf "$dir"
        echo "setup: installing $kind failed ($name/$probe missing); see the error above" >&2
        exit 1
      fi
      touch "$dir/.done"
      did="installed ($((SECONDS - t0)) s, $(du -sh "$dir" | cut -f1))"
      # Keep the two newest of this kind.
      ls -dt "$deps_cache/$kind-"* 2>/dev/null | tail -n +3 | xargs -r rm -rf
    fi
    flock -u 9
  fi
  local target="$dir/$name"
  if [[ "$(readlink "$link" 2>/dev/null)" != "$target" ]]; then
    rm -rf "$link"
    ln -s "$target" "$link"
  elif [[ "$did" == "linked (cached)" ]]; then
    did="up to date"
  fi
}

install_peers_npm() {
  cp "$peers/package.json" "$peers/package-lock.json" "$1/"
  (cd "$1" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
}
cached peers-npm "$(sha "$peers/package.json" "$peers/package-lock.json")" "$peers/node_modules" install_peers_npm \
  node_modules @modelcontextprotocol/server-everything/dist/index.js
step npm "tests/peers/node_modules: $did"

install_venv() {
  # Made at its final place: a venv does not move.
  python3 -m venv "$1/payload"
  "$1/payload/bin/python" -m pip install -q --disable-pip-version-check --no-input -r "$peers/requirements.txt"
}
cached peers-venv "$(sha "$peers/requirements.txt")" "$peers/.venv" install_venv payload bin/python
step venv "tests/peers/.venv: $did"

install_fetch_venv() {
  python3 -m venv "$1/payload"
  "$1/payload/bin/python" -m pip install -q --disable-pip-version-check --no-input -r "$peers/fetch-requirements.txt"
}
cached fetch-venv "$(sha "$peers/fetch-requirements.txt")" "$peers/.fetch-venv" install_fetch_venv payload bin/mcp-server-fetch
step fetch-venv "tests/peers/.fetch-venv: $did"

# Local package registries for the rooms' npx/uvx tests: Verdaccio (npm),
# pypiserver and uv, and a wheelhouse of the Python SDK's wheels for it
# to serve (tests/registries; crates/airlock-cli/tests/rooms_registries.rs).
registries="$root/tests/registries"
install_registries_npm() {
  cp "$registries/package.json" "$registries/package-lock.json" "$1/"
  (cd "$1" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
}
cached registries-npm "$(sha "$registries/package.json" "$registries/package-lock.json")" "$registries/node_modules" \
  install_registries_npm node_modules .bin/verdaccio
step verdaccio "tests/registries/node_modules: $did"
install_registries_venv() {
  python3 -m venv "$1/payload"
  "$1/payload/bin/python" -m pip install -q --disable-pip-version-check --no-input -r "$registries/requirements.txt"
  "$1/payload/bin/python" -m pip download -q --disable-pip-version-check --no-input --no-deps \
    -d "$1/payload/wheelhouse" -r "$peers/requirements.txt"
}
cached registries-venv "$(sha "$registries/requirements.txt" "$peers/requirements.txt")" "$registries/.venv" \
  install_registries_venv payload bin/pypi-server
step pypiserver "tests/registries/.venv: $did"

apps="$root/tests/apps"
install_apps() {
  cp "$apps/package.json" "$apps/package-lock.json" "$1/"
  # Not `npm ci`: the lockfile cannot list the other platforms' optional
  # binaries some apps name (the registry here serves only linux-x64 ones),
  # and `npm ci` refuses such a lockfile. `npm install --no-save` installs
  # the locked versions and leaves the lockfile as it is.
  (cd "$1" && npm install --no-save --no-audit --no-fund --loglevel=error >install.log 2>&1) ||
    { tail -n 20 "$1/install.log" >&2; return 1; }
}
if [[ $test -eq 0 ]]; then
  step apps "skipped (no --test)"
else
  cached apps-npm "$(sha "$apps/package.json" "$apps/package-lock.json")" "$apps/node_modules" install_apps node_modules .bin/claude
  step apps "tests/apps/node_modules: $did"
fi

# ---- 4. cargo-deny (only with --test; built in step 2a) --------------------
if [[ $test -eq 0 ]]; then
  step cargo-deny "skipped (no --test)"
elif [[ -n $deny_pid ]]; then
  waited cargo-deny "$deny_pid" "$deny_t0"
else
  found=$(PATH="$PATH:$cargo_bin" cargo-deny --version 2>/dev/null | awk '{print $2}')
  note=""
  [[ "$found" == "$cargo_deny_version" ]] || note="; the project pins $cargo_deny_version"
  step cargo-deny "skipped (cargo-deny $found already on PATH$note)"
fi

# ---- 5. tauri-driver (only with --e2e; built in step 2a) ------------------
if [[ $e2e -eq 0 ]]; then
  step tauri-driver "skipped (no --e2e)"
elif [[ -n $driver_pid ]]; then
  waited tauri-driver "$driver_pid" "$driver_t0"
else
  step tauri-driver "skipped (already on PATH: $(PATH="$PATH:$cargo_bin" command -v tauri-driver))"
fi
