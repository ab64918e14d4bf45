"""Ports and WebSocket URLs, checked before anything is bound or dialed.

A port is 1 to 65535; 0 is "any free port" only where a listener is meant (the brain
server's bound port is then read back). A brain URL is ``ws://`` or ``wss://``, a host
(an IPv6 address in brackets), an optional port in range and a path. What is wrong is
said in words: urllib's own refusals (``Port out of range 0-65535``, ``Invalid IPv6 URL``)
are ValueErrors a caller would otherwise meet deep in a dial.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

MIN_PORT = 1
MAX_PORT = 65_535
#: The port a listener is given to let the system pick a free one.
ANY_FREE_PORT = 0
SCHEMES = ("ws", "wss")


def port_problem(port: int, *, any_free: bool = False) -> str | None:
    """Why ``port`` cannot be used, or None. ``any_free``: 0 (any free port) is meant."""
    low = ANY_FREE_PORT if any_free else MIN_PORT
    if low <= port <= MAX_PORT:
        return None
    zero = f" ({ANY_FREE_PORT}: any free port)" if any_free else ""
    return f"a port is a whole number from {low} to {MAX_PORT:,}{zero}, not {port:,}"


def url_problem(url: str) -> str | None:
    """Why ``url`` is not a WebSocket URL a brain can be dialed at, or None."""
    if any(not char.isprintable() or char.isspace() for char in url):
        return "a URL has no spaces or control characters"
    try:
        parts = urlsplit(url)
        port = parts.port  # urllib reads the port only when asked, refusing it then
    except ValueError as exc:
        return _urllib_words(str(exc))
    if not parts.scheme:
        return "it is not a URL: ws://host:port/path or wss://host/path"
    if parts.scheme.lower() not in SCHEMES:
        # urllib's scheme is letters, digits and + - . alone: safe to print as it is.
        return f"its scheme must be ws:// or wss://, not {parts.scheme}://"
    if not parts.hostname:
        return "it names no host (ws://host:port/path)"
    return None if port is None else port_problem(port)


def _urllib_words(problem: str) -> str:
    """urllib's refusal of a URL, as the user can act on it."""
    if "IPv6" in problem:
        return "its IPv6 address is not closed or not valid: ws://[::1]:8765/brain"
    if "out of range" in problem:
        return f"its port is not from {MIN_PORT} to {MAX_PORT:,}"
    # An IPv6 address out of brackets reads to urllib as a host and a port.
    return "its port is not a whole number (an IPv6 address goes in brackets: ws://[::1]:8765/)"


def ws_url(host: str, port: int, path: str) -> str:
    """The URL of ``path`` on a server listening on ``host``:``port`` (an IPv6 address in
    brackets, as a URL must have it)."""
    try:
        bracketed = ipaddress.ip_address(host).version == 6
    except ValueError:
        bracketed = False
    return f"ws://{f'[{host}]' if bracketed else host}:{port}{path}"
