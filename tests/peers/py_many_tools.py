#!/usr/bin/env python3
"""py-many-tools: a real MCP server on the official Python SDK (`mcp` 2.3.0)
with many tools, for the gateway's tool budget (issue 26). Stdio only.

Usage:
    py_many_tools.py stdio

Env:
    AIRLOCK_PEER_TOOLS  how many tools (default 150), named `<topic>_<nnn>`
                        (topics: invoice, ticket, report, ledger, shipment,
                        contract), each "Handle <topic> number <n>." and
                        taking `title` (3 to 40 characters, required) and
                        `count` (1 to 5, default 1); each answers
                        "<name>: <title> x<count>".
    AIRLOCK_PEER_WORD   if set, tool number 42 is described with this word
                        alone ("Chart the <word> over the northern sky."),
                        a word in no other name, parameter or description.
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Annotated

from pydantic import Field

from mcp.server.mcpserver import MCPServer

warnings.filterwarnings("ignore", category=DeprecationWarning)

TOPICS = ["invoice", "ticket", "report", "ledger", "shipment", "contract"]

server = MCPServer(name="py-many-tools", version="1.0.0", log_level="WARNING")


def _tool(name: str):
    async def handle(
        title: Annotated[str, Field(min_length=3, max_length=40, description="What it is about")],
        count: Annotated[int, Field(ge=1, le=5, description="How many times")] = 1,
    ) -> str:
        return f"{name}: {title} x{count}"

    return handle


def main() -> None:
    if sys.argv[1:] != ["stdio"]:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    n = int(os.environ.get("AIRLOCK_PEER_TOOLS", "150"))
    word = os.environ.get("AIRLOCK_PEER_WORD")
    for i in range(n):
        topic = TOPICS[i % len(TOPICS)]
        name = f"{topic}_{i:03d}"
        description = f"Handle {topic} number {i}."
        if word and i == 42:
            description = f"Chart the {word} over the northern sky."
        server.add_tool(_tool(name), name=name, description=description)
    server.run()


if __name__ == "__main__":
    main()
