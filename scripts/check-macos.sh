#!/usr/bin/env bash
# Compile-check the whole workspace, desktop shell included, for macOS
# (aarch64-apple-darwin and x86_64-apple-darwin): `cargo clippy -D warnings`,
# which type-checks every crate and runs each build script. Nothing is
# linked and nothing runs: this machine has no macOS SDK and no Mac. The C
# parts (SQLite, aws-lc, ring) are compiled by zig's C toolchain (PyPI
# `ziglang`), which carries the macOS headers they need.
#
#   bash scripts/check-macos.sh [--target aarch64-apple-darwin|x86_64-apple-darwin]...
#
# Installs what is missing first (rustup targets; ziglang from PyPI, pinned,
# in a venv under ~/.cache/airlock), idempotently and without prompts. Cold:
# about 8 min per target on 2 cores; once cached, a few seconds each. Its own
# command (cargo xtask check-macos), not part of scripts/lint.sh: a fresh
# machine would spend a quarter of an hour on it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

# The one place that names the zig version used for the macOS check.
ziglang_version=0.17.1

targets=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --target) targets+=("$2"); shift 2 ;;
    -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "check-macos: unknown argument: $1" >&2; exit 2 ;;
  esac
done
[[ ${#targets[@]} -gt 0 ]] || targets=(aarch64-apple-darwin x86_64-apple-darwin)

say() { printf 'check-macos: %s\n' "$*"; }

# ---- what the check needs ----------------------------------------------------
installed=$(rustup target list --installed)
for t in "${targets[@]}"; do
  if ! grep -qx "$t" <<<"$installed"; then
    rustup target add "$t" >/dev/null
    say "rustup target add $t"
  fi
done
# zig in a venv of its own (nothing installed into the system's Python),
# one per pinned version, kept across checkouts.
venv="${XDG_CACHE_HOME:-$HOME/.cache}/airlock/ziglang-$ziglang_version"
zig_python="$venv/bin/python3"
if ! "$zig_python" -m ziglang version >/dev/null 2>&1; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$zig_python" -m pip install -q --disable-pip-version-check --no-input "ziglang==$ziglang_version"
  say "ziglang==$ziglang_version installed in $venv"
fi

# cc-rs adds -arch and --target for Apple targets; zig takes the target
# from -target instead, so the wrapper drops them. The wrappers keep one
# path (in the target dir): a new path would make every C part build again.
target_dir=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
wrappers="$target_dir/macos-zig-cc"
mkdir -p "$wrappers"
cat >"$wrappers/ar" <<EOF
#!/usr/bin/env bash
exec "$zig_python" -m ziglang ar "\$@"
EOF
for t in "${targets[@]}"; do
  case "$t" in
    aarch64-apple-darwin) zig_target=aarch64-macos ;;
    x86_64-apple-darwin) zig_target=x86_64-macos ;;
    *) echo "check-macos: not a macOS target: $t" >&2; exit 2 ;;
  esac
  cat >"$wrappers/cc-$t" <<EOF
#!/usr/bin/env bash
args=()
skip=0
for a in "\$@"; do
  if [[ \$skip -eq 1 ]]; then skip=0; continue; fi
  case "\$a" in
    -arch) skip=1 ;;
    --target=*|-mmacosx-version-min=*) ;;
    *) args+=("\$a") ;;
  esac
done
exec "$zig_python" -m ziglang cc -target $zig_target "\${args[@]}"
EOF
done
chmod +x "$wrappers"/*

# ---- the check ---------------------------------------------------------------
failed=()
for t in "${targets[@]}"; do
  var=${t//-/_}
  t0=$SECONDS
  if env "CC_$var=$wrappers/cc-$t" "AR_$var=$wrappers/ar" CARGO_INCREMENTAL=0 \
    cargo clippy --workspace --locked --target "$t" --quiet -- -D warnings; then
    say "$t: the workspace compiles, clippy clean ($((SECONDS - t0)) s; checked, not run)"
  else
    failed+=("$t")
  fi
done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "check-macos: FAILED: ${failed[*]}" >&2
  exit 1
fi
