"""Regenerate the committed Python code for the schema of record.

Run ``python -m sandbox.wire.schema_gen`` after editing
``proto/voqalize/frames/frames.proto``; a test regenerates it into a temporary
folder and fails on any difference from what is committed.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from sandbox.private_files import write_file

REPO = Path(__file__).resolve().parents[3]  # sdk/sandbox/wire/ in a checkout
PROTO_ROOT = REPO / "proto"
SCHEMA = PROTO_ROOT / "voqalize" / "frames" / "frames.proto"
OUT_DIR = Path(__file__).resolve().parent
GENERATED = ("frames_pb2.py", "frames_pb2.pyi")


def generate() -> dict[str, bytes]:
    """Run protoc on the schema and return the generated files by name."""
    from grpc_tools import protoc  # dev-only dependency

    include = str(Path(protoc.__file__).parent / "_proto")
    with tempfile.TemporaryDirectory() as tmp:
        args = [
            "protoc",
            f"-I{PROTO_ROOT}",
            f"-I{include}",
            f"--python_out={tmp}",
            f"--pyi_out={tmp}",
            str(SCHEMA),
        ]
        if protoc.main(args) != 0:
            raise RuntimeError(f"protoc failed on {SCHEMA}")
        made = Path(tmp) / "voqalize" / "frames"
        return {name: (made / name).read_bytes() for name in GENERATED}


def main() -> int:
    """Write the generated files next to this module."""
    for name, data in generate().items():
        write_file(OUT_DIR / name, data)
        print(f"wrote {OUT_DIR / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
