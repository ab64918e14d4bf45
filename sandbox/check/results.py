"""What the conformance suite reports: findings, and a verdict per scenario."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from sandbox.check.rules import Rule


@dataclass(frozen=True)
class Finding:
    """One thing the brain (or, rarely, the runtime) did against a rule.

    ``t_ms`` is when, on the call's clock, the first offending frame crossed.
    """

    rule: Rule
    detail: str
    t_ms: int | None = None

    def as_json(self) -> dict[str, Any]:
        """The finding for ``--json``."""
        return {
            "detail": self.detail,
            "t_ms": self.t_ms,
            "rule": {"doc": self.rule.doc, "section": self.rule.section, "words": self.rule.words},
        }


class Status(enum.Enum):
    """A scenario's verdict. Not exercised is not a failure: nothing could steer the brain."""

    PASS = "PASS"
    FAIL = "FAIL"
    NOT_EXERCISED = "NOT EXERCISED"


@dataclass
class ScenarioResult:
    """One scenario's call: what broke, what could not be exercised, and what to know."""

    name: str
    title: str
    findings: list[Finding] = field(default_factory=list)
    #: Why the scenario's point could not be exercised, or None when it was.
    not_exercised: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def status(self) -> Status:
        """FAIL on any finding; otherwise PASS, or NOT EXERCISED."""
        if self.findings:
            return Status.FAIL
        return Status.NOT_EXERCISED if self.not_exercised else Status.PASS

    def as_json(self) -> dict[str, Any]:
        """The scenario for ``--json``."""
        return {
            "name": self.name,
            "title": self.title,
            "status": self.status.value,
            "findings": [f.as_json() for f in self.findings],
            "not_exercised": self.not_exercised,
            "notes": self.notes,
        }
