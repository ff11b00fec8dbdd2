#!/bin/sh
# The linker of this workspace's Linux builds (.cargo/config.toml): the C
# compiler with mold's `ld` first on its search path when mold is installed
# (scripts/setup.sh installs it; a debug link of the desktop app takes about
# a third of the time it takes with the system's ld; `-B` works with every
# gcc, `-fuse-ld=mold` only from gcc 12), else the C compiler as it is.
for dir in /usr/libexec/mold /usr/local/libexec/mold; do
  if [ -x "$dir/ld" ]; then
    exec cc -B"$dir" "$@"
  fi
done
exec cc "$@"
