"""What one load call measures as its frames cross: first-chunk and Finalize latencies.

* **First chunk**: from the frame that minted a turn (SessionStart, UserMessage, UserIdle)
  leaving to the first SpeechChunk of a unit naming that turn arriving, in wall time: that
  is the wait a caller would hear, and a simulated call's warp clock must not shorten it.
* **Finalize**: from the brain closing a unit (SpeechEnd or SpeechCancel) to that unit's
  Finalize leaving, on the call's own clock: how long the brain waits for its heard truth,
  the unit's playout included, as it would in a call played in real time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from sandbox.record.recorder import FrameRecord

_MINTS = ("session_start", "user_message", "user_idle")


@dataclass
class LatencyWatch:
    """Listens to one call's frames (``host.on_frame``) and keeps its latencies in ms."""

    wall: Callable[[], float] = time.monotonic
    #: Told each first-chunk latency as it is measured (a live progress display).
    on_first_chunk: Callable[[float], None] | None = None
    first_chunk_ms: list[float] = field(default_factory=list)
    finalize_ms: list[float] = field(default_factory=list)
    _asked: dict[int, float] = field(default_factory=dict)  # turn -> wall time it went out
    _unit_turn: dict[int, int] = field(default_factory=dict)
    _answered: set[int] = field(default_factory=set)
    _closed_at: dict[int, int] = field(default_factory=dict)  # speech_id -> call ms

    def __call__(self, frame: FrameRecord) -> None:
        """One frame as it crossed."""
        kind, fields = frame.type, frame.fields
        if frame.dir == "out":
            if kind in _MINTS:
                self._asked[int(fields.get("turn_id", 0))] = self.wall()
            elif kind == "finalize":
                closed = self._closed_at.pop(int(fields.get("speech_id", 0)), None)
                if closed is not None:
                    self.finalize_ms.append(float(frame.t_ms - closed))
            return
        sid = int(fields.get("speech_id", 0))
        if kind == "speech_start":
            self._unit_turn[sid] = int(fields.get("turn_id", 0))
        elif kind == "speech_chunk":
            turn = self._unit_turn.get(sid)
            if turn is not None and turn not in self._answered and turn in self._asked:
                self._answered.add(turn)
                ms = (self.wall() - self._asked[turn]) * 1000
                self.first_chunk_ms.append(ms)
                if self.on_first_chunk is not None:
                    self.on_first_chunk(ms)
        elif kind in ("speech_end", "speech_cancel"):
            self._closed_at.setdefault(sid, frame.t_ms)
