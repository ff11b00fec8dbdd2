#!/usr/bin/env python3
"""No import circles inside a crate (issue 27): for each crate of the
workspace, read its module tree from the files (`mod x;` declarations,
`x.rs` / `x/mod.rs`), every path a module names (`crate::a::b`,
`super::c`, `self::d`, in `use` items and in expressions), and find the
module each path reaches. A reference from module A to module B becomes an
edge between the two children of their lowest common ancestor that hold A
and B (siblings): a parent naming its child, or a child naming its parent,
is the module tree itself, not a circle. Each set of siblings must form no
cycle. Test modules (`#[cfg(test)]`) are left out: tests may reach across.

The circles that are known and not undone yet are listed, one a line, in
scripts/cycles-known.txt (a ratchet): a new circle fails, and so does a
listed one that is gone (take its line out). Prints each circle (with a
file and line for each edge).

    python3 scripts/check-cycles.py [--write-known] [-v] [CRATE_DIR ...]   (default: every crate)

`-v` prints every circle found, known ones too, with the file and line of
each edge; naming crates compares only their lines of the known list.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CRATE_DIRS = ["crates/" + p.name for p in sorted((ROOT / "crates").iterdir()) if (p / "Cargo.toml").exists()]
CRATE_DIRS += ["src-tauri", "xtask", "fuzz"]

KNOWN = ROOT / "scripts" / "cycles-known.txt"
TEST_MOD = re.compile(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([a-z_][a-z0-9_]*)\s*;")
MOD_DECL = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([a-z_][a-z0-9_]*)\s*;", re.M)
PATH_ATTR = re.compile(r'#\[path\s*=\s*"([^"]+)"\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([a-z_][a-z0-9_]*)\s*;')
# A path starting at crate, super or self, then identifiers (stops at `{`).
REF = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
COMMENT = re.compile(r"//[^\n]*")


def strip(text: str) -> str:
    """Comments and string literals removed (doc links are not imports)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = COMMENT.sub("", text)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text)


def module_tree(src_root: Path) -> dict[tuple[str, ...], Path]:
    """Module path -> its file, from the crate's root files."""
    modules: dict[tuple[str, ...], Path] = {}

    def walk(path: tuple[str, ...], file: Path, is_dir_owner: bool) -> None:
        modules[path] = file
        text = file.read_text(encoding="utf-8", errors="replace")
        base = file.parent if is_dir_owner else file.parent / file.stem
        explicit = {name: rel for rel, name in PATH_ATTR.findall(text)}
        tests = set(TEST_MOD.findall(text))
        for name in MOD_DECL.findall(strip(text)):
            if name in tests:
                continue
            if name in explicit:
                child = (file.parent / explicit[name]).resolve()
                if child.exists():
                    walk(path + (name,), child, child.name == "mod.rs")
                continue
            for cand, owner in ((base / f"{name}.rs", False), (base / name / "mod.rs", True)):
                if cand.exists():
                    walk(path + (name,), cand, owner)
                    break

    for root in ("lib.rs", "main.rs"):
        f = src_root / root
        if f.exists():
            walk((), f, True)
    for f in sorted((src_root / "bin").glob("*.rs")) if (src_root / "bin").exists() else []:
        walk((f"bin:{f.stem}",), f, False)
    return modules


def resolve(modules, here: tuple[str, ...], head: str, rest: list[str]):
    """The deepest module a path reaches, or None."""
    if head == "crate":
        start: tuple[str, ...] = ()
        if here and here[0].startswith("bin:"):
            start = here[:1]
    elif head == "self":
        start = here
    else:  # super, maybe repeated in `rest`
        start = here[:-1]
        while rest and rest[0] == "super":
            start = start[:-1]
            rest = rest[1:]
    best = start if start in modules else None
    cur = start
    for part in rest:
        cur = cur + (part,)
        if cur in modules:
            best = cur
        else:
            break
    return best


