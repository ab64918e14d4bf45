"""The playout clock: releases speech to the output in real time, and is the only source of "heard".

Units of speech play strictly in the order they were first enqueued (FIFO), each one's
clips back to back. Output goes out in blocks of ``block_ms``; when nothing is ready the
block is silence, and a unit still waiting for its next clip holds back the units behind it.

**When a word is heard.** As the wire defines "played": a word counts as heard as soon as
its audio starts to be released (its first sample), i.e. handed to the sink: written, for a
sink the clock paces; returned to the device's audio callback, for a sound card. "A word
whose audio had only just been handed over counts as heard." A word with no samples of its
own counts once the audio before it is released. Measured against Whisper on what a cut left
(``sandbox bench``), this agrees with the emitted audio more often than a later point (the
midpoint: 73% of cuts, the start: 90%; Whisper completes a half-played word). What was handed
over may still be in the device's buffer (``sinks.DEVICE_LATENCY``) when a cut lands: as the
wire says, read heard text as "the user may have heard one word more".

**Callbacks** come from the releasing thread: the clock's own thread for a paced sink, the
sound card's audio thread for a device. They run while the clock holds its lock, so they
must return at once (hop onto asyncio with ``loop.call_soon_threadsafe``); they may call
back into the clock. Per released block: ``on_sound()`` if it carries any sound as the clock
released it (before a phone line's downlink delays it), ``on_release(block)`` (every block,
silence included, as it leaves the line: the echo canceller's reference), then ``on_word``
for each word heard in it and ``on_unit_done`` for each unit whose last audio it carried, in
the order of the audio.

**cut()** drops every queued and playing unit. The next released block is silence, so the
speaker goes quiet within one block (plus the device's buffer). No callback fires for a
cut unit after ``cut`` returns, not even ``on_unit_done``: the caller knows which units it
cut (``cut`` returns their ids) and finalizes them itself from the words it was told about.
A unit enqueued after the cut plays, even under a speech_id that was cut. A cut also ends a
pause.

**pause()** holds playout where it is while the caller's voice is judged (pause, then decide).
The next block fades the coming samples out over ``FADE_MS`` (the speaker is quiet within
one block) without consuming them, then silence; nothing is released and no word counts as
heard while paused. **resume()** goes on from the exact sample where the pause began, with a
``FADE_MS`` fade-in: no word repeated, none skipped, and the unit's heard text ends up as if
no pause had happened. A unit that is paused is still speaking.

If a callback raises, playout stops (silence from then on) and :meth:`stop` raises the error.

**A device that goes away** (unplugged, or its sound server dropped the stream) stops
pulling. :meth:`stalled_s` says for how long; :meth:`lose_device` closes it and goes on from
the clock's own thread into a silent sink paced in real time, from the sample where the
device stopped: words are still heard on time (as in typed mode), nothing is skipped.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from sandbox.audio.sinks import AudioSink, Block, ClockedSink, DeviceSink, NullSink
from sandbox.audio.tts import Clip, WordSpan

log = logging.getLogger(__name__)

#: (speech id, the word's index in its unit, its text, the output sample its audio starts at).
OnWord = Callable[[int, int, str, int], None]
OnUnitDone = Callable[[int], None]
OnRelease = Callable[[Block], None]

#: Length of the fade when playout pauses and resumes: short enough to be quiet within one
#: block, long enough not to click.
FADE_MS = 10


def heard_at(word: WordSpan) -> int:
    """Samples of its clip that must be released before a word counts as heard: its first."""
    return min(word.start + 1, word.end)


@dataclass
class _Unit:
    speech_id: int
    clips: deque[Clip] = field(default_factory=deque)
    ended: bool = False
    words_before: int = 0  # words in this unit's clips already fully played
    position: int = 0  # samples of clips[0] released
    next_word: int = 0  # index into clips[0].words of the next word to be heard


class PlayoutClock:
    """Paces speech units out to a sink and reports, word by word, what was released."""

    def __init__(
        self,
        sink: AudioSink | ClockedSink,
        *,
        block_ms: int = 20,
        on_word: OnWord,
        on_unit_done: OnUnitDone,
        on_release: OnRelease | None = None,
        on_sound: Callable[[], None] | None = None,
        line: Callable[[Block], Block] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """The clock owns ``sink`` from here on and closes it in :meth:`stop`. ``line``: what
        every released block crosses on its way to the speaker (a phone line's downlink,
        :class:`~sandbox.audio.line_path.LinePath`): words are released when the clock releases
        them, and heard when the line delivers them."""
        self._sink = sink
        self.sample_rate = sink.sample_rate
        self.block_frames = sink.sample_rate * block_ms // 1000
        self._on_word = on_word
        self._on_unit_done = on_unit_done
        self._on_release = on_release
        self._on_sound = on_sound
        self._line = line
        self._clock = clock
        self._lock = threading.RLock()
        self._units: deque[_Unit] = deque()
        self._origin: float | None = None  # clock time block 0 was due
        self._released = 0  # blocks released since the origin
        self._samples_out = 0  # samples released since the start
        self._thread: threading.Thread | None = None
        self._halt = threading.Event()
        self._error: BaseException | None = None
        self.fade_frames = sink.sample_rate * FADE_MS // 1000
        self._paused = False
        self._fading_out = False  # paused, and the fade-out block is still to be released
        self._fading_in = False  # resumed, and the fade-in block is still to be released
        self._last_pull: float | None = None  # when a clocked sink last pulled (clock time)

    # ------------------------------------------------------------------ feeding

    def open_unit(self, speech_id: int) -> None:
        """Take a unit's place in line now, before its first clip is synthesized."""
        with self._lock:
            self._open(speech_id)

    def enqueue(self, speech_id: int, clip: Clip) -> None:
        """Queue a clip at the end of its unit; a unit not yet queued joins the end of the line."""
        if clip.sample_rate != self.sample_rate:
            raise ValueError(f"clip at {clip.sample_rate} Hz on a {self.sample_rate} Hz output")
        with self._lock:
            self._open(speech_id).clips.append(clip)

    def end_unit(self, speech_id: int) -> None:
        """No more clips for this unit: it is done once its audio is released (at once if none)."""
        with self._lock:
            self._open(speech_id).ended = True

    def cut(self) -> list[int]:
        """Drop every queued and playing unit, silently; returns their speech_ids, oldest first."""
        with self._lock:
            dropped = [unit.speech_id for unit in self._units]
            self._units.clear()
            self._paused = self._fading_out = self._fading_in = False
            return dropped

    def pause(self) -> None:
        """Hold playout where it is: the next block fades out, then silence (see the module doc)."""
        with self._lock:
            if not self._paused:
                self._paused = self._fading_out = True
                self._fading_in = False

    def resume(self) -> None:
        """Go on from the sample where the pause began, fading in."""
        with self._lock:
            if self._paused:
                self._paused = self._fading_out = False
                self._fading_in = True

    @property
    def paced(self) -> bool:
        """Whether the clock paces its sink (a file, memory, none) rather than a device
        pulling each block as it plays it."""
        return not isinstance(self._sink, ClockedSink)

    @property
    def paused(self) -> bool:
        """Whether playout is held by :meth:`pause`."""
        return self._paused

    @property
    def is_speaking(self) -> bool:
        """Whether any unit is queued or playing (its audio, or its end, not yet released)."""
        return bool(self._units)

    def _open(self, speech_id: int) -> _Unit:
        for unit in reversed(self._units):
            if unit.speech_id == speech_id and not unit.ended:
                return unit
        unit = _Unit(speech_id)
        self._units.append(unit)
        return unit

    # ---------------------------------------------------------------- releasing

    def pull(self, frames: int) -> Block:
        """Release the next ``frames`` samples now and report what they carried."""
        with self._lock:
            if self._paused:
                block = self._fade_out(frames)
                events: list[tuple[int, int, str, int] | int] = []
            else:
                block, events = self._take(frames)
                if self._fading_in:
                    self._fading_in = False
                    n = min(self.fade_frames, frames)
                    block[:n] = (block[:n] * np.linspace(0.0, 1.0, n)).astype(np.int16)
            self._samples_out += frames
            if self._on_sound is not None and np.any(block):
                self._on_sound()
            if self._line is not None:  # silence too: the line still carries what it holds
                block = self._line(block)
            if self._on_release is not None:
                self._on_release(block)
            for event in events:
                if isinstance(event, int):
                    self._on_unit_done(event)
                else:
                    self._on_word(*event)
        return block

    def _fade_out(self, frames: int) -> Block:
        """A paused block: the first one fades out the samples to come (left unreleased)."""
        block = np.zeros(frames, np.int16)
        if not self._fading_out:
            return block
        self._fading_out = False
        if self._units and self._units[0].clips:
            unit = self._units[0]
            ahead = unit.clips[0].samples[unit.position : unit.position + self.fade_frames]
            n = min(len(ahead), frames)
            block[:n] = (ahead[:n] * np.linspace(1.0, 0.0, n)).astype(np.int16)
        return block

    def _take(self, frames: int) -> tuple[Block, list[tuple[int, int, str, int] | int]]:
        """The next ``frames`` samples of the units in line, and the words and unit ends they
        carried, in order (heard words as (speech id, index, text, sample); ends as ids)."""
        events: list[tuple[int, int, str, int] | int] = []
        block = np.zeros(frames, np.int16)
        filled = 0
        while self._units:
            unit = self._units[0]
            if not unit.clips:
                if not unit.ended:
                    break  # waiting for its next clip; the units behind it wait too
                self._units.popleft()
                events.append(unit.speech_id)
                continue
            clip = unit.clips[0]
            remaining = len(clip.samples) - unit.position
            if remaining and filled == frames:
                break
            take = min(frames - filled, remaining)
            block[filled : filled + take] = clip.samples[unit.position : unit.position + take]
            filled += take
            unit.position += take
            finished = unit.position == len(clip.samples)
            while unit.next_word < len(clip.words) and (
                finished or heard_at(clip.words[unit.next_word]) <= unit.position
            ):
                word = clip.words[unit.next_word]
                at = self._samples_out + filled - (unit.position - word.start)
                index = unit.words_before + unit.next_word
                events.append((unit.speech_id, index, word.text, at))
                unit.next_word += 1
            if not finished:
                break
            unit.clips.popleft()
            unit.words_before += len(clip.words)
            unit.position = unit.next_word = 0
        return block, events

    def pump(self) -> int:
        """Release, and write to the paced sink, every block due by now; returns how many."""
        sink = self._sink
        assert isinstance(sink, AudioSink), "a clocked sink pulls for itself"
        now = self._clock()
        if self._origin is None:
            self._origin = now
        elapsed = round((now - self._origin) * self.sample_rate)  # to the sample, not below it
        due = elapsed // self.block_frames + 1
        count = 0
        while self._released < due:
            sink.write(self.pull(self.block_frames))
            self._released += 1
            count += 1
        return count

    # ------------------------------------------------------------------ running

    def start(self) -> None:
        """Start releasing: the device pulls, or the clock's own thread paces the sink."""
        if isinstance(self._sink, ClockedSink):
            self._sink.start(self._guarded_pull, self.block_frames)
            return
        self._thread = threading.Thread(target=self._run, name="playout", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop releasing and close the sink; raises what a callback raised, if one did."""
        self._halt.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self._sink.close()
        if self._error is not None:
            raise self._error

    def _run(self) -> None:
        period = self.block_frames / self.sample_rate
        try:
            while not self._halt.is_set():
                self.pump()
                assert self._origin is not None
                wait = self._origin + self._released * period - self._clock()
                self._halt.wait(max(0.0, wait))
        except BaseException as exc:  # kept for stop(); the thread must not die unheard
            self._error = exc

    def output_delay_ms(self) -> int | None:
        """How long the block being released now takes to reach the speaker, as the sound
        card reported it on this pull; None where nothing measured it (a paced sink)."""
        sink = self._sink
        if isinstance(sink, DeviceSink) and sink.output_delay_s is not None:
            return round(sink.output_delay_s * 1000)
        return None

    def stalled_s(self) -> float:
        """How long a clocked sink has not pulled, in seconds: 0 before its first pull and
        for a sink the clock paces itself."""
        last = self._last_pull
        if last is None or not isinstance(self._sink, ClockedSink):
            return 0.0
        return max(0.0, self._clock() - last)

    def lose_device(self) -> None:
        """The clocked sink is gone: close it and pace on silently (see the module doc)."""
        with self._lock:
            gone = self._sink
            if not isinstance(gone, ClockedSink) or self._halt.is_set():
                return
            self._sink = NullSink(self.sample_rate)
            self._origin, self._released = None, 0  # the silent pace starts now
        try:
            gone.close()
        except Exception:  # a device that vanished may fail to close; it is dropped anyway
            log.warning("closing a speaker that went away failed", exc_info=True)
        self._thread = threading.Thread(target=self._run, name="playout", daemon=True)
        self._thread.start()

    def _guarded_pull(self, frames: int) -> Block:
        self._last_pull = self._clock()
        if self._error is not None or self._halt.is_set():
            return np.zeros(frames, np.int16)
        try:
            return self.pull(frames)
        except BaseException as exc:  # raised again by stop(), not into PortAudio's thread
            self._error = exc
            return np.zeros(frames, np.int16)
