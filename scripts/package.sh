#!/usr/bin/env bash
# Build Airlock's Linux packages, a .deb and an .rpm, with the Tauri bundler:
# the desktop app (/usr/bin/airlock-desktop), the `airlock` CLI
# (/usr/bin/airlock), a desktop entry, hicolor icons, man pages and the license.
#
#   bash scripts/package.sh [--out DIR]     (default DIR: packages/)
#   bash scripts/package.sh --tools-only    (install and check the tools, build nothing;
#                                            scripts/test.sh runs it so a fresh machine has them)
#
# Release build (Cargo.toml's [profile.release]: fat LTO, one codegen unit,
# stripped), the Tauri CLI pinned in packaging/package.json (npm, prebuilt
# binary). Network: only the registries (npm, Debian) for what is missing.
# The .deb's Depends are the shared libraries the binaries link
# (dpkg-shlibdeps, versioned), what tauri.conf.json names (xdg-open) and what
# the Tauri CLI always adds (WebKitGTK 4.1, GTK 3 and the tray library, which
# is loaded at run time). Prints the build time and the package sizes.
# Idempotent: a second run rebuilds only what changed.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export CI="${CI:-true}" DEBIAN_FRONTEND=noninteractive CARGO_TERM_COLOR=never

out="$root/packages"
tools_only=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --tools-only) tools_only=1; shift ;;
    -h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 [--out DIR] | --tools-only" >&2; exit 2 ;;
  esac
done

t_start=$SECONDS
step() { printf 'package: %-10s %s\n' "$1:" "$2"; }
sudo_cmd=(); [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo -n)

