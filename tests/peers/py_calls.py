#!/usr/bin/env python3
"""py-calls: a real MCP server on the official Python SDK (`mcp` 2.3.0) whose
tools exercise what crosses a proxy during a call: progress, cancellation,
sampling and roots. Stdio only.

Usage:
    py_calls.py stdio

Env:
    AIRLOCK_PEER_EVENTS  append one line per event to this file:
                         `cancelled <tool>` when a call is cancelled by the client,
                         `finished <tool>` when it ran to its end.

Tools:
    flood_progress(count)      `count` progress reports as fast as it can (every 7th
                               goes backwards; each message has an escape sequence
                               and 5,000 characters), then "flooded <count>".
    wait_for_cancel(seconds)   sleeps; records `cancelled wait_for_cancel` if the
                               client cancels, else returns "slept".
    ask_model(prompt)          sampling/createMessage with the prompt; returns
                               "model said: <text> (model <model>)".
    ask_model_briefly(prompt, seconds)
                               the same, but gives up after `seconds` (the SDK sends
                               notifications/cancelled), records `gave up on the
                               model` and returns "gave up waiting for the model".
    ask_form_briefly(seconds)  a form (elicitation/create, form mode) it gives up on
                               after `seconds`: records `gave up on the form`, returns
                               "gave up waiting for the form".
    show_roots()               roots/list; returns the roots' URIs, one a line
                               (or "no roots").
    log_lines(count, text)     `count` notifications/message at info level, each
                               "<text> <n>", then "logged <count>".
"""

from __future__ import annotations

import asyncio
import os
import sys
import warnings

import anyio

from mcp import types
from pydantic import BaseModel, Field
from mcp.server.mcpserver import Context, MCPServer

warnings.filterwarnings("ignore", category=DeprecationWarning)

server = MCPServer(name="py-calls", version="1.0.0", log_level="WARNING")


def _event(line: str) -> None:
    path = os.environ.get("AIRLOCK_PEER_EVENTS")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(line + "\n")


@server.tool()
async def flood_progress(count: int, ctx: Context) -> str:
    """Send `count` progress reports without pausing, then answer."""
    noise = "\x1b[31m" + "y" * 5000
    for i in range(1, count + 1):
        value = i - 3 if i % 7 == 0 else i
        await ctx.report_progress(value, count, f"step {i} {noise}")
    return f"flooded {count}"


@server.tool()
async def wait_for_cancel(seconds: float) -> str:
    """Sleep; say so in the events file if the client cancels the call."""
    try:
        await asyncio.sleep(seconds)
    except BaseException:
        _event("cancelled wait_for_cancel")
        raise
    _event("finished wait_for_cancel")
    return "slept"


@server.tool()
async def ask_model(prompt: str, ctx: Context) -> str:
    """Ask the client's model (sampling/createMessage)."""
    result = await ctx.session.create_message(
        [types.SamplingMessage(role="user", content=types.TextContent(type="text", text=prompt))],
        max_tokens=50,
    )
    content = result.content
    text = getattr(content, "text", None) or str(content)
    return f"model said: {text} (model {result.model})"


@server.tool()
async def ask_model_briefly(prompt: str, seconds: float, ctx: Context) -> str:
    """Ask the client's model, but give up after `seconds` (the SDK then
    sends notifications/cancelled for its sampling request)."""
    with anyio.move_on_after(seconds):
        result = await ctx.session.create_message(
            [types.SamplingMessage(role="user", content=types.TextContent(type="text", text=prompt))],
            max_tokens=50,
        )
        return f"model said: {getattr(result.content, 'text', '')}"
    _event("gave up on the model")
    return "gave up waiting for the model"


class Contact(BaseModel):
    email: str = Field(description="Your email")


@server.tool()
async def ask_form_briefly(seconds: float, ctx: Context) -> str:
    """Ask for a form (form-mode elicitation), but give up after `seconds`
    (the SDK then sends notifications/cancelled for its request)."""
    with anyio.move_on_after(seconds):
        result = await ctx.elicit(message="Your email, quickly", schema=Contact)
        return f"form action={result.action}"
    _event("gave up on the form")
    return "gave up waiting for the form"


@server.tool()
async def show_roots(ctx: Context) -> str:
    """Ask the client for its roots (roots/list)."""
    result = await ctx.session.list_roots()
    return "\n".join(str(r.uri) for r in result.roots) or "no roots"


@server.tool()
async def log_lines(count: int, text: str, ctx: Context) -> str:
    """Send `count` info log messages as fast as it can."""
    for i in range(1, count + 1):
        await ctx.info(f"{text} {i}")
    return f"logged {count}"


def main() -> None:
    if sys.argv[1:] != ["stdio"]:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    print("py-calls ready", file=sys.stderr, flush=True)
    server.run("stdio")


if __name__ == "__main__":
    main()
