"""Was a value the caller said read back to them, and did they agree?

Judged on heard text: the next two bot units after the caller's line are searched in what
the caller *heard* of them (each unit's Finalize prefix). A read-back the brain generated
but the caller cut off before the value was heard is ``not_heard``, never ``confirmed``.
When it was heard, the caller's next line decides (see :func:`answer`): an answer aimed at
the read-back that refuses it or puts another value in its place (``corrected``),
agreement (``confirmed``), or neither (``unconfirmed``): a question about another value
("What time do you open on Saturday?" after "Friday") corrects nothing. A value nobody
read back is ``unconfirmed`` too.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass

from sandbox.judges.entities import Value, mentions, same, values
from sandbox.judges.spoken import normalise


class ReadbackStatus(enum.StrEnum):
    """How a read-back went (a report's ``readbacks[].status``); the value is the word."""

    CONFIRMED = "confirmed"
    CORRECTED = "corrected"
    UNCONFIRMED = "unconfirmed"
    NOT_HEARD = "not_heard"


#: How many bot units after the caller's line may carry the read-back.
READBACK_UNITS = 2

#: What may open a line before its answer: "oh, no", "um yes", "sorry, Thursday".
_LEAD = r"(?:(?:oh|um+|uh+|erm?|ah+|well|sorry|hmm+|so)\s*,?\s*)*"
#: The read-back refused: a "no" opening the answer, or the read-back called wrong.
_NO = re.compile(
    rf"^{_LEAD}(?:no|nope|nah|wrong|incorrect|not (?:quite|really|right|correct|exactly))\b"
    r"|\b(?:that's|that is) (?:wrong|incorrect|not (?:right|correct|quite|it|what|my|the|true))\b"
    r"|\b(?:it's|it is) (?:not (?:right|correct|quite)|wrong|incorrect)\b"
    r"|\b(?:that's|that is|it's|it is|that was) (?:a )?mistake\b"
    r"|\bmisheard\b|\b(?:got|have) (?:it|that) wrong\b"
)
#: A "no" that refuses nothing: one that agrees ("no problem", the British "no, that's
#: right"), and dismay ("oh no, I forgot").
_NOT_NO = re.compile(
    rf"^{_LEAD}(?:no (?:problem|worries)|no (?:, )?(?:that's|that is|it's) (?:right|correct|fine)"
    r"|oh no)\b"
)
#: A contrast aimed at the read-back, refusing it only with nothing agreeing: "actually it
#: ends in one" (but "actually, that's fine").
_ACTUALLY = re.compile(rf"^{_LEAD}actually (?:, )?(?:it|that)\b")
#: Agreement opening the answer.
_YES_FIRST = re.compile(
    rf"^{_LEAD}(?:yes|yeah|yep|yup|aye|correct|right|exactly|perfect|spot on|great|lovely|"
    r"brilliant|sure|absolutely|affirmative|uh huh|mm hmm|mhm|sounds good|that works|fine|"
    r"no problem|no worries|(?:that's|that is) (?:right|correct|it|the one|fine|perfect))\b"
)
#: Agreement anywhere in a statement: "Friday's perfect", "oh, that's the one".
_YES_SAID = re.compile(
    r"\b(?:yes|yeah|yep|spot on|sounds (?:good|great|right)|that works)\b"
    r"|\bthat(?:'s| is) (?:it|the one)\b|(?:\bis|'s) (?:right|correct|fine|perfect|great|lovely)\b"
)
#: Words that swap another value in for the read-back one, question or not: "make it
#: Thursday", "Thursday instead" (but "instead of calling" swaps out something else).
_INSTEAD = re.compile(r"\binstead\b(?! of)|\b(?:make|change|move|switch) (?:it|that)\b")
#: Words that refuse the value after them: "not Friday", "Thursday rather than Friday".
_REFUSING = (["not"], ["instead", "of"], ["rather", "than"])
#: The words that open a question when its "?" was not written (a transcript's line).
_ASKING = frozenset(
    {
        "what", "what's", "when", "where", "which", "who", "why", "how", "do", "does", "did",
        "can", "could", "would", "will", "is", "are", "was", "were", "have", "has", "isn't",
        "aren't", "don't", "doesn't", "didn't", "can't", "won't",
    }
)  # fmt: skip
#: Words before an answer's first real word, passed over to find how a sentence opens.
_OPENERS = frozenset(
    {"and", "but", "so", "also", "oh", "um", "uh", "er", "erm", "well", "actually", ","}
)
#: Words that may stand beside a value said as the answer: "it's Thursday", "sorry, I said
#: Thursday", "my number is …, please". Any other word makes the value part of something
#: else said ("my daughter's birthday is on Saturday").
_FRAME = frozenset(
    {
        "it's", "its", "it", "is", "was", "that's", "that", "be", "should", "i", "said",
        "meant", "mean", "on", "at", "for", "the", "a", "my", "number", "phone", "mobile",
        "email", "address", "code", "reference", "day", "date", "time", "please", "sorry",
        "actually", "oh", "um", "uh", "er", "erm", "well", "so", "just", "then", "but",
    }
)  # fmt: skip
_SENTENCE_END = frozenset({".", "?", "!"})
_CLAUSE_END = _SENTENCE_END | {",", ";", ":"}


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

    status: ReadbackStatus
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
            return Readback(ReadbackStatus.NOT_HEARD, cut.speech_id, None)
        return Readback(ReadbackStatus.UNCONFIRMED, None, None)
    reply = next((c for c in callers if c.turn_id > heard.turn_id), None)
    if reply is None:
        return Readback(ReadbackStatus.UNCONFIRMED, heard.speech_id, None) if ended else None
    return Readback(answer(value, reply.text), heard.speech_id, reply.turn_id)


def answer(value: Value, line: str) -> ReadbackStatus:
    """How the caller's ``line`` answers a read-back of ``value``.

    ``corrected`` needs an answer aimed at the read-back: a refusal ("no", "that's wrong",
    "not Friday"), or another value of the same kind said in the read-back one's place,
    either as the whole of a statement's clause ("Thursday.", "I said Thursday", "it's
    07700 900124") or with a word that swaps it in ("make it Thursday instead"). Another
    value merely mentioned, in a question ("What time do you open on Saturday?") or as
    part of something else said ("my daughter's birthday is on Saturday"), corrects
    nothing. ``confirmed``: agreement, or the same value said again as the answer."""
    words = normalise(line).split()
    text = " ".join(words)
    kin = [(v, at, end) for v, at, end in _placed(words, values(line)) if v.kind == value.kind]
    if _NO.search(text) and not _NOT_NO.match(text):
        return ReadbackStatus.CORRECTED
    for other, at, end in kin:
        if same(value, other) and any(words[max(at - len(w), 0) : at] == w for w in _REFUSING):
            return ReadbackStatus.CORRECTED  # the read-back value itself refused: "not Friday"
        if not same(value, other) and (_INSTEAD.search(text) or _as_the_answer(words, at, end)):
            return (
                ReadbackStatus.CORRECTED
            )  # another value in its place: "Thursday.", "make it Thursday"
    statements = [s for s in _sentences(words) if not _asked(s)]
    if (
        _YES_FIRST.match(text)
        or any(_YES_SAID.search(" ".join(s)) for s in statements)
        or any(same(value, v) and _as_the_answer(words, at, end) for v, at, end in kin)
    ):
        return ReadbackStatus.CONFIRMED  # agreement, or the same value said again as the answer
    if _ACTUALLY.match(text) and not _asked(_sentences(words)[0]):
        return (
            ReadbackStatus.CORRECTED
        )  # "actually it ends in one": a contrast, with nothing agreeing
    return ReadbackStatus.UNCONFIRMED


def _placed(words: list[str], found: list[Value]) -> list[tuple[Value, int, int]]:
    """Each value with the span of ``words`` it was said in (values come in order)."""
    out: list[tuple[Value, int, int]] = []
    at = 0
    for value in found:
        said = value.said.split()
        for start in range(at, len(words) - len(said) + 1):
            if words[start : start + len(said)] == said:
                out.append((value, start, start + len(said)))
                at = start + len(said)
                break
    return out


def _sentences(words: list[str]) -> list[list[str]]:
    """``words`` cut into sentences, each with its closing mark."""
    out: list[list[str]] = [[]]
    for word in words:
        out[-1].append(word)
        if word in _SENTENCE_END:
            out.append([])
    return [s for s in out if s]


def _sentence_of(words: list[str], at: int) -> list[str]:
    """The sentence that holds ``words[at]``."""
    start = max((i + 1 for i in range(at) if words[i] in _SENTENCE_END), default=0)
    end = next((i + 1 for i in range(at, len(words)) if words[i] in _SENTENCE_END), len(words))
    return words[start:end]


def _asked(sentence: list[str]) -> bool:
    """``sentence`` is a question: it ends in "?", or opens with a question's word."""
    opening = next((w for w in sentence if w not in _OPENERS), "")
    return sentence[-1:] == ["?"] or opening in _ASKING


def _as_the_answer(words: list[str], start: int, end: int) -> bool:
    """The value at ``words[start:end]`` is said as an answer: in a statement, in a clause
    whose other words only frame it ("sorry, I said Thursday")."""
    if _asked(_sentence_of(words, start)):
        return False
    first = max((i + 1 for i in range(start) if words[i] in _CLAUSE_END), default=0)
    last = next((i for i in range(end, len(words)) if words[i] in _CLAUSE_END), len(words))
    return all(w in _FRAME for w in words[first:start] + words[end:last])
