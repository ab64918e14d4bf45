"""Backchannels and barge-ins over the bot, timed from outside the app: what the caller hears.

The app (``sandbox run``, AEC on, at the default patience) dials the fixed-reply brain as in
:mod:`sandbox_bench.outside`, through the same virtual microphone and speaker, right after
its turns were timed (so it is warmed up). A caller's
question starts the reply; ``LEADS_S`` into it (at the speaker), a backchannel ("mm-hmm",
"okay"... in several espeak voices) or an objection goes into the microphone. A backchannel's
reply plays out and a new question starts the next; an objection's own reply is the next
trial's. Per trial, from the speaker's monitor (offsets fitted over the whole run, the
probe's own loop taken off):

* **backchannel gap**: the longest silence at the speaker that overlaps the backchannel's
  voice (:func:`silence_around`): the bot's pause for it, or, had it none, the reply's own
  longest gap there. A run of 10 ms windows with no sample above the probe's level, so a
  word played at a lowered level is sound, and a fade counts as silence only once below it;
* **answered**: a UserMessage reached the brain after the backchannel began;
* **barge-in onset → silence**: from the objection's first voiced sample at the microphone to
  the first window from which the speaker stays quiet for :data:`HELD_MS` (the bot stopped,
  not a gap between its words) (:func:`silence_from`);
* **bot sound after the silence**: how much bot audio the speaker played after that silence
  and before the objection ended (:func:`sound_ms`): the bot going on at a comma ("Wait,
  can you...") before the voice came back.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from sandbox_bench.app_process import Arrivals
from sandbox_bench.figures import Progress, fmt_ms, median
from sandbox_bench.probe import LEVEL, RATE, DeviceProbe, spoken_line, wait_quiet
from sandbox_bench.texts import OBJECTIONS

#: The question that starts a reply (the fixed-reply brain answers anything the same way):
#: no comma, which the app might take for the end of a turn and answer while it goes on.
QUESTION = "Could you tell me where my order is?"
#: What callers say over a bot without wanting the floor, and in which voices (the in-process
#: stage's, at espeak's own pace).
BACKCHANNELS = ("Mm-hmm.", "Okay.", "Uh-huh.", "Yeah.", "Right.", "I see.", "Sure.")
VOICES = ("en-us+m3", "en-us+f3", "en-gb+m1")
WPM = 175
#: How far into the reply (seconds at the speaker) the caller speaks, taken in turn: past its
#: "Sure," and inside its first sentence, then at the next moment the bot is sounding (on a
#: loaded machine a reply can stall between clauses: a line there would be over nothing).
LEADS_S = (1.0, 1.4, 1.8)


@dataclass(frozen=True)
class FloorLines:
    """What the caller says in the floor's trials, in which espeak-ng voices: the question
    that starts a reply (its voice and rate), the backchannels and the objections spoken
    over the reply (in ``voices`` in turn, at ``wpm``)."""

    question: str
    question_voice: str
    question_wpm: int
    backchannels: tuple[str, ...]
    objections: tuple[str, ...]
    voices: tuple[str, ...]
    wpm: int


#: The English callers' (the device stage's).
ENGLISH_FLOOR = FloorLines(QUESTION, "en-us", 170, BACKCHANNELS, OBJECTIONS, VOICES, WPM)
#: The speaker is sounding when its last sound is this recent.
SOUNDING_S = 0.02
#: A 10 ms window of the speaker's recording is silent when no sample is above the level.
WINDOW = RATE // 100
#: The bot has stopped once the speaker stays quiet this long (longer than a word's gap).
HELD_MS = 300
#: Longest wait for a reply's first audio.
REPLY_S = 15.0
#: Recorded after a line ends, for the bot's resume to be in the recording.
TAIL_S = 2.5


def _quiet_windows(samples: npt.NDArray[np.int16]) -> npt.NDArray[np.bool_]:
    """Per whole 10 ms window: no sample above :data:`LEVEL`."""
    whole = len(samples) // WINDOW * WINDOW
    peaks = np.abs(samples[:whole].astype(np.int32)).reshape(-1, WINDOW).max(axis=1)
    return np.asarray(peaks <= LEVEL)


def _runs(quiet: npt.NDArray[np.bool_]) -> list[tuple[int, int]]:
    """(first, one past last) window of each run of quiet windows."""
    edges = np.diff(np.concatenate([[0], quiet.astype(np.int8), [0]]))
    return list(zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True))


def silence_around(samples: npt.NDArray[np.int16], start: int, end: int) -> float:
    """The longest silence (ms) in ``samples`` that overlaps samples ``start`` to ``end``."""
    first, last = start // WINDOW, -(-end // WINDOW)
    runs = [b - a for a, b in _runs(_quiet_windows(samples)) if a < last and b > first]
    return max(runs, default=0) * WINDOW * 1000 / RATE


def silence_from(samples: npt.NDArray[np.int16], start: int) -> int | None:
    """The first sample from ``start`` on where the speaker stays quiet :data:`HELD_MS` (or
    to the end of ``samples``); None if it never does."""
    held = HELD_MS * RATE // 1000 // WINDOW
    quiet = _quiet_windows(samples)
    for a, b in _runs(quiet):
        if b * WINDOW > start and (b - a >= held or b == len(quiet)):
            return max(a * WINDOW, start)
    return None


def sound_ms(samples: npt.NDArray[np.int16], start: int, end: int) -> float:
    """How much of samples ``start`` to ``end`` is sound (ms, in 10 ms windows)."""
    quiet = _quiet_windows(samples)[start // WINDOW : end // WINDOW]
    return float(np.count_nonzero(~quiet) * WINDOW * 1000 / RATE)


@dataclass(frozen=True)
class FloorTrial:
    """One line over the bot, as heard at the devices."""

    text: str
    voice: str
    barge_in: bool  # an objection (else a backchannel)
    answered: bool  # a UserMessage reached the brain after its onset
    gap_ms: float | None  # backchannels: the silence around it
    onset_to_silence_ms: float | None  # objections: onset -> the bot stopped
    sound_after_silence_ms: float | None  # objections: bot audio after that, to its end
    #: backchannels: the bot sounded again after the line ended (its reply went on, or, if
    #: the line was answered, a new one began)
    went_on: bool | None = None


@dataclass(frozen=True)
class FloorRun:
    """Backchannels and barge-ins over the app's replies, heard at the devices."""

    trials: tuple[FloorTrial, ...]
    missed: int  # trials whose reply never came

    def _backchannels(self) -> list[FloorTrial]:
        return [t for t in self.trials if not t.barge_in]

    def _barge_ins(self) -> list[FloorTrial]:
        return [t for t in self.trials if t.barge_in]

    @property
    def backchannel_gap_ms(self) -> float | None:
        """Median silence at the speaker around a backchannel."""
        return median([t.gap_ms for t in self._backchannels() if t.gap_ms is not None])

    @property
    def backchannel_answered_fraction(self) -> float | None:
        """Share of backchannels that reached the brain as a turn."""
        backs = self._backchannels()
        return round(sum(t.answered for t in backs) / len(backs), 3) if backs else None

    @property
    def backchannel_went_on_fraction(self) -> float | None:
        """Share of backchannels after which the bot sounded again within the trial."""
        backs = [t.went_on for t in self._backchannels() if t.went_on is not None]
        return round(sum(backs) / len(backs), 3) if backs else None

    @property
    def onset_to_silence_ms(self) -> float | None:
        """Median objection onset at the microphone -> the speaker stopped."""
        values = [t.onset_to_silence_ms for t in self._barge_ins()]
        return median([v for v in values if v is not None])

    @property
    def landed_fraction(self) -> float | None:
        """Share of objections that became the caller's turn."""
        barges = self._barge_ins()
        return round(sum(t.answered for t in barges) / len(barges), 3) if barges else None

    @property
    def sound_after_silence_ms(self) -> float | None:
        """Median bot audio after a barge-in's silence, before the objection ended."""
        values = [t.sound_after_silence_ms for t in self._barge_ins()]
        return median([v for v in values if v is not None])


