#!/usr/bin/env python3
"""Misbehaving MCP "servers" for error-path tests. Plain Python, no SDK.

    bad_server.py exit               write "boom" to stderr, exit with code 3 at once
    bad_server.py garbage            read stdin; write non-JSON lines to stdout (stops after 10 s)
    bad_server.py hugeline           write one 50 MB line (newline only at its end), then sleep (60 s)
    bad_server.py html --port N      HTTP on 127.0.0.1:N, every request gets 200 text/html <html>hello</html>
    bad_server.py silent             read stdin, never answer (stops after 60 s)

Every mode ends by itself, so a test that forgets to kill it leaves nothing behind
for long. `html` prints `bad-server html ready http://127.0.0.1:PORT/` to stderr once
it listens (`--port 0` picks a free port).
"""

import argparse
import os
import sys
import threading
import time


def drain_stdin() -> None:
    """Read and discard stdin in the background, so the client's writes never block."""

    def run() -> None:
        try:
            while os.read(0, 65536):
                pass
        except OSError:
            pass

    threading.Thread(target=run, daemon=True).start()


def write_out(data: bytes) -> None:
    try:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        os._exit(0)


def mode_exit() -> None:
    sys.stderr.write("boom\n")
    sys.stderr.flush()
    sys.exit(3)


def mode_garbage() -> None:
    drain_stdin()
    deadline = time.monotonic() + 10
    n = 0
    while time.monotonic() < deadline:
        n += 1
        write_out(b"this is not json %d }{\n" % n)
        time.sleep(0.01)


def mode_hugeline() -> None:
    drain_stdin()
    chunk = b"x" * (1 << 20)  # 1 MiB
    for _ in range(50):
        write_out(chunk)
    write_out(b"\n")
    time.sleep(60)


def mode_silent() -> None:
    drain_stdin()
    time.sleep(60)


def mode_html(port: int) -> None:
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    body = b"<html>hello</html>"

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_HEAD = _answer

        def log_message(self, *args) -> None:  # keep stderr quiet
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    httpd.daemon_threads = True
    sys.stderr.write("bad-server html ready http://127.0.0.1:%d/\n" % httpd.server_address[1])
    sys.stderr.flush()
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["exit", "garbage", "hugeline", "html", "silent"])
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    if args.mode == "exit":
        mode_exit()
    elif args.mode == "garbage":
        mode_garbage()
    elif args.mode == "hugeline":
        mode_hugeline()
    elif args.mode == "html":
        mode_html(args.port)
    else:
        mode_silent()


if __name__ == "__main__":
    main()
