"""``sandbox audit``: each unit's recorded heard text checked against the speaker leg.

For a real-audio session, the speaker leg (what was released to the speaker, sample 0 the
call's time 0) is cut around each unit: from its first word's play time (when no word
played, its SpeechStart or the end of the unit before that played, the later) to
:data:`TAIL_MS` past its end, the later of its last word and its Finalize (which goes out
once its audio is out, or at its cut), and never into the next unit that played; when each
unit opened and was finalized is read from the core's records of the call. The clip
then ends where the leg goes silent for good (:func:`until_silent`): fed the silence after a
unit's last word, Whisper writes words into it ("Okay.", "Thank you."). Whisper transcribes
each clip in the language the unit was spoken in (Whisper base beyond English), a second
time in pieces when it holds a long silence (see :data:`PIECE_GAP_MS`), and
:func:`~sandbox.judges.heard_truth.words_off` compares the transcript with the unit's heard
text. The result is kept with the session as its one ``audit`` event, which the
exported page reads to mark the units the audit doubted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from sandbox.audio.recognizer import Recognizer
from sandbox.audio.stt import SAMPLE_RATE
from sandbox.call.played import WordPlayed
from sandbox.call.turn_records import FinalizeSent
from sandbox.call.unit_records import UnitOpened
from sandbox.errors import UserError
from sandbox.judges.heard_truth import doubted, verdict, words_off
from sandbox.record.leg_files import leg_path
from sandbox.record.legs import SPEAKER, at_rate, read_leg
from sandbox.record.store import SessionRow, SessionStore
from sandbox.record.stored_call import StoredCall
from sandbox.record.stored_events import Audited, UnitAudit
from sandbox.wire.catalog import language_name

#: Audio kept past a unit's end: the last word's tail, and a faded cut, heard out.
TAIL_MS = 500
#: A clip holding a silence this long (a unit the bot paused for a backchannel) is read a
#: second time, in pieces split there: tiny.en can end its text at such a silence, reading
#: half a unit that played whole (a bench audit called one 15 words off), while read in
#: pieces it loses words at their edges ("Sure," at a piece's start). Each reading is a noisy
#: measure of the same audio; the unit is doubted only if both disagree with its heard text.
PIECE_GAP_MS = 350
#: A sample at or under this level (of full scale) is silence: a paused bot's leg is zeros.
SILENT_LEVEL = 0.004


@dataclass(frozen=True)
class Audit:
    """A session's audit: every unit in the order the brain opened them."""

    session_id: str
    units: tuple[UnitAudit, ...]

    @property
    def passed(self) -> bool:
        """No unit is more than the tolerated word off."""
        return not any(doubted(u.words_off) for u in self.units)

    def totals(self) -> dict[str, int | float | None]:
        """This session's :func:`audit_totals`."""
        return audit_totals(self.units)


def audit_totals(units: Sequence[UnitAudit]) -> dict[str, int | float | None]:
    """``audit_units``, ``audit_exact_fraction`` and ``audit_max_words_off`` of ``units``
    (the last two None when there are none)."""
    offs = [u.words_off for u in units]
    return {
        "audit_units": len(offs),
        "audit_exact_fraction": round(offs.count(0) / len(offs), 3) if offs else None,
        "audit_max_words_off": max(offs) if offs else None,
    }


def refusal(row: SessionRow) -> str | None:
    """Why the session cannot be audited, in words; None when it can."""
    start = "audit needs a real-audio session's speaker leg; this one"
    if row.mode != "audio":
        return f"{start} ran with simulated audio ({row.mode})"
    if not leg_path(row.id, SPEAKER).is_file():
        return f"{start} has no speaker leg (recorded without legs, or they were removed)"
    return None


