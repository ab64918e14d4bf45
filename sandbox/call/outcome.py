"""The word a call's record ends with (see the seeds on what a call leaves behind)."""

from __future__ import annotations

from sandbox.call.floor import measure

#: The brain was never dialed, refused the session, or its greeting could not be spoken:
#: an operational fault, not something the caller did.
NOT_REACHED = "not_reached"
#: The session ran but the caller never said anything.
NO_ANSWER = "no_answer"
#: Below the thin-call floor: fewer than two lines and fewer than five words from the caller.
NOT_A_CONVERSATION = "not_a_conversation"
#: A conversation happened.
COMPLETED = "completed"


def decide(
    *, reached: bool, greeting_attempted: bool, greeting_heard: bool, caller_lines: list[str]
) -> str:
    """Classify a finished call from facts the core holds; never invents a conversation."""
    if not reached:
        return NOT_REACHED
    if greeting_attempted and not greeting_heard and not caller_lines:
        return NOT_REACHED  # a greeting that could not be spoken is a silent failure
    if not caller_lines:
        return NO_ANSWER
    if measure(caller_lines).below:
        return NOT_A_CONVERSATION
    return COMPLETED
