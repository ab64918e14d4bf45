"""The brain a call dials when the user names none: a built-in brain served on loopback."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from sandbox.brains import make_brain
from sandbox.host.launch import CallOptions
from sandbox.sdk import serve


@contextlib.asynccontextmanager
async def brain_url_for(options: CallOptions) -> AsyncIterator[str]:
    """The URL to dial: the user's, or ``options.builtin`` started on loopback for the call."""
    if options.brain_url:
        yield options.brain_url
        return
    server = await serve(make_brain(options.builtin), host="127.0.0.1", port=0)
    try:
        yield server.relay_url if options.relay else server.url()
    finally:
        await server.close()
