"""``sandbox brain``: serve one brain for Voqalize (or the sandbox) to dial."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
from collections.abc import Callable

from sandbox.brains.registry import BRAINS, make_brain
from sandbox.errors import UserError
from sandbox.sdk import Brain, serve

HELP = "serve a brain (echo, concierge, guardrail, or module:Class) for Voqalize to dial"
DEFAULT_PORT = 8765


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``sandbox brain``."""
    parser.add_argument(
        "brain",
        metavar="NAME|module:Class",
        help=f"a built-in brain ({', '.join(BRAINS)}) or your own Brain subclass",
    )
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="port (default %(default)s)")
    parser.add_argument("--host", default="127.0.0.1", help="interface (default %(default)s)")


def run(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C (or SIGTERM)."""
    brain = make_brain(args.brain)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(brain, args.brain, args.host, args.port))
    print("\nstopped.")
    return 0


#: How long stopping waits for open sessions to close.
STOP_TIMEOUT_S = 5.0


async def _serve(brain: Callable[[], Brain], name: str, host: str, port: int) -> None:
    try:
        server = await serve(brain, host=host, port=port)
    except OSError as exc:
        raise UserError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}. "
            "Is another brain already running there? Pick another with --port."
        ) from None
    print(
        f"Serving the {name} brain. Dial it at\n"
        f"  {server.url()}    (Voqalize adds ?session_id=...)\n"
        f"or over the relay leg at\n"
        f"  {server.relay_url}\n"
        "Tokens are verified with the sandbox's public key (`sandbox keys` prints it).\n"
        "Ctrl-C stops.",
        flush=True,
    )
    stop = asyncio.Event()
    with contextlib.suppress(NotImplementedError):  # no signal handlers on Windows loops
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    try:
        await stop.wait()  # Ctrl-C cancels this; SIGTERM sets it
    finally:
        # Ends open sessions (their brains' finally blocks run), but a stop never hangs on
        # a peer that does not answer the close.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(server.close(), STOP_TIMEOUT_S)
