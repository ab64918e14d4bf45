"""Options shared by the commands that place a call (``run`` and ``call``)."""

from __future__ import annotations

import argparse

from sandbox.audio.audio_options import AudioOptions
from sandbox.call.settings import DEFAULT_IDLE_MS, Settings, idle_error
from sandbox.errors import UserError
from sandbox.harness.builtin import BRAIN_NAMES, brain_choice
from sandbox.host.launch import BUILTIN_BRAIN, CallOptions, check_init, check_relay_url
from sandbox.line.profile import DEFAULT_LINE, PROFILES, line_profile
from sandbox.record.session_kinds import CallMode
from sandbox.wire import pb
from sandbox.wire.catalog import LANGUAGE_BY_ISO, voice_by_name
from sandbox.wire.patience import patience_error

#: --relay's help, for every command that dials a brain.
RELAY_HELP = "dial as the Cortex relay leg, one socket for many calls (the URL must end in /agent)"
#: --brain's help, for every command that dials a brain.
BRAIN_HELP = (
    f"the brain to dial: a WebSocket URL, or a built-in brain by name ({', '.join(BRAIN_NAMES)}; "
    f"builtin is the {BUILTIN_BRAIN})"
)


def add_call_options(parser: argparse.ArgumentParser) -> None:
    """--brain, --relay, --voice, --patience, --idle-ms, --init."""
    parser.add_argument("--brain", metavar="URL|NAME", help=f"{BRAIN_HELP} (default: builtin)")
    parser.add_argument("--relay", action="store_true", help=RELAY_HELP)
    parser.add_argument("--voice", default="joe", help="starting voice (default: joe)")
    parser.add_argument(
        "--language",
        metavar="CODE",
        help="the language the call is heard and spoken in, e.g. de (default: en)",
    )
    parser.add_argument(
        "--speak-language", metavar="CODE", help="the voice's language, when it differs"
    )
    parser.add_argument(
        "--hear-language", metavar="CODE", help="the recognizer's language, when it differs"
    )
    parser.add_argument("--patience", type=int, help="stt patience 0..10 (default: unset = 7)")
    parser.add_argument(
        "--idle-ms",
        type=int,
        default=DEFAULT_IDLE_MS,
        help=f"silence before an idle turn, 0 disables (default: {DEFAULT_IDLE_MS})",
    )
    parser.add_argument("--init", default="{}", help="the session's init data, a JSON object")


def add_audio_options(parser: argparse.ArgumentParser, *, mic: bool = True) -> None:
    """--mic (unless ``mic`` is False: a scripted caller is the microphone), --speaker,
    --no-aec, --stt-model."""
    if mic:
        parser.add_argument("--mic", help="microphone: a device (index or name) or a WAV file")
    parser.add_argument(
        "--speaker", help="speaker: a device (index or name), a WAV file to write, or none"
    )
    parser.add_argument(
        "--no-aec", action="store_true", help="turn echo cancellation off (use headphones)"
    )
    parser.add_argument(
        "--stt-model",
        metavar="PATH|MODULE:CLASS",
        help="another CTranslate2 Whisper model directory, or your own recognizer class "
        "(see docs/languages.md)",
    )
    parser.add_argument(
        "--line",
        metavar="NAME|FILE.toml",
        help=f"the phone line the caller is on, both ways: {', '.join(PROFILES)} (default "
        f"{DEFAULT_LINE}: none), or a profile file; see docs/lines.md",
    )


def audio_options(args: argparse.Namespace) -> AudioOptions:
    """The audio engine's options from --mic, --speaker, --no-aec, --stt-model, --line."""
    return AudioOptions(
        mic=getattr(args, "mic", None),
        speaker=args.speaker,
        aec=not args.no_aec,
        stt_model=args.stt_model,
        line=line_profile(args.line or DEFAULT_LINE),
    )


def call_options(args: argparse.Namespace, recording: CallMode) -> CallOptions:
    """Validate the shared options; a bad value is a UserError saying what is allowed.

    ``recording`` is what the call carries ("sim", "typed", "audio"), as the session store
    keeps it."""
    try:
        voice = voice_by_name(args.voice)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    problem = None if args.patience is None else patience_error(args.patience)
    if problem:
        raise UserError(f"--patience: {problem}")
    brain_url, builtin = brain_choice(args.brain)
    if args.relay and brain_url:
        check_relay_url(brain_url)
    if args.idle_ms < 0:
        raise UserError("--idle-ms must be 0 (off) or a positive number of milliseconds")
    if idle_error(args.idle_ms):
        raise UserError(f"--idle-ms: {idle_error(args.idle_ms)}")
    settings = Settings(
        voice=voice,
        tts_language=_language(args, "speak_language"),
        stt_language=_language(args, "hear_language"),
        patience=args.patience,
        idle_ms=args.idle_ms,
    )
    return CallOptions(
        brain_url=brain_url,
        builtin=builtin,
        relay=args.relay,
        init=check_init(args.init),
        settings=settings,
        recording=recording,
    )


def _language(args: argparse.Namespace, leg: str) -> int:
    """One leg's language: its own option, else --language, else English; checked against
    the catalog."""
    option, code = (leg, getattr(args, leg)) if getattr(args, leg) else ("language", args.language)
    if code is None:
        return pb.LANGUAGE_EN
    found = LANGUAGE_BY_ISO.get(code.strip().lower())
    if found is None:
        codes = ", ".join(sorted(LANGUAGE_BY_ISO))
        flag = "--" + option.replace("_", "-")
        raise UserError(f"{flag}: unknown language {code!r}; use one of: {codes}")
    return found
