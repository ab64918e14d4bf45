"""The word a call's record ends with (docs/call-record.md says what a call leaves behind).

The record keeps *nobody answered* apart from *it never rang*, and a fault of our own apart from
anything a person did. In this sandbox the person is the caller (the microphone, or a
script) and the worker is the brain, which Voqalize dials for the call:

- ``no_answer`` still means "it rang and nobody picked up": the line worked — the brain was
  reached and, if it said anything, the caller heard it — and the caller never said a word.
  It is the only outcome a silent caller earns; it is never the word for our own failure.
- ``not_reached`` means "it never rang", an operational fault, not an outcome, and always
  comes with the reason: the dial failed (or never happened), the brain refused the
  session's version, the greeting could not be spoken (a silent failure, whatever the
  caller did after), or the brain failed before the caller heard a word from it — it
  closed the socket, sent a fatal Error, cancelled the call, or left the greeting or a
  caller's turn unanswered past the stall notice. The caller may have spoken into that
  silence; they still never reached anyone, and a record that called it a conversation
  would have manufactured one.
- ``not_a_conversation`` (below the thin-call floor) and ``completed`` follow only a call
  that was reached.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from sandbox.call.floor import measure


class Outcome(enum.StrEnum):
    """The word a call's record ends with; a string enum, so its value is the stored word."""

    #: It never rang: the worker failed (the reason says how). An operational fault.
    NOT_REACHED = "not_reached"
    #: It rang and nobody picked up: the brain was reached and the caller never said anything.
    NO_ANSWER = "no_answer"
    #: Below the thin-call floor: fewer than two lines and fewer than five words from the caller.
    NOT_A_CONVERSATION = "not_a_conversation"
    #: A conversation happened.
    COMPLETED = "completed"
    #: Never decided by a live call: a stored session that did not end (its process died), as
    #: its rebuilt report and the session list say.
    UNFINISHED = "unfinished"


@dataclass(frozen=True)
class Facts:
    """What the call core knows that decides the outcome; None: that fault did not happen."""

    caller_lines: Sequence[str]
    #: Why the brain was never reached (the dial failed, or it was never dialed).
    unreached: str | None = None
    #: The brain's fatal VERSION Error: it refused the session.
    refusal: str | None = None
    #: Why the greeting could not be spoken, when none of it was heard ("": not known).
    greeting_unsaid: str | None = None
    #: How the brain failed (closed, a fatal Error, cancelled, stalled), when it did.
    brain_failed: str | None = None
    #: The caller heard at least one word from the bot.
    bot_heard: bool = False


@dataclass(frozen=True)
class Verdict:
    """The outcome's word and, for ``not_reached``, why ("" otherwise)."""

    word: Outcome
    reason: str = ""


def decide(facts: Facts) -> Verdict:
    """Classify a call from ``facts`` (see the module doc); never invents a conversation."""
    if facts.unreached is not None:
        return Verdict(Outcome.NOT_REACHED, facts.unreached)
    if facts.refusal is not None:
        return Verdict(
            Outcome.NOT_REACHED, f"the brain refused the session's version: {facts.refusal}"
        )
    if facts.greeting_unsaid is not None:
        why = f"; {facts.greeting_unsaid}" if facts.greeting_unsaid else ""
        return Verdict(
            Outcome.NOT_REACHED, f"the greeting could not be spoken: a silent failure{why}"
        )
    if facts.brain_failed is not None and not facts.bot_heard:
        return Verdict(
            Outcome.NOT_REACHED,
            f"the brain failed before the caller heard a word from it: {facts.brain_failed}",
        )
    if not facts.caller_lines:
        return Verdict(Outcome.NO_ANSWER)
    if measure(facts.caller_lines).below:
        return Verdict(Outcome.NOT_A_CONVERSATION)
    return Verdict(Outcome.COMPLETED)
