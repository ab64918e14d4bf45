"""The call's report: one typed, immutable value, and the one place it becomes JSON and back.

A :class:`Report` is what a call leaves on file: ``sandbox call --report`` writes it, the
session store keeps it beside the session, and every reader (the text views, the page,
the re-drive's comparison, the load tally) takes it as this value, never as a dict. Its
JSON keys are the ones users' scripts read; they do not change. A key that older builds
did not write (``stalls``, ``record``...) is :data:`~msgspec.UNSET` when such a report is
read back, and stays absent when it is written again, so an old session still loads and
still exports as it was. ``sandbox schema report`` prints :func:`report_schema`.

msgspec keeps the value, its JSON and its schema one definition (the keys are the fields,
in order); the encoders below are the only ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated, Any

import msgspec
from msgspec import UNSET, UnsetType
from msgspec.structs import force_setattr

from sandbox.call.caller_events import TranscriptMend, TurnClose
from sandbox.call.effects import EndedBy
from sandbox.call.ledger_records import StepRecord, WireErrorRecord
from sandbox.call.outcome import Outcome
from sandbox.call.settings import Settings
from sandbox.call.units import Fate, Unit
from sandbox.call.waterfall import in_order
from sandbox.judges.entities import ValueKind
from sandbox.judges.readback import ReadbackStatus
from sandbox.line.profile import LineProfile
from sandbox.record.frame_report import FrameReport, decoded, frame_schema_struct
from sandbox.record.plain_text import escaped_json
from sandbox.record.reload_notice import ReloadNotice
from sandbox.record.unkept_kinds import UnkeptKind
from sandbox.wire import pb
from sandbox.wire.direction import Direction

#: Version of the report layout, so a reader can refuse one it does not know.
REPORT_VERSION = 1


#: A voice by the wire's name for it (``VOICE_JOE``).
VoiceName = Annotated[str, msgspec.Meta(extra_json_schema={"enum": sorted(pb.Voice.keys())})]
#: A language by the wire's name for it (``LANGUAGE_HI``).
LanguageName = Annotated[str, msgspec.Meta(extra_json_schema={"enum": sorted(pb.Language.keys())})]


class UnitReport(msgspec.Struct, frozen=True):
    """One unit of the bot's speech: what the brain generated, what was relayed to the
    playout and what the caller heard of it; the voice and language it was spoken in (tts
    moves from the next unit: 001), absent from an older build's report."""

    speech_id: int
    turn_id: int
    generated: str
    relayed: str
    heard: str
    interrupted: bool
    fate: Fate
    words_heard: int
    words_total: int
    discarded: tuple[str, ...]
    dropped_chars: int | UnsetType = UNSET  # absent: rebuilt, or an older build's
    voice: VoiceName | UnsetType = UNSET
    language: LanguageName | UnsetType = UNSET


def unit_report(unit: Unit, *, rebuilt: bool = False) -> UnitReport:
    """One unit as the report keeps it, as the core has it (live) or as its record rebuilds
    it (``rebuilt``: a stored call's, whose text past the unit's limits was never counted)."""
    return UnitReport(
        speech_id=unit.speech_id,
        turn_id=unit.turn_id,
        generated=unit.generated,
        relayed=unit.relayed,
        heard=unit.heard,
        interrupted=unit.interrupted,
        fate=unit.reported_fate,
        words_heard=unit.cursor.words_heard,
        words_total=unit.cursor.words_total,
        discarded=tuple(unit.discarded),
        dropped_chars=UNSET if rebuilt else unit.dropped_chars,
        voice=pb.Voice.Name(unit.voice),
        language=pb.Language.Name(unit.language),
    )


