"""How a stored session is told: its brain's name, who ended it, and a demo scene's
narration.

A session's brain is shown by its name: a built-in brain by its name, any other by its URL.

A built-in brain is served on a loopback port picked afresh for each call, so its URL
(``ws://127.0.0.1:37079/brain``) names nothing a reader can recognise or find again. The
name is recorded once, when the session opens (a ``session_opened`` event, and the report's
``brain_name``); the URL stays in ``brain_url`` as it was dialed.
"""

from __future__ import annotations

from sandbox.record.report import Report
from sandbox.record.store import SessionRow, SessionStore
from sandbox.record.stored_events import SessionOpened, kind_of


def builtin_brain(name: str) -> str:
    """How a built-in brain is named: ``the built-in concierge``."""
    return f"the built-in {name}"


def brain_name(brain_url: str | None, builtin: str) -> str:
    """The brain a call dials: the user's URL, or ``builtin`` served for the call."""
    return brain_url or builtin_brain(builtin)


def recorded_brain(store: SessionStore, row: SessionRow) -> str:
    """The brain of a stored session by the name it opened with (one event read, not its
    report), or (a session from an older build) the URL it dialed. Not escaped."""
    opened = store.first_event(row.id, kind_of(SessionOpened))
    named = opened.brain_name if isinstance(opened, SessionOpened) else None
    return named or row.brain_url


def shown_brain(row: SessionRow, report: Report) -> str:
    """The brain of a stored session as a reader sees it: its recorded name, or (a session
    from an older build) the URL it dialed. Not escaped: the caller makes it visible."""
    return report.brain_name or row.brain_url


#: Who ended a call, in words (the report's ``ended_by``), as a stored session tells it.
ENDED_BY_WORDS = {
    "caller": "the caller hung up",
    "brain": "the brain hung up",
    "brain_closed": "the brain's connection closed",
    "brain_error": "the brain sent a fatal Error",
    "brain_cancel": "the brain cancelled the session",
    "dial_failed": "the brain could not be reached",
    "unfinished": "the call never reached its end",
}


def ended_by_words(ended_by: str) -> str:
    """``caller`` as ``the caller hung up``; a value this build does not know, as itself."""
    return ENDED_BY_WORDS.get(ended_by, ended_by.replace("_", " "))


def outcome_sentence(outcome: str, ended_by: str | None) -> str:
    """``completed — the caller hung up``: the outcome, and who ended the call."""
    return f"{outcome} — {ended_by_words(ended_by)}" if ended_by else outcome
