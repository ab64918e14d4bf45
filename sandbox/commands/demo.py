"""``sandbox demo``: interruptions and heard truth shown to a room, scene by scene."""

from __future__ import annotations

import argparse
import sys

from sandbox.call.units import Unit
from sandbox.demo.headless import scene_options
from sandbox.demo.scene import SHIPPED, load_scene

HELP = "a narrated demonstration of barge-in, backchannels, take-backs and idle, scene by scene"
#: Why a demo has no sound yet, for the banner.
ON_THE_CLOCK = (
    "Demo on the clock, no sound: the caller's lines are committed as text and the bot's "
    "replies play on a simulated clock at {ms} ms a word, so barge-ins, cuts and heard text "
    "are real.{why}"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--brain, --scene, --silent, --auto, --list."""
    parser.add_argument(
        "--brain", metavar="URL", help="play the scenes against this brain instead of theirs"
    )
    parser.add_argument(
        "--scene",
        action="append",
        metavar="NAME|FILE",
        help=f"play this scene only (repeatable): {', '.join(SHIPPED)}, or a scene .toml",
    )
    parser.add_argument("--silent", action="store_true", help="no sound: play on the clock")
    parser.add_argument("--auto", action="store_true", help="go on by itself after each scene")
    parser.add_argument("--list", action="store_true", help="list the shipped scenes and leave")


def run(args: argparse.Namespace) -> int:
    """Play each scene in the terminal app; the last one ends on the summary card."""
    from sandbox.ui.demo_app import DemoApp
    from sandbox.ui.runner import CallSetup
    from sandbox.ui.typed_audio import TypedAudio

    names = args.scene or list(SHIPPED)
    scenes = [load_scene(name) for name in names]  # every mistake before anything starts
    if args.list:
        for scene in scenes:
            print(f"{scene.name:<12} {scene.title}")
        return 0
    why = (
        ""
        if args.silent
        else " (Caller voices through the speaker are not built yet; --silent says so up front.)"
    )
    earlier: list[tuple[str, list[Unit]]] = []
    sessions = []
    for index, scene in enumerate(scenes):
        audio = TypedAudio(scene.ms_per_word, ON_THE_CLOCK.format(ms=scene.ms_per_word, why=why))
        app = DemoApp(
            CallSetup(scene_options(scene, args.brain, "typed"), audio),
            scene,
            number=f"{index + 1} of {len(scenes)}",
            auto=args.auto,
            last=index == len(scenes) - 1,
            earlier=earlier,
        )
        app.run()
        if app.host is not None:
            sessions.append(app.host.core.session_id[:8])
        if app.problem:
            print(f"sandbox demo: {app.problem}", file=sys.stderr)
            return 1
        earlier.append((scene.title, app.units()))
        if not app.go_on:
            break
    if sessions:
        print(f"each scene is a saved session: sandbox replay {' | '.join(sessions)}")
    return 0