@dataclass(frozen=True)
class _Line:
    text: str
    voice: str
    barge_in: bool
    samples: npt.NDArray[np.int16]
    voice_start: int
    voice_end: int


@dataclass(frozen=True)
class _Mark:
    line: _Line
    played_at: int  # the probe's output index of the line's first sample
    arrived: int  # UserMessages at the brain before it
    arrived_after: int  # ... and by the end of its trial (before the next question)


def _lines(backchannels: int, barge_ins: int, said: FloorLines = ENGLISH_FLOOR) -> list[_Line]:
    """Objections and backchannels of ``said`` in turn, each objection followed by a
    backchannel over the reply it gets (call off the event loop: espeak-ng runs as a
    subprocess)."""
    backs = itertools.cycle(said.backchannels)
    voices = itertools.cycle(said.voices)
    objections = itertools.cycle(said.objections)
    out: list[_Line] = []
    for index in range(max(backchannels, barge_ins) * 2):
        barge_in = index % 2 == 0
        if index // 2 >= (barge_ins if barge_in else backchannels):
            continue
        text, voice = (next(objections) if barge_in else next(backs)), next(voices)
        out.append(_Line(text, voice, barge_in, *spoken_line(text, voice, said.wpm)))
    return out


async def _sound_after(probe: DeviceProbe, start: int, timeout_s: float) -> int | None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        await asyncio.sleep(0.05)  # only how soon it is seen: the time is the sample's
        found = probe.first_sound(start)
        if found is not None:
            return found
    return None


async def _until_recorded(probe: DeviceProbe, index: int) -> None:
    while probe.received < index:
        await asyncio.sleep(0.02)


