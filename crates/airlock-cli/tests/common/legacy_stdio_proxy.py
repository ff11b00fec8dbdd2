#!/usr/bin/env python3
"""A stdio MCP proxy that makes the server behind it look like a 2025-11-25-only
server: it answers `server/discover` itself with JSON-RPC -32601 (method not
found), as a pre-2026 server does, and passes every other line through.

    legacy_stdio_proxy.py <server command...>

Used by Airlock's end-to-end tests to drive py_server.py (which speaks both
revisions) through the 2025-11-25 paths: initialize, elicitation/create with an
elicitationId, -32042 and notifications/elicitation/complete.
"""

import json
import subprocess
import sys
import threading

child = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
lock = threading.Lock()


def out(data: bytes) -> None:
    with lock:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()


def pump() -> None:
    for line in child.stdout:
        out(line)


threading.Thread(target=pump, daemon=True).start()
try:
    for line in sys.stdin.buffer:
        try:
            msg = json.loads(line)
        except ValueError:
            msg = None
        if isinstance(msg, dict) and msg.get("method") == "server/discover" and "id" in msg:
            reply = {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "Method not found"}}
            out((json.dumps(reply) + "\n").encode())
            continue
        child.stdin.write(line)
        child.stdin.flush()
except (BrokenPipeError, KeyboardInterrupt):
    pass
finally:
    try:
        child.stdin.close()
    except OSError:
        pass
    child.terminate()
    child.wait()
