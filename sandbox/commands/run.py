"""``sandbox run``: the terminal app."""

from __future__ import annotations

import argparse

HELP = "open the terminal app and talk to a brain (the built-in concierge by default)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``sandbox run``."""
    parser.add_argument("--brain", metavar="URL", help="brain to dial (default: built-in)")


def run(args: argparse.Namespace) -> int:
    """Not built yet: say so plainly."""
    print(
        "The terminal app is not built yet in this version of Voqalize Sandbox.\n"
        "Meanwhile: `sandbox brain concierge --port 8765` runs the built-in brain, and\n"
        "`sandbox keys` prints the public key a brain verifies Voqalize's tokens with."
    )
    return 0
