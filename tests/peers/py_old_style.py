#!/usr/bin/env python3
"""py-old-style: a real MCP server on the official Python SDK (`mcp` 2.3.0),
written the way many servers in the wild still are: its tools ask for input
with server-initiated requests (`ctx.elicit_url`, `ctx.elicit`), which exist
only on 2025-11-25 connections. On a 2026-07-28 connection those calls fail
(-32600, "no back-channel for server-initiated requests").

Usage:
    py_old_style.py stdio
    py_old_style.py http --port N     # streamable HTTP on http://127.0.0.1:N/mcp

Prints `py-old-style ready` (and the URL for http) on stderr once it listens.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import sys
import uuid
import warnings

from pydantic import BaseModel, Field

from mcp.server.mcpserver import Context, MCPServer

warnings.filterwarnings("ignore", category=DeprecationWarning)

server = MCPServer(name="py-old-style", version="1.0.0", log_level="WARNING")
_background: set[asyncio.Task] = set()


@server.tool()
async def link_account(url: str, ctx: Context) -> str:
    """Ask the client to open `url` (URL-mode elicitation, request path), then
    send the completion notification half a second later."""
    elicitation_id = str(uuid.uuid4())
    result = await ctx.elicit_url(message="Link your account", url=url, elicitation_id=elicitation_id)
    if result.action == "accept":
        session = ctx.session

        async def complete() -> None:
            await asyncio.sleep(0.5)
            try:
                await session.send_elicit_complete(elicitation_id)
            except Exception as e:  # the client may be gone
                print(f"py-old-style: completion not sent: {e!r}", file=sys.stderr)

        task = asyncio.get_running_loop().create_task(complete())
        _background.add(task)
        task.add_done_callback(_background.discard)
    return f"link_account action={result.action}"


class Profile(BaseModel):
    name: str = Field(default="Ada", description="Your name")
    newsletter: bool = Field(default=False, description="Subscribe to the newsletter")


@server.tool()
async def sign_up(ctx: Context) -> str:
    """Ask for a small form (form-mode elicitation, request path)."""
    result = await ctx.elicit(message="Sign up", schema=Profile)
    if result.action == "accept":
        return f"sign_up accepted name={result.data.name} newsletter={result.data.newsletter}"
    return f"sign_up action={result.action}"


@server.tool()
def echo(message: str) -> str:
    """Return the message unchanged."""
    return message


async def _serve_http(port: int) -> None:
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    app = server.streamable_http_app(streamable_http_path="/mcp", host="127.0.0.1")
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    port = sock.getsockname()[1]
    print(f"py-old-style ready http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)
    await uvicorn.Server(config).serve(sockets=[sock])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="transport", required=True)
    sub.add_parser("stdio")
    http = sub.add_parser("http")
    http.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    if args.transport == "stdio":
        print("py-old-style ready", file=sys.stderr, flush=True)
        server.run("stdio")
    else:
        asyncio.run(_serve_http(args.port))


if __name__ == "__main__":
    main()