class StepReport(msgspec.Struct, frozen=True, kw_only=True):
    """A TurnStep the brain reported (the wire's ``TurnStep``, its fields by their wire
    names), when it came (``t_ms``), and ``unknown_turn`` (true, else absent) when it named
    a turn the session never minted. ``kind`` is a string, not an enum: the wire lets a
    brain name its own kind beside ``model``, ``tool``, ``database``, ``http`` and ``mcp``.
    ``first_output_ms`` is absent for a step that does not stream; ``counts`` reported
    (absent is "not reported", not zero), read-only."""

    t_ms: int
    turn_id: int
    kind: str
    name: str
    provider: str
    start_ms: int
    duration_ms: int
    first_output_ms: int | UnsetType = UNSET
    counts: Mapping[str, int]
    unknown_turn: bool | UnsetType = UNSET

    def __post_init__(self) -> None:
        # A frozen report's step cannot be changed in place, its counts included.
        force_setattr(self, "counts", MappingProxyType(dict(self.counts)))


# One field per stage of sandbox.call.waterfall.STAGES, in its order (tests/test_report.py
# holds them to it): the JSON keeps a turn's stages in the order the turn went through them.
class Timeline(msgspec.Struct, frozen=True, kw_only=True):
    """A caller turn's latency waterfall: the ms on the call's clock of each stage it reached
    (see :data:`sandbox.call.waterfall.STAGES`); a stage it did not reach, or that was not
    measured, is absent."""

    caller_voice_end: int | UnsetType = UNSET
    voice_end: int | UnsetType = UNSET
    window_closed: int | UnsetType = UNSET
    committed: int | UnsetType = UNSET
    user_message: int | UnsetType = UNSET
    first_chunk: int | UnsetType = UNSET
    first_clause: int | UnsetType = UNSET
    first_sample: int | UnsetType = UNSET
    first_speaker: int | UnsetType = UNSET
    first_at_ear: int | UnsetType = UNSET

    @classmethod
    def of(cls, marks: Mapping[str, int]) -> Timeline:
        """The timeline of ``marks`` (stage -> ms, as the core's ledger keeps them); a name
        that is no stage is left out."""
        return cls(**in_order(marks))

    @property
    def marks(self) -> dict[str, int]:
        """Stage -> ms of each stage reached, in stage order (what
        :mod:`sandbox.call.waterfall` reads)."""
        return {
            stage: at
            for stage in self.__struct_fields__
            if not isinstance(at := getattr(self, stage), UnsetType)
        }


class TurnReport(msgspec.Struct, frozen=True):
    """One caller turn's latency waterfall."""

    turn_id: int
    timeline: Timeline


#: An error's code: one of 001's ErrorCode names, or the number of a code this build does not
#: name (the wire's enums are open: a brain may send a code added after this build).
ErrorCodeText = Annotated[
    str,
    msgspec.Meta(
        extra_json_schema={
            "anyOf": [{"enum": sorted(pb.ErrorCode.keys())}, {"pattern": "^-?[0-9]+$"}]
        }
    ),
]


class SettingsReport(msgspec.Struct, frozen=True):
    """The settings in force when the call's record ends, as values (the report's
    ``settings`` says them in words): the voice, the language each leg was in (``tts``: the
    bot's speech, ``stt``: the caller's), patience (None: unset, the default calibration)
    and the idle wait in ms (0: off)."""

    voice: VoiceName
    tts_language: LanguageName
    stt_language: LanguageName
    patience: int | None
    idle_ms: int

    @classmethod
    def of(cls, settings: Settings) -> SettingsReport:
        """``settings`` as the report keeps them."""
        return cls(
            voice=pb.Voice.Name(settings.voice),
            tts_language=pb.Language.Name(settings.tts_language),
            stt_language=pb.Language.Name(settings.stt_language),
            patience=settings.patience,
            idle_ms=settings.idle_ms,
        )


class ErrorReport(msgspec.Struct, frozen=True):
    """An error either side reported (``dir`` "out": Voqalize told the brain)."""

    t_ms: int
    dir: Direction
    code: ErrorCodeText
    message: str
    fatal: bool


class BackchannelReport(msgspec.Struct, frozen=True):
    """A backchannel over the bot; ``resumed``: the bot paused, then went on."""

    t_ms: int
    text: str
    resumed: bool


