"""A simulated playout clock: speaks relayed text word by word at a speaking rate.

Used where there is no audio (``--audio sim``, the conformance driver, typed mode): it
implements the same :class:`~sandbox.call.ports.Playout` port as the real audio engine and
reports the same progress, so the call core cannot tell the difference. Sans-I/O: the caller
advances its time.
A word counts as heard as its slot starts (its audio starts), the rule the real clock uses.
A pause stops the clock where it stands; resuming shifts every slot still to come by the
pause's length, so the words play on as if no pause had happened.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field

from sandbox.call.played import Played, UnitPlayed, WordPlayed

_WORD = re.compile(r"\S+")


@dataclass
class _Queued:
    speech_id: int
    text: str = ""
    taken: int = 0  # characters already turned into words
    closed: bool = False
    words: deque[str] = field(default_factory=deque)
    ready_at: int = 0  # when its next word became ready to speak

    def ripen(self) -> None:
        """Move complete words (followed by a space, or all of them once closed) to play."""
        for match in _WORD.finditer(self.text, self.taken):
            if match.end() == len(self.text) and not self.closed:
                break  # the word may continue in the next chunk
            self.words.append(match.group())
            self.taken = match.end()


@dataclass
class SimPlayout:
    """Plays units in the order they opened, one word per slot of ``ms_per_word``."""

    ms_per_word: int = 300
    _queue: deque[_Queued] = field(default_factory=deque)
    _by_id: dict[int, _Queued] = field(default_factory=dict)
    _word_started: int | None = None
    _word_heard: bool = False
    _free_at: int = 0  # when the last word finished
    _paused_at: int | None = None
    words_played: int = 0

    def open_unit(self, speech_id: int, voice: int, language: int, now: int) -> None:
        """Queue a unit behind every older one (every voice sounds alike here)."""
        unit = _Queued(speech_id)
        self._queue.append(unit)
        self._by_id[speech_id] = unit

    def speak(self, speech_id: int, text: str, now: int) -> None:
        """More text for a unit: its complete words become ready to play."""
        queued = self._by_id.get(speech_id)
        if queued is not None:
            queued.text += text
            self._ripen(queued, self._held(now))
        self._start_if_idle(now)

    def close_unit(self, speech_id: int, now: int) -> None:
        """No more text: the unit's last word is complete."""
        queued = self._by_id.get(speech_id)
        if queued is not None:
            queued.closed = True
            self._ripen(queued, self._held(now))
        self._start_if_idle(now)

    def cut(self, now: int) -> None:
        """Stop at once and drop everything queued (a pause ends with it)."""
        self._queue.clear()
        self._by_id.clear()
        self._word_started = None
        self._word_heard = False  # else the next unit's first word plays unreported
        self._free_at = now  # the cut word's slot ends with the cut
        self._paused_at = None

    def pause(self, now: int) -> None:
        """Stop the clock where it stands: nothing more plays until :meth:`resume`."""
        if self._paused_at is None:
            self._paused_at = now

    def resume(self, now: int) -> None:
        """Go on where the pause began: every slot still to come moves by the pause's length."""
        if self._paused_at is None:
            return
        held = max(0, now - self._paused_at)
        self._paused_at = None
        self._free_at += held
        if self._word_started is not None:
            self._word_started += held
        for queued in self._queue:
            queued.ready_at += held

    @property
    def speaking(self) -> bool:
        """A word is being spoken now."""
        return self._word_started is not None

    def next_deadline(self) -> int | None:
        """When ``advance`` next has something to report."""
        if self._paused_at is not None:
            return None
        if self._word_started is not None:
            start = self._word_started
            return start if not self._word_heard else start + self.ms_per_word
        if self._queue and self._queue[0].closed and not self._queue[0].words:
            return 0  # a finished unit is waiting to be reported
        return None

    def advance(self, now: int) -> list[Played]:
        """Report everything that played up to ``now`` (up to the pause, while paused)."""
        if self._paused_at is not None:
            now = min(now, self._paused_at)
        out: list[Played] = []
        while self._queue:
            head = self._queue[0]
            if self._word_started is None:
                if head.words:
                    self._word_started = max(self._free_at, head.ready_at)
                    continue
                if head.closed:
                    self._queue.popleft()
                    self._by_id.pop(head.speech_id, None)
                    out.append(UnitPlayed(head.speech_id))
                    continue
                break  # waiting for more text
            start = self._word_started
            if not self._word_heard:
                if now < start:
                    break
                self._word_heard = True
                self.words_played += 1
                out.append(WordPlayed(head.speech_id, head.words[0]))
            if now < start + self.ms_per_word:
                break
            head.words.popleft()
            self._word_heard = False
            self._free_at = start + self.ms_per_word
            self._word_started = self._free_at if head.words else None
        return out

    @staticmethod
    def _ripen(queued: _Queued, now: int) -> None:
        had_words = bool(queued.words)
        queued.ripen()
        if not had_words and queued.words:
            queued.ready_at = now

    def _held(self, now: int) -> int:
        """The clock's time: while paused it stands at the pause (resume moves it on)."""
        return now if self._paused_at is None else min(now, self._paused_at)

    def _start_if_idle(self, now: int) -> None:
        if self._word_started is None and self._queue and self._queue[0].words:
            self._word_started = max(self._held(now), self._free_at)
