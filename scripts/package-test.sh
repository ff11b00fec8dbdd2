#!/usr/bin/env bash
# Test the Linux packages by installing them, on a machine you may change
# (needs root or passwordless sudo; installs and then purges the `airlock`
# package, so do not run it where Airlock is installed from a package).
#
#   bash scripts/package-test.sh [--no-build]
#
# Builds the packages (scripts/package.sh; --no-build reuses packages/), then:
#   .deb  lintian (no errors; kept warnings are explained in
#         packaging/linux/lintian-overrides), `apt-get install ./airlock_*.deb`
#         (dependencies from the Debian mirror), `airlock --version` against
#         the package version, desktop-file-validate, every hicolor icon,
#         the app started from its desktop entry's Exec line under Xvfb: its
#         window is found, its WM_CLASS matches StartupWMClass, a screenshot
#         goes to test-artifacts/package-window.png; then `apt-get purge` and
#         every file `dpkg -L` listed is gone, while the user's data dir stays.
#   .rpm  metadata (`rpm -qip`) and contents (`rpm -qlp`): the same files, the
#         binaries executable, the dependencies named.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export CI="${CI:-true}" DEBIAN_FRONTEND=noninteractive

build=1
for arg in "$@"; do
  case "$arg" in
    --no-build) build=0 ;;
    -h | --help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 [--no-build]" >&2; exit 2 ;;
  esac
done
sudo_cmd=(); [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo -n)
apt_opts=(-y -q -o DPkg::Lock::Timeout=300)

pass=0
ok() { pass=$((pass + 1)); printf 'ok   %s\n' "$*"; }
fail() { printf 'FAIL %s\n' "$*" >&2; exit 1; }
section() { printf '\n== %s\n' "$1"; }

# ---- tools ---------------------------------------------------------------------
need=()
for tool in lintian:lintian rpm:rpm desktop-file-validate:desktop-file-utils xprop:x11-utils \
  xdotool:xdotool import:imagemagick xvfb-run:xvfb dbus-run-session:dbus; do
  command -v "${tool%%:*}" >/dev/null || need+=("${tool#*:}")
