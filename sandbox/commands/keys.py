"""``sandbox keys``: the public key a brain verifies the sandbox's tokens against."""

from __future__ import annotations

import argparse
import sys

from sandbox.wire.tokens import key_paths, load_or_create_keys

HELP = "print the public key a brain verifies the sandbox's connection tokens with"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``sandbox keys``."""
    parser.add_argument(
        "--path",
        action="store_true",
        help="print the public key file's path instead of the key",
    )


def run(args: argparse.Namespace) -> int:
    """Create the key pair on first use, then print the public key (or its path).

    The PEM goes to stdout alone, so ``sandbox keys > voqalize.pub`` gives a brain
    its key; where the files live goes to stderr.
    """
    keys = load_or_create_keys()
    private_path, public_path = key_paths()
    if args.path:
        print(public_path)
        return 0
    sys.stdout.write(keys.public_pem.decode("ascii"))
    print(
        f"public key: {public_path}\nprivate key: {private_path} (keep it to yourself)",
        file=sys.stderr,
    )
    return 0
