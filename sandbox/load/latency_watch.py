"""What one load call measures as it runs: first-chunk and Finalize latencies, read from the
core's records among its effects (``host.on_effect``).

* **First chunk**: from the core sending a turn (SessionStart, UserMessage, UserIdle) to the
  first text it relays of a unit answering that turn, in wall time: that is the wait a
  caller would hear, and a simulated call's warp clock must not shorten it. The chunk is
  timed when its frame's bytes reached this process (``CallHost.wall_of_effects``):
  thousands of calls on one loop get to a frame a while after it came, and that wait is the
  load generator's, shown by its loop's lateness, not the brain's.
* **Finalize**: from the brain closing a unit (SpeechEnd or SpeechCancel) to that unit's
  Finalize leaving, on the call's own clock: how long the brain waits for its heard truth,
  the unit's playout included, as it would in a call played in real time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from sandbox.call.effects import SpeakText
from sandbox.call.ledger import Ledger
from sandbox.call.turn_records import BracketClosed, FinalizeSent, TurnSent
from sandbox.call.unit_records import UnitOpened


def _no_call_clock() -> int:
    return 0


@dataclass
class LatencyWatch:
    """Listens to one call's effects and keeps its latencies in ms."""

    wall: Callable[[], float] = time.monotonic
    #: The call's own clock (ms), for the Finalize latency (``host.now``).
    now: Callable[[], int] = _no_call_clock
    #: Told each first-chunk latency as it is measured (a live progress display).
    on_first_chunk: Callable[[float], None] | None = None
    first_chunk_ms: list[float] = field(default_factory=list)
    finalize_ms: list[float] = field(default_factory=list)
    _turns: Ledger = field(default_factory=Ledger)  # on the wall clock, in ms
    _closed_at: dict[int, int] = field(default_factory=dict)  # speech_id -> call ms

    def __call__(self, effect: object) -> None:
        """One effect of the core, as it is carried out."""
        match effect:
            case BracketClosed(speech_id=sid):
                self._closed_at.setdefault(sid, self.now())
            case FinalizeSent(speech_id=sid):
                closed = self._closed_at.pop(sid, None)
                if closed is not None:
                    self.finalize_ms.append(float(self.now() - closed))
            case TurnSent() | UnitOpened() | SpeakText():  # all a first chunk is read from
                answered = self._turns.apply(round(self.wall() * 1000), effect)
                took = None if answered is None else self._turns.first_chunk_ms(answered)
                if took is not None:
                    self.first_chunk_ms.append(float(took))
                    if self.on_first_chunk is not None:
                        self.on_first_chunk(float(took))