def audit_session(
    store: SessionStore,
    row: SessionRow,
    transcriber: Recognizer,
    progress: Callable[[str], None] | None = None,
) -> Audit:
    """Transcribe the speaker leg around each unit of ``row``, in the language the unit was
    spoken in, and compare (module doc)."""
    reason = refusal(row)
    if reason is not None:
        raise UserError(reason)
    call = StoredCall.load(store, row)
    report = call.report
    samples, rate = read_leg(leg_path(row.id, SPEAKER))
    audio = at_rate(samples, rate, SAMPLE_RATE)
    opened: dict[int, int] = {}
    spoken_in: dict[int, str] = {}
    finalized: dict[int, int] = {}
    played: dict[int, list[int]] = {}
    for t_ms, value in call.timed_records:
        match value:
            case UnitOpened(speech_id=sid, language=language):
                opened.setdefault(sid, t_ms)
                spoken_in.setdefault(sid, language_name(language))
            case FinalizeSent(speech_id=sid):
                finalized.setdefault(sid, t_ms)
            case WordPlayed(speech_id=sid):
                played.setdefault(sid, []).append(t_ms)
    audited = []
    floor = 0  # where the last unit that played ends: a silent unit's clip starts after it
    for index, unit in enumerate(report.units):
        times = played.get(unit.speech_id, [])
        start = times[0] if times else max(opened.get(unit.speech_id, 0), floor)
        end = max([*times[-1:], finalized.get(unit.speech_id, start)]) + TAIL_MS
        # The next unit that played owns its audio (one opened early, never played, none).
        later = [played[u.speech_id][0] for u in report.units[index + 1 :] if u.speech_id in played]
        end = max(start, min([end, *later[:1]]))
        if times:
            floor = end
        if progress is not None:
            progress(f"unit {index + 1} of {len(report.units)}")
        clip = until_silent(audio[start * SAMPLE_RATE // 1000 : end * SAMPLE_RATE // 1000])
        end = start + len(clip) * 1000 // SAMPLE_RATE
        off, said = min(
            (words_off(unit.heard, unit.generated, said), said)
            for said in readings(transcriber, clip, spoken_in.get(unit.speech_id, "en"))
        )
        audited.append(UnitAudit(unit.speech_id, unit.heard, said, off, verdict(off), start, end))
    return Audit(row.id, tuple(audited))


def readings(
    transcriber: Recognizer, clip: npt.NDArray[np.float32], language: str = "en"
) -> list[str]:
    """What Whisper hears in ``clip`` (16 kHz) in ``language``: read whole, and also piece
    by piece when it holds a long silence (:data:`PIECE_GAP_MS`, :func:`pieces`)."""
    parts = pieces(clip, SAMPLE_RATE)
    if not parts:
        return [""]
    whole = transcriber.transcribe(clip, language=language).text
    if len(parts) == 1:
        return [whole]
    texts = (transcriber.transcribe(clip[part], language=language).text for part in parts)
    return [whole, " ".join(text for text in texts if text)]


def until_silent(window: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """``window`` (16 kHz) up to where it goes silent for good: the end of its last piece
    (:func:`pieces`), a little silence kept; empty when it is all silence. Only the silence
    after its last sound is dropped, so the clip still holds every sound of the window."""
    parts = pieces(window, SAMPLE_RATE)
    return window[: parts[-1].stop if parts else 0]


def pieces(clip: npt.NDArray[np.float32], rate: int) -> list[slice]:
    """The sounding stretches of ``clip``, split at silences of :data:`PIECE_GAP_MS` or more;
    a shorter silence stays inside its piece, and a silent clip has none."""
    sounding = np.flatnonzero(np.abs(clip) > SILENT_LEVEL)
    if not len(sounding):
        return []
    gap = PIECE_GAP_MS * rate // 1000
    breaks = np.flatnonzero(np.diff(sounding) > gap)
    starts = [int(sounding[0]), *(int(sounding[b + 1]) for b in breaks)]
    ends = [*(int(sounding[b]) + 1 for b in breaks), int(sounding[-1]) + 1]
    # Each piece keeps a little of the silence around it, as Whisper likes a clip to have.
    pad = rate // 10
    return [
        slice(max(0, a - pad), min(len(clip), b + pad)) for a, b in zip(starts, ends, strict=True)
    ]


def keep_audit(store: SessionStore, row: SessionRow, audit: Audit) -> None:
    """Store ``audit`` with the session (replacing an earlier one), for the page."""
    store.put_event(row.id, row.duration_ms or 0, Audited(audit.units))