done
if [[ ${#need[@]} -gt 0 ]]; then
  "${sudo_cmd[@]}" apt-get update -q >/dev/null
  "${sudo_cmd[@]}" apt-get install "${apt_opts[@]}" --no-install-recommends "${need[@]}" >/dev/null
  echo "installed ${need[*]}"
fi

if [[ $build -eq 1 ]]; then
  section "build (scripts/package.sh)"
  bash scripts/package.sh
fi
shopt -s nullglob
debs=(packages/airlock_*.deb)
rpms=(packages/airlock-*.rpm)
shopt -u nullglob
[[ ${#debs[@]} -eq 1 && ${#rpms[@]} -eq 1 ]] || fail "expected one .deb and one .rpm in packages/ (run scripts/package.sh)"
deb=${debs[0]} rpm_file=${rpms[0]}
version=$(dpkg-deb -f "$deb" Version)
revisions="2026-07-28, 2025-11-25"
icon_sizes=(16 22 24 32 48 64 128 256 512)
artifacts="$root/test-artifacts"
mkdir -p "$artifacts"

# ---- .deb metadata and lintian -------------------------------------------------
section "deb: metadata and lintian"
dpkg-deb -f "$deb" Package Version Architecture Maintainer Installed-Size Section Depends Recommends Homepage
for field in Package Version Maintainer Homepage Description; do
  [[ -n "$(dpkg-deb -f "$deb" "$field")" ]] || fail "deb has no $field"
done
[[ "$(dpkg-deb -f "$deb" Package)" == airlock ]] || fail "deb package name is not airlock"
depends=$(dpkg-deb -f "$deb" Depends)
for dep in libwebkit2gtk-4.1-0 libgtk-3-0 libayatana-appindicator3-1 libc6 xdg-utils bubblewrap; do
  grep -qE "(^|, )${dep}( |,|$)" <<<"$depends" || fail "Depends lacks $dep: $depends"
done
[[ "$(dpkg-deb -f "$deb" Recommends)" == *gnome-keyring* ]] || fail "Recommends lacks a Secret Service"
ok "deb metadata: airlock $version, Depends WebKitGTK 4.1, GTK 3, appindicator, libc, xdg-utils, bubblewrap (servers' rooms); Recommends a Secret Service"
lintian_rc=0
lintian_out=$(lintian --fail-on error --display-info --pedantic "$deb" 2>&1) || lintian_rc=$?
lintian_out=$(grep -v '^running with root' <<<"$lintian_out" || true)
if [[ -n "$lintian_out" ]]; then echo "$lintian_out"; fi
[[ $lintian_rc -eq 0 ]] || fail "lintian reports errors (exit $lintian_rc)"
ok "lintian: no errors ($(grep -c '^W:' <<<"$lintian_out" || true) warnings, $(grep -c '^[IP]:' <<<"$lintian_out" || true) info/pedantic; overridden tags are explained in packaging/linux/lintian-overrides)"

# ---- .rpm metadata and contents --------------------------------------------------
section "rpm: metadata and contents"
rpm -qip "$rpm_file" 2>/dev/null
rpm_q() { rpm -qp --qf "$1" "$rpm_file" 2>/dev/null; }
[[ "$(rpm_q '%{NAME}')" == airlock ]] || fail "rpm name"
[[ "$(rpm_q '%{VERSION}')" == "$version" ]] || fail "rpm version $(rpm_q '%{VERSION}') != deb version $version"
[[ "$(rpm_q '%{LICENSE}')" == Apache-2.0 ]] || fail "rpm license"
[[ -n "$(rpm_q '%{URL}')" && -n "$(rpm_q '%{SUMMARY}')" ]] || fail "rpm URL or summary missing"
rpm_requires=$(rpm -qp --requires "$rpm_file" 2>/dev/null)
# Shared-library requirements (any distribution's package providing them).
for dep in 'libwebkit2gtk-4.1.so.0()(64bit)' 'libgtk-3.so.0()(64bit)' \
  'libayatana-appindicator3.so.1()(64bit)' xdg-utils bubblewrap; do
  grep -qx "$dep" <<<"$rpm_requires" || fail "rpm Requires lacks $dep"
done
rpm_list=$(rpm -qlp "$rpm_file" 2>/dev/null)
echo "$rpm_list"
rpm_expect=(/usr/bin/airlock-desktop /usr/bin/airlock /usr/share/applications/Airlock.desktop
  /usr/share/licenses/airlock/LICENSE /usr/share/man/man1/airlock.1.gz /usr/share/man/man1/airlock-desktop.1.gz)
for n in "${icon_sizes[@]}"; do rpm_expect+=("/usr/share/icons/hicolor/${n}x${n}/apps/airlock-desktop.png"); done
for f in "${rpm_expect[@]}"; do grep -qx "$f" <<<"$rpm_list" || fail "rpm lacks $f"; done
for b in /usr/bin/airlock-desktop /usr/bin/airlock; do
  mode=$(rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$rpm_file" 2>/dev/null | awk -v f="$b" '$2 == f {print $1}')
  [[ "$mode" == -rwxr-xr-x ]] || fail "rpm: $b has mode $mode"
done
ok "rpm: airlock $version, Apache-2.0, Requires WebKitGTK 4.1, GTK 3, appindicator, xdg-utils, bubblewrap; both binaries (0755), desktop entry, ${#icon_sizes[@]} icons, man pages, license"

# ---- install ----------------------------------------------------------------------
section "deb: install with apt-get"
if dpkg-query -W -f='${Status}' airlock 2>/dev/null | grep -q installed; then
  echo "airlock was installed already: purging it first"
  "${sudo_cmd[@]}" apt-get purge "${apt_opts[@]}" airlock >/dev/null
fi
home=$(mktemp -d)
cleanup() {
  if dpkg-query -W -f='${Status}' airlock 2>/dev/null | grep -q installed; then
    "${sudo_cmd[@]}" apt-get purge "${apt_opts[@]}" airlock >/dev/null 2>&1 || true
  fi
  rm -rf "$home"
}
trap cleanup EXIT
(cd "$(dirname "$deb")" && "${sudo_cmd[@]}" apt-get install "${apt_opts[@]}" "./$(basename "$deb")") | tail -3
dpkg -L airlock >"$home/files.list"
ok "installed: $(wc -l <"$home/files.list") paths (dpkg -L)"

[[ "$(command -v airlock)" == /usr/bin/airlock ]] || fail "airlock is not /usr/bin/airlock on PATH"
got=$(airlock --version)
[[ "$got" == "airlock $version (MCP $revisions)" ]] || fail "airlock --version: $got (package $version)"
ok "airlock --version: $got"

desktop=/usr/share/applications/Airlock.desktop
[[ -f $desktop ]] || fail "no desktop entry $desktop"
cat "$desktop"
desktop-file-validate "$desktop" || fail "desktop-file-validate $desktop"
entry() { sed -n "s/^$1=//p" "$desktop" | head -1; }
[[ "$(entry Categories)" == *Development* ]] || fail "desktop entry Categories"
ok "desktop entry valid (desktop-file-validate), Categories=$(entry Categories), StartupWMClass=$(entry StartupWMClass)"

icon=$(entry Icon)
for n in "${icon_sizes[@]}"; do
  f="/usr/share/icons/hicolor/${n}x${n}/apps/$icon.png"
  [[ -f $f ]] || fail "missing icon $f"
  [[ "$(identify -format '%wx%h' "$f")" == "${n}x${n}" ]] || fail "$f is not ${n}x${n}"
done
ok "icons: $icon.png in hicolor ${icon_sizes[*]} (each its size)"
for f in /usr/share/doc/airlock/copyright /usr/share/doc/airlock/changelog.gz /usr/bin/airlock-desktop \
  /usr/share/man/man1/airlock.1.gz /usr/share/man/man1/airlock-desktop.1.gz; do
  [[ -f $f ]] || fail "missing $f"
done
{ man -w airlock && man -w airlock-desktop; } >/dev/null || fail "man cannot find the man pages"
ok "license (/usr/share/doc/airlock/copyright), changelog, man pages, /usr/bin/airlock-desktop"

# ---- launch from the desktop entry --------------------------------------------------
section "deb: launch from the desktop entry's Exec line under Xvfb"
exec_line=$(entry Exec | sed 's/ *%[fFuUick]//g')
echo "Exec=$(entry Exec) -> $exec_line"
export HOME="$home/home" XDG_CONFIG_HOME="$home/home/.config" XDG_DATA_HOME="$home/home/.local/share" \
  XDG_CACHE_HOME="$home/home/.cache" XDG_RUNTIME_DIR="$home/run"
mkdir -p "$HOME" "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
unset AIRLOCK_DATA_DIR
shot="$artifacts/package-window.png"
rm -f "$shot"
# shellcheck disable=SC2016 # expanded by the inner shell
EXEC_LINE="$exec_line" WM_EXPECT="$(entry StartupWMClass)" SHOT="$shot" \
  xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- bash -c '
  set -euo pipefail
  # As a launcher does: the Exec line, split on spaces (no field codes left).
  read -r -a argv <<<"$EXEC_LINE"
  "${argv[@]}" >"$HOME/app.log" 2>&1 &
  pid=$!
  wid=""
  for _ in $(seq 300); do
    wid=$(xdotool search --onlyvisible --name "^Airlock\$" 2>/dev/null | head -1 || true)
    [[ -n $wid ]] && break
    kill -0 $pid 2>/dev/null || { cat "$HOME/app.log" >&2; echo "the app exited" >&2; exit 1; }
    sleep 0.1
  done
  [[ -n $wid ]] || { cat "$HOME/app.log" >&2; echo "no window titled Airlock after 30 s" >&2; exit 1; }
  echo "window $wid: $(xdotool getwindowname "$wid"), $(xdotool getwindowgeometry "$wid" | tr -s "\n " " ")"
  class=$(xprop -id "$wid" WM_CLASS)
  echo "$class"
  [[ "$class" == *"\"$WM_EXPECT\""* ]] || { echo "WM_CLASS does not name StartupWMClass=$WM_EXPECT" >&2; exit 1; }
  sleep 4 # the page paints its first frames, the core opens its database
  import -window root "$SHOT"
  kill $pid; wait $pid 2>/dev/null || true
'
colors=$(identify -format '%k' "$shot")
[[ $colors -gt 50 ]] || fail "the screenshot looks blank ($colors colors): $shot"
ok "window found, WM_CLASS matches StartupWMClass; screenshot $shot ($colors colors)"
data_dir="$XDG_DATA_HOME/airlock"
[[ -f "$data_dir/airlock.sqlite3" ]] || fail "the app made no database in $data_dir"
ok "user data in $data_dir"

# ---- purge -------------------------------------------------------------------------
section "deb: purge"
"${sudo_cmd[@]}" apt-get purge "${apt_opts[@]}" airlock | tail -2
! dpkg-query -W -f='${Status}' airlock 2>/dev/null | grep -q installed || fail "airlock still installed"
left=()
while IFS= read -r path; do
  # Directories other packages share (/usr/share/icons/hicolor/...) may stay.
  if [[ -e "$path" && ! -d "$path" ]] || [[ -d "$path" && "$path" == */airlock* ]]; then left+=("$path"); fi
done <"$home/files.list"
[[ ${#left[@]} -eq 0 ]] || fail "left behind after purge: ${left[*]}"
ok "purged: none of the $(grep -c . "$home/files.list") listed paths remain (shared directories aside)"
[[ -f "$data_dir/airlock.sqlite3" ]] || fail "purge removed the user's data dir"
ok "the user's data dir stays ($data_dir)"

printf '\npackage-test: %d checks passed\n' "$pass"
