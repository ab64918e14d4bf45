"""``sandbox run``: the terminal app — talk to a brain, watch the wire and the heard truth."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from sandbox.audio.audio_options import phone_line
from sandbox.audio.device_choice import is_file
from sandbox.caller.script import DEFAULT_MS_PER_WORD
from sandbox.caller.script_limits import SILENCE_MS
from sandbox.commands.options import (
    add_audio_options,
    add_call_options,
    add_ms_per_word,
    audio_options,
    call_options,
)
from sandbox.commands.written import FORCE_HELP, clear_the_way
from sandbox.errors import UserError
from sandbox.option_values import path, whole
from sandbox.record.plain_text import visible
from sandbox.record.session_kinds import CallMode

HELP = "open the terminal app and talk to a brain (the built-in concierge by default)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``sandbox run``."""
    add_call_options(parser)
    add_audio_options(parser)
    parser.add_argument(
        "--typed",
        action="store_true",
        help="no audio: type what the caller says; replies play silently on a simulated clock",
    )
    add_ms_per_word(parser, default=DEFAULT_MS_PER_WORD, default_words=str(DEFAULT_MS_PER_WORD))
    parser.add_argument(
        "--mic-delay",
        # As long as a caller's silence may be: the file's first word is its caller's.
        type=whole(SILENCE_MS.low, SILENCE_MS.high, SILENCE_MS.unit),
        metavar="MS",
        help="with --mic FILE.wav: start the file MS after the call starts "
        "(default: once the greeting has played)",
    )
    parser.add_argument(
        "--end-at-eof",
        action=argparse.BooleanOptionalAction,
        help="with --mic FILE.wav: end the call once the file's last turn is answered "
        "(default: on)",
    )
    parser.add_argument("--report", type=path, help="where to write the report JSON")
    parser.add_argument("--force", action="store_true", help=f"--report: {FORCE_HELP}")


def run(args: argparse.Namespace) -> int:
    """Open the app; when it closes, print where the call's report went."""
    from sandbox.ui.app import SandboxApp
    from sandbox.ui.choose import choose_audio
    from sandbox.ui.runner import CallSetup

    if args.report is not None:  # refused now, not after the call
        clear_the_way([args.report], force=args.force)
    _check_file_mic(args)
    sound = audio_options(args)
    if args.typed and sound.line.is_line:
        raise UserError(f"--line {sound.line.name} shapes the call's sound: typed mode has none")
    audio = choose_audio(
        sound,
        typed=args.typed,
        ms_per_word=args.ms_per_word,
        mic_delay_ms=args.mic_delay,
        end_at_eof=args.end_at_eof is not False,
    )
    options = call_options(args, recording=CallMode.AUDIO if audio.real else CallMode.TYPED)
    if audio.real:
        options = replace(options, line=phone_line(sound.line))
    app = SandboxApp(CallSetup(options, audio, report_path=args.report))
    report = app.run()
    if app.problem:
        print(f"sandbox run: {visible(app.problem)}", file=sys.stderr)
    if report is not None:
        print(f"report: {report}")
    if app.replay_command is not None:
        print(f"watch it again: {app.replay_command}")
    return 1 if app.problem or app.return_code else 0


def _check_file_mic(args: argparse.Namespace) -> None:
    """--mic-delay and --end-at-eof say when a file speaks: they need one."""
    asked = [
        name
        for name, value in (("--mic-delay", args.mic_delay), ("--end-at-eof", args.end_at_eof))
        if value is not None
    ]
    if asked and (args.typed or not is_file(args.mic)):
        verb = "go" if len(asked) > 1 else "goes"
        raise UserError(f"{' and '.join(asked)} {verb} with --mic FILE.wav (a caller's audio)")
