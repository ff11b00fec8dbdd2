#!/usr/bin/env python3
"""An app on the official Python SDK (`mcp` 2.3.0) that reads an MCP config
the way AI apps do (`{"mcpServers": {NAME: {"command", "args", "env"}}}`,
the shape Claude Desktop and Claude Code write), connects every server in it
at once (each its own stdio child) and lists all their tools; for
scripts/bench-apps.sh.

Usage:
    .venv/bin/python config_app.py --config FILE [--name NAME] [--hold]

Prints ONE JSON line once every server's tools are listed (all pages):
    {"app": NAME, "servers": N, "tools": T, "listed_at": UNIX_TIME, "failed": [NAME...]}
`listed_at` is the wall clock, so the caller subtracts the time it started
this process (interpreter start included). With --hold it then keeps every
session open until its stdin closes (the bench measures memory meanwhile).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time

from mcp import Client, StdioServerParameters
from mcp.types import Implementation

# The longest one server may take to start and list (a bench bound, not a test).
LIST_TIMEOUT_S = 120


async def serve_one(name, entry, app_name, listed, stop):
    params = StdioServerParameters(
        command=entry["command"],
        args=list(entry.get("args") or []),
        env={**os.environ, **(entry.get("env") or {})},
    )
    try:
        async with Client(params, client_info=Implementation(name=app_name, version="0.0.0"), cache=None) as client:
            tools = 0
            cursor = None
            while True:
                r = await client.list_tools(cursor=cursor) if cursor else await client.list_tools()
                tools += len(r.tools)
                cursor = r.next_cursor
                if not cursor:
                    break
            listed.set_result(tools)
            await stop.wait()
    except Exception as e:  # a server that fails counts as failed, the others go on
        if not listed.done():
            listed.set_exception(e)


async def run(args) -> int:
    with open(args.config) as f:
        servers = json.load(f)["mcpServers"]
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    listed = {name: loop.create_future() for name in servers}
    tasks = [
        asyncio.ensure_future(serve_one(name, entry, args.name, listed[name], stop))
        for name, entry in servers.items()
    ]
    done = set()
    if listed:
        done, _ = await asyncio.wait(listed.values(), timeout=LIST_TIMEOUT_S)
    at = time.time()
    tools, failed = 0, []
    for name, fut in listed.items():
        if fut in done and fut.exception() is None:
            tools += fut.result()
        else:
            failed.append(name)
    print(json.dumps({"app": args.name, "servers": len(servers), "tools": tools, "listed_at": at, "failed": failed}), flush=True)
    if args.hold:
        # Until the bench closes our stdin.
        await loop.run_in_executor(None, sys.stdin.read)
    stop.set()
    if tasks:
        await asyncio.wait(tasks, timeout=10)
    return 0 if not failed else 1


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--config", required=True)
    p.add_argument("--name", default="config-app")
    p.add_argument("--hold", action="store_true")
    return asyncio.run(run(p.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
