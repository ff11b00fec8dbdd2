#!/usr/bin/env python3
"""Consent latency of the CLI: from the moment a server's URL elicitation is
written to Airlock's pipe (tests/peers/consent_bench_peer.py timestamps the
write) to the terminal prompt being printed (`airlock call ... --consent ask`
in a pseudo-terminal; the time the question's text is read from it). Each
prompt is answered "n" (decline) at once, and the server sends the next.

The broker allows 10 requests per server per minute (limits.rs), so the
requests are spread over processes of `--per-process` each; a process's
first prompt is the one a user meets after `airlock call`.

    bash scripts/bench-consent.sh [--requests 50] [--per-process 10] [--debug]
    python3 scripts/bench-consent.py --airlock PATH [--requests 50] [--per-process 10]

Prints p50/p99/max in ms, first prompts of a process separately. A
benchmark, not a test. Wall-clock nanoseconds on both sides (same machine).
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import select
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEER = os.path.join(ROOT, "tests/peers/consent_bench_peer.py")
PYTHON = os.path.join(ROOT, "tests/peers/.venv/bin/python")
QUESTION = b"Open it in your browser?"


def pct(sorted_ms: list[float], p: float) -> float:
    if not sorted_ms:
        return float("nan")
    return sorted_ms[min(len(sorted_ms) - 1, round((len(sorted_ms) - 1) * p))]


def one_process(airlock: str, data: str, log: str, count: int) -> list[int]:
    """Run one `airlock call` in a pty; the times (ns) each prompt was read."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(airlock, [airlock, "--data-dir", data, "--consent", "ask", "--open", "none",
                           "call", "bench", "ask", "--args", json.dumps({"count": count})])
    seen: list[int] = []
    buf = b""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        r, _, _ = select.select([fd], [], [], 1.0)
        if not r:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        buf += chunk
        while QUESTION in buf:
            at = time.time_ns()
            head = buf[: buf.index(QUESTION)]
            buf = buf[buf.index(QUESTION) + len(QUESTION):]
            # An answer typed within microseconds of the question can land
            # before the prompt's own typed-ahead check, which then drops it
            # and shows the question again: answer again, count it once.
            if b"(ignored " not in head:
                seen.append(at)
            os.write(fd, b"n\r")
    os.waitpid(pid, 0)
    os.close(fd)
    return seen


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--airlock", required=True)
    ap.add_argument("--requests", type=int, default=50)
    ap.add_argument("--per-process", type=int, default=10)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "data")
        log = os.path.join(tmp, "writes.log")
        subprocess.run([a.airlock, "--data-dir", data, "servers", "add", "bench", "--command", PYTHON,
                        "--", PEER, "stdio", log], check=True, stdout=subprocess.DEVNULL)
        first: list[float] = []
        rest: list[float] = []
        left = a.requests
        while left > 0:
            n = min(a.per_process, left)
            open(log, "w").close()
            prompts = one_process(a.airlock, data, log, n)
            with open(log) as f:
                writes = [int(line.split()[1]) for line in f if line.strip()]
            if len(prompts) != n or len(writes) != n:
                print(f"expected {n} requests and prompts, got {len(writes)} writes and {len(prompts)} prompts",
                      file=sys.stderr)
                return 1
            ms = [(p - w) / 1e6 for w, p in zip(writes, prompts)]
            first.append(ms[0])
            rest.extend(ms[1:])
            left -= n
    every = sorted(first + rest)
    print(f"CLI consent latency (write of elicitation/create -> terminal prompt), {len(every)} requests, "
          f"{len(first)} processes of {a.per_process}:")
    print(f"  all:    p50 {pct(every, 0.5):.2f} ms  p99 {pct(every, 0.99):.2f} ms  max {every[-1]:.2f} ms")
    print(f"  first prompt of a process: median {statistics.median(first):.2f} ms  "
          f"max {max(first):.2f} ms  ({', '.join(f'{x:.1f}' for x in first)})")
    if rest:
        r = sorted(rest)
        print(f"  later prompts:  p50 {pct(r, 0.5):.2f} ms  p99 {pct(r, 0.99):.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
