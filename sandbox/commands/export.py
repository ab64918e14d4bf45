"""``sandbox export``: a saved session as a page to share, a summary to paste, or its data."""

from __future__ import annotations

import argparse

from sandbox.commands.sessions import EXPORT_HELP, export_arguments, export_session
from sandbox.record.store import SessionStore
from sandbox.record.stored_call import StoredCall

HELP = EXPORT_HELP


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The same options as ``sandbox sessions export``."""
    export_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Find the session and write what was asked for."""
    with SessionStore() as store:
        call = StoredCall.load(store, store.find(args.id))
    export_session(call, args)
    return 0
