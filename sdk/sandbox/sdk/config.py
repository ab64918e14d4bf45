"""Config builders: the brain's side of the control leg's one op, checked before it is sent.

Voices and languages are accepted as enum values or as the names a developer writes
(``"joe"``, ``"en"``, ``"LANGUAGE_BHO"``). Two rules are properties of the message
itself, so they are enforced here, in your process, as :class:`ConfigError`:

* a language named on one leg must be named on the other (they may differ: listen in
  Odia, speak with the Hindi clip), and
* ``patience`` is on the 0..10 scale.

Whether a voice speaks a language is the speech tier's business and comes back as a
REJECTED Response (``RequestRejected``), never guessed here.
"""

from __future__ import annotations

from dataclasses import dataclass

from sandbox.sdk.errors import ConfigError
from sandbox.wire import catalog, pb
from sandbox.wire.patience import patience_error

#: A voice as an enum value (``pb.VOICE_JOE``) or a name (``"joe"``, ``"VOICE_JOE"``).
VoiceLike = int | str
#: A language as an enum value (``pb.LANGUAGE_EN``) or a name (``"en"``, ``"LANGUAGE_EN"``).
LanguageLike = int | str

_UINT32_MAX = 2**32 - 1
_LANGUAGE_NAMES = frozenset(pb.Language.keys()) - {"LANGUAGE_UNSPECIFIED"}


def _voice(value: VoiceLike | None) -> int | None:
    if value is None:
        return None
    if isinstance(value, str):
        try:
            return catalog.voice_by_name(value)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    if isinstance(value, bool) or value not in pb.Voice.values() or value == pb.VOICE_UNSPECIFIED:
        raise ConfigError(f"{value!r} is not a voice; pass a Voice value or a name like 'joe'")
    return value


def _language(value: LanguageLike | None, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, str):
        key = value.strip()
        if key.lower() in catalog.LANGUAGE_BY_ISO:
            return catalog.LANGUAGE_BY_ISO[key.lower()]
        if key.upper() in _LANGUAGE_NAMES:
            return pb.Language.Value(key.upper())
        codes = ", ".join(sorted(catalog.LANGUAGE_BY_ISO))
        raise ConfigError(f"{where}: unknown language {value!r}; use one of: {codes}")
    valid = value in pb.Language.values() and value != pb.LANGUAGE_UNSPECIFIED
    if isinstance(value, bool) or not valid:
        raise ConfigError(f"{where}: {value!r} is not a language; pass a code like 'en'")
    return value


def _bounded(value: int | None, where: str, low: int, high: int, scale: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(
            f"{where} must be a whole number from {low} to {high}{scale}; got {value!r}"
        )
    return value


def _patience(value: int | None) -> int | None:
    if value is None:
        return None
    problem = patience_error(value)  # the words every door refuses it in
    if problem:
        raise ConfigError(problem)
    return value


@dataclass(frozen=True, init=False)
class TtsConfig:
    """The speaking leg. Unset (None) means leave it alone; effective from the next unit."""

    voice: int | None
    language: int | None

    def __init__(self, voice: VoiceLike | None = None, language: LanguageLike | None = None):
        object.__setattr__(self, "voice", _voice(voice))
        object.__setattr__(self, "language", _language(language, "TtsConfig.language"))


@dataclass(frozen=True, init=False)
class SttConfig:
    """The listening leg. ``patience`` is 0..10 (unset runs the deployment's 7)."""

    language: int | None
    patience: int | None

    def __init__(self, language: LanguageLike | None = None, patience: int | None = None):
        object.__setattr__(self, "language", _language(language, "SttConfig.language"))
        object.__setattr__(self, "patience", _patience(patience))


@dataclass(frozen=True, init=False)
class IdleConfig:
    """Idle detection: silence after Voqalize stops speaking before an idle turn; 0 disables."""

    timeout_ms: int | None

    def __init__(self, timeout_ms: int | None = None):
        object.__setattr__(
            self,
            "timeout_ms",
            _bounded(timeout_ms, "IdleConfig.timeout_ms", 0, _UINT32_MAX, " milliseconds"),
        )


@dataclass(frozen=True)
class Config:
    """One configure request: tts, stt and idle, accepted or rejected whole.

    Raises ConfigError when a language is named on one leg only.
    """

    tts: TtsConfig | None = None
    stt: SttConfig | None = None
    idle: IdleConfig | None = None

    def __post_init__(self) -> None:
        tts_lang = self.tts.language if self.tts else None
        stt_lang = self.stt.language if self.stt else None
        if (tts_lang is None) != (stt_lang is None):
            named, other = ("tts", "stt") if stt_lang is None else ("stt", "tts")
            lang = catalog.language_name(tts_lang if tts_lang is not None else stt_lang or 0)
            raise ConfigError(
                f"the {named} leg names language {lang!r} but the {other} leg names none: "
                f"state the language on both legs (they may differ), so the call is never "
                f"heard in one language and spoken in another"
            )

    def to_pb(self) -> pb.Config:
        """The wire message: only the fields that were set, so unset means leave it alone."""
        msg = pb.Config()
        if self.tts is not None:
            msg.tts.SetInParent()
            if self.tts.voice is not None:
                msg.tts.voice = self.tts.voice  # type: ignore[assignment]
            if self.tts.language is not None:
                msg.tts.language = self.tts.language  # type: ignore[assignment]
        if self.stt is not None:
            msg.stt.SetInParent()
            if self.stt.language is not None:
                msg.stt.language = self.stt.language  # type: ignore[assignment]
            if self.stt.patience is not None:
                msg.stt.patience = self.stt.patience
        if self.idle is not None:
            msg.idle.SetInParent()
            if self.idle.timeout_ms is not None:
                msg.idle.timeout_ms = self.idle.timeout_ms
        return msg
