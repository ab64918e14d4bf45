"""What one simulated call of a load run came to, and how a failure is classified."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sandbox.check.results import Finding

#: Failure classes a call can end with besides the brain's own Error codes.
NOT_REACHED = "not_reached"  # refused, timed out, or closed at accept: never placed
DROPPED = "dropped"  # the brain's socket closed mid-call
BRAIN_ERROR = "brain_error"  # a fatal Error from the brain ended the call
STALLED = "stalled"  # a turn went unanswered past the stall warning
TIMED_OUT = "timed_out"  # the script gave up waiting for the bot
CRASHED = "crashed"  # the call's own code failed: a bug of ours, details in the log
OVERLOADED = "overloaded"  # not dialed in time: the load generator's loop was overloaded


@dataclass
class CallResult:
    """One call: its session, latencies (ms), the wire rules it broke and its errors.

    ``errors`` holds failure classes (the constants above) and the brain's Error codes
    (``ERROR_CODE_...``), once each per call.
    """

    index: int
    session_id: str
    outcome: str = ""
    ended_by: str = ""
    detail: str = ""
    first_chunk_ms: list[float] = field(default_factory=list)
    finalize_ms: list[float] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    #: Dead-turn findings set aside: this process ran later than the rule's grace, so
    #: when the brain's chunks arrived cannot be told (see ``one_call._played``).
    unjudged: int = 0

    @property
    def failed(self) -> bool:
        """It broke a wire rule or ended in an error of any kind."""
        return bool(self.findings or self.errors)

    @property
    def rules(self) -> list[str]:
        """The rules it broke, each once, as ``section: words``."""
        return sorted({f"{f.rule.section}: {f.rule.words}" for f in self.findings})

    def as_json(self) -> dict[str, Any]:
        """The call for ``--json``."""
        return {
            "index": self.index,
            "session_id": self.session_id,
            "outcome": self.outcome,
            "ended_by": self.ended_by,
            "detail": self.detail,
            "first_chunk_ms": self.first_chunk_ms,
            "finalize_ms": self.finalize_ms,
            "findings": [f.as_json() for f in self.findings],
            "errors": self.errors,
            "unjudged_findings": self.unjudged,
        }


def classify(
    ended_by: str, brain_error_codes: list[str], stalled: bool, gave_up: bool
) -> list[str]:
    """The failure classes of a call from how it ended and what went wrong on the way."""
    errors: list[str] = []
    if ended_by == "dial_failed":
        errors.append(NOT_REACHED)
    elif ended_by == "brain_closed":
        errors.append(DROPPED)
    elif ended_by == "brain_error":
        errors.append(BRAIN_ERROR)
    if stalled:
        errors.append(STALLED)
    if gave_up:
        errors.append(TIMED_OUT)
    errors += sorted(set(brain_error_codes))
    return errors
