#!/usr/bin/env python3
"""terminal-peer: URL elicitations that arrive close together (official Python SDK).

Usage (with tests/peers/.venv/bin/python, behind
tests/common/legacy_stdio_proxy.py so that Airlock talks 2025-11-25):
    terminal_peer.py stdio

Tools:
    two_at_once(url_a, url_b)      two `elicitation/create` (mode url) requests
                                   sent at the same time during one call;
                                   returns "a=<action> b=<action>".
    required_two(url_a, url_b)     -32042 listing both URLs; each accepted one
                                   is completed (notifications/elicitation/complete)
                                   after AIRLOCK_PEER_COMPLETE_DELAY seconds
                                   (default 0.5); the retry returns "done".
    auth_then_connect(auth_url, url)
                                   -32042 for auth_url, completed after
                                   AIRLOCK_PEER_COMPLETE_DELAY seconds; the retry
                                   then asks for url on the request path and
                                   returns "action=<action>".
"""

from __future__ import annotations

import asyncio
import os
import sys
import uuid
import warnings

from mcp import UrlElicitationRequiredError, types
from mcp.server.mcpserver import Context, MCPServer

warnings.filterwarnings("ignore", category=DeprecationWarning)

server = MCPServer(name="terminal-peer", version="1.0.0", log_level="WARNING")

_background: set[asyncio.Task] = set()
# Per server process: elicitation ids that are done.
_done: set[str] = set()
_pending: dict[str, str] = {}


def _delay() -> float:
    try:
        return float(os.environ.get("AIRLOCK_PEER_COMPLETE_DELAY", "0.5"))
    except ValueError:
        return 0.5


def _complete_later(ctx: Context, elicitation_id: str) -> None:
    session = ctx.session

    async def run() -> None:
        await asyncio.sleep(_delay())
        _done.add(elicitation_id)
        try:
            await session.send_elicit_complete(elicitation_id)
        except Exception as e:  # the client may be gone
            print(f"terminal-peer: complete {elicitation_id} not sent: {e!r}", file=sys.stderr)

    task = asyncio.get_running_loop().create_task(run())
    _background.add(task)
    task.add_done_callback(_background.discard)


def _pending_id(key: str) -> str:
    if key not in _pending:
        _pending[key] = str(uuid.uuid4())
    return _pending[key]


@server.tool()
async def two_at_once(url_a: str, url_b: str, ctx: Context) -> str:
    """Two URL elicitations at the same time; report both answers."""

    async def ask(url: str, message: str) -> str:
        result = await ctx.elicit_url(message=message, url=url, elicitation_id=str(uuid.uuid4()))
        return result.action

    a, b = await asyncio.gather(ask(url_a, "First page"), ask(url_b, "Second page"))
    return f"a={a} b={b}"


@server.tool()
async def required_two(url_a: str, url_b: str, ctx: Context) -> str:
    """-32042 listing two URL elicitations until both completed."""
    ids = [_pending_id("a:" + url_a), _pending_id("b:" + url_b)]
    if all(i in _done for i in ids):
        return "done"
    for i in ids:
        _complete_later(ctx, i)
    raise UrlElicitationRequiredError(
        [
            types.ElicitRequestURLParams(message="First page", url=url_a, elicitation_id=ids[0]),
            types.ElicitRequestURLParams(message="Second page", url=url_b, elicitation_id=ids[1]),
        ]
    )


@server.tool()
async def auth_then_connect(auth_url: str, url: str, ctx: Context) -> str:
    """-32042 for auth_url (completed after the delay), then a URL request for url."""
    auth_id = _pending_id("auth:" + auth_url)
    if auth_id not in _done:
        _complete_later(ctx, auth_id)
        raise UrlElicitationRequiredError(
            [types.ElicitRequestURLParams(message="Authorize first", url=auth_url, elicitation_id=auth_id)]
        )
    result = await ctx.elicit_url(message="Now connect", url=url, elicitation_id=str(uuid.uuid4()))
    return f"action={result.action}"


def main() -> None:
    if sys.argv[1:] != ["stdio"]:
        print("usage: terminal_peer.py stdio", file=sys.stderr)
        sys.exit(2)
    print("terminal-peer ready", file=sys.stderr, flush=True)
    server.run("stdio")


if __name__ == "__main__":
    main()
