"""The brain a call dials when the user names none: a built-in brain served on loopback."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from sandbox.brains import make_brain
from sandbox.brains.registry import BRAINS
from sandbox.errors import UsageError
from sandbox.host.launch import BUILTIN_BRAIN, CallOptions
from sandbox.option_values import shown
from sandbox.sdk import serve
from sandbox.sdk.server import BrainFactory
from sandbox.wire.addresses import url_problem

#: What names a brain besides a URL, for every command that dials one.
BRAIN_NAMES = ("builtin", *BRAINS)


def brain_choice(spec: str | None, option: str = "--brain") -> tuple[str | None, str]:
    """The brain ``spec`` names: the URL to dial (None: serve a built-in one for the call)
    and which built-in. ``builtin`` (or nothing) is the default brain, a built-in's name is
    that brain, anything else must be a WebSocket URL: a UsageError naming ``option``
    otherwise, before anything is dialed or stored."""
    if spec is None or spec == "builtin":
        return None, BUILTIN_BRAIN
    if spec in BRAINS:
        return None, spec
    problem = brain_problem(spec)
    if problem is not None:
        raise UsageError(f"{option}: {problem}")
    return spec, BUILTIN_BRAIN


def brain_spec(spec: str) -> str:
    """A ``--brain``'s value: a built-in brain's name or a WebSocket URL, refused in words
    (a UsageError) if neither; :func:`brain_choice` then reads it."""
    problem = brain_problem(spec)
    if problem is not None:
        raise UsageError(problem)
    return spec


def brain_problem(spec: str) -> str | None:
    """Why ``spec`` names no brain (neither a built-in's name nor a WebSocket URL), or None."""
    if spec in BRAIN_NAMES:
        return None
    problem = url_problem(spec)
    if problem is None:
        return None
    return (
        f"{shown(spec)} is neither a built-in brain ({', '.join(BRAIN_NAMES)}) nor a "
        f"WebSocket URL (ws://host:port/path or wss://host/path): {problem}"
    )


@contextlib.asynccontextmanager
async def brain_url_for(options: CallOptions) -> AsyncIterator[str]:
    """The URL to dial: the user's, or ``options.builtin`` started on loopback for the call."""
    if options.brain_url:
        yield options.brain_url
        return
    async with serving(make_brain(options.builtin), relay=options.relay) as url:
        yield url


@contextlib.asynccontextmanager
async def serving(factory: BrainFactory, *, relay: bool = False) -> AsyncIterator[str]:
    """``factory``'s brains served on loopback while the block runs: their URL (the relay
    leg's with ``relay``)."""
    server = await serve(factory, host="127.0.0.1", port=0)
    try:
        yield server.relay_url if relay else server.url()
    finally:
        await server.close()
