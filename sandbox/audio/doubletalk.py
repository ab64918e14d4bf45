"""Is the caller talking over the bot? A double-talk detector that needs no converged canceller.

AEC3 starts every call in a cautious state: until it has learnt the echo path it suppresses
whatever the microphone hears while the bot speaks. Measured here, a caller talking over the
first seconds of the greeting comes through 11-17 dB down with a laptop's echo, and 26-56 dB
down on headphones (no echo at all, so nothing to learn from); 8 s into a call the first
objection was still heard ~0.7 s late. So the onset of the caller's voice is also judged on
the raw microphone, Geigel style: the frame is louder than any echo of what the bot played in
the last ``window_ms`` could be.

How loud the echo can be is learnt, not assumed: the *coupling* is the 90th percentile of the
ratio of microphone level to the bot's recent peak level over the last ``memory_ms``, in
frames the canceller let nothing through (no near-end voice). A linear echo path keeps that
ratio at or under its gain, so 6 dB over the percentile is over any echo; a percentile rather
than the peak, because the unvoiced start of a caller's word ("s" of "sorry") is among those
frames and must not teach the detector that echo is that loud. On headphones the coupling
falls to the noise floor within half a second of the bot speaking; with a laptop's echo it
stays at the echo's level, so the raw path only fires for a voice clearly above the echo and
the cleaned path does the rest. Until ``memory_ms``/3 of such frames were seen, nothing fires.

An echo that grows louder than the one learnt (headphones taken off mid-call) reads as a voice
over the bot on every frame, and frames taken for a voice teach nothing; a real caller pauses
the bot within ~0.1 s, so when most of the bot's recent frames were "a voice over it", the
detector forgets the echo and learns it again.

The same frames tell whether there is any echo at all. Where the microphone stays under the
voice floor while the bot speaks (headphones, a virtual device), :attr:`DoubleTalk.echo_free`
says so, and the listener hears the raw microphone: AEC3 with nothing to learn stays cautious
and mutes the start of every word said over the bot (measured: the "o" of "okay" and the
first ~250 ms of the caller's voice gone, which Whisper then reads as "Hey.", a floor word).
"""

from __future__ import annotations

from collections import deque

#: How much louder than the loudest possible echo the microphone must be (6 dB).
MARGIN = 2.0
#: Microphone level (RMS, full scale 1.0) below which nothing is a voice (~-54 dBFS).
FLOOR_RMS = 0.002
#: Which percentile of the learnt echo ratios is taken as the echo's coupling.
PERCENTILE = 90
#: Bot level (RMS) below which the bot is taken to be silent.
BOT_SILENT_RMS = 0.003


class DoubleTalk:
    """Fed per frame: microphone level, the bot's loudest recent level, and whether the
    cleaned audio was voiced; says whether the raw microphone holds a voice over the echo."""

    def __init__(self, *, frame_ms: int = 30, memory_ms: int = 1500) -> None:
        self._ratios: deque[float] = deque(maxlen=memory_ms // frame_ms)
        self._levels: deque[float] = deque(maxlen=memory_ms // frame_ms)  # the echo's, RMS
        self._voiced: deque[bool] = deque(maxlen=memory_ms // frame_ms)  # the echo's, raw VAD
        self._over: deque[bool] = deque(maxlen=memory_ms // frame_ms)  # every frame's verdict
        self._needed = memory_ms // frame_ms // 3

    @property
    def coupling(self) -> float | None:
        """The loudest echo seen, as a fraction of the bot's level (None: not learnt yet)."""
        if len(self._ratios) < self._needed:
            return None
        return _percentile(self._ratios)

    @property
    def echo_free(self) -> bool:
        """Whether the bot's echo, as learnt, stays under the voice floor and never sounds
        like a voice to the VAD: nothing the microphone hears can be the bot, so the raw
        microphone is the caller alone."""
        if len(self._levels) < self._needed:
            return False
        voiced = sum(self._voiced) * 100 > len(self._voiced) * (100 - PERCENTILE)
        return not voiced and _percentile(self._levels) < FLOOR_RMS

    def feed(self, mic_rms: float, bot_rms: float, raw_voiced: bool, cleaned_voiced: bool) -> bool:
        """One frame; True when the microphone is a voice over the bot's echo."""
        if bot_rms < BOT_SILENT_RMS:
            return False  # no echo to tell apart: the cleaned path decides
        coupling = self.coupling
        over = (
            coupling is not None
            and raw_voiced
            and mic_rms > max(FLOOR_RMS, MARGIN * coupling * bot_rms)
        )
        if not over and not cleaned_voiced:
            self._ratios.append(mic_rms / bot_rms)
            self._levels.append(mic_rms)
            self._voiced.append(raw_voiced)
        self._over.append(over)
        if len(self._over) == self._over.maxlen and sum(self._over) * 2 > len(self._over):
            self._relearn()
        return over

    def _relearn(self) -> None:
        """Most of what the bot said lately was "a voice over it": a caller who speaks over
        the bot pauses it within ~0.1 s, so this is an echo louder than the one learnt (the
        headphones came off), which the frames taken for a voice can never teach. Forget
        the echo and learn it again, cautiously, from the canceller's output."""
        for learnt in (self._ratios, self._levels, self._voiced, self._over):
            learnt.clear()


def _percentile(values: deque[float]) -> float:
    ranked = sorted(values)
    return ranked[(len(ranked) - 1) * PERCENTILE // 100]
