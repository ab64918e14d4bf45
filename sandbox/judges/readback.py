"""Was a value the caller said read back to them, and did they agree?

Judged on heard text: the next two bot units after the caller's line are searched in what
the caller *heard* of them (each unit's Finalize prefix). A read-back the brain generated
but the caller cut off before the value was heard is ``not_heard``, never ``confirmed``.
When it was heard, the caller's next line decides: agreement (``confirmed``), a "no" or a
different value of the same kind (``corrected``), or neither (``unconfirmed``). A value
nobody read back is ``unconfirmed`` too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from sandbox.judges.entities import Value, mentions, same, values

CONFIRMED, CORRECTED, UNCONFIRMED, NOT_HEARD = "confirmed", "corrected", "unconfirmed", "not_heard"
#: How many bot units after the caller's line may carry the read-back.
READBACK_UNITS = 2

_NO = re.compile(
    r"^(?:no|nope|nah|not quite|not really|wrong|incorrect|actually)\b"
    r"|\b(?:that's|that is|it's|it is) (?:not|wrong)\b|\bnot right\b|\bmistake\b"
)
_NOT_NO = re.compile(r"^no (?:problem|worries)\b")
_YES = re.compile(
    r"\b(?:yes|yeah|yep|yup|yes please|correct|that's right|that is right|right|exactly|"
    r"perfect|spot on|that's it|sounds good|great|uh-huh|mm-hmm|sure|absolutely|"
    r"affirmative|lovely|brilliant|no problem|no worries)\b"
)


@dataclass(frozen=True)
class BotLine:
    """One bot unit as the record sees it: what the brain generated and what was heard.
    ``final``: its heard text is fixed (its Finalize went out)."""

    speech_id: int
    turn_id: int
    generated: str
    heard: str
    final: bool = True


@dataclass(frozen=True)
class CallerTurn:
    """One committed caller line and the turn it minted."""

    turn_id: int
    text: str


@dataclass(frozen=True)
class Readback:
    """The verdict on one value: its status, the unit that carried the read-back (if the
    brain generated one) and the caller's line that answered it (if any)."""

    status: str
    speech_id: int | None
    reply_turn: int | None


def judge(
    value: Value,
    turn_id: int,
    bot: Sequence[BotLine],
    callers: Sequence[CallerTurn],
    *,
    ended: bool,
) -> Readback | None:
    """The read-back of ``value`` said on ``turn_id``; None while it cannot be decided yet
    (the read-back units still play, or the caller has not answered and the call goes on)."""
    after = [u for u in bot if u.turn_id >= turn_id][:READBACK_UNITS]
    if not ended and (len(after) < READBACK_UNITS or not all(u.final for u in after)):
        heard_now = next((u for u in after if u.final and mentions(value, u.heard)), None)
        if heard_now is None:
            return None
    heard = next((u for u in after if u.final and mentions(value, u.heard)), None)
    if heard is None:
        cut = next((u for u in after if mentions(value, u.generated)), None)
        if cut is not None:
            return Readback(NOT_HEARD, cut.speech_id, None)
        return Readback(UNCONFIRMED, None, None)
    reply = next((c for c in callers if c.turn_id > heard.turn_id), None)
    if reply is None:
        return Readback(UNCONFIRMED, heard.speech_id, None) if ended else None
    return Readback(answer(value, reply.text), heard.speech_id, reply.turn_id)


def answer(value: Value, line: str) -> str:
    """How the caller's ``line`` answers a read-back of ``value``."""
    other = [v for v in values(line) if v.kind == value.kind]
    if any(not same(value, v) for v in other):
        return CORRECTED  # "no, oh seven seven one…": a different value of the same kind
    text = line.strip().lower()
    if _NO.search(text) and not _NOT_NO.match(text):
        return CORRECTED
    if other or _YES.search(text):
        return CONFIRMED  # agreement, or the same value said again
    return UNCONFIRMED
