"""The idle timer: mints a UserIdle turn when the caller stays silent after the bot stops.

Two clocks, both fed the core's time (nothing here reads one):

- **the silence** — since the line last carried sound: the caller's voice, or a bot unit
  with text in play. ``UserIdle.idle_ms`` is this, the silence elapsed when the turn fired
  (the wire contract, docs/wire.md), so a brain that kept the caller waiting 10 s for an
  answer and then hears ``idle_ms`` learns the caller has been silent for all of it, not
  just the last wait;
- **the wait** — the part of the silence that counts toward the next nudge. It is held off
  while an answer to the caller (or the greeting) is owed, so a slow brain is not talked
  over by a nudge for a turn it has not answered, and while any unit is in play. An idle
  turn the brain leaves unanswered does not hold it: the next level follows one more
  ``timeout_ms`` of silence, whatever the stall notice's limit.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class IdleTimer:
    """Pure timer logic; the core says after every event whether the line is sounding and
    whether the wait is held, and asks at ticks.

    ``silence_since`` is when the line fell silent (None: someone is heard). ``anchor`` is
    when the current wait started counting (None: held, or someone is heard).
    """

    timeout_ms: int
    anchor: int | None = None
    silence_since: int | None = None
    level: int = 0

    def settle(self, now: int, *, sounding: bool, held: bool) -> None:
        """Where the floor stands at ``now``: ``sounding``, the caller speaks or the bot has
        text in play; ``held``, an answer is owed or a unit is in play."""
        if sounding:
            self.silence_since = None
        elif self.silence_since is None:
            self.silence_since = now
        if sounding or held:
            self.anchor = None
        elif self.anchor is None:
            self.anchor = now

    def caller_spoke(self) -> None:
        """The caller spoke: escalations start over, and so does the silence."""
        self.level = 0
        self.anchor = None
        self.silence_since = None

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
