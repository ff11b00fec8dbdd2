#!/usr/bin/env python3
"""Run the workspace's test executables a few at a time, for test.sh.

`cargo test` runs its test executables one after another; most of ours
spend their time waiting on the processes they start (MCP servers, apps,
the daemon), so two cores can run several at once. This reads the JSON
that `cargo test --no-run --message-format=json-render-diagnostics` wrote,
runs each test executable in its own private session
(scripts/with-session.sh: its own D-Bus bus, unlocked keyring, XDG folders,
so two executables never share a notification daemon or a keychain), from
its package's folder as cargo does, JOBS at once, longest first (the times
of the last run, kept beside the build), and prints each one's whole output
when it ends, under cargo's own `Running` line, so `test result:` lines
read as cargo's. Ends with the slowest executables and the failed ones;
exits 1 when any failed or ran past its time-out.

    python3 scripts/run-tests.py ARTIFACTS.json [--jobs N] [--timeout S]
           [-- ARGS passed to every test executable]

With `--e2e FILE...` it runs the desktop end-to-end test files
(tests/e2e/*.test.mjs, for scripts/e2e.sh) the same way: each file under
`node --test` in its own private session with an X server and dunst
(AIRLOCK_SESSION_XVFB=1), so two files never share a display, a
notification daemon or a keychain; AIRLOCK_E2E_JOBS at once (default 2).

    python3 scripts/run-tests.py --e2e [--jobs N] FILE...
"""

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def executables(artifacts):
    """(name, executable, package folder) of every test executable."""
    found = []
    for line in Path(artifacts).read_text().splitlines():
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("reason") != "compiler-artifact" or not msg.get("executable"):
            continue
        if not msg.get("profile", {}).get("test"):
            continue
        target = msg["target"]
        kinds = target.get("kind", [])
        src = Path(target.get("src_path", ""))
        package_dir = Path(msg["manifest_path"]).parent
        try:
            shown = src.relative_to(package_dir)
        except ValueError:
            shown = src
        label = f"unittests {shown}" if "test" not in kinds else str(shown)
        name = f"{package_dir.name}: {label}"
        found.append((name, [msg["executable"]], package_dir))
    return found


def main():
    args = sys.argv[1:]
    passthrough = []
    if "--" in args:
        i = args.index("--")
        args, passthrough = args[:i], args[i + 1 :]
    e2e = "--e2e" in args
    if e2e:
        args.remove("--e2e")
    jobs = int(os.environ.get("AIRLOCK_E2E_JOBS" if e2e else "AIRLOCK_TEST_JOBS", "2" if e2e else "3"))
    timeout = 900.0
    artifacts = None
    files = []
    while args:
        a = args.pop(0)
        if e2e and not a.startswith("-"):
            files.append(a)
        elif a == "--jobs" and args:
            jobs = int(args.pop(0))
        elif a == "--timeout" and args:
            timeout = float(args.pop(0))
        elif artifacts is None and not a.startswith("-"):
            artifacts = a
        else:
            print(f"run-tests: unknown argument {a!r}", file=sys.stderr)
            return 2
    if artifacts is None and not files:
        print(__doc__, file=sys.stderr)
        return 2
    jobs = max(1, jobs)

    env = dict(os.environ)
    if e2e:
        e2e_dir = ROOT / "tests" / "e2e"
        node = ["node", "--test", "--test-concurrency=1", "--test-reporter=spec"]
        todo = [(f"e2e: {f}", [*node, f], e2e_dir) for f in files]
        env["AIRLOCK_SESSION_XVFB"] = "1"
        what, times_name = "test files", "airlock-e2e-times.json"
    else:
        todo = executables(artifacts)
        what, times_name = "test executables", "airlock-test-times.json"
    if not todo:
        print("run-tests: nothing to run", file=sys.stderr)
        return 1
    times_file = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / times_name
    try:
        last = json.loads(times_file.read_text())
    except (OSError, ValueError):
        last = {}
    # Longest first; one never timed counts as long.
    todo.sort(key=lambda t: -float(last.get(t[0], 1e6)))

    lock = threading.Lock()
    queue = list(todo)
    took = {}
    failed = []
    session = str(ROOT / "scripts" / "with-session.sh")

    def worker():
        while True:
            with lock:
                if not queue:
                    return
                name, argv, cwd = queue.pop(0)
            started = time.monotonic()
            with tempfile.TemporaryFile() as out:
                proc = subprocess.Popen(
                    [session, *argv, *passthrough],
                    cwd=cwd,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
                try:
                    code = proc.wait(timeout=timeout)
                    why = f"exit {code}" if code else ""
                except subprocess.TimeoutExpired:
                    try:
                        os.killpg(proc.pid, 9)
                    except OSError:
                        pass
                    proc.wait()
                    why = f"killed after {timeout:.0f} s (time-out)"
                seconds = time.monotonic() - started
                out.seek(0)
                text = out.read().decode("utf-8", "replace")
            with lock:
                took[name] = seconds
                if why:
                    failed.append(f"{name} ({why})")
                sys.stdout.write(f"\n     Running {name} ({' '.join(argv)}) [{seconds:.1f} s]\n{text}")
                if why:
                    sys.stdout.write(f"run-tests: {name}: {why}\n")
                sys.stdout.flush()

    t0 = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(min(jobs, len(todo)))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - t0

    last.update(took)
    try:
        times_file.parent.mkdir(parents=True, exist_ok=True)
        times_file.write_text(json.dumps(last, indent=1, sort_keys=True))
    except OSError:
        pass
    total = sum(took.values())
    print(f"\nrun-tests: {len(took)} {what}, {jobs} at once: {wall:.0f} s "
          f"(one after another: {total:.0f} s). Slowest:")
    for name, s in sorted(took.items(), key=lambda kv: -kv[1])[:8]:
        print(f"  {s:7.1f} s  {name}")
    if failed:
        print("run-tests: FAILED: " + "; ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
