#!/usr/bin/env python3
"""An app on the official Python SDK (`mcp` 2.3.0) that talks to a server over
stdio and runs a script of operations; for Airlock's gateway tests.

Usage:
    .venv/bin/python gateway_client.py --ops JSON [--mode auto|legacy] [--name NAME] -- CMD [ARGS...]
    (or `-- http://127.0.0.1:PORT/mcp`: Streamable HTTP, bearer token from AIRLOCK_GATEWAY_TOKEN)

With --extension ui it declares MCP Apps (`io.modelcontextprotocol/ui`) as an
app that renders them does. It declares no elicitation capability (unless
--elicitation form, which answers every form with --form-answer JSON, or declines), so a server behind
the gateway that wants a URL or a form cannot reach it. On 2026-07-28 the
SDK gets forms as InputRequiredResult rounds and retries the call itself.
Ops (a JSON list), each printed as one JSON line when done:
    {"op": "info"}                                 -> protocol, server name, instructions, extensions
    {"op": "tools"}                                -> {"tools": [names]}
    {"op": "tool_defs"}                            -> {"tools": [each tool as listed]}
    {"op": "call", "name": N, "arguments": {...}}  -> {"result": CallToolResult} or {"error": ..}
    {"op": "prompts"} / {"op": "resources"}
    {"op": "read", "uri": U} / {"op": "prompt", "name": N, "arguments": {...}}
    {"op": "sleep", "seconds": S}
    {"op": "elicitations"}                         -> {"elicitations": [params of each form shown]}
    {"op": "prompt_round", "name": N, "arguments": {..}, "state_file": P}
        -> the first round only (the SDK does not answer it): {"input_required": InputRequiredResult},
           its requestState written to P; or {"result": ..} when the server needs no input
    {"op": "prompt_retry", "name": N, "arguments": {..}, "state_file": P, "answer": {..}}
        -> the retry with the requestState in P and the form accepted with `answer`
    {"op": "touch", "path": P} / {"op": "wait_file", "path": P, "timeout_ms": T}  (a test says go on)
    {"op": "listen", "key": K, "uris": [U...], "tools": bool, "many": N, "prefix": P}
                                                   -> {"honored": [URIs acknowledged]} (2026-07-28
                                                      subscriptions/listen, kept open in the background)
    {"op": "unlisten", "key": K}                   (closes that stream)
    {"op": "listen_end", "key": K, "timeout_ms": T} -> {"ended": bool, "error": message or null}
    {"op": "wait_updated", "uri": U, "timeout_ms": T, "from": N} -> {"updated": bool} (a
                                                      resources/updated on any stream, from now on, or
                                                      after the first N received)
    {"op": "updates"}                              -> {"updates": [URI of each update, in order]}
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys

from mcp import Client, StdioServerParameters
from mcp.types import ElicitResult, Implementation, InputRequiredResult


def out(obj) -> None:
    print(json.dumps(obj), flush=True)


async def run(args) -> int:
    ops = json.loads(args.ops)
    if args.cmd[0].startswith("http://"):
        # Streamable HTTP: the URL, and the bearer token from the environment.
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        token = os.environ.get("AIRLOCK_GATEWAY_TOKEN")
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        params = streamable_http_client(args.cmd[0], http_client=create_mcp_http_client(headers=headers))
    else:
        params = StdioServerParameters(command=args.cmd[0], args=args.cmd[1:])
    kwargs = {}
    asked = []
    if args.elicitation == "form":
        async def on_elicit(ctx, params):  # pragma: no cover - only with --elicitation form
            asked.append(params.model_dump(mode="json", by_alias=True, exclude_none=True))
            if args.form_answer is None:
                return ElicitResult(action="decline")
            return ElicitResult(action="accept", content=json.loads(args.form_answer))

        kwargs["elicitation_callback"] = on_elicit
    if args.extension == "ui":
        from mcp.client.extension import advertise

        kwargs["extensions"] = [advertise("io.modelcontextprotocol/ui", {"mimeTypes": ["text/html;profile=mcp-app"]})]
    streams = {}  # key -> {"stop": Event, "ended": Event, "error": str|None, "task": Task}
    updates = []
    updated = asyncio.Event()

    async def listen_in_background(key, kwargs, opened):
        state = streams[key]
        try:
            async with client.listen(**kwargs) as sub:
                opened.set_result(sub.honored)

                async def consume():
                    async for event in sub:
                        uri = getattr(event, "uri", None)
                        if uri is not None:
                            updates.append(uri)
                            updated.set()

                consumer = asyncio.ensure_future(consume())
                stopper = asyncio.ensure_future(state["stop"].wait())
                await asyncio.wait({consumer, stopper}, return_when=asyncio.FIRST_COMPLETED)
                stopper.cancel()
                if consumer.done():
                    consumer.result()
                else:
                    consumer.cancel()
        except Exception as e:  # the stream's end is a result of the script
            cause = e.__cause__ or e
            state["error"] = str(cause)
            if not opened.done():
                opened.set_exception(e)
        finally:
            state["ended"].set()

    async with Client(
        params,
        mode=args.mode,
        client_info=Implementation(name=args.name, version="0.0.0"),
        cache=None,
        **kwargs,
    ) as client:
        for op in ops:
            kind = op["op"]
            try:
                if kind == "info":
                    info = client.server_info
                    out({"op": kind, "protocol": client.protocol_version,
                         "server": info.name if info else None,
                         "instructions": client.instructions,
                         "extensions": client.server_capabilities.extensions})
                elif kind == "tools":
                    r = await client.list_tools()
                    out({"op": kind, "tools": [t.name for t in r.tools]})
                elif kind == "tool_defs":
                    r = await client.list_tools()
                    out({"op": kind, "tools": [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in r.tools]})
                elif kind == "call":
                    r = await client.call_tool(op["name"], op.get("arguments") or {})
                    out({"op": kind, "name": op["name"], "result": r.model_dump(mode="json", by_alias=True, exclude_none=True)})
                elif kind == "prompts":
                    r = await client.list_prompts()
                    out({"op": kind, "prompts": [p.name for p in r.prompts]})
                elif kind == "resources":
                    r = await client.list_resources()
                    out({"op": kind, "resources": [x.uri for x in r.resources]})
                elif kind == "read":
                    r = await client.read_resource(op["uri"])
                    out({"op": kind, "result": r.model_dump(mode="json", by_alias=True, exclude_none=True)})
                elif kind == "prompt":
                    r = await client.get_prompt(op["name"], op.get("arguments") or {})
                    out({"op": kind, "result": r.model_dump(mode="json", by_alias=True, exclude_none=True)})
                elif kind == "prompt_round":
                    r = await client.session.get_prompt(op["name"], op.get("arguments") or {}, allow_input_required=True)
                    dump = r.model_dump(mode="json", by_alias=True, exclude_none=True)
                    if isinstance(r, InputRequiredResult):
                        with open(op["state_file"], "w") as f:
                            f.write(r.request_state or "")
                        out({"op": kind, "input_required": dump})
                    else:
                        out({"op": kind, "result": dump})
                elif kind == "prompt_retry":
                    with open(op["state_file"]) as f:
                        state = f.read().strip()
                    answer = ElicitResult(action="accept", content=op["answer"])
                    r = await client.session.get_prompt(
                        op["name"], op.get("arguments") or {}, input_responses={"form": answer},
                        request_state=state, allow_input_required=True,
                    )
                    out({"op": kind, "result": r.model_dump(mode="json", by_alias=True, exclude_none=True)})
                elif kind == "listen":
                    key = op.get("key", "main")
                    streams[key] = {"stop": asyncio.Event(), "ended": asyncio.Event(), "error": None}
                    opened = asyncio.get_running_loop().create_future()
                    uris = list(op.get("uris") or ())
                    # "many": N more URIs, prefix + number (too long for a command line).
                    uris += [f"{op.get('prefix', 'peer://note/')}{i}" for i in range(int(op.get("many", 0)))]
                    kwargs = {"resource_subscriptions": uris, "tools_list_changed": bool(op.get("tools"))}
                    streams[key]["task"] = asyncio.ensure_future(listen_in_background(key, kwargs, opened))
                    honored = await opened
                    out({"op": kind, "key": key, "honored": honored.resource_subscriptions or [],
                         "tools": bool(honored.tools_list_changed)})
                elif kind == "unlisten":
                    state = streams[op.get("key", "main")]
                    state["stop"].set()
                    await state["ended"].wait()
                    out({"op": kind, "error": state["error"]})
                elif kind == "listen_end":
                    state = streams[op.get("key", "main")]
                    try:
                        await asyncio.wait_for(state["ended"].wait(), float(op.get("timeout_ms", 10000)) / 1000)
                    except asyncio.TimeoutError:
                        pass
                    out({"op": kind, "ended": state["ended"].is_set(), "error": state["error"]})
                elif kind == "wait_updated":
                    start = int(op.get("from", len(updates)))
                    deadline = asyncio.get_running_loop().time() + float(op.get("timeout_ms", 10000)) / 1000

                    def seen():
                        return any(op.get("uri") in (None, u) for u in updates[start:])

                    while True:
                        updated.clear()  # no await before the check: no wake-up is lost
                        left = deadline - asyncio.get_running_loop().time()
                        if seen() or left <= 0:
                            break
                        try:
                            await asyncio.wait_for(updated.wait(), left)
                        except asyncio.TimeoutError:
                            break
                    out({"op": kind, "updated": seen()})
                elif kind == "updates":
                    out({"op": kind, "updates": updates})
                elif kind == "elicitations":
                    out({"op": kind, "elicitations": asked})
                elif kind == "sleep":
                    await asyncio.sleep(float(op["seconds"]))
                    out({"op": kind})
                elif kind == "touch":
                    open(op["path"], "w").close()
                    out({"op": kind})
                elif kind == "wait_file":
                    deadline = asyncio.get_running_loop().time() + float(op.get("timeout_ms", 60000)) / 1000
                    while not os.path.exists(op["path"]) and asyncio.get_running_loop().time() < deadline:
                        await asyncio.sleep(0.1)
                    out({"op": kind, "found": os.path.exists(op["path"])})
                else:
                    out({"op": kind, "error": {"message": "unknown op"}})
            except Exception as e:  # an error answer is a result of the script
                e = e.__cause__ if e.__cause__ is not None and kind == "listen" else e
                code = getattr(getattr(e, "error", None), "code", None)
                out({"op": kind, "name": op.get("name"), "error": {"code": code, "message": str(e)}})
        for state in streams.values():
            state["stop"].set()
        for state in streams.values():
            await state["ended"].wait()
    return 0


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ops", required=True)
    p.add_argument("--mode", default="auto")
    p.add_argument("--name", default="py-gateway-client")
    p.add_argument("--elicitation", default="none", choices=["none", "form"])
    p.add_argument("--extension", default="none", choices=["none", "ui"],
                   help="ui: declare MCP Apps (io.modelcontextprotocol/ui, text/html;profile=mcp-app), as an app that renders them")
    p.add_argument("--form-answer", default=None, help="with --elicitation form: accept every form with this JSON content (else decline)")
    p.add_argument("cmd", nargs="+")
    args = p.parse_args()
    sys.exit(asyncio.run(run(args)))


if __name__ == "__main__":
    main()
