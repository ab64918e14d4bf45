"""The idle timer: mints a UserIdle turn when the caller stays silent after the bot stops."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class IdleTimer:
    """Pure timer logic; the core tells it when the floor falls silent and asks at ticks.

    ``anchor`` is when the current wait started counting (None: disarmed, someone is
    speaking or a unit is in play). ``silence_since`` is when the mutual silence began,
    so ``idle_ms`` on an escalation reports the whole silence, not just the last wait.
    """

    timeout_ms: int
    anchor: int | None = None
    silence_since: int | None = None
    level: int = 0

    def silent_from(self, now: int) -> None:
        """Both parties fell silent at ``now``: start counting."""
        self.anchor = now
        self.silence_since = now

    def disarm(self) -> None:
        """Someone is speaking or a unit is in play."""
        self.anchor = None
        self.silence_since = None

    def caller_spoke(self) -> None:
        """The caller spoke: escalations start over."""
        self.level = 0
        self.disarm()

    def set_timeout(self, timeout_ms: int, now: int) -> None:
        """A new duration lands at once; a running wait restarts on it."""
        self.timeout_ms = timeout_ms
        if self.anchor is not None:
            self.anchor = now

    def deadline(self) -> int | None:
        """When the next idle turn is due, or None."""
        if self.anchor is None or self.timeout_ms <= 0:
            return None
        return self.anchor + self.timeout_ms

    def fire(self, now: int) -> tuple[int, int] | None:
        """If due at ``now``: escalate and return (level, idle_ms); the next wait starts now."""
        due = self.deadline()
        if due is None or now < due or self.silence_since is None:
            return None
        self.level += 1
        self.anchor = now
        return self.level, now - self.silence_since
