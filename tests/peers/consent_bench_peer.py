#!/usr/bin/env python3
"""consent-bench-peer: an MCP server (official Python SDK) for the consent
latency benchmark (scripts/bench-consent.sh). Not a test.

Usage (with tests/peers/.venv/bin/python):
    consent_bench_peer.py stdio LOG

Tool:
    ask(count=50)
        `count` URL elicitations (2025-11-25 `elicitation/create`, mode url),
        one after the other: the next is sent once the previous one was
        answered. Returns JSON {"answers": {"decline": n, ...}}.

Every line the SDK writes goes through a pipe to a thread that writes it to
the real stdout; for each `elicitation/create` request it appends
"<elicitationId> <time.time_ns() just before the write>" to LOG, so the
benchmark measures from the moment the request is written to Airlock's pipe.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import warnings

from mcp import types
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.message import ServerMessageMetadata

warnings.filterwarnings("ignore", category=DeprecationWarning)

server = MCPServer(name="consent-bench-peer", version="1.0.0", log_level="WARNING")


def _timestamp_writes(log_path: str) -> int:
    """Point fd 1 at a pipe; a thread copies it to the real stdout, logging
    the write time of every elicitation/create request."""
    real_stdout = os.dup(1)
    read_end, write_end = os.pipe()
    os.dup2(write_end, 1)
    os.close(write_end)
    log = open(log_path, "a", buffering=1, encoding="utf-8")

    def pump() -> None:
        with os.fdopen(read_end, "rb") as src:
            for line in src:
                marker = None
                if b'"elicitation/create"' in line:
                    try:
                        marker = json.loads(line)["params"]["elicitationId"]
                    except (ValueError, KeyError, TypeError):
                        marker = "?"
                at = time.time_ns()
                os.write(real_stdout, line)
                if marker is not None:
                    log.write(f"{marker} {at}\n")

    threading.Thread(target=pump, daemon=True).start()
    return real_stdout


def _legacy_only(out: int) -> None:
    """Answer `server/discover` with -32601 (a 2025-11-25 server), as
    hostile_peer.py does, so every elicitation is elicitation/create."""
    real_stdin = os.dup(0)
    read_end, write_end = os.pipe()
    os.dup2(read_end, 0)
    os.close(read_end)

    def pump() -> None:
        with os.fdopen(real_stdin, "rb") as src, os.fdopen(write_end, "wb") as dst:
            for line in src:
                try:
                    msg = json.loads(line)
                except ValueError:
                    msg = None
                if isinstance(msg, dict) and msg.get("method") == "server/discover" and "id" in msg:
                    reply = {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "Method not found"}}
                    # The first message of all: nothing to interleave with.
                    os.write(out, (json.dumps(reply) + "\n").encode())
                    continue
                dst.write(line)
                dst.flush()

    threading.Thread(target=pump, daemon=True).start()


@server.tool()
async def ask(ctx: Context, count: int = 50) -> str:
    """Send `count` URL elicitations one after the other; report the answers."""
    answers: dict[str, int] = {}
    for i in range(1, max(0, min(count, 10_000)) + 1):
        params = types.ElicitRequestURLParams.model_construct(
            mode="url",
            message=f"Bench request {i}",
            url=f"https://example.com/bench/{i}",
            elicitation_id=f"bench-{i}",
        )
        try:
            result = await ctx.session.send_request(
                types.ElicitRequest(params=params),
                types.ElicitResult,
                metadata=ServerMessageMetadata(related_request_id=ctx.request_id),
            )
            action = result.action
        except Exception as e:  # a JSON-RPC error from the client
            action = f"error {getattr(getattr(e, 'error', None), 'code', None)}"
        answers[action] = answers.get(action, 0) + 1
    return json.dumps({"answers": answers}, sort_keys=True)


def main() -> None:
    if len(sys.argv) != 3 or sys.argv[1] != "stdio":
        print("usage: consent_bench_peer.py stdio LOG", file=sys.stderr)
        sys.exit(2)
    _legacy_only(_timestamp_writes(sys.argv[2]))
    server.run("stdio")


if __name__ == "__main__":
    main()