def without_tests(text: str) -> str:
    """Inline `#[cfg(test)] mod x { ... }` blocks removed (brace-matched)."""
    out, i = [], 0
    pattern = re.compile(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+[a-z_][a-z0-9_]*\s*\{")
    while True:
        m = pattern.search(text, i)
        if not m:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i:m.start()])
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        i = j


def check(crate_dir: str) -> list[str]:
    src = ROOT / crate_dir / "src"
    if not src.exists():
        return []
    modules = module_tree(src)
    # edges[parent][(a, b)] = where
    edges: dict[tuple[str, ...], dict[tuple[str, str], str]] = {}
    for path, file in modules.items():
        raw = file.read_text(encoding="utf-8", errors="replace")
        text = without_tests(strip(raw))
        lines = text.splitlines()
        for no, line in enumerate(lines, 1):
            for head, tail in REF.findall(line):
                rest = [p for p in tail.split("::") if p]
                target = resolve(modules, path, head, rest)
                if target is None or target == path:
                    continue
                # Lowest common ancestor, and the siblings under it.
                n = 0
                while n < min(len(path), len(target)) and path[n] == target[n]:
                    n += 1
                if n == len(path) or n == len(target):
                    continue  # parent <-> child: the tree itself
                parent = path[:n]
                a, b = path[n], target[n]
                where = f"{file.relative_to(ROOT)}:{no}"
                edges.setdefault(parent, {}).setdefault((a, b), where)
    problems = []
    for parent, es in edges.items():
        graph: dict[str, set[str]] = {}
        for a, b in es:
            graph.setdefault(a, set()).add(b)
        # Tarjan-free: find cycles by DFS from each node (small graphs).
        seen_cycles = set()
        for start in sorted(graph):
            stack = [(start, [start])]
            while stack:
                node, trail = stack.pop()
                for nxt in sorted(graph.get(node, ())):
                    if nxt == start:
                        cyc = trail
                        key = frozenset(cyc)
                        if key not in seen_cycles:
                            seen_cycles.add(key)
                            scope = "::".join(parent) or "crate"
                            hops = " -> ".join(cyc + [start])
                            wheres = ", ".join(es[(cyc[i], (cyc + [start])[i + 1])] for i in range(len(cyc)))
                            problems.append((f"{crate_dir} ({scope}): {hops}", wheres))
                    elif nxt not in trail and len(trail) < 12:
                        stack.append((nxt, trail + [nxt]))
    return problems


def main() -> int:
    args = sys.argv[1:]
    write = "--write-known" in args
    verbose = "-v" in args
    named = [a.rstrip("/") for a in args if a not in ("--write-known", "-v")]
    dirs = named or CRATE_DIRS
    found = {key: wheres for d in dirs for key, wheres in check(d)}
    if write:
        KNOWN.write_text("".join(k + "\n" for k in sorted(found)))
        print(f"import circles: {len(found)} written to {KNOWN.relative_to(ROOT)}")
        return 0
    known = set()
    if KNOWN.exists():
        known = {l.strip() for l in KNOWN.read_text().splitlines() if l.strip() and not l.startswith("#")}
    if named:
        known = {k for k in known if k.split(" (", 1)[0] in dirs}
    if verbose:
        for k in sorted(found):
            print(f"  {k}  [{found[k]}]")
    new = sorted(k for k in found if k not in known)
    gone = sorted(k for k in known if k not in found)
    for k in new:
        print(f"  new: {k}  [{found[k]}]")
    for k in gone:
        print(f"  undone (take its line out of {KNOWN.relative_to(ROOT)}): {k}")
    left = len(found) - len(new)
    if new or gone:
        print(f"import circles: {len(new)} new, {len(gone)} undone and still listed, {left} known left")
        return 1
    print(f"import circles: none new in {len(dirs)} crates ({left} known left to undo: {KNOWN.relative_to(ROOT)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
