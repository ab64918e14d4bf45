"""A call's inputs as the session store keeps them, and read back to be fed again.

The host stores every input it feeds the core (:data:`~sandbox.call.inputs.CoreInput`), at
the moment it feeds it, in the order it feeds them, among the session's events; with the
core as it began (:class:`CoreBegun`), a stored call's inputs fed through a fresh core make
the same call (:mod:`sandbox.record.stored_call`). Most inputs are stored as themselves (a
listener's event, a word played, a tick, a line given). Two are not plain values: a frame
from the brain is stored as the place of its bytes in the store's frames (:class:`FrameFed`;
a frame the store keeps only cut, or not at all, is stored in the event itself, see
:func:`fed_frame`), and a settings change as its Config's bytes (:class:`ConfigFed`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from google.protobuf.message import DecodeError, Message

from sandbox.call.brain_frames import pad_speech, speech_chars
from sandbox.call.caller_events import ListenerEvent
from sandbox.call.core import CallCore
from sandbox.call.inputs import (
    AppFrame,
    BrainClosed,
    BrainMalformed,
    Configure,
    CoreInput,
    FromBrain,
    HangUp,
    LineGiven,
    NotPlaced,
    Start,
    Tick,
    UnitCounted,
)
from sandbox.call.played import Played
from sandbox.call.settings import Capabilities, Settings
from sandbox.call.units import MAX_CHUNK_CHARS
from sandbox.wire import pb

#: Inputs stored as themselves: plain values (see the module doc).
PlainInput = (
    Start
    | NotPlaced
    | Tick
    | BrainMalformed
    | BrainClosed
    | UnitCounted
    | LineGiven
    | AppFrame
    | HangUp
    | ListenerEvent
    | Played
)

#: The most of one text field an envelope stored in its event keeps (a frame the store
#: keeps only cut): what the report shows of any field, so a call fed again reports it alike.
FED_TEXT_CHARS = MAX_CHUNK_CHARS


@dataclass(frozen=True)
class CoreBegun:
    """The core as the call set it up, before its first input: what a fresh core is made
    with to be fed the call's inputs again. ``voices``: each catalogued voice and its languages;
    ``stt_languages``: what the recognizer hears (None: any)."""

    settings: Settings
    voices: tuple[tuple[int, tuple[int, ...]], ...]
    stt_languages: tuple[int, ...] | None
    init: str
    capabilities: tuple[int, ...]
    stall_ms: int
    line_ms: int
    #: The recognizer refusal's install hint (:attr:`Capabilities.stt_missing`).
    stt_missing: str = ""

    @classmethod
    def of(cls, core: CallCore) -> CoreBegun:
        """``core`` as it stands (read before its first input)."""
        stt = core.caps.stt_languages
        return cls(
            settings=core.settings,
            voices=tuple((voice, tuple(langs)) for voice, langs in core.caps.voices.items()),
            stt_languages=None if stt is None else tuple(stt),
            init=core.init,
            capabilities=tuple(core.capabilities),
            stall_ms=core.stall_ms,
            line_ms=core.line_ms,
            stt_missing=core.caps.stt_missing,
        )

    def core(self, session_id: str) -> CallCore:
        """A fresh core set up as the stored call's was."""
        return CallCore(
            session_id,
            caps=Capabilities(dict(self.voices), self.stt_languages, self.stt_missing),
            init=self.init,
            settings=self.settings,
            capabilities=self.capabilities,
            stall_ms=self.stall_ms,
            line_ms=self.line_ms,
        )


@dataclass(frozen=True)
class FrameFed:
    """A frame from the brain, fed: the store's frame ``frame`` (its place among the
    session's frames), or, for a frame the store did not keep whole, its envelope's bytes
    (``env``, its text fields at most FED_TEXT_CHARS long). ``chunk_chars``: the length of a
    SpeechChunk's text that was longer than that (the call drops such a chunk for its
    length alone)."""

    frame: int | None = None
    env: bytes = b""
    chunk_chars: int | None = None


@dataclass(frozen=True)
class InputsUnkept:
    """From here on the call's inputs are not all stored: ``what`` the record only counted
    (a flood past its sample), so the stored call is read from its records instead."""

    what: str


@dataclass(frozen=True)
class ConfigFed:
    """A settings change from the user, fed: its Config's bytes."""

    config: bytes


#: An input as the store keeps it.
StoredInput = PlainInput | FrameFed | ConfigFed


def fed_frame(env: pb.Envelope, frame: int | None) -> FrameFed:
    """A frame's input as stored: by its place in the store (``frame``), or, when the store
    did not keep it whole (None), the envelope itself, its long text fields shortened."""
    if frame is not None:
        return FrameFed(frame=frame)
    chars = speech_chars(env)
    kept = pb.Envelope()
    kept.CopyFrom(env)
    _shorten(kept)
    over = chars if chars > FED_TEXT_CHARS else None
    return FrameFed(env=kept.SerializeToString(), chunk_chars=over)


def stored_input(fed: CoreInput, frame: int | None = None) -> StoredInput:
    """``fed`` as the store keeps it; ``frame``: for a frame from the brain, its place in
    the store's frames (None: the store did not keep it whole)."""
    match fed:
        case FromBrain(env=env):
            return fed_frame(env, frame)
        case Configure(config=config):
            return ConfigFed(config.SerializeToString())
        case _:
            return fed


def fed_again(
    stored: Iterable[tuple[int, object]], frames: Sequence[bytes | None]
) -> list[tuple[int, CoreInput]] | str:
    """A stored call's inputs, each with when it was fed, from its events in order
    (``stored``: each event's moment and value; those that are no input are passed over)
    and its frames' bytes by place (``frames``; None for a frame missing or cut). A string
    says why they cannot be fed again (a frame named that is not there whole)."""
    out: list[tuple[int, CoreInput]] = []
    for t_ms, value in stored:
        match value:
            case FrameFed() as fed:
                env = _envelope(fed, frames)
                if isinstance(env, str):
                    return f"the input at {t_ms:,} ms: {env}"
                out.append((t_ms, FromBrain(env)))
            case ConfigFed(config=raw):
                try:
                    out.append((t_ms, Configure(pb.Config.FromString(raw))))
                except DecodeError as exc:
                    return f"the settings change at {t_ms:,} ms could not be read ({exc})"
            case _ if isinstance(value, PlainInput):
                out.append((t_ms, value))
    return out


def _envelope(fed: FrameFed, frames: Sequence[bytes | None]) -> pb.Envelope | str:
    """The envelope a stored frame input names or holds."""
    if fed.frame is not None:
        raw = frames[fed.frame] if 0 <= fed.frame < len(frames) else None
        if raw is None:
            return f"frame {fed.frame} is not kept whole"
    else:
        raw = fed.env
    try:
        env = pb.Envelope.FromString(raw)
    except DecodeError as exc:
        return f"its frame could not be read ({exc})"
    if fed.chunk_chars is not None:
        pad_speech(env, fed.chunk_chars)
    return env


def _shorten(message: Message) -> None:
    """Each text field of a protobuf message, through nested ones, to FED_TEXT_CHARS (a
    repeated field or a map is left whole: no arm's text the core reads is one)."""
    for desc, value in message.ListFields():
        if desc.is_repeated:
            continue
        if desc.type == desc.TYPE_STRING and len(value) > FED_TEXT_CHARS:
            setattr(message, desc.name, value[:FED_TEXT_CHARS])
        elif desc.type == desc.TYPE_MESSAGE:
            _shorten(value)