# ---- 1. tools ----------------------------------------------------------------
bash scripts/setup.sh >/dev/null # the Debian packages Tauri builds against
need=()
command -v dpkg-shlibdeps >/dev/null || need+=(dpkg-dev)
command -v help2man >/dev/null || need+=(help2man)
command -v rpm >/dev/null || need+=(rpm) # names the .rpm below (rpm -qp)
if [[ ${#need[@]} -gt 0 ]]; then
  "${sudo_cmd[@]}" apt-get update -q >/dev/null
  "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
  step apt "installed ${need[*]}"
fi

# The Tauri CLI, pinned (packaging/package-lock.json).
lock_hash=$(cat packaging/package.json packaging/package-lock.json | sha256sum | cut -d' ' -f1)
stamp=packaging/node_modules/.airlock-stamp
if [[ -x packaging/node_modules/.bin/tauri && -f $stamp && "$(cat "$stamp")" == "$lock_hash" ]]; then
  step tauri-cli "skipped (packaging/node_modules matches package-lock.json)"
else
  (cd packaging && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  echo "$lock_hash" >"$stamp"
  step tauri-cli "npm ci in packaging/"
fi
tauri=(nice -n 19 "$root/packaging/node_modules/.bin/tauri")
step tauri-cli "$("${tauri[@]}" --version)"
if [[ $tools_only -eq 1 ]]; then
  for tool in dpkg-shlibdeps help2man rpm; do
    command -v "$tool" >/dev/null || { echo "package: $tool is still missing after the install" >&2; exit 1; }
  done
  step tools "dpkg-shlibdeps, help2man, rpm and the Tauri CLI are here ($((SECONDS - t_start)) s)"
  exit 0
fi

target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')

# ---- 2. the UI the app embeds ------------------------------------------------
# Rebuilt only when its sources changed: a fresh ui/dist (new mtimes) makes
# the app's build script rerun, and so the whole fat-LTO link (minutes).
ui_hash=$(find ui -path ui/node_modules -prune -o -path ui/dist -prune -o -type f -print0 \
  | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
ui_stamp="$target_dir/release/.airlock-ui-dist-stamp"
if [[ -f ui/dist/index.html && -f $ui_stamp && "$(cat "$ui_stamp")" == "$ui_hash" ]]; then
  step ui "skipped (ui/dist matches the UI sources)"
else
  (cd ui && { [[ -x node_modules/.bin/vite ]] || npm ci --no-audit --no-fund --loglevel=error >/dev/null; } \
    && npm run --silent build >/dev/null)
  mkdir -p "$(dirname "$ui_stamp")" && echo "$ui_hash" >"$ui_stamp"
  step ui "built ui/dist"
fi

# ---- 3. release build ----------------------------------------------------------
version=$(cargo metadata --format-version 1 --no-deps \
  | python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "airlock-desktop"))')
t0=$SECONDS
nice -n 19 cargo build --release --locked -q -p airlock-cli --bin airlock
# Builds airlock-desktop the way `tauri build` does (features, env), no bundle yet.
(cd src-tauri && "${tauri[@]}" build --ci --no-bundle -- --locked --quiet) >/dev/null
build_secs=$((SECONDS - t0))
app="$target_dir/release/airlock-desktop"
cli="$target_dir/release/airlock"
step build "release build of airlock-desktop and airlock: ${build_secs} s"

# ---- 4. bundle -----------------------------------------------------------------
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Depends: what the binaries link (dpkg-shlibdeps, versioned) and what
# tauri.conf.json lists; a package named in both keeps the versioned form.
# (The Tauri CLI then appends libwebkit2gtk-4.1-0, libgtk-3-0 and
# libayatana-appindicator3-1 unversioned, whatever the list holds: a repeated
# name is valid in Depends, both conditions must hold.)
mkdir -p "$work/shlibs/debian/airlock/usr/bin"
printf 'Source: airlock\n\nPackage: airlock\nArchitecture: any\n' >"$work/shlibs/debian/control"
cp "$app" "$cli" "$work/shlibs/debian/airlock/usr/bin/"
shlibs=$(cd "$work/shlibs" && dpkg-shlibdeps -O -e debian/airlock/usr/bin/airlock-desktop \
  -e debian/airlock/usr/bin/airlock 2>/dev/null | sed -n 's/^shlibs:Depends=//p')

# Dates in generated files: the last commit's (reproducible).
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}"
maintainer=$(cargo metadata --format-version 1 --no-deps \
  | python3 -c 'import json,sys; print(next(p["authors"][0] for p in json.load(sys.stdin)["packages"] if p["name"] == "airlock-desktop"))')

# Debian changelog of this native package (lintian wants one): this version.
mkdir -p "$work/doc" "$work/man"
cat >"$work/doc/changelog" <<EOF
airlock ($version) unstable; urgency=medium

  * Airlock $version, built by scripts/package.sh from the workspace.

 -- $maintainer  $(date -R -u -d "@$SOURCE_DATE_EPOCH")
EOF
gzip -9n "$work/doc/changelog"

# Man pages: the CLI's from its --help (help2man), the app's written by hand.
help2man -N --no-discard-stderr -n "Airlock's MCP host from a terminal" "$cli" >"$work/man/airlock.1"
cp packaging/linux/airlock-desktop.1 "$work/man/"
gzip -9n "$work/man/airlock.1" "$work/man/airlock-desktop.1"

# Overlay on tauri.conf.json: paths that depend on this build.
SHLIBS="$shlibs" CLI="$cli" WORK="$work" python3 - "$work/overlay.json" <<'PY'
import json, os, re, sys
conf = json.load(open("src-tauri/tauri.conf.json"))
deb = conf["bundle"]["linux"]["deb"]
deps = [d.strip() for d in os.environ["SHLIBS"].split(",") if d.strip()]
names = {re.split(r"[ (]", d, 1)[0] for d in deps}
deps += [d for d in deb.get("depends", []) if re.split(r"[ (]", d, 1)[0] not in names]
work = os.environ["WORK"]
both = {
    "/usr/bin/airlock": os.environ["CLI"],
    "/usr/share/man/man1/airlock.1.gz": f"{work}/man/airlock.1.gz",
    "/usr/share/man/man1/airlock-desktop.1.gz": f"{work}/man/airlock-desktop.1.gz",
}
files_deb = dict(deb.get("files", {}), **both,
                 **{"/usr/share/doc/airlock/changelog.gz": f"{work}/doc/changelog.gz"})
files_rpm = dict(conf["bundle"]["linux"]["rpm"].get("files", {}), **both)
overlay = {"bundle": {"linux": {
    "deb": {"depends": deps, "files": files_deb},
    "rpm": {"files": files_rpm},
}}}
json.dump(overlay, open(sys.argv[1], "w"), indent=2)
PY

bundle_dir="$target_dir/release/bundle"
rm -rf "$bundle_dir/deb" "$bundle_dir/rpm"
(cd src-tauri && "${tauri[@]}" bundle --ci --bundles deb,rpm --config "$work/overlay.json") >"$work/bundle.log" 2>&1 \
  || { cat "$work/bundle.log" >&2; exit 1; }

# The bundler names the files after productName ("Airlock_..."); copy them
# under the names Debian and RPM tools use (package_version_arch.deb,
# name-version-release.arch.rpm).
mkdir -p "$out"
rm -f "$out"/airlock_*.deb "$out"/airlock-*.rpm
built_deb=$(find "$bundle_dir/deb" -maxdepth 1 -name '*.deb' | head -1)
built_rpm=$(find "$bundle_dir/rpm" -maxdepth 1 -name '*.rpm' | head -1)
cp "$built_deb" "$out/$(dpkg-deb -f "$built_deb" Package)_${version}_$(dpkg-deb -f "$built_deb" Architecture).deb"
cp "$built_rpm" "$out/$(rpm -qp --qf '%{NAME}-%{VERSION}-%{RELEASE}.%{ARCH}' "$built_rpm" 2>/dev/null).rpm"
step bundle "$(cd "$out" && for f in airlock_*.deb airlock-*.rpm; do printf '%s (%s) ' "$f" "$(du -h "$f" | cut -f1)"; done)in ${out#"$root"/}/"

# ---- 5. report -----------------------------------------------------------------
mib() { awk -v b="$1" 'BEGIN {printf "%.1f MiB", b / 1048576}'; }
deb=$(ls "$out"/airlock_*.deb)
rpm_file=$(ls "$out"/airlock-*.rpm)
echo "package: sizes:"
echo "  $(basename "$deb"): $(mib "$(stat -c %s "$deb")") (installed: $(mib $(($(dpkg-deb -f "$deb" Installed-Size) * 1024))))"
echo "  $(basename "$rpm_file"): $(mib "$(stat -c %s "$rpm_file")")"
echo "  binaries: airlock-desktop $(mib "$(stat -c %s "$app")"), airlock $(mib "$(stat -c %s "$cli")")"
echo "package: Depends: $(dpkg-deb -f "$deb" Depends)"
echo "package: done in $((SECONDS - t_start)) s (release build ${build_secs} s)"
