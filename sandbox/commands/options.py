"""Options shared by the commands that place a call (``run`` and ``call``)."""

from __future__ import annotations

import argparse
from typing import NoReturn

from sandbox.audio.audio_options import AudioOptions
from sandbox.audio.voice_plugin import is_plugin, plugged_voice
from sandbox.audio.voices import ESPEAK_MISSING, catalog, voice_speaking
from sandbox.call.settings import DEFAULT_IDLE_MS, MAX_IDLE_MS, Settings, idle_error
from sandbox.caller.script_limits import MS_PER_WORD
from sandbox.errors import UsageError, UserError
from sandbox.harness.builtin import BRAIN_NAMES, brain_choice, brain_spec
from sandbox.host.launch import BUILTIN_BRAIN, CallOptions, check_init, check_relay_url
from sandbox.line.profile import DEFAULT_LINE, PROFILES, line_profile
from sandbox.option_values import checked, name, shown, whole
from sandbox.record.session_kinds import CallMode
from sandbox.wire import pb
from sandbox.wire.catalog import LANGUAGE_BY_ISO, language_name, voice_by_name, voice_name
from sandbox.wire.patience import PATIENCE_MAX, PATIENCE_MIN, patience_error

#: --relay's help, for every command that dials a brain.
RELAY_HELP = "dial as the Cortex relay leg, one socket for many calls (the URL must end in /agent)"
#: --brain's help, for every command that dials a brain.
BRAIN_HELP = (
    f"the brain to dial: a WebSocket URL, or a built-in brain by name ({', '.join(BRAIN_NAMES)}; "
    f"builtin is the {BUILTIN_BRAIN})"
)


def voice_spec(text: str) -> str:
    """--voice: a class of your own (``module:Class``, loaded when the call is set up) or a
    catalog voice's name (refused naming the voices there are)."""
    if not is_plugin(text):
        voice_by_name(text)
    return text


def patience(text: str) -> int:
    """--patience: a step of the scale, refused in the words every door uses (001: "in the
    same words")."""
    try:
        value = int(text)
    except ValueError:
        raise UsageError(f"must be a whole number, not {shown(text)}") from None
    problem = patience_error(value)
    if problem:
        raise UsageError(problem)
    return value


def language(code: str) -> int:
    """A language of the catalog by its code (``de``), refused naming the codes there are."""
    found = LANGUAGE_BY_ISO.get(code.strip().lower())
    if found is None:
        codes = ", ".join(sorted(LANGUAGE_BY_ISO))
        raise UsageError(f"unknown language {shown(code)}; use one of: {codes}")
    return found


_idle_range = whole(0, MAX_IDLE_MS, "ms", zero="off")


def idle_ms(text: str) -> int:
    """--idle-ms: 0 (off), or a timeout the wire serves (:func:`idle_error`'s words)."""
    value = _idle_range(text)
    problem = idle_error(value)
    if problem is not None:
        raise UsageError(problem)
    return value


def add_call_options(parser: argparse.ArgumentParser) -> None:
    """--brain, --relay, --voice, --patience, --idle-ms, --init."""
    parser.add_argument(
        "--brain",
        type=checked(brain_spec),
        metavar="URL|NAME",
        help=f"{BRAIN_HELP} (default: builtin)",
    )
    parser.add_argument("--relay", action="store_true", help=RELAY_HELP)
    parser.add_argument(
        "--voice",
        type=checked(voice_spec),
        metavar="NAME|module:Class",
        help="starting voice: a catalog voice (see `sandbox voices`) or a class of your own "
        "implementing sandbox.audio.voice_engine.VoiceEngine (default: joe, or the first "
        "installed voice that speaks the language asked for)",
    )
    parser.add_argument(
        "--language",
        type=checked(language),
        metavar="CODE",
        help="the language the call is heard and spoken in, e.g. de (default: en)",
    )
    parser.add_argument(
        "--speak-language",
        type=checked(language),
        metavar="CODE",
        help="the voice's language, when it differs",
    )
    parser.add_argument(
        "--hear-language",
        type=checked(language),
        metavar="CODE",
        help="the recognizer's language, when it differs",
    )
    parser.add_argument(
        "--patience",
        type=checked(patience),
        help=f"stt patience {PATIENCE_MIN}..{PATIENCE_MAX} (default: unset = 7)",
    )
    parser.add_argument(
        "--idle-ms",
        type=checked(idle_ms),
        default=DEFAULT_IDLE_MS,
        help=f"silence before an idle turn, 0 disables (default: {DEFAULT_IDLE_MS})",
    )
    parser.add_argument(
        "--init",
        type=checked(check_init, named=False),
        default="{}",
        help="the session's init data, a JSON object",
    )


def add_ms_per_word(
    parser: argparse.ArgumentParser, *, default: int | None, default_words: str
) -> None:
    """``--ms-per-word``, the simulated clock's speaking rate, as each command that plays
    replies on it takes it (``run``'s typed mode, ``call``'s simulated audio)."""
    parser.add_argument(
        "--ms-per-word",
        type=whole(MS_PER_WORD.low, MS_PER_WORD.high, MS_PER_WORD.unit),
        default=default,
        metavar="MS",
        help="the simulated clock's speaking rate (typed mode, simulated audio): how long "
        f"each word of a reply takes to play (default: {default_words})",
    )


def add_audio_options(parser: argparse.ArgumentParser, *, mic: bool = True) -> None:
    """--mic (unless ``mic`` is False: a scripted caller is the microphone), --speaker,
    --no-aec, --stt-model."""
    if mic:
        parser.add_argument(
            "--mic", type=name, help="microphone: a device (index or name) or a WAV file"
        )
    parser.add_argument(
        "--speaker",
        type=name,
        help="speaker: a device (index or name), a WAV file to write, or none",
    )
    parser.add_argument(
        "--no-aec", action="store_true", help="turn echo cancellation off (use headphones)"
    )
    parser.add_argument(
        "--stt-model",
        type=name,
        metavar="PATH|MODULE:CLASS",
        help="another CTranslate2 Whisper model directory, or your own recognizer class "
        "(see docs/languages.md)",
    )
    parser.add_argument(
        "--line",
        type=checked(line_profile),
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
        line=args.line or line_profile(DEFAULT_LINE),
    )


def call_options(args: argparse.Namespace, recording: CallMode) -> CallOptions:
    """The call's options from the values parsed (each checked there: what is left is how
    they go together); a relay leg's URL that is not the relay's is a UserError.

    ``recording`` is what the call carries ("sim", "typed", "audio"), as the session store
    keeps it."""
    tts_language = args.speak_language or args.language or pb.LANGUAGE_EN
    voice = _voice(args, tts_language)
    brain_url, builtin = brain_choice(args.brain)
    if args.relay and brain_url:
        check_relay_url(brain_url)
    settings = Settings(
        voice=voice,
        tts_language=tts_language,
        stt_language=args.hear_language or args.language or pb.LANGUAGE_EN,
        patience=args.patience,
        idle_ms=args.idle_ms,
    )
    return CallOptions(
        brain_url=brain_url,
        builtin=builtin,
        relay=args.relay,
        init=args.init,
        settings=settings,
        recording=recording,
    )


def _voice(args: argparse.Namespace, language: int) -> int:
    """The starting voice: --voice (a catalog voice, or the one a class of your own speaks
    as), else joe, else the first installed voice that speaks ``language``."""
    if args.voice and is_plugin(args.voice):
        return plugged_voice(args.voice)[0]
    if args.voice:
        return voice_by_name(args.voice)  # checked as it was parsed
    speaker = voice_speaking(language)
    if speaker is not None:
        return speaker
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
