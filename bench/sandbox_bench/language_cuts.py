"""Heard text at every cut of a call spoken by an espeak voice, checked against the speaker
leg: how many words the audio shows played, against the words Finalize said were heard.

For each unit the caller cut (fewer words heard than generated), the session's speaker leg
(what the app released, sample 0 at the call's time 0) is taken from the unit's first sound
to its last: the cut, less the fade (:data:`~sandbox.audio.playout.FADE_MS`) that previews
the next samples without playing a word. espeak-ng renders the unit's whole text in the
call's voice (the bot's own engine and voice, at its rate), and an open-ended warp of the
leg onto the rendering (:func:`~sandbox_bench.espeak_align.open_end`) finds where in the text
the audio stopped; the words of the rendering that start before it are the played prefix, a
word starting within :data:`BOUNDARY_MS` of the stop counted either way (the warp's reach).
Nothing of the app's own word timing is used, only where each unit's first word played, to
find its audio in the leg.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from sandbox.audio.espeak_tts import DEFAULT_WPM
from sandbox.audio.playout import FADE_MS
from sandbox.audio.stt import SAMPLE_RATE
from sandbox.call.played import WordPlayed
from sandbox.record.leg_files import leg_path
from sandbox.record.legs import SPEAKER, at_rate, read_leg
from sandbox.record.store import SessionRow, SessionStore
from sandbox.record.stored_call import StoredCall
from sandbox.replay.audit import SILENT_LEVEL
from sandbox_bench.espeak_align import FRAME, HOP, cepstra, espeak_reference, open_end
from sandbox_bench.espeak_align import RATE as ALIGN_RATE

#: How far before its first word's play time a unit's audio is looked for (ms).
LEAD_MS = 200
#: The warp places the cut to within this (ms): a word starting this near it is counted
#: either way (a word's first 10-20 ms, often a soft onset, barely move the warp).
BOUNDARY_MS = 25


@dataclass(frozen=True)
class CutCheck:
    """One cut unit: its recorded heard text, how many of its words that is, and how many
    the speaker leg shows played (a range: a word starting within :data:`BOUNDARY_MS` of
    where the audio stops may or may not have begun)."""

    speech_id: int
    heard: str
    heard_words: int
    played_words: tuple[int, int]

    @property
    def words_off(self) -> int:
        """How far the record is from the audio, in words (0 inside the range)."""
        low, high = self.played_words
        return max(low - self.heard_words, self.heard_words - high, 0)


def played_words(audio: npt.NDArray[np.float32], text: str, voice: str) -> tuple[int, int]:
    """How many words of ``text`` start in ``audio`` (16 kHz, the first words of ``text``
    spoken by espeak-ng's ``voice``, cut at its end): the least and the most, a word
    starting within :data:`BOUNDARY_MS` of the cut counted either way."""
    if not len(audio):
        return 0, 0
    reference = espeak_reference(text, voice, DEFAULT_WPM)
    stop = open_end(cepstra(audio, SAMPLE_RATE), cepstra(reference.samples, reference.sample_rate))
    # Where that frame ends, in the rendering's samples (the recording's last frame ends at
    # its cut): a word starting after it is unplayed.
    stop_at = (stop * HOP + FRAME) * reference.sample_rate // ALIGN_RATE
    slack = BOUNDARY_MS * reference.sample_rate // 1000
    starts = [start for start in reference.starts if start is not None]
    return (
        sum(1 for start in starts if start <= stop_at - slack),
        sum(1 for start in starts if start <= stop_at + slack),
    )


def check_cuts(store: SessionStore, row: SessionRow, voice: str) -> list[CutCheck]:
    """Every cut unit of the real-audio session ``row``, spoken by espeak's ``voice``."""
    call = StoredCall.load(store, row)
    samples, rate = read_leg(leg_path(row.id, SPEAKER))
    leg = at_rate(samples, rate, SAMPLE_RATE)
    first_played: dict[int, int] = {}
    for t_ms, value in call.timed_records:
        if isinstance(value, WordPlayed):
            first_played.setdefault(value.speech_id, t_ms)
    starts = sorted(first_played.values())
    checks: list[CutCheck] = []
    for unit in call.report.units:
        if unit.words_heard >= unit.words_total:
            continue
        played = (0, 0)
        if unit.speech_id in first_played:
            begin = first_played[unit.speech_id]
            later = [t for t in starts if t > begin]
            window = leg[
                max(0, (begin - LEAD_MS) * SAMPLE_RATE // 1000) : (
                    later[0] * SAMPLE_RATE // 1000 if later else len(leg)
                )
            ]
            played = played_words(_sounding(window), unit.generated, voice)
        heard_words = len(unit.heard.split())
        checks.append(CutCheck(unit.speech_id, unit.heard, heard_words, played))
    return checks


def _sounding(window: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """``window`` from its first sound to its last, the cut's fade taken off the end."""
    loud = np.flatnonzero(np.abs(window) > SILENT_LEVEL)
    if not len(loud):
        return window[:0]
    end = max(int(loud[0]), int(loud[-1]) + 1 - FADE_MS * SAMPLE_RATE // 1000)
    return window[int(loud[0]) : end]
