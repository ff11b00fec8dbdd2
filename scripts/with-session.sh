#!/usr/bin/env bash
# Run a command inside a private desktop-like session:
#   - its own D-Bus session bus (dbus-run-session),
#   - a temporary XDG_DATA_HOME / XDG_RUNTIME_DIR (mode 0700), removed afterwards,
#   - an UNLOCKED gnome-keyring Secret Service (keyring crate, secret-tool work),
#   - a fresh kernel session keyring (keyctl session -) for keyutils,
#   - with AIRLOCK_SESSION_XVFB=1: also an X server (xvfb-run, 1280x800x24) and the
#     dunst notification daemon.
# Exits with the command's exit code.
#
#   scripts/with-session.sh <cmd> [args...]
#   AIRLOCK_SESSION_XVFB=1 scripts/with-session.sh cargo test -p airlock-e2e
#
# Exported to the command: XDG_DATA_HOME, XDG_RUNTIME_DIR, XDG_CONFIG_HOME,
# XDG_CACHE_HOME, DBUS_SESSION_BUS_ADDRESS, whatever gnome-keyring-daemon prints
# (GNOME 43 on Debian 12 prints nothing: its socket is $XDG_RUNTIME_DIR/keyring),
# AIRLOCK_SESSION_DIR (the temporary dir), DISPLAY under Xvfb. HOME is left alone; tests that need a private HOME
# can use "$AIRLOCK_SESSION_DIR/home" (created empty).
set -euo pipefail

if [[ $# -eq 0 ]]; then
  echo "usage: $0 <cmd> [args...]" >&2
  exit 2
fi

# Stage 2: inside dbus-run-session (and xvfb-run when asked).
if [[ "${_AIRLOCK_SESSION_INNER:-}" == 1 ]]; then
  unset _AIRLOCK_SESSION_INNER
  if [[ "${AIRLOCK_SESSION_XVFB:-0}" == 1 ]]; then
    dunst >"$AIRLOCK_SESSION_DIR/dunst.log" 2>&1 &
    dunst_pid=$!
    # Wait (up to 5 s) until dunst owns the notifications name.
    for _ in $(seq 50); do
      if dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
          org.freedesktop.DBus.NameHasOwner string:org.freedesktop.Notifications 2>/dev/null \
          | grep -q 'boolean true'; then
        break
      fi
      sleep 0.1
    done
  fi
  # Export what the daemon prints (VAR=value lines, if any).
  keyring_env=$(printf 'pw' | gnome-keyring-daemon --unlock --components=secrets)
  while IFS= read -r line; do
    if [[ "$line" =~ ^[A-Z_]+= ]]; then export "${line?}"; fi
  done <<<"$keyring_env"
  # The daemon forks away; remember its pid (owner of org.freedesktop.secrets on
  # this private bus) to stop it at the end, since it does not always exit with the bus.
  keyring_pid=$(dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.secrets 2>/dev/null \
    | awk '/uint32/ {print $2}' || true)
  # A fresh kernel session keyring too (keyutils, e.g. keyring's
  # linux-native backends, fails with a misleading NoEntry outside one).
  # keyctl prints "Joined session keyring: N" on stderr.
  wrap=()
  if command -v keyctl >/dev/null; then wrap=(keyctl session -); fi
  set +e
  "${wrap[@]}" "$@"
  rc=$?
  set -e
  # Stop the daemons started for this session.
  if [[ -n "${keyring_pid:-}" ]]; then
    kill "$keyring_pid" 2>/dev/null || true
    # Not our child: wait (bounded) until it is gone, so it writes nothing
    # into the session folder while that is removed.
    for _ in $(seq 50); do kill -0 "$keyring_pid" 2>/dev/null || break; sleep 0.1; done
  fi
  if [[ -n "${dunst_pid:-}" ]]; then
    kill "$dunst_pid" 2>/dev/null || true
    wait "$dunst_pid" 2>/dev/null || true
  fi
  exit "$rc"
fi

# Stage 1: set up the temporary dirs, then re-enter this script inside the session.
session_dir=$(mktemp -d "${TMPDIR:-/tmp}/airlock-session.XXXXXX")
# Removing the session never changes the exit status of what ran in it: a
# daemon still writing there (a keyring saved as it stops) gets a few more
# tries, then the folder is left in the temporary folder.
cleanup() {
  local i
  for i in 1 2 3 4 5; do
    rm -rf "$session_dir" 2>/dev/null && return 0
    sleep 0.2
  done
  echo "with-session: could not remove $session_dir (left behind)" >&2
  return 0
}
trap cleanup EXIT
trap "exit 130" INT
trap "exit 143" TERM
chmod 0700 "$session_dir"
mkdir -m 0700 "$session_dir/data" "$session_dir/runtime" "$session_dir/config" "$session_dir/cache" "$session_dir/home"

export AIRLOCK_SESSION_DIR="$session_dir"
export XDG_DATA_HOME="$session_dir/data"
export XDG_RUNTIME_DIR="$session_dir/runtime"
export XDG_CONFIG_HOME="$session_dir/config"
export XDG_CACHE_HOME="$session_dir/cache"
export _AIRLOCK_SESSION_INNER=1
unset DBUS_SESSION_BUS_ADDRESS GNOME_KEYRING_CONTROL

self=$(readlink -f "${BASH_SOURCE[0]}")
set +e
if [[ "${AIRLOCK_SESSION_XVFB:-0}" == 1 ]]; then
  unset DISPLAY
  xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- bash "$self" "$@"
else
  dbus-run-session -- bash "$self" "$@"
fi
rc=$?
set -e
exit "$rc"
