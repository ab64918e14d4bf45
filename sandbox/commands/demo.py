"""``sandbox demo``: interruptions and heard truth shown to a room, scene by scene."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from sandbox.audio.audio_options import phone_line
from sandbox.call.units import ShownUnit
from sandbox.commands.options import BRAIN_HELP
from sandbox.demo.headless import scene_options
from sandbox.demo.scene import SHIPPED, Scene, load_scene
from sandbox.harness.builtin import brain_choice, brain_spec
from sandbox.line.profile import PROFILES
from sandbox.option_values import checked, name
from sandbox.record.session_kinds import CallMode
from sandbox.record.store import short_id

if TYPE_CHECKING:
    from sandbox.audio.engine import AudioEngine
    from sandbox.audio.recognizer import Recognizer
    from sandbox.audio.voice_engine import VoiceEngine
    from sandbox.caller.script_runner import Caller
    from sandbox.ui.audio import AudioFrontend

HELP = "a narrated demonstration of barge-in, backchannels, take-backs and idle, scene by scene"
#: The banner when the scenes play on the clock.
ON_THE_CLOCK = (
    "Demo on the clock, no sound ({why}): the caller's lines are committed as text and the "
    "bot's replies play on a simulated clock at {ms} ms a word, so barge-ins, cuts and heard "
    "text are real."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--brain, --scene, --speaker, --silent, --auto, --list."""
    parser.add_argument(
        "--brain",
        type=checked(brain_spec),
        metavar="URL|NAME",
        help=f"play the scenes against this brain instead of theirs: {BRAIN_HELP}",
    )
    parser.add_argument(
        "--scene",
        action="append",
        type=checked(load_scene),  # every mistake before anything starts
        metavar="NAME|FILE",
        help=f"play this scene only (repeatable): {', '.join(SHIPPED)}, or a scene .toml",
    )
    parser.add_argument(
        "--speaker", type=name, help="the speaker both voices play through (index or name)"
    )
    parser.add_argument(
        "--silent", action="store_true", help="no sound: play on the clock, typed-mode style"
    )
    parser.add_argument("--auto", action="store_true", help="go on by itself after each scene")
    parser.add_argument("--list", action="store_true", help="list the shipped scenes and leave")


@dataclass
class _Models:
    """Whisper and Piper, loaded by the first scene's engine and lent to the next."""

    engine: AudioEngine | None = None

    @property
    def transcriber(self) -> Recognizer | None:
        """The loaded Whisper, if a scene loaded it."""
        return self.engine.transcriber if self.engine is not None else None

    @property
    def synthesizers(self) -> dict[int, VoiceEngine]:
        """The loaded voices."""
        return self.engine.synthesizers if self.engine is not None else {}


def run(args: argparse.Namespace) -> int:
    """Play each scene in the terminal app; the last one ends on the summary card."""
    from sandbox.ui.demo_app import DemoApp
    from sandbox.ui.runner import CallSetup

    scenes: list[Scene] = args.scene or [load_scene(shipped) for shipped in SHIPPED]
    url, builtin = brain_choice(args.brain) if args.brain else (None, None)
    if args.list:
        for scene in scenes:
            print(f"{scene.name:<12} {scene.title}")
        return 0
    earlier: list[tuple[str, Sequence[ShownUnit]]] = []
    sessions = []
    models = _Models()
    for index, scene in enumerate(scenes):
        audio, caller, recording = _frontend(args, scene, models)
        options = scene_options(scene, url, recording)
        if recording is CallMode.AUDIO:
            options = replace(options, line=phone_line(PROFILES[scene.line]))
        if builtin is not None:  # the brain named, rather than the scene's own
            options = replace(options, builtin=builtin)
        app = DemoApp(
            CallSetup(options, audio),
            scene,
            number=f"{index + 1} of {len(scenes)}",
            auto=args.auto,
            last=index == len(scenes) - 1,
            earlier=earlier,
            caller=caller,
        )
        app.run()
        if app.host is not None:
            sessions.append(short_id(app.host.core.session_id))
        if app.problem:
            print(f"sandbox demo: {app.problem}", file=sys.stderr)
            return 1
        earlier.append((scene.title, app.units()))
        if not app.go_on:
            break
    if sessions:
        print(f"each scene is a saved session: sandbox replay {' | '.join(sessions)}")
    return 0


def _frontend(
    args: argparse.Namespace, scene: Scene, models: _Models
) -> tuple[AudioFrontend, Caller | None, CallMode]:
    """The scene's sound: both voices through the speaker, or the clock (and why)."""
    from sandbox.audio.audio_options import AudioOptions
    from sandbox.audio.caller_aloud import CallerAloud
    from sandbox.audio.engine import AudioEngine
    from sandbox.audio.script_mic import ScriptMic
    from sandbox.caller.voice_caller import InjectedVoice
    from sandbox.ui.choose import missing_audio
    from sandbox.ui.engine_audio import EngineAudio
    from sandbox.ui.typed_audio import TypedAudio

    options = AudioOptions(speaker=args.speaker, line=PROFILES[scene.line])
    why = "--silent" if args.silent else missing_audio(options, mic=False)
    if why is not None:
        banner = ON_THE_CLOCK.format(why=why, ms=scene.ms_per_word)
        return TypedAudio(scene.ms_per_word, banner), None, CallMode.TYPED
    mic, aloud = ScriptMic(), CallerAloud()
    engine = AudioEngine(
        options,
        transcriber=models.transcriber,
        synthesizers=models.synthesizers,
        mic_source=mic,
        caller_aloud=aloud,
    )
    models.engine = engine
    return EngineAudio(engine), InjectedVoice(mic, aloud), CallMode.AUDIO
