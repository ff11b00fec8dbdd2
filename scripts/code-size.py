#!/usr/bin/env python3
"""Print the largest source files and the longest Rust functions.

    python3 scripts/code-size.py [--top N] [--rev GIT_REV] [--check]

Counts lines of Rust, Svelte and TypeScript source (not generated bindings,
not node_modules, not target/). A function is measured from its `fn` line
to the closing brace at the same indentation. With --rev, measures the tree
of that git revision instead of the working tree. With --check, exits 1 when
a non-test source file is over 600 lines or a function over 120 lines (the
aims of issue 10).
"""
import argparse
import re
import subprocess
import sys
from pathlib import Path

MAX_FILE = 600
MAX_FN = 120
EXTS = (".rs", ".svelte", ".ts")
FN = re.compile(r"^(\s*)(pub(\([^)]*\))?\s+)?(async\s+)?(unsafe\s+)?(const\s+)?fn\s+(\w+)")


def files(rev):
    if rev:
        out = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev],
                             capture_output=True, text=True, check=True).stdout
        names = out.split()
    else:
        out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                             capture_output=True, text=True, check=True).stdout
        names = out.split()
    for n in names:
        if not n.endswith(EXTS) or "bindings/" in n or "node_modules" in n or n.endswith(".d.ts"):
            continue
        if rev:
            text = subprocess.run(["git", "show", f"{rev}:{n}"], capture_output=True,
                                  text=True).stdout
        else:
            p = Path(n)
            if not p.exists():
                continue
            text = p.read_text(errors="replace")
        yield n, text


def is_test_file(name):
    return (
        "/tests/" in name
        or name.startswith("tests/")
        or name.endswith(".test.ts")
        or name.endswith("_tests.rs")
        or name.endswith("/tests.rs")
    )


def functions(name, text):
    lines = text.splitlines()
    in_tests = False
    for i, line in enumerate(lines):
        if line.startswith("mod tests") or line.startswith("#[cfg(test)]"):
            in_tests = True
        m = FN.match(line)
        if not m or line.rstrip().endswith(";"):
            continue
        indent = m.group(1)
        for j in range(i + 1, len(lines)):
            if lines[j].startswith(indent + "}") and not lines[j].startswith(indent + "} else"):
                yield m.group(7), i + 1, j - i + 1, in_tests
                break


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--rev")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    sizes, fns = [], []
    for name, text in files(a.rev):
        sizes.append((len(text.splitlines()), name))
        if name.endswith(".rs"):
            for f, line, n, in_tests in functions(name, text):
                fns.append((n, f"{name}:{line} {f}", is_test_file(name) or in_tests))
    sizes.sort(reverse=True)
    fns.sort(reverse=True)
    label = a.rev or "working tree"
    print(f"largest files ({label}):")
    for n, name in sizes[: a.top]:
        print(f"  {n:6d}  {name}{'  (tests)' if is_test_file(name) else ''}")
    print(f"longest functions ({label}):")
    for n, where, test in fns[: a.top]:
        print(f"  {n:6d}  {where}{'  (tests)' if test else ''}")
    big = [(n, f) for n, f in sizes if n > MAX_FILE and not is_test_file(f)]
    long = [(n, w) for n, w, t in fns if n > MAX_FN and not t]
    print(f"source files over {MAX_FILE} lines: {len(big)}; functions over {MAX_FN} lines: {len(long)}")
    if a.check and (big or long):
        for n, f in big + long:
            print(f"  over: {n} {f}")
        sys.exit(1)


if __name__ == "__main__":
    main()
