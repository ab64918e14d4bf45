"""Options shared by the commands that place a call (``run`` and ``call``)."""

from __future__ import annotations

import argparse
from typing import NoReturn

from sandbox.audio.audio_options import AudioOptions
from sandbox.audio.voice_plugin import is_plugin, plugged_voice
from sandbox.audio.voices import ESPEAK_MISSING, catalog, default_voice, voice_languages
from sandbox.call.settings import DEFAULT_IDLE_MS, Settings, idle_error
from sandbox.errors import UserError
from sandbox.harness.builtin import BRAIN_NAMES, brain_choice
from sandbox.host.launch import BUILTIN_BRAIN, CallOptions, check_init, check_relay_url
from sandbox.line.profile import DEFAULT_LINE, PROFILES, line_profile
from sandbox.record.session_kinds import CallMode
from sandbox.wire import pb
from sandbox.wire.catalog import LANGUAGE_BY_ISO, language_name, voice_by_name, voice_name
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
    parser.add_argument(
        "--voice",
        metavar="NAME|module:Class",
        help="starting voice: a catalog voice (see `sandbox voices`) or a class of your own "
        "implementing sandbox.audio.voice_engine.VoiceEngine (default: joe, or the first "
        "installed voice that speaks the language asked for)",
    )
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
        "--stt-model", metavar="PATH", help="another CTranslate2 Whisper model directory"
    )
    parser.add_argument(
        "--line",
        metavar="NAME|FILE.toml",
        help=f"the phone line the caller is on, both ways: {', '.join(PROFILES)} (default "
        f"{DEFAULT_LINE}: none), or a profile file; see docs/lines.md",
    )


def audio_options(args: argparse.Namespace) -> AudioOptions:
    """The audio engine's options from --mic, --speaker, --no-aec, --stt-model, --line, and
    --voice when it names a voice of your own."""
    spec = getattr(args, "voice", None)
    return AudioOptions(
        voice=plugged_voice(spec)[1] if spec and is_plugin(spec) else None,
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
    tts_language = _language(args, "speak_language")
    voice = _voice(args, tts_language)
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
        tts_language=tts_language,
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


def _voice(args: argparse.Namespace, language: int) -> int:
    """The starting voice: --voice (a catalog voice, or the one a class of your own speaks
    as), else joe, else the first installed voice that speaks ``language``."""
    if args.voice and is_plugin(args.voice):
        return plugged_voice(args.voice)[0]
    if args.voice:
        try:
            return voice_by_name(args.voice)
        except ValueError as exc:
            raise UserError(str(exc)) from None
    installed = voice_languages()
    if language in installed.get(default_voice(), ()):
        return default_voice()
    speakers = sorted(v for v, spoken in installed.items() if language in spoken)
    if speakers:
        return speakers[0]
    flag = "--speak-language" if args.speak_language else "--language"
    _no_voice(flag, language)


def _no_voice(flag: str, language: int) -> NoReturn:
    """Refuse a language no installed voice speaks, naming the voices that would."""
    known = {v: e for v, e in catalog().items() if language in e.languages}
    code = language_name(language)
    if known:
        names = ", ".join(sorted(voice_name(v) for v in known))
        espeak = any(e.kind == "espeak" for e in known.values())
        how = ESPEAK_MISSING if espeak else "see `sandbox voices`"
        raise UserError(f"{flag} {code}: no installed voice speaks it; {names} would ({how})")
    raise UserError(f"{flag} {code}: no voice of the sandbox speaks {code} (see `sandbox voices`)")


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
