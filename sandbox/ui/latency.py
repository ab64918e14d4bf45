"""The last caller turn's latency waterfall: end of speech → UserMessage → first chunk →
first audio, all on the host's clock.

Fed the frames as they cross and the words as they are heard; no clock of its own. In
typed mode there is no end of speech, so the waterfall starts at the UserMessage. "First
audio" is the first word of the turn's reply that the playout clock released.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sandbox.record.recorder import FrameRecord


@dataclass
class Waterfall:
    """The marks of one caller turn, in milliseconds on the host's clock."""

    turn_id: int
    user_message_ms: int
    end_of_speech_ms: int | None = None
    first_chunk_ms: int | None = None
    first_audio_ms: int | None = None

    def describe(self) -> str:
        """``turn 2: end of speech ─412 ms→ UserMessage ─143 ms→ first chunk ─37 ms→ first
        audio · 592 ms``; marks not reached yet show as ``…``."""
        marks: list[tuple[str, int | None]] = []
        if self.end_of_speech_ms is not None:
            marks.append(("end of speech", self.end_of_speech_ms))
        marks += [
            ("UserMessage", self.user_message_ms),
            ("first chunk", self.first_chunk_ms),
            ("first audio", self.first_audio_ms),
        ]
        head = f"turn {self.turn_id}" + ("" if self.end_of_speech_ms is not None else " (typed)")
        parts = [marks[0][0]]
        prev = marks[0][1]
        for name, at in marks[1:]:
            if at is None or prev is None:
                parts.append(f"─…→ {name}")
            else:
                parts.append(f"─{at - prev} ms→ {name}")
            prev = at
        start, end = marks[0][1], marks[-1][1]
        total = f" · {end - start} ms" if start is not None and end is not None else ""
        return f"{head}: {' '.join(parts)}{total}"


@dataclass
class LatencyTracker:
    """Builds the waterfall of the latest caller turn from frames and heard words."""

    last: Waterfall | None = None
    _end_of_speech_ms: int | None = None
    _units: set[int] = field(default_factory=set)

    def end_of_speech(self, t_ms: int) -> bool:
        """The audio engine saw the caller stop speaking, at ``t_ms``, for a turn it commits.

        Speech ends before its turn is committed, so a mark no later than the newest
        UserMessage belongs to that turn (it may be told after the frame went out);
        a later one waits for the next UserMessage. True when the waterfall changed.
        """
        last = self.last
        if last is not None and last.end_of_speech_ms is None and t_ms <= last.user_message_ms:
            last.end_of_speech_ms = t_ms
            return True
        self._end_of_speech_ms = t_ms
        return False

    def frame(self, record: FrameRecord) -> bool:
        """One frame crossed; True when the waterfall changed."""
        fields = record.fields
        if record.dir == "out" and record.type == "user_message":
            self.last = Waterfall(
                int(fields.get("turn_id", 0)), record.t_ms, self._end_of_speech_ms
            )
            self._end_of_speech_ms = None
            self._units.clear()
            return True
        last = self.last
        if last is None or record.dir != "in":
            return False
        if record.type == "speech_start" and fields.get("turn_id") == last.turn_id:
            self._units.add(int(fields.get("speech_id", 0)))
        elif (
            record.type == "speech_chunk"
            and last.first_chunk_ms is None
            and fields.get("speech_id") in self._units
            and fields.get("text")
        ):
            last.first_chunk_ms = record.t_ms
            return True
        return False

    def word_heard(self, speech_id: int, t_ms: int) -> bool:
        """A word of a unit was released to the caller; True when the waterfall changed."""
        last = self.last
        if last is None or last.first_audio_ms is not None or speech_id not in self._units:
            return False
        last.first_audio_ms = t_ms
        return True
