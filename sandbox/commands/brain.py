"""``sandbox brain``: serve one brain for Voqalize (or the sandbox) to dial."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import gc
import ipaddress
import logging
import re
import signal
from collections.abc import Callable

import uvloop

from sandbox.brains import authored
from sandbox.brains.registry import BRAINS, make_brain
from sandbox.brains.their_code import TheirTracebacks
from sandbox.commands.brain_reload import Reloader
from sandbox.errors import UsageError, UserError
from sandbox.logs import Redacted
from sandbox.option_values import checked, name, port, shown
from sandbox.sdk import Brain, serve
from sandbox.sdk.server import NOT_LOOPBACK, is_loopback

HELP = (
    "serve a brain (echo, concierge, guardrail, module:Class or path/to/file.py[:Class]) "
    "for Voqalize to dial"
)
DEFAULT_PORT = 8765
#: Passes of the collector's middle generation between two full ones (Python's default: 10).
FULL_PASS_EVERY = 100


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``sandbox brain``."""
    parser.add_argument(
        "brain",
        type=name,
        metavar="NAME|module:Class|file.py[:Class]",
        help=f"a built-in brain ({', '.join(BRAINS)}) or your own Brain subclass: a module "
        "in the current directory (mymodule:Greeter), or a file (./mymodule.py:Greeter, or "
        "./mymodule.py when it defines one Brain)",
    )
    parser.add_argument(
        "--port",
        type=port(any_free=True),
        default=DEFAULT_PORT,
        help="port, 1 to 65535, or 0 for any free one (the URL printed names it; "
        "default %(default)s)",
    )
    parser.add_argument(
        "--host",
        type=checked(interface),
        default="127.0.0.1",
        help="interface (default %(default)s: this machine only; 0.0.0.0 is every one)",
    )
    parser.add_argument(
        "--reload",
        action="store_true",
        help="load your brain's file again whenever it changes: the call in progress "
        "goes on with the new code",
    )


#: A host name as a resolver takes one: dot-separated labels of letters, digits and hyphens.
_HOST_NAME = re.compile(
    r"(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*"
)


def interface(host: str) -> str:
    """--host: an IP address or a host name (whether it is this machine's is found out
    when the server binds, and said there)."""
    with contextlib.suppress(ValueError):
        return str(ipaddress.ip_address(host))
    if _HOST_NAME.fullmatch(host) is None:
        raise UsageError(
            f"{shown(host)} is neither an IP address nor a host name (127.0.0.1: this machine "
            "only; 0.0.0.0: every interface)"
        )
    return host


def run(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C (or SIGTERM)."""
    reloader = _reloader(args.brain) if args.reload else None
    brain = reloader.make if reloader is not None else make_brain(args.brain)
    # What a brain's callback raises is logged with the author's frames only.
    handler = logging.StreamHandler()
    handler.setFormatter(TheirTracebacks("%(asctime)s %(name)s: %(message)s"))
    handler.addFilter(Redacted())
    logging.basicConfig(level=logging.INFO, handlers=[handler])
    _collector_for_serving()
    with contextlib.suppress(KeyboardInterrupt):
        # uvloop: each session's frames and its model's timers cost the server a quarter
        # less CPU than on asyncio's own loop, so more calls are answered in time.
        uvloop.run(_serve(brain, args.brain, args.host, args.port, reloader))
    print("\nstopped.")
    return 0


def _collector_for_serving() -> None:
    """Tune Python's collector for a server that holds every session's objects while its
    call lasts: a full pass walks them all, the loop stopped meanwhile (2,000 calls at
    once: passes of 70 to 180 ms, each making every call's next frame that late). What
    exists now (modules, the brain) is frozen, never walked again, and full passes come
    FULL_PASS_EVERY middle ones apart rather than 10; the younger passes still find the
    cycles that die young, and the rest wait for the next full pass."""
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_PASS_EVERY)


def _reloader(spec: str) -> Reloader:
    source = None if spec in BRAINS else authored.parse(spec)
    if source is None:
        raise UserError(
            "--reload watches your own brain's file (module:Class or path/to/file.py); "
            f"{spec!r} is not one"
        )
    return Reloader(source, authored.load(source))


#: How long stopping waits for open sessions to close.
STOP_TIMEOUT_S = 5.0


async def _serve(
    brain: Callable[[], Brain], name: str, host: str, port: int, reloader: Reloader | None
) -> None:
    try:
        server = await serve(brain, host=host, port=port)
    except OSError as exc:
        if exc.errno == errno.EADDRNOTAVAIL:
            raise UserError(
                f"cannot listen on {host}:{port}: {host} is not an address of this machine. "
                "Use one of its own (127.0.0.1: this machine only; 0.0.0.0: every interface)."
            ) from None
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
    if not is_loopback(host):
        print(f"Listening on {host or 'every interface'}: {NOT_LOOPBACK}.", flush=True)
    watching = None
    if reloader is not None:
        print(f"Watching {reloader.current.file} for changes (--reload).", flush=True)
        watching = asyncio.create_task(
            reloader.watch(lambda words: print(words, flush=True), lambda: server.connections)
        )
    stop = asyncio.Event()
    with contextlib.suppress(NotImplementedError):  # no signal handlers on Windows loops
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    try:
        await stop.wait()  # Ctrl-C cancels this; SIGTERM sets it
    finally:
        if watching is not None:
            watching.cancel()
        # Ends open sessions (their brains' finally blocks run), but a stop never hangs on
        # a peer that does not answer the close.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(server.close(), STOP_TIMEOUT_S)
