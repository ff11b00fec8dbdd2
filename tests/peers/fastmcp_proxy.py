#!/usr/bin/env python3
"""FastMCP's proxy (PyPI `fastmcp`, PrefectHQ) in front of one stdio server,
served over stdio: the peer figure of scripts/bench-gateway.sh
(`--fastmcp PYTHON`, a python that has `fastmcp` installed; not in
requirements.txt: it is a peer for scale, not a test dependency).

    PYTHON fastmcp_proxy.py CMD [ARGS...]
"""

import sys

from fastmcp.client.transports import StdioTransport
from fastmcp.server import create_proxy

if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: fastmcp_proxy.py CMD [ARGS...]")
    create_proxy(StdioTransport(command=sys.argv[1], args=sys.argv[2:])).run(show_banner=False)
