#!/usr/bin/env bash
# Cross-build Airlock for Windows (x86_64-pc-windows-gnu) with Debian's
# mingw-w64: `airlock.exe` (the CLI, daemon and stdio gateway),
# `airlock-demo-server.exe`, `mcp_client.exe` (a bare client on the official
# Rust SDK that scripts/test-windows.sh drives the gateway with) and the
# desktop app `airlock-desktop.exe`, then a zip of them with a README.
#
#   bash scripts/build-windows.sh [--dev] [--no-desktop] [--installer] [--out DIR]
#
#   --dev          the dev profile (faster to build, larger, with debug
#                  assertions) instead of the release profile that ships
#   --no-desktop   the CLI, the demo server and the test client only
#   --installer    also the Tauri bundler's NSIS installer (Debian's nsis);
#                  when the bundler cannot make it here, its exact error is
#                  printed and the zip stays the Windows download (here it
#                  stops at downloading nsis_tauri_utils.dll from GitHub)
#   --out DIR      where the binaries and the zip go (default dist/windows)
#
# Installs what is missing (Debian packages, the rustup target), idempotent
# and without prompts, like scripts/setup.sh. The desktop app needs the
# WebView2 runtime on Windows (part of Windows 10 and 11).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export CI="${CI:-true}" DEBIAN_FRONTEND=noninteractive CARGO_TERM_COLOR=never

target=x86_64-pc-windows-gnu
profile=release
desktop=1
installer=0
out="$root/dist/windows"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dev) profile=dev; shift ;;
    --no-desktop) desktop=0; shift ;;
    --installer) installer=1; shift ;;
    --out) out=$2; shift 2 ;;
    -h | --help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 [--dev] [--no-desktop] [--installer] [--out DIR]" >&2; exit 2 ;;
  esac
done
[[ $installer -eq 0 || $desktop -eq 1 ]] || { echo "build-windows: --installer needs the desktop app" >&2; exit 2; }

t_start=$SECONDS
step() { printf 'build-windows: %-10s %s\n' "$1:" "$2"; }
sudo_cmd=(); [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo -n)

# ---- 1. tools ----------------------------------------------------------------
# mingw-w64: the linker and the C compiler of the C parts (SQLite, aws-lc,
# ring); zip for the download; nsis (makensis) for the installer.
packages=(gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 zip)
[[ $installer -eq 0 ]] || packages+=(nsis)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' || missing+=("$p")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  step apt "skipped (${packages[*]} installed)"
else
  "${sudo_cmd[@]}" apt-get update -q >/dev/null
  "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=300 "${missing[@]}" >/dev/null
  step apt "installed ${missing[*]}"
fi
if rustup target list --installed | grep -qx "$target"; then
  step rustup "skipped ($target installed)"
else
  rustup target add "$target" >/dev/null
  step rustup "rustup target add $target"
fi

target_dir=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
profile_dir=$([[ $profile == dev ]] && echo debug || echo release)
bin_dir="$target_dir/$target/$profile_dir"

# ---- 2. the CLI, the demo server, the test client ----------------------------
t0=$SECONDS
nice -n 10 cargo build --locked -q --profile "$profile" --target "$target" \
  -p airlock-cli --bin airlock -p airlock-demo-server --bin airlock-demo-server --example mcp_client
step build "airlock.exe, airlock-demo-server.exe, mcp_client.exe ($profile, $((SECONDS - t0)) s)"

# ---- 3. the desktop app ------------------------------------------------------
if [[ $desktop -eq 1 ]]; then
  t0=$SECONDS
  bash scripts/ui.sh install build >/dev/null
  nice -n 10 cargo build --locked -q --profile "$profile" --target "$target" -p airlock-desktop
  step build "airlock-desktop.exe ($profile, $((SECONDS - t0)) s)"
fi

# ---- 4. the folder and the zip -------------------------------------------------
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
rm -rf "$out"
mkdir -p "$out/airlock"
cp "$bin_dir/airlock.exe" "$bin_dir/airlock-demo-server.exe" "$out/airlock/"
cp "$bin_dir/examples/mcp_client.exe" "$out/"
[[ $desktop -eq 0 ]] || cp "$bin_dir/airlock-desktop.exe" "$out/airlock/"
cat >"$out/airlock/README.txt" <<EOF
Airlock $version for Windows 10 and 11 (x86_64)
================================================

airlock.exe              the command line: servers, calls, history, and the
                         gateway other apps start (airlock.exe gateway --stdio)
airlock-demo-server.exe  a demo MCP server that shows a URL elicitation
$([[ $desktop -eq 0 ]] || echo "airlock-desktop.exe      the desktop app (needs the WebView2 runtime, part of
                         Windows 10 and 11)")

Keep the files together in one folder (for example
%LOCALAPPDATA%\\Programs\\Airlock). Airlock keeps its data in
%LOCALAPPDATA%\\Airlock (only your user may read it) and secrets in the
Windows Credential Manager, never in its database.

Try it:
  airlock.exe servers add demo --command "%CD%\\airlock-demo-server.exe"
  airlock.exe tools demo
  airlock.exe call demo connect_demo_account

Connect an app (Claude Desktop, VS Code, Cursor, ...) to Airlock:
  airlock.exe clients apps
  airlock.exe clients connect claude-desktop

Built from source on Linux with mingw-w64 (scripts/build-windows.sh) and
tested under Wine (scripts/test-windows.sh); not signed.
EOF
sed -i 's/$/\r/' "$out/airlock/README.txt"
zip_name="airlock-$version-windows-x86_64.zip"
(cd "$out" && rm -f "$zip_name" && zip -q -r -9 "$zip_name" airlock)
step zip "$out/$zip_name ($(du -h "$out/$zip_name" | cut -f1))"

# ---- 5. the installer ----------------------------------------------------------
if [[ $installer -eq 1 ]]; then
  lock_hash=$(cat packaging/package.json packaging/package-lock.json | sha256sum | cut -d' ' -f1)
  stamp=packaging/node_modules/.airlock-stamp
  if [[ ! -x packaging/node_modules/.bin/tauri || ! -f $stamp || "$(cat "$stamp")" != "$lock_hash" ]]; then
    (cd packaging && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    echo "$lock_hash" >"$stamp"
  fi
  log=$(mktemp)
  if (cd src-tauri && nice -n 10 "$root/packaging/node_modules/.bin/tauri" bundle --ci \
      --bundles nsis --target "$target" $([[ $profile == release ]] || echo --debug)) >"$log" 2>&1; then
    found=$(find "$bin_dir/bundle/nsis" -name '*.exe' 2>/dev/null | head -1)
    cp "$found" "$out/"
    step installer "$out/$(basename "$found") ($(du -h "$found" | cut -f1))"
  else
    step installer "the Tauri bundler made no NSIS installer with the $target target; its error:"
    sed 's/^/    /' "$log" | tail -20
    step installer "the zip above is the Windows download"
  fi
  rm -f "$log"
fi

ls -la "$out" "$out/airlock" | sed 's/^/  /'
step done "$((SECONDS - t_start)) s"