async def _trials(
    probe: DeviceProbe,
    arrivals: Arrivals,
    lines: list[_Line],
    progress: Progress,
    said: FloorLines = ENGLISH_FLOOR,
) -> tuple[list[_Mark], int]:
    """Play each line over a reply; returns where each went, and how many found no reply."""
    question, _start, question_end = await asyncio.to_thread(
        spoken_line, said.question, said.question_voice, said.question_wpm
    )
    marks: list[_Mark] = []
    missed = 0
    listening: int | None = None  # a reply is on its way from here (an objection's)
    for index, line in enumerate(lines, start=1):
        if listening is None:
            await wait_quiet(probe, 30.0)
            listening = probe.received + question_end  # its reply comes after it
            probe.play(question)
        reply = await _sound_after(probe, listening, REPLY_S + question_end / RATE)
        if reply is None:
            missed += 1
            progress(f"  floor {index}/{len(lines)}: no reply to speak over; skipped")
            listening = None
            continue
        lead = LEADS_S[index % len(LEADS_S)]
        await _until_recorded(probe, reply + int(lead * RATE))
        deadline = time.monotonic() + REPLY_S
        while probe.quiet_since() > SOUNDING_S and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
        before = len(arrivals.messages)
        _settle_objection(marks, before)
        played_at = probe.play(line.samples)
        # Past the line's end: an objection's reply begins after it, a backchannel's goes on.
        ends = probe.received + len(line.samples) + int(0.1 * RATE)
        await _until_recorded(probe, ends)
        listening = ends if line.barge_in else None
        if not line.barge_in:  # the reply plays out: a backchannel turned turn is in by then
            await _until_recorded(probe, ends + int(TAIL_S * RATE))
            await wait_quiet(probe, 30.0)
        marks.append(_Mark(line, played_at, before, len(arrivals.messages)))
        progress(f"  floor {index}/{len(lines)}: {line.text!r} ({line.voice}) played")
    await _until_recorded(probe, probe.received + int(TAIL_S * RATE))
    _settle_objection(marks, len(arrivals.messages))
    return marks, missed


def _settle_objection(marks: list[_Mark], arrived: int) -> None:
    """An objection's turn reaches the brain after it ends: count it once its reply is
    playing (the next line is played over it) or the run is over."""
    if marks and marks[-1].line.barge_in:
        marks[-1] = replace(marks[-1], arrived_after=arrived)


def _judge(probe: DeviceProbe, loop_s: float, arrivals: Arrivals, mark: _Mark) -> FloorTrial:
    """One trial from the recording, once the sample clocks' offsets are final."""
    line = mark.line

    def at_speaker(output_index: int) -> int:
        """The input index recorded as the microphone's sample ``output_index`` played (the
        probe's own loop split evenly between its two streams)."""
        spoken = probe.out_clock.at_near(output_index) + loop_s / 2
        return probe.in_clock.index_near(spoken + loop_s / 2)

    onset = at_speaker(mark.played_at + line.voice_start)
    end = at_speaker(mark.played_at + line.voice_end)
    base = onset - RATE  # a second of the reply before the line
    recording = probe.recorded(base, end + int(TAIL_S * RATE))
    answered = mark.arrived_after > mark.arrived
    if not line.barge_in:
        gap = silence_around(recording, onset - base, end - base)
        went_on = sound_ms(recording, end - base, len(recording)) > 0
        return FloorTrial(line.text, line.voice, False, answered, gap, None, None, went_on)
    quiet = silence_from(recording, onset - base)
    to_silence = None if quiet is None else (quiet - (onset - base)) * 1000 / RATE
    after = None if quiet is None else sound_ms(recording, quiet, end - base)
    return FloorTrial(line.text, line.voice, True, answered, None, to_silence, after)


async def measure_floor(
    probe: DeviceProbe,
    loop_s: float,
    arrivals: Arrivals,
    backchannels: int,
    barge_ins: int,
    progress: Progress,
    said: FloorLines = ENGLISH_FLOOR,
) -> FloorRun:
    """``backchannels`` backchannels and ``barge_ins`` objections of ``said`` over the
    replies of the app already running (and warmed up) on the probe's devices, whose brain
    notes into ``arrivals``."""
    lines = await asyncio.to_thread(_lines, backchannels, barge_ins, said)
    marks, missed = await _trials(probe, arrivals, lines, progress, said)
    trials = tuple(_judge(probe, loop_s, arrivals, mark) for mark in marks)
    for trial in trials:
        if trial.barge_in:
            words = (
                f"silent {fmt_ms(trial.onset_to_silence_ms)} after onset, then "
                f"{fmt_ms(trial.sound_after_silence_ms)} of bot audio before it ended; "
                + ("a turn" if trial.answered else "NOT a turn")
            )
        else:
            answered = "; ANSWERED as a turn" if trial.answered else ""
            words = f"gap {fmt_ms(trial.gap_ms)}{answered}"
        progress(f"  {trial.text!r} ({trial.voice}): {words}")
    return FloorRun(trials, missed)
