#!/usr/bin/env python3
"""escape-peer: a hostile MCP server (official Python SDK, `mcp` 2.3.0) that
tries every way out of its room it can, one tool per way. Each tool reports
what happened as JSON `{"ok": bool, "detail": "..."}`, but the tests never
trust that report alone: they check from the outside (the file untouched,
the listener never called, the process still alive, the secret not
returned).

Usage: escape_server.py stdio
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import socket
import subprocess
import urllib.request

from mcp.server.mcpserver import MCPServer

mcp = MCPServer("escape-peer")
libc = ctypes.CDLL(None, use_errno=True)


def report(ok: bool, detail: str) -> str:
    return json.dumps({"ok": ok, "detail": detail[:2000]})


def attempt(fn):
    try:
        return report(True, str(fn()))
    except BaseException as e:  # noqa: BLE001 - every failure is the answer
        return report(False, f"{type(e).__name__}: {e}")


@mcp.tool()
def echo(text: str) -> str:
    """An ordinary tool: returns its text."""
    return text


@mcp.tool()
def read_file(path: str) -> str:
    """Read a file."""
    return attempt(lambda: open(path, encoding="utf-8", errors="replace").read())


@mcp.tool()
def list_dir(path: str) -> str:
    """List a folder."""
    return attempt(lambda: sorted(os.listdir(path)))


@mcp.tool()
def write_file(path: str, text: str) -> str:
    """Append to a file (creating it)."""

    def go():
        with open(path, "a", encoding="utf-8") as f:
            f.write(text)
        return "written"

    return attempt(go)


@mcp.tool()
def tcp(host: str, port: int) -> str:
    """A raw TCP connection, sending an HTTP request."""

    def go():
        with socket.create_connection((host, port), timeout=3) as s:
            s.sendall(b"GET /raw HTTP/1.0\r\nHost: x\r\n\r\n")
            return s.recv(200).decode(errors="replace")

    return attempt(go)


@mcp.tool()
def http_get(url: str) -> str:
    """An HTTP request the ordinary way (through the environment's proxy)."""

    def go():
        with urllib.request.urlopen(url, timeout=20) as r:
            return f"{r.status} {r.read(200).decode(errors='replace')}"

    return attempt(go)


@mcp.tool()
def processes() -> str:
    """The processes this server can see in /proc."""
    return attempt(lambda: sorted(int(p) for p in os.listdir("/proc") if p.isdigit()))


@mcp.tool()
def kill(pid: int) -> str:
    """Send SIGTERM to a process."""
    return attempt(lambda: os.kill(pid, signal.SIGTERM) or "sent")


@mcp.tool()
def ptrace(pid: int) -> str:
    """PTRACE_ATTACH to a process."""

    def go():
        if libc.ptrace(16, pid, None, None) != 0:  # PTRACE_ATTACH
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
        return "attached"

    return attempt(go)


def unix_connect(address: str) -> str:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(3)
    try:
        s.connect(address)
        s.sendall(b"hello from the room\n")
        return "connected"
    finally:
        s.close()


@mcp.tool()
def abstract_socket(name: str) -> str:
    """Connect to an abstract Unix socket (`@name`)."""
    return attempt(lambda: unix_connect("\0" + name))


@mcp.tool()
def session_bus(address: str) -> str:
    """Reach the session bus: the one in the environment, else `address`
    (`unix:path=...` or `unix:abstract=...`)."""

    def go():
        addr = os.environ.get("DBUS_SESSION_BUS_ADDRESS") or address
        for part in addr.split(";"):
            kv = dict(x.split("=", 1) for x in part.split(":", 1)[1].split(",") if "=" in x)
            if "path" in kv:
                return unix_connect(kv["path"])
            if "abstract" in kv:
                return unix_connect("\0" + kv["abstract"])
        raise OSError("no address")

    return attempt(go)


@mcp.tool()
def keychain(attribute: str, value: str) -> str:
    """Ask the Secret Service for a secret (secret-tool lookup)."""

    def go():
        out = subprocess.run(
            ["secret-tool", "lookup", attribute, value],
            capture_output=True,
            timeout=10,
            check=False,
        )
        if out.returncode != 0 or not out.stdout:
            raise OSError(f"exit {out.returncode}: {out.stderr.decode(errors='replace')}")
        return out.stdout.decode(errors="replace")

    return attempt(go)


@mcp.tool()
def tiocsti() -> str:
    """Push a character into the terminal's input (TIOCSTI) on every
    descriptor that might be a terminal."""

    def go():
        done = []
        for fd in (0, 1, 2):
            c = ctypes.c_char(b"x")
            if libc.ioctl(fd, 0x5412, ctypes.byref(c)) == 0:
                done.append(fd)
        try:
            fd = os.open("/dev/tty", os.O_RDWR)
            c = ctypes.c_char(b"x")
            if libc.ioctl(fd, 0x5412, ctypes.byref(c)) == 0:
                done.append("tty")
        except OSError:
            pass
        if not done:
            raise OSError("no terminal took it")
        return f"pushed into {done}"

    return attempt(go)


@mcp.tool()
def mount() -> str:
    """Mount a tmpfs over /tmp."""

    def go():
        if libc.mount(b"none", b"/tmp", b"tmpfs", 0, None) != 0:
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
        return "mounted"

    return attempt(go)


@mcp.tool()
def new_user_namespace() -> str:
    """unshare(CLONE_NEWUSER), in-process and through the unshare program."""

    def go():
        if libc.unshare(0x10000000) == 0:
            return "unshared in-process"
        errno = ctypes.get_errno()
        out = subprocess.run(["unshare", "-U", "true"], capture_output=True, timeout=10, check=False)
        if out.returncode == 0:
            return "unshare -U worked"
        raise OSError(errno, os.strerror(errno) + "; " + out.stderr.decode(errors="replace"))

    return attempt(go)


@mcp.tool()
def whoami() -> str:
    """Where this server thinks it is: HOME, the environment's proxy and bus."""
    return json.dumps(
        {
            "home": os.environ.get("HOME"),
            "proxy": os.environ.get("HTTPS_PROXY"),
            "bus": os.environ.get("DBUS_SESSION_BUS_ADDRESS"),
            "pid": os.getpid(),
        }
    )


def main() -> None:
    mcp.run()


if __name__ == "__main__":
    main()
