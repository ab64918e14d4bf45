"""End of speech -> UserMessage: how long after the caller stops the brain hears the turn.

A real call to the echo brain; espeak-ng lines go into the microphone path (echo canceller,
VAD, endpointer, speculative Whisper). Measured from the last sample of the line's voice
(host time, from the timed mic) to the moment the host sent the UserMessage. Each turn is
closed either confidently or by silence; the target is the window that closed it + 150 ms.
Also measured: end of speech -> first audio of the reply (comparable with the peer's figure).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from sandbox.audio.endpointer import windows_for
from sandbox.call.caller_events import TurnCommitted
from sandbox.call.settings import Settings
from sandbox_bench.call import CallLog, bench_call, listening, say, turn_sent_after, until
from sandbox_bench.figures import Progress, fmt_ms, median
from sandbox_bench.mic import CallerLine
from sandbox_bench.models import Models
from sandbox_bench.texts import CALLER_TURNS

#: Longest a turn may take to reach the brain before the run counts as lost.
TURN_WAIT_S = 15.0


@dataclass(frozen=True)
class TurnRun:
    """One spoken turn."""

    said: str
    heard: str
    closed_by: str
    to_user_message_ms: float
    to_first_audio_ms: float | None
    #: Where the time went: voice end -> the VAD's end of speech -> the listener's commit.
    vad_lag_ms: float | None
    to_commit_ms: float | None


@dataclass(frozen=True)
class TurnFigures:
    """Medians over the turns that reached the brain."""

    runs: tuple[TurnRun, ...]
    patience: int
    windows_ms: dict[str, int]

    @property
    def end_of_speech_to_user_message_ms(self) -> float | None:
        """Median, all turns."""
        return median([r.to_user_message_ms for r in self.runs])

    @property
    def end_of_speech_to_first_audio_ms(self) -> float | None:
        """Median, turns whose reply was heard."""
        return median([r.to_first_audio_ms for r in self.runs if r.to_first_audio_ms is not None])

    @property
    def breakdown_ms(self) -> dict[str, float | None]:
        """Medians of each leg: voice end -> VAD end -> commit -> UserMessage sent."""
        legs = [
            (r.vad_lag_ms, r.to_commit_ms, r.to_user_message_ms)
            for r in self.runs
            if r.vad_lag_ms is not None and r.to_commit_ms is not None
        ]
        return {
            "voice_end_to_vad_end": median([vad for vad, _commit, _sent in legs]),
            "vad_end_to_commit": median([commit - vad for vad, commit, _sent in legs]),
            "commit_to_user_message": median([sent - commit for _vad, commit, sent in legs]),
        }

    @property
    def closes(self) -> dict[str, int]:
        """How many turns each window closed."""
        return dict(Counter(r.closed_by for r in self.runs))

    @property
    def patience_window_ms(self) -> int:
        """The window that closed most turns (the longer one on a tie, the confident one when
        there are no turns)."""
        closes = self.closes
        known = [reason for reason in self.windows_ms if closes.get(reason)]
        if not known:
            return self.windows_ms["confident"]
        return max(self.windows_ms[r] for r in known if closes[r] == max(closes[k] for k in known))


def turn_run(
    said: str, voice_end_ms: float, log: CallLog, closes: Mapping[int, str]
) -> TurnRun | None:
    """The turn of a line whose voice ended at ``voice_end_ms``, from the call's log."""
    sent = log.turn_after(voice_end_ms)
    if sent is None:
        return None
    t_message, turn = sent
    first_audio = next((t for t, loud in log.releases if loud and t >= t_message), None)
    commit = next(
        (
            (t, e)
            for t, e in log.events
            if isinstance(e, TurnCommitted) and voice_end_ms <= t <= t_message
        ),
        None,
    )
    return TurnRun(
        said=said,
        heard=turn.text,
        closed_by=closes.get(turn.turn_id, "?"),
        to_user_message_ms=t_message - voice_end_ms,
        to_first_audio_ms=None if first_audio is None else first_audio - voice_end_ms,
        vad_lag_ms=None if commit is None else commit[1].t_end_of_speech - voice_end_ms,
        to_commit_ms=None if commit is None else commit[0] - voice_end_ms,
    )


async def measure_turns(models: Models, runs: int, progress: Progress) -> TurnFigures:
    """``runs`` spoken turns to the echo brain, each after the previous reply played out."""
    patience = Settings().effective_patience
    windows = windows_for(patience)
    lines = [
        await asyncio.to_thread(CallerLine.spoken, CALLER_TURNS[i % len(CALLER_TURNS)])
        for i in range(runs)
    ]
    measured: list[TurnRun] = []
    async with bench_call(models, "echo") as call:
        await until(listening(call.host))  # the greeting played out
        for index, line in enumerate(lines, 1):
            spoken = await say(call, line)
            end = spoken.voice_end_ms
            assert end is not None
            await until(turn_sent_after(call.log, end), TURN_WAIT_S)
            await until(listening(call.host))
            run = turn_run(line.text, end, call.log, call.host.core.ledger.caller_closes)
            if run is None:
                progress(f"  turn {index}/{runs}: no UserMessage for {line.text!r}")
                continue
            measured.append(run)
            progress(
                f"  turn {index}/{runs}: {fmt_ms(run.to_user_message_ms)} to UserMessage "
                f"({run.closed_by}; VAD end {fmt_ms(run.vad_lag_ms)} after the voice, commit "
                f"{fmt_ms(run.to_commit_ms)}), {fmt_ms(run.to_first_audio_ms)} to reply audio"
            )
    return TurnFigures(
        tuple(measured),
        patience,
        {
            "final": windows.final_ms,
            "confident": windows.confident_ms,
            "silence": windows.silence_ms,
        },
    )
