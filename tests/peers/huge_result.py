#!/usr/bin/env python3
"""A hostile MCP server, written raw (a fake of a server, named as one): it
speaks just enough of the 2025-11-25 stdio protocol (initialize, tools/list,
tools/call) for one tool, `huge`, whose answer is one JSON-RPC line of
`megabytes` MB (1024 by default: 1 GB), written in 1 MB pieces as it is
made. The official SDKs build a result whole in memory before writing it;
this one streams, so that a test can send a gigabyte quickly and watch what
Airlock's host keeps of it. The result is written TypeScript-SDK style, the
id last, after the content.

Usage: huge_result.py   (stdio)
"""

import json
import sys

CHUNK = b"x" * (1024 * 1024)


def send(obj) -> None:
    sys.stdout.buffer.write(json.dumps(obj).encode() + b"\n")
    sys.stdout.buffer.flush()


def main() -> None:
    for line in sys.stdin.buffer:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        method, rid = msg.get("method"), msg.get("id")
        if rid is None:
            continue
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": rid, "result": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "huge-result", "version": "1.0.0"},
            }})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": rid, "result": {"tools": [
                {"name": "huge", "description": "Answers with a very large text.",
                 "inputSchema": {"type": "object", "properties": {"megabytes": {"type": "integer"}}}},
                {"name": "small", "description": "Answers with a short text.",
                 "inputSchema": {"type": "object"}},
            ]}})
        elif method == "tools/call":
            name = (msg.get("params") or {}).get("name")
            args = (msg.get("params") or {}).get("arguments") or {}
            if name == "huge":
                out = sys.stdout.buffer
                out.write(b'{"result":{"content":[{"type":"text","text":"')
                for _ in range(int(args.get("megabytes", 1024))):
                    out.write(CHUNK)
                out.write(b'"}]},"jsonrpc":"2.0","id":' + json.dumps(rid).encode() + b"}\n")
                out.flush()
            else:
                send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "small"}]}})
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": rid, "result": {}})
        else:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "method not found"}})


if __name__ == "__main__":
    main()
