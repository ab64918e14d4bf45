"""The core's record of the turns it sent and of what the brain did on the wire, beside the
record of its units (:mod:`sandbox.call.unit_records`).

The core returns these with its effects and the host stores them with the session's events,
as it does the unit records, so every reader of a call (its rebuilt report, the replay's
timeline and markers, the page, the re-drive's diff, the warp clock, the load's latencies)
reads when a turn went out and with what text, when the brain closed a unit, when a
Finalize left, each TurnStep and each error the core took, each Request answered, each arm
skipped and each frame dropped for the rule it broke (:mod:`sandbox.call.breaches`), without
matching frames by their arm's name. The TurnSteps and errors are the ledger's own records
(:class:`~sandbox.call.ledger_records.StepRecord`,
:class:`~sandbox.call.ledger_records.WireErrorRecord`): the core records each once, for its
ledger and for the stored session alike.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from sandbox.call.breaches import WireBreach
from sandbox.call.ledger_records import StepRecord, WireErrorRecord


class TurnKind(enum.StrEnum):
    """What minted a turn: the call's start (SessionStart, the greeting's turn), a caller's
    committed turn (UserMessage) or the caller's silence (UserIdle)."""

    GREETING = "greeting"
    CALLER = "caller"
    IDLE = "idle"


@dataclass(frozen=True)
class TurnSent:
    """The core minted turn ``turn_id`` and sent the frame that carries it; ``text`` is a
    caller turn's text as it went to the brain (empty for the others), ``level`` an idle
    turn's level (UserIdle's: 1 for the first nudge since the caller last spoke; 0 for the
    others)."""

    turn_id: int
    kind: TurnKind
    text: str = ""
    level: int = 0


@dataclass(frozen=True)
class BracketClosed:
    """The brain closed unit ``speech_id``'s bracket: by SpeechCancel (``cancelled``) or
    SpeechEnd; recorded for any unit the core knows, whether or not the close changed it
    (the warp clock counts the brain's work by it)."""

    speech_id: int
    cancelled: bool


@dataclass(frozen=True)
class FinalizeSent:
    """The unit's one Finalize was given: it went to the brain (``delivered``), or the brain
    had closed its socket after its End, so it was recorded and could not be sent."""

    speech_id: int
    delivered: bool = True


@dataclass(frozen=True)
class RequestAnswered:
    """The brain's Request ``request_id`` was answered with a Response of ``status`` (its
    enum name) and ``detail`` (why it was rejected; empty when accepted)."""

    request_id: int
    status: str
    detail: str = ""


@dataclass(frozen=True)
class ArmSkipped:
    """The brain sent an envelope arm this build does not know (``field_numbers``, ``size``
    bytes in all): skipped, never refused, as a Voqalize that predates a frame skips it."""

    field_numbers: tuple[int, ...]
    size: int


TurnRecord = (
    TurnSent
    | BracketClosed
    | FinalizeSent
    | StepRecord
    | WireErrorRecord
    | RequestAnswered
    | ArmSkipped
    | WireBreach
)
"""What the core records of its turns and the brain's wire, for the stored session."""
