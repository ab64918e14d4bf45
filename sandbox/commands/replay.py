"""``sandbox replay``: watch and hear a saved call again, in the terminal app's panes."""

from __future__ import annotations

import argparse

from sandbox.audio.sinks import DeviceSink
from sandbox.errors import UserError
from sandbox.replay.audio import LegPlayer
from sandbox.replay.source import open_recording

HELP = "watch and hear a saved session again (its id, or a unique prefix of it)"
#: Samples per block pulled by the speaker: the panes follow the sound to within one.
BLOCK_FRAMES = 1024


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``sandbox replay``."""
    parser.add_argument("id", help="a session id or a unique prefix (`sandbox sessions list`)")
    parser.add_argument("--speaker", help="play through this output device (index or name)")
    parser.add_argument("--silent", action="store_true", help="replay without sound")


def run(args: argparse.Namespace) -> int:
    """Open the session, start the speaker if there is sound to play, run the app."""
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


def _device(spec: str | None) -> int | None:
    from sandbox.audio.devices import resolve_output

    if spec is None:
        return None
    return resolve_output(int(spec) if spec.isdigit() else spec).index