class DeadAirReport(msgspec.Struct, frozen=True):
    """Dead air inside an open unit: unit ``speech_id`` of turn ``turn_id`` was open and
    nothing played, nor came from the brain for it, from ``t_ms`` for ``silent_ms``."""

    t_ms: int
    turn_id: int
    speech_id: int
    silent_ms: int


class StallReport(msgspec.Struct, frozen=True):
    """The user was told the brain had not answered ``turn_id`` after ``waited_ms``."""

    t_ms: int
    turn_id: int
    waited_ms: int


class _Said(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind"):
    """A moment of the call's conversation, as the core recorded it at ``t_ms``; its
    ``kind``, the JSON's tag, says which (see :data:`ConversationRecord`)."""

    t_ms: int


class GreetingSent(_Said, frozen=True, kw_only=True, tag="greeting"):
    """The call opened: SessionStart minted turn ``turn_id``, the greeting's."""

    turn_id: int


class CallerSaid(_Said, frozen=True, kw_only=True, tag="caller"):
    """The caller's turn ``turn_id`` went to the brain (a UserMessage) with ``text``."""

    turn_id: int
    text: str


class IdleSent(_Said, frozen=True, kw_only=True, tag="idle"):
    """The caller stayed silent: idle turn ``turn_id`` went to the brain (a UserIdle) at
    ``level``."""

    turn_id: int
    level: int


class UnitStarted(_Said, frozen=True, kw_only=True, tag="unit"):
    """The core opened unit ``speech_id`` of turn ``turn_id`` (its SpeechStart came)."""

    speech_id: int
    turn_id: int


class FirstChunk(_Said, frozen=True, kw_only=True, tag="first_chunk"):
    """The first text of turn ``turn_id``'s answer: the first the core relayed for a unit of
    that turn."""

    turn_id: int


class InterruptionSent(_Said, frozen=True, kw_only=True, tag="interruption"):
    """An Interruption went to the brain: every turn up to ``through_turn`` is dead."""

    through_turn: int


class ReloadSaid(_Said, frozen=True, kw_only=True, tag="brain_reloaded"):
    """The brain's reload notice crossed to the app (:mod:`sandbox.record.reload_notice`)."""

    file: str
    serving: str
    moved: bool

    @property
    def notice(self) -> ReloadNotice:
        """The notice it is."""
        return ReloadNotice(self.file, self.serving, self.moved)


ConversationRecord = (
    GreetingSent | CallerSaid | IdleSent | UnitStarted | FirstChunk | InterruptionSent | ReloadSaid
)
"""Each kind of moment a report's ``conversation`` keeps (``sandbox schema report`` lists
each): one or a few a turn or a unit, never one a chunk, so a brain's flood cannot grow it."""


class ValueHeard(msgspec.Struct, frozen=True):
    """A value the caller said aloud (a phone number, a date...)."""

    turn: int
    kind: ValueKind
    value: str
    said: str


class ValueReadBack(msgspec.Struct, frozen=True):
    """A value and how the bot read it back (``status``: confirmed, corrected...)."""

    turn: int
    kind: ValueKind
    value: str
    said: str
    status: ReadbackStatus
    speech_id: int | None
    reply_turn: int | None


class AddressedAs(msgspec.Struct, frozen=True):
    """A name the bot called the caller, in unit ``speech_id``."""

    name: str
    speech_id: int


class _Finding(msgspec.Struct, frozen=True, tag_field="kind"):
    """A finding of the call record about a name, a promise or speech left unsaid; its
    ``kind``, the JSON's tag, says which (the same word its stored event is kept under)."""


class NameRefused(_Finding, frozen=True, tag="name_refused"):
    """On turn ``turn`` the caller gave ``word`` as their name: a form of address, not kept."""

    turn: int
    word: str


class SpeechUnsaid(_Finding, frozen=True, tag="speech_unsaid"):
    """Voqalize could not say all of unit ``speech_id`` (a clause its synthesizer failed
    on, a voice that would not load): the runtime's own fault, heard as speech that stopped."""

    speech_id: int
    turn: int
    detail: str


class NameNotFromCaller(_Finding, frozen=True, tag="name_not_from_caller"):
    """In unit ``speech_id`` the bot called the caller ``name``, a name they never said."""

    speech_id: int
    name: str
    detail: str


class CalledTheCaller(_Finding, frozen=True, tag="called_the_caller"):
    """In unit ``speech_id`` the bot called the caller "the caller"."""

    speech_id: int
    detail: str


class PromisedUnbooked(_Finding, frozen=True, tag="promised_unbooked"):
    """In unit ``speech_id`` the bot promised a follow-up with no tool step on ``turn``."""

    speech_id: int
    turn: int
    detail: str


Finding = NameRefused | SpeechUnsaid | NameNotFromCaller | CalledTheCaller | PromisedUnbooked
"""Every kind of finding the call record keeps (``sandbox schema report`` lists each)."""


def finding_kind(finding: type[_Finding] | _Finding) -> str:
    """A finding's ``kind``: the word its JSON and its stored event are tagged with."""
    return str(finding.__struct_config__.tag)


class CallRecord(msgspec.Struct, frozen=True):
    """What the call leaves behind, judged on what the caller heard (see
    :mod:`sandbox.record.call_record`)."""

    outcome: Outcome
    reason: str
    below_floor: bool
    floor: str
    caller_lines: int
    caller_words: int
    summary: str
    caller_name: str | None
    entities: tuple[ValueHeard, ...]
    readbacks: tuple[ValueReadBack, ...]
    addressed_as: tuple[AddressedAs, ...]
    findings: tuple[Finding, ...]


# Fields are given by name (kw_only): their order is the JSON's, and a key added later
# (UNSET when an older report lacks it) may sit between two older ones.
class Report(msgspec.Struct, frozen=True, kw_only=True):
    """One call's report: how it ended, the caller's turns, each bot unit's generated and
    heard text, the TurnSteps, the errors, the call record, and every frame as it crossed
    (``t_ms``, ``dir``, ``type``, then the body's fields: :mod:`sandbox.record.frame_report`),
    in order."""

    report_version: int
    session_id: str
    brain_url: str
    #: How the brain is shown (see :mod:`sandbox.record.session_words`).
    brain_name: str | UnsetType = UNSET
    #: The phone line the call was on, in words (``sandbox run --line``); unset: none.
    line: str | UnsetType = UNSET
    #: The same line as values: its profile (unset: none, or an older build's report).
    line_profile: LineProfile | UnsetType = UNSET
    started_at: str
    outcome: Outcome
    ended_by: EndedBy
    end_detail: str
    settings: str
    #: The same settings as values (unset: an older build's report).
    config: SettingsReport | UnsetType = UNSET
    watermark: int
    caller_turns: tuple[str, ...]
    #: How each caller turn closed, by its turn id as a string ("confident", "typed"...).
    turn_closes: Mapping[str, TurnClose] | UnsetType = UNSET
    #: How each caller turn whose transcript was mended was, by its turn id as a string
    #: ("doubled", "looped", "overlong", "tail"; see :mod:`sandbox.audio.plausible`).
    turn_mends: Mapping[str, TranscriptMend] | UnsetType = UNSET
    #: Each caller turn's latency waterfall, in turn order.
    turns: tuple[TurnReport, ...] | UnsetType = UNSET
    #: The conversation as the core recorded it, in its order: each turn it sent, each unit
    #: it opened and each turn's first chunk, each Interruption and each reload notice of
    #: the brain (:mod:`sandbox.record.conversation_log`); unset: an older build's report.
    conversation: tuple[ConversationRecord, ...] | UnsetType = UNSET
    units: tuple[UnitReport, ...]
    #: Units opened (and honoured: each was Finalized) past those ``units`` keeps, only
    #: counted: the first ``MAX_UNITS_KEPT`` and a sample are kept
    #: (:mod:`sandbox.call.unit_sample`); unset: an older build's report.
    units_unkept: int | UnsetType = UNSET
    steps: tuple[StepReport, ...]
    errors: tuple[ErrorReport, ...]
    backchannels: tuple[BackchannelReport, ...] | UnsetType = UNSET
    stalls: tuple[StallReport, ...] | UnsetType = UNSET
    #: Dead air inside open units (a brain awaiting a tool mid-unit), each once it ended.
    dead_air: tuple[DeadAirReport, ...] | UnsetType = UNSET
    alignment_skips: int
    errors_uncounted: int | UnsetType = UNSET
    malformed_unkept: int | UnsetType = UNSET
    #: Frames the call had no more use for, past the sample kept, counted by kind
    #: (``sandbox.record.recorder.SAMPLE_KEPT``).
    frames_unkept: Mapping[UnkeptKind, int] | UnsetType = UNSET
    record: CallRecord | UnsetType = UNSET  # none for a call cut short
    frames: tuple[FrameReport, ...]
    script_notes: tuple[str, ...] | UnsetType = UNSET  # a scripted caller's notes


class ReportError(ValueError):
    """A stored or given report is not one this build can read."""


def step_report(step: StepRecord) -> StepReport:
    """A TurnStep as the report keeps it: its time, its fields, and ``unknown_turn`` when it
    named a turn the session never minted."""
    return StepReport(t_ms=step.t_ms, **step.step, unknown_turn=UNSET if step.known_turn else True)


def error_report(error: WireErrorRecord) -> ErrorReport:
    """An error as the report keeps it."""
    return ErrorReport(error.t_ms, error.dir, error.code, error.message, error.fatal)


def report_json(report: Report) -> dict[str, Any]:
    """The report as a JSON object (plain dicts and lists, as a reader of its file gets),
    keys in their order."""
    return _plain(report)


def record_json(record: CallRecord) -> dict[str, Any]:
    """The call record as the report file's ``record`` holds it."""
    return _plain(record)


def _plain(value: msgspec.Struct) -> dict[str, Any]:
    # Through the encoder, so tuples come back as the lists a reader of the file sees.
    out: dict[str, Any] = msgspec.json.decode(_ENCODER.encode(value))
    return out


def report_text(report: Report) -> str:
    """The report as the JSON text a report file holds: indented, UTF-8 as is but for the
    characters JSON's rule escapes (:func:`~sandbox.record.plain_text.escaped_json`)."""
    return escaped_json(msgspec.json.format(_ENCODER.encode(report).decode(), indent=2))


def report_from_json(data: object) -> Report:
    """The report a JSON object (as :func:`report_json` gives, or an older build wrote)
    holds; :class:`ReportError` says what is wrong with one that holds none."""
    try:
        return msgspec.convert(data, Report, dec_hook=_decode)
    except msgspec.ValidationError as exc:
        raise ReportError(f"not a report: {exc}") from None


def report_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) every report validates against."""
    (schema, frame), defs = msgspec.json.schema_components(
        (Report, frame_schema_struct()), schema_hook=_frame_schema
    )
    # A frame's envelope, then its body's fields, which depend on its arm.
    head = defs.pop(frame["$ref"].rsplit("/", 1)[1])
    defs[_FRAME] = {**head, "title": _FRAME, "additionalProperties": True}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema, "$defs": defs}


#: The schema's name for a report's frame.
_FRAME = FrameReport.__name__


def _encode(value: object) -> object:
    """The JSON of the report's own types msgspec does not know."""
    if isinstance(value, FrameReport):
        return value.as_json()
    if isinstance(value, MappingProxyType):
        return dict(value)
    raise NotImplementedError(f"no JSON for {type(value).__name__}")


def _decode(kind: type, data: object) -> object:
    if kind is FrameReport:
        return decoded(data)
    raise NotImplementedError(f"no report value of type {kind.__name__}")


def _frame_schema(kind: type) -> dict[str, Any]:
    if kind is FrameReport:
        return {"$ref": f"#/$defs/{_FRAME}"}
    raise NotImplementedError(f"no schema for {kind.__name__}")


_ENCODER = msgspec.json.Encoder(enc_hook=_encode)
