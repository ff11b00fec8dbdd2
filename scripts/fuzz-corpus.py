#!/usr/bin/env python3
"""The saved fuzz corpus of a target, packed into one text file.

    python3 scripts/fuzz-corpus.py unpack PACK DIR
    python3 scripts/fuzz-corpus.py pack DIR PACK [--seeds SEEDS] [--control CTL --max N]

A libFuzzer corpus is thousands of small files (url_inspect's reaches every
edge it knows with about 6,000); in git that is thousands of 4 KB blocks, so
fuzz/corpus/TARGET.pack keeps them as one input per line instead, and
fuzz/corpus/TARGET/ only the hand-written seeds. scripts/fuzz.sh unpacks the
pack for a run and packs the merged corpus after it; the replay test
(fuzz/tests/corpus.rs) reads the pack directly.

The format, line by line: a line starting with `#` is a comment; every
other line is one input, printable ASCII as is except the backslash, and
`\\\\`, `\\n` or `\\xHH` for everything else (so bidi controls and other
invisible characters never reach a reviewer's screen raw; `#` is `\\x23`
at the start of an input). Lines are sorted, so a new run's diff shows what
it added and dropped.

`unpack` writes each input to DIR, named by its SHA-1 as libFuzzer names
files. `pack` packs every file of DIR except the seeds (files of SEEDS, by
name or content; they stay files). With --control (a libFuzzer `-merge_control_file` of the
merge that made DIR) and --max N, at most N inputs are kept: greedily, the
one that adds the most features not yet covered by the seeds and the inputs
already kept (the smallest first on a tie), until N or nothing adds more. A
target whose every input is costly (server_messages: a session with SQLite
each) keeps the replay fast that way.
"""
import argparse
import hashlib
import sys
from pathlib import Path


def escape(data: bytes) -> str:
    out = []
    for i, b in enumerate(data):
        if b == 0x5C:
            out.append("\\\\")
        elif b == 0x0A:
            out.append("\\n")
        elif 0x20 <= b <= 0x7E and not (i == 0 and b == 0x23):
            out.append(chr(b))
        else:
            out.append(f"\\x{b:02x}")
    return "".join(out)


def unescape(line: str) -> bytes:
    out = bytearray()
    i = 0
    while i < len(line):
        c = line[i]
        if c != "\\":
            out.append(ord(c))
            i += 1
        elif line[i + 1:i + 2] == "\\":
            out.append(0x5C)
            i += 2
        elif line[i + 1:i + 2] == "n":
            out.append(0x0A)
            i += 2
        elif line[i + 1:i + 2] == "x":
            out.append(int(line[i + 2:i + 4], 16))
            i += 4
        else:
            raise ValueError(f"bad escape at {i}: {line[:80]!r}")
    return bytes(out)


def read_pack(pack: Path) -> list[bytes]:
    if not pack.exists():
        return []
    lines = pack.read_text(encoding="ascii").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [unescape(line) for line in lines if not line.startswith("#")]


def features(control: Path) -> dict[str, set[int]]:
    """File name -> its features, from a merge control file."""
    lines = control.read_text().splitlines()
    n = int(lines[0])
    names = [Path(p).name for p in lines[2:2 + n]]
    out: dict[str, set[int]] = {}
    for line in lines[2 + n:]:
        parts = line.split()
        if parts and parts[0] == "FT":
            out[names[int(parts[1])]] = set(map(int, parts[2:]))
    return out


def select(files: dict[str, bytes], seeds: set[str], ft: dict[str, set[int]], cap: int) -> list[str]:
    covered: set[int] = set()
    for s in seeds:
        covered |= ft.get(s, set())
    left = {n: ft.get(n, set()) - covered for n in files}
    kept: list[str] = []
    while left and len(kept) < cap:
        best = max(left, key=lambda n: (len(left[n]), -len(files[n]), n))
        if not left[best]:
            break
        kept.append(best)
        covered |= left.pop(best)
        for n in left:
            left[n] -= covered
    return kept


def pack(args) -> None:
    seed_files = list(Path(args.seeds).iterdir()) if args.seeds else []
    seeds = {p.name for p in seed_files}
    seed_data = {p.read_bytes() for p in seed_files}
    files = {p.name: p.read_bytes() for p in Path(args.dir).iterdir()
             if p.is_file() and p.name not in seeds}
    files = {n: d for n, d in files.items() if d not in seed_data}
    names = list(files)
    if args.max is not None and len(names) > args.max:
        if not args.control:
            sys.exit("fuzz-corpus: --max needs --control")
        names = select(files, seeds, features(Path(args.control)), args.max)
    lines = sorted({escape(files[n]) for n in names})
    header = (f"# fuzz corpus of {Path(args.pack).stem}: {len(lines)} inputs, one a line "
              "(format: scripts/fuzz-corpus.py); the hand-written seeds are files in "
              f"{Path(args.pack).stem}/\n")
    Path(args.pack).write_text(header + "".join(line + "\n" for line in lines), encoding="ascii")
    print(f"{args.pack}: {len(lines)} inputs of {len(files)}")


def unpack(args) -> None:
    out = Path(args.dir)
    out.mkdir(parents=True, exist_ok=True)
    inputs = read_pack(Path(args.pack))
    for data in inputs:
        (out / hashlib.sha1(data).hexdigest()).write_bytes(data)
    print(f"{args.pack}: {len(inputs)} inputs to {out}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    u = sub.add_parser("unpack")
    u.add_argument("pack")
    u.add_argument("dir")
    p = sub.add_parser("pack")
    p.add_argument("dir")
    p.add_argument("pack")
    p.add_argument("--seeds")
    p.add_argument("--control")
    p.add_argument("--max", type=int)
    args = ap.parse_args()
    (pack if args.cmd == "pack" else unpack)(args)


if __name__ == "__main__":
    main()
