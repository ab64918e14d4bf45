"""``sandbox replay``: watch and hear a saved call again, in the terminal app's panes."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

from sandbox.audio.sinks import DeviceSink
from sandbox.errors import UserError
from sandbox.replay.audio import LegPlayer
from sandbox.replay.diff import side_by_side
from sandbox.replay.source import open_recording

HELP = (
    "watch and hear a saved session again, or (--brain) play its caller side against a brain "
    "and diff the heard truth"
)
#: Samples per block pulled by the speaker: the panes follow the sound to within one.
BLOCK_FRAMES = 1024


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``sandbox replay``."""
    parser.add_argument("id", help="a session id or a unique prefix (`sandbox sessions list`)")
    parser.add_argument("--speaker", help="play through this output device (index or name)")
    parser.add_argument("--silent", action="store_true", help="replay without sound")
    parser.add_argument(
        "--brain",
        metavar="URL",
        help="re-drive: play the session's caller side against this brain ('builtin' for the "
        "built-in concierge) and print the diff; exit 0 same, 1 changed, 2 a wire rule broken",
    )
    parser.add_argument("--json", type=Path, metavar="FILE", help="re-drive: the diff as JSON")
    parser.add_argument(
        "--ignore-text", action="store_true", help="re-drive: compare units and cuts, not words"
    )


def run(args: argparse.Namespace) -> int:
    """Open the session, start the speaker if there is sound to play, run the app; or with
    --brain, re-drive it and print the diff."""
    if args.brain:
        return _redrive(args)
    from sandbox.ui.replay_app import ReplayApp

    recording = open_recording(args.id)
    player: LegPlayer | None = None
    sink: DeviceSink | None = None
    banner = ""
    if args.silent:
        banner = "Replaying without sound (--silent)."
    elif recording.no_audio:
        banner = f"Replaying without sound: {recording.no_audio}."
    else:
        rate = recording.legs["speaker"][1]
        player = LegPlayer(recording.legs, rate)
        try:
            sink = DeviceSink(_device(args.speaker), rate)
            sink.start(player.pull, BLOCK_FRAMES)
        except UserError as exc:
            player, sink = None, None
            banner = f"Replaying without sound: {exc}"
    try:
        ReplayApp(recording, player=player, banner=banner).run()
    finally:
        if sink is not None:
            sink.close()
    return 0


def _redrive(args: argparse.Namespace) -> int:
    from sandbox.check.redrive import redrive

    brain = None if args.brain == "builtin" else args.brain
    done = asyncio.run(redrive(args.id, brain, ignore_text=args.ignore_text))
    print(f"re-drove session {done.original[:12]} as {done.session_id[:12]}")
    print(side_by_side(done.diff))
    if args.json is not None:
        args.json.write_text(json.dumps(done.diff.as_json(), indent=2, ensure_ascii=False))
    return done.diff.exit_status


def _device(spec: str | None) -> int | None:
    from sandbox.audio.devices import resolve_output

    if spec is None:
        return None
    return resolve_output(int(spec) if spec.isdigit() else spec).index
