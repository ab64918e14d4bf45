"""Which rule of the wire a brain's frame broke, as the core decided it: a typed record.

When a frame from the brain breaks a rule the core drops it and sends a non-fatal PROTOCOL
Error whose words say what happened (:class:`~sandbox.call.effects.ProtocolViolation`). Beside
the words it records a :class:`WireBreach`: the rule, by name, and the ids the frame carried,
so a reader that judges the brain (``sandbox check``) takes the core's verdict on each frame
instead of working the bracket, turn and RTVI rules out of the frames again.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class BrokenRule(enum.StrEnum):
    """The rule a dropped frame broke; the value is the stored word."""

    SPEECH_ID_UNSET = "speech_id_unset"  # a SpeechStart with speech_id 0
    SPEECH_ID_REUSED = "speech_id_reused"  # a SpeechStart reusing an earlier unit's id
    TURN_NEVER_MINTED = "turn_never_minted"  # a SpeechStart naming a turn not minted
    START_AFTER_END = "start_after_end"  # a SpeechStart after the brain's End
    CHUNK_OUTSIDE_UNIT = "chunk_outside_unit"  # a SpeechChunk for a unit never opened
    CHUNK_AFTER_END = "chunk_after_end"  # a SpeechChunk after its unit's SpeechEnd
    CHUNK_TOO_LONG = "chunk_too_long"  # one SpeechChunk over the chunk limit
    UNIT_PAST_CAP = "unit_past_cap"  # a unit passed the most text one unit keeps
    END_NEVER_OPENED = "end_never_opened"  # a SpeechEnd for a unit never opened
    SECOND_END = "second_end"  # a second SpeechEnd for one unit
    CANCEL_NAMES_NO_UNIT = "cancel_names_no_unit"  # a SpeechCancel naming no opened unit
    VOQALIZE_ARM = "voqalize_arm"  # a frame only Voqalize sends
    EMPTY_ENVELOPE = "empty_envelope"  # an envelope with no body
    RTVI_FORGED = "rtvi_forged"  # a bot-* or llm-* RTVI type: Voqalize's own assertions
    RTVI_NOT_LISTED = "rtvi_not_listed"  # another RTVI type a brain may not send
    RTVI_TOO_BIG = "rtvi_too_big"  # RTVI data over the client's message limit


@dataclass(frozen=True)
class WireBreach:
    """The core dropped a frame from the brain for breaking ``rule``. ``speech_id`` and
    ``turn_id``: the ids the frame named (0: none); ``arm``: a frame only Voqalize sends,
    by its arm's name; ``rtvi_type`` and ``size``: a refused RTVI frame's type number and
    the bytes of its data."""

    rule: BrokenRule
    speech_id: int = 0
    turn_id: int = 0
    arm: str = ""
    rtvi_type: int = 0
    size: int = 0
