"""How the call behaves (voice, languages, patience, idle) and the Config deltas that move it."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace

from sandbox.wire import pb
from sandbox.wire.catalog import language_name, voice_name
from sandbox.wire.patience import patience_error

#: The calibration the deployment runs when patience is unset.
DEFAULT_PATIENCE = 7
DEFAULT_IDLE_MS = 8000
#: The shortest idle timeout served. An idle turn left unanswered escalates after another
#: timeout of silence, so a 1 ms timeout would mint a UserIdle every millisecond.
MIN_IDLE_MS = 250
#: The longest idle timeout the wire carries (``IdleConfig.timeout_ms`` is a uint32: ~49 days).
MAX_IDLE_MS = 2**32 - 1


@dataclass(frozen=True)
class Settings:
    """The settings in force. ``patience`` None means unset (the default calibration, 7)."""

    voice: int = pb.VOICE_JOE
    tts_language: int = pb.LANGUAGE_EN
    stt_language: int = pb.LANGUAGE_EN
    patience: int | None = None
    idle_ms: int = DEFAULT_IDLE_MS

    @property
    def effective_patience(self) -> int:
        """The patience the recognizer runs at: unset is the default calibration."""
        return DEFAULT_PATIENCE if self.patience is None else self.patience

    def describe(self) -> str:
        """One line for a status bar."""
        idle = f"{self.idle_ms} ms" if self.idle_ms else "off"
        return (
            f"voice {voice_name(self.voice)} · speak {language_name(self.tts_language)}"
            f" · hear {language_name(self.stt_language)} · patience {self.effective_patience}"
            f" · idle {idle}"
        )


def idle_error(timeout_ms: int) -> str | None:
    """The one wording for an idle timeout that is not served, at whichever door it arrives."""
    if timeout_ms > MAX_IDLE_MS:
        return (
            f"idle.timeout_ms must be 0 (off) or at most {MAX_IDLE_MS:,} ms, the wire's "
            f"largest (got {timeout_ms:,})"
        )
    if timeout_ms == 0 or timeout_ms >= MIN_IDLE_MS:
        return None
    return f"idle.timeout_ms must be 0 (off) or at least {MIN_IDLE_MS} ms (got {timeout_ms})"


@dataclass(frozen=True)
class Capabilities:
    """What the speech tier serves, snapshotted when the call is set up (never read from disk
    mid-call): each catalogued voice's languages, and what the recognizer hears."""

    voices: Mapping[int, Collection[int]]
    stt_languages: Collection[int] | None = None  # None: the recognizer takes any language
    #: Said after a recognizer refusal when an install would hear more (how to install it).
    stt_missing: str = ""

    def languages_spoken(self, voice: int) -> Collection[int]:
        """The languages ``voice`` speaks; empty for a voice the speech tier does not have."""
        return self.voices.get(voice, ())

    def speakers_of(self, language: int) -> str:
        """Which voices here speak ``language``, in words: what a refusal can offer."""
        found = sorted(voice_name(v) for v, spoken in self.voices.items() if language in spoken)
        if not found:
            return f"no voice here speaks {language_name(language)}"
        return f"{language_name(language)} is spoken by: {', '.join(found)}"


def _named(section: pb.TtsConfig | pb.SttConfig, name: str) -> bool:
    """The section names this enum field: present and not ``*_UNSPECIFIED``. An explicitly
    unspecified value, like an absent one, means leave it alone."""
    return section.HasField(name) and getattr(section, name) != 0


def validate(config: pb.Config, current: Settings, caps: Capabilities) -> str | None:
    """Why this Config must be refused whole, or None when it can be applied whole.

    Changing only the voice touches no language and is unaffected by the language rules
    (the wire contract, docs/wire.md): the call's languages stay as they are and the new
    voice reads what it is given.
    """
    tts_lang = _named(config.tts, "language")
    stt_lang = _named(config.stt, "language")
    if tts_lang != stt_lang:
        named, missing = ("tts", "stt") if tts_lang else ("stt", "tts")
        return (
            f"{named}.language is set but {missing}.language is not: name a language on both "
            "legs (they may differ) so the call is never heard in one and spoken in another"
        )
    if config.stt.HasField("patience"):
        problem = patience_error(config.stt.patience)
        if problem:
            return problem
    if config.idle.HasField("timeout_ms"):
        problem = idle_error(config.idle.timeout_ms)
        if problem:
            return problem
    new_voice = _named(config.tts, "voice")
    voice = config.tts.voice if new_voice else current.voice
    if new_voice:
        if voice not in pb.Voice.values():
            return f"tts.voice {voice} is not a voice this Voqalize knows"
        if not caps.languages_spoken(voice):
            return f"voice {voice_name(voice)} is not installed here; see voices/README.md"
    if tts_lang:
        for leg, lang in (("tts", config.tts.language), ("stt", config.stt.language)):
            if lang not in pb.Language.values():
                return f"{leg}.language {lang} is not a language in the catalog"
        spoken = caps.languages_spoken(voice)
        if config.tts.language not in spoken:
            names = ", ".join(language_name(lang) for lang in spoken) or "none"
            wanted = language_name(config.tts.language)
            return (
                f"voice {voice_name(voice)} does not speak {wanted}; it speaks: {names}; "
                f"{caps.speakers_of(config.tts.language)}"
            )
        heard = caps.stt_languages
        if heard is not None and config.stt.language not in heard:
            names = ", ".join(sorted(language_name(lang) for lang in heard))
            more = f"; {caps.stt_missing}" if caps.stt_missing else ""
            return (
                f"the recognizer cannot transcribe {language_name(config.stt.language)}; "
                f"it serves: {names}{more}"
            )
    return None


def connect_config(settings: Settings) -> pb.Config:
    """The Config a call starts with (sessions.connect's sections): every setting named, so
    the starting settings meet the same checks, in the same words, as a change mid-call."""
    config = pb.Config()
    config.tts.voice = settings.voice  # type: ignore[assignment]
    config.tts.language = settings.tts_language  # type: ignore[assignment]
    config.stt.language = settings.stt_language  # type: ignore[assignment]
    if settings.patience is not None:
        config.stt.patience = settings.patience
    config.idle.timeout_ms = settings.idle_ms
    return config


def merged(config: pb.Config, current: Settings) -> Settings:
    """The settings once every section of a validated Config is in force."""
    out = current
    if _named(config.tts, "voice"):
        out = replace(out, voice=config.tts.voice)
    if _named(config.tts, "language"):
        out = replace(out, tts_language=config.tts.language)
    if _named(config.stt, "language"):
        out = replace(out, stt_language=config.stt.language)
    if config.stt.HasField("patience"):
        out = replace(out, patience=config.stt.patience)
    if config.idle.HasField("timeout_ms"):
        out = replace(out, idle_ms=config.idle.timeout_ms)
    return out
