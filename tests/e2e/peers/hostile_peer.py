#!/usr/bin/env python3
"""hostile-peer: an MCP server (official Python SDK, `mcp` 2.3.0) that abuses
URL-mode elicitation, for the desktop's "bad input" end-to-end test.

Usage (with tests/peers/.venv/bin/python):
    hostile_peer.py stdio

It speaks 2025-11-25 only (it answers `server/discover` with -32601, as a
pre-2026 server does), so every elicitation is a server-to-client
`elicitation/create` request sent during a tool call. The requests skip the
SDK's validation (`model_construct`), so nothing is trimmed on the way out.

Tools:
    flood(seconds=2, interval_ms=10)
        one URL elicitation every `interval_ms` for `seconds`, all in flight at
        once; returns JSON {"sent": N, "answers": {"decline": n, ...}} once
        every one of them was answered.
    big(url_chars, message_bytes, tag="big")
        one URL elicitation with a URL of exactly `url_chars` characters and a
        message of exactly `message_bytes` bytes (ASCII); returns JSON
        {"action": ..., "url_chars": ..., "message_bytes": ...}.
    vanish(trigger)
        one URL elicitation, then exit the whole process (code 0, no answer to
        anything) as soon as the file `trigger` exists: the test creates it
        while the consent dialog is up.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import warnings

from mcp import types
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.message import ServerMessageMetadata

warnings.filterwarnings("ignore", category=DeprecationWarning)

server = MCPServer(name="hostile-peer", version="1.0.0", log_level="WARNING")



def _legacy_only() -> None:
    """Answer `server/discover` with -32601 before the SDK sees it (the SDK's
    first request decides its era), and pass every other line through: the
    SDK reads a pipe that a thread fills from the real stdin. One process, so
    an exit closes the connection at once."""
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
                    # Before anything else was written: one small write, nothing to interleave with.
                    os.write(1, (json.dumps(reply) + "\n").encode())
                    continue
                dst.write(line)
                dst.flush()

    threading.Thread(target=pump, daemon=True).start()


async def _elicit_url(ctx: Context, message: str, url: str, elicitation_id: str) -> str:
    params = types.ElicitRequestURLParams.model_construct(
        mode="url", message=message, url=url, elicitation_id=elicitation_id
    )
    try:
        result = await ctx.session.send_request(
            types.ElicitRequest(params=params),
            types.ElicitResult,
            metadata=ServerMessageMetadata(related_request_id=ctx.request_id),
        )
    except Exception as e:  # the client answered with a JSON-RPC error
        error = getattr(e, "error", None)
        return f"error {getattr(error, 'code', None)}"
    return result.action


@server.tool()
async def flood(ctx: Context, seconds: float = 2.0, interval_ms: int = 10) -> str:
    """Send one URL elicitation every interval_ms for `seconds`; report the answers."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    tasks: list[asyncio.Task] = []
    i = 0
    while loop.time() < deadline:
        i += 1
        tasks.append(
            loop.create_task(
                _elicit_url(ctx, f"Flood request {i}", f"https://example.com/flood/{i}", f"flood-{i}")
            )
        )
        await asyncio.sleep(interval_ms / 1000)
    answers: dict[str, int] = {}
    for a in await asyncio.gather(*tasks):
        answers[a] = answers.get(a, 0) + 1
    return json.dumps({"sent": len(tasks), "answers": answers}, sort_keys=True)


def _url(chars: int, tag: str) -> str:
    head = f"https://example.com/{tag}/"
    body = "abcdefghij" * (chars // 10 + 1)
    tail = "/END"
    return (head + body)[: max(chars - len(tail), len(head))] + tail


def _message(size: int) -> str:
    sentence = "Please open this page to continue. "
    return (sentence * (size // len(sentence) + 1))[:size]


@server.tool()
async def big(ctx: Context, url_chars: int, message_bytes: int, tag: str = "big") -> str:
    """Send one URL elicitation with a URL of url_chars characters and a message of message_bytes bytes."""
    url = _url(url_chars, tag)
    message = _message(message_bytes)
    action = await _elicit_url(ctx, message, url, f"{tag}-1")
    return json.dumps({"action": action, "url_chars": len(url), "message_bytes": len(message.encode())})


@server.tool()
async def vanish(ctx: Context, trigger: str) -> str:
    """Send one URL elicitation, then exit the process once `trigger` exists."""

    async def watch() -> None:
        while not os.path.exists(trigger):
            await asyncio.sleep(0.05)
        print("hostile-peer: exiting in the middle of the consent", file=sys.stderr, flush=True)
        os._exit(0)

    watcher = asyncio.get_running_loop().create_task(watch())
    action = await _elicit_url(ctx, "Sign in before I vanish", "https://example.com/vanish", "vanish-1")
    watcher.cancel()
    return f"action={action}"


def main() -> None:
    if sys.argv[1:] != ["stdio"]:
        print("usage: hostile_peer.py stdio", file=sys.stderr)
        sys.exit(2)
    _legacy_only()
    print("hostile-peer ready", file=sys.stderr, flush=True)
    server.run("stdio")


if __name__ == "__main__":
    main()
