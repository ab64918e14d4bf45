"""Whether caller speech takes the floor from the bot: a sans-I/O detector fed VAD frames.

While the bot is speaking, a *burst* of caller voicing starts at a voiced frame and lasts until
``gap_ms`` of silence. The burst is a barge-in once it has carried ``min_voiced_ms`` of voiced
frames within the last ``window_ms``; anything that ends before that was a backchannel
("mm", "uh-huh", "okay", a one-word garble) and neither cuts the bot nor becomes a turn.

Calibration: backchannels voice for roughly 200-550 ms and stop ("mm-hmm" averages ~0.45 s
in Switchboard, plus the VAD's own ~60-90 ms overhang); a sentence keeps going. 600 ms of
voicing (20 frames) separates them at the cost of cutting ~0.65-0.75 s after the caller starts;
the peer we measure against cuts at ~0.38 s but also cuts on every backchannel. The 1200 ms
window lets a barge-in through when the echo canceller thins the caller's voicing during
double talk (a 50% voiced duty cycle still fires) while intermittent noise does not add up.
``gap_ms`` = 300 keeps the syllables of "mm-hmm" in one burst but puts a second "yeah" after a
breath in a new one.

There is deliberately no transcript veto: Whisper needs ~600 ms to say what a burst was, by
which time the decision has been made, and a cut cannot be taken back. Transcripts are used
after the fact only, to report a backchannel's words (see the listener).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from sandbox.audio.vad import FRAME_MS


@dataclass(frozen=True)
class BargeIn:
    """The caller took the floor: speech began at ``t_onset`` and was judged real at
    ``t_decided`` (ms)."""

    t_onset: int
    t_decided: int


class BargeInDetector:
    """Fed one VAD decision per frame with whether the bot is audible; see the module docstring."""

    def __init__(
        self,
        min_voiced_ms: int = 600,
        *,
        window_ms: int = 1200,
        gap_ms: int = 300,
        frame_ms: int = FRAME_MS,
    ) -> None:
        if not 0 < min_voiced_ms <= window_ms:
            raise ValueError("need 0 < min_voiced_ms <= window_ms")
        self.min_voiced_ms = min_voiced_ms
        self.window_ms = window_ms
        self.gap_ms = gap_ms
        self._frame_ms = frame_ms
        self._voiced: deque[int] = deque()  # starts of this burst's voiced frames in the window
        self._onset: int | None = None
        self._last_voiced_end = 0
        self._fired = False

    def feed(self, voiced: bool, t_ms: int, bot_speaking: bool) -> BargeIn | None:
        """One frame (``t_ms`` = its start). Returns a BargeIn once per burst that qualifies."""
        end = t_ms + self._frame_ms
        if not bot_speaking:
            self._reset()
            return None
        if self._onset is not None and end - self._last_voiced_end >= self.gap_ms:
            self._reset()  # the burst ended in silence
        if voiced:
            if self._onset is None:
                self._onset = t_ms
            self._voiced.append(t_ms)
            self._last_voiced_end = end
        while self._voiced and self._voiced[0] < end - self.window_ms:
            self._voiced.popleft()
        if (
            self._onset is not None
            and not self._fired
            and len(self._voiced) * self._frame_ms >= self.min_voiced_ms
        ):
            self._fired = True
            return BargeIn(self._onset, end)
        return None

    def _reset(self) -> None:
        self._voiced.clear()
        self._onset = None
        self._fired = False
