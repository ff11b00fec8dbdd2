#!/usr/bin/env python3
"""forms-peer: sends the form-mode elicitation a test asks for (official Python SDK).

Usage (with tests/peers/.venv/bin/python):
    forms_peer.py stdio

Tool `ask(schema, message?)`: `schema` is the raw JSON text of a
`requestedSchema`. On 2025-11-25 (initialize) the form is an
`elicitation/create` request during the call; on 2026-07-28 it is an
`InputRequiredResult` and the client retries with its answer. The tool returns
`{"action": ..., "content": ...}` as JSON text, or `error <code>: <message>`
when the client answered the request with a JSON-RPC error.
"""

from __future__ import annotations

import json
import sys
import warnings

from mcp import types
from mcp.shared.message import ServerMessageMetadata
from mcp.server.mcpserver import Context, MCPServer
from mcp_types.version import is_version_at_least

warnings.filterwarnings("ignore", category=DeprecationWarning)

server = MCPServer(name="forms-peer", version="1.0.0", log_level="WARNING")


def _is_modern(ctx: Context) -> bool:
    version = ctx.protocol_version
    return version is not None and is_version_at_least(version, "2026-07-28")


def _answer(action, content) -> str:
    return json.dumps({"action": action, "content": content}, sort_keys=True)


@server.tool()
async def ask(schema: str, ctx: Context, message: str = "Please fill in the form") -> str | types.InputRequiredResult:
    """Send a form elicitation with the given raw requestedSchema; return the answer as JSON."""
    requested = json.loads(schema)
    if _is_modern(ctx):
        response = (ctx.input_responses or {}).get("form")
        if response is None or ctx.request_state is None:
            request = types.ElicitRequest(
                params=types.ElicitRequestFormParams(message=message, requested_schema=requested)
            )
            return types.InputRequiredResult(input_requests={"form": request}, request_state="form")
        return _answer(response.action, getattr(response, "content", None))
    try:
        result = await ctx.session.elicit_form(message, requested, related_request_id=ctx.request_id)
    except Exception as e:  # the client answered with a JSON-RPC error
        error = getattr(e, "error", None)
        code = getattr(error, "code", None)
        text = getattr(error, "message", str(e))
        return f"error {code}: {text}"
    return _answer(result.action, result.content)


def main() -> None:
    if sys.argv[1:] != ["stdio"]:
        print("usage: forms_peer.py stdio", file=sys.stderr)
        sys.exit(2)
    print("forms-peer ready", file=sys.stderr, flush=True)
    server.run("stdio")



@server.tool()
async def ask_url_raw(ctx: Context, drop: str = "", mode: str = "url") -> str:
    """2025-11-25 only: send a URL elicitation/create with field `drop` left out
    (or an undeclared `mode`), skipping the SDK's validation; report the answer."""
    fields = {"message": "Sign in", "url": "https://example.com/x", "elicitation_id": "raw-1"}
    fields.pop(drop, None)
    params = types.ElicitRequestURLParams.model_construct(mode=mode, **fields)
    try:
        result = await ctx.session.send_request(
            types.ElicitRequest(params=params),
            types.ElicitResult,
            metadata=ServerMessageMetadata(related_request_id=ctx.request_id),
        )
    except Exception as e:  # the client answered with a JSON-RPC error
        error = getattr(e, "error", None)
        return f"error {getattr(error, 'code', None)}: {getattr(error, 'message', str(e))}"
    return _answer(result.action, getattr(result, "content", None))

if __name__ == "__main__":
    main()
