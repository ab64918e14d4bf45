"""``sandbox bench --lines``: the app on each phone line, as a caller on it meets it.

The same varied caller turns, then backchannels and barge-ins over the app's replies, go
into PulseAudio's virtual microphone while ``sandbox run --line NAME`` answers, for every
line profile, and the virtual speaker's monitor is recorded: end of speech → first audio
includes the line's delay both ways, as the caller hears it. What the brain was sent gives
the recognizer's word error rate on each line. The targets (issue 44): on ``pstn`` the
endpointer and the floor judge keep their wideband figures. Those are held with the line's
own delay both ways (its round trip: the network, the jitter buffer and a packet, each way)
taken off: physics the caller meets on any line, which no endpointer can take back; the
figures as the caller meets them are reported beside them. Each line's false cut-offs come
from the held-apart pause set's paused utterances through its uplink, in process
(:mod:`sandbox_bench.line_pauses`); the endpointer keeps its wideband target on ``pstn``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sandbox.audio.endpointer import PATIENCE_DEFAULT
from sandbox.audio.stt import Transcriber
from sandbox.judges.word_errors import word_error_rate
from sandbox.line.profile import DEFAULT_LINE, PROFILES
from sandbox.load.tally import percentile
from sandbox_bench.figures import Progress, fmt_ms, target_lines
from sandbox_bench.line_keys import LINES
from sandbox_bench.line_pauses import line_cutoffs
from sandbox_bench.outside import DeviceRun, measure_app, prepared
from sandbox_bench.outside_floor import FloorRun
from sandbox_bench.own_home import own_home
from sandbox_bench.probe import DeviceProbe

#: Turns on each line (--quick), and the (backchannels, barge-ins) over its replies.
TURNS, QUICK_TURNS = 12, 3
FLOOR, QUICK_FLOOR = (4, 4), (1, 1)


async def measure_lines(
    progress: Progress, *, quick: bool = False, turns: int | None = None, seed: int = 7
) -> dict[str, Any]:
    """Every line profile through the virtual devices: the ``lines`` keys (module doc)."""
    count = turns or (QUICK_TURNS if quick else TURNS)
    floor = QUICK_FLOOR if quick else FLOOR
    _, spoken, warmup, loop_s = await prepared(count, seed, progress)
    measured: dict[str, tuple[DeviceRun, FloorRun | None]] = {}
    with own_home(), DeviceProbe() as probe:
        for name in PROFILES:
            progress(f"  on {PROFILES[name].summary()}")
            measured[name] = await measure_app(
                probe, loop_s, PATIENCE_DEFAULT, spoken, warmup, progress, floor, line=name
            )
    # After the app's runs, so that this process's Whisper never shares the machine with it.
    progress("paused callers through each line's uplink")
    cutoffs = line_cutoffs(Transcriber.load(), list(PROFILES.values()), progress, quick=quick)
    return lines_figures(count, measured, cutoffs)


def lines_figures(
    turns: int,
    measured: Mapping[str, tuple[DeviceRun, FloorRun | None]],
    cutoffs: Mapping[str, float | None],
) -> dict[str, Any]:
    """The ``lines`` keys from each line's run at the devices and its floor, and its paused
    callers' false cut-offs."""
    lines = {
        name: {**_line(name, *runs), "false_cutoff_fraction": cutoffs.get(name)}
        for name, runs in measured.items()
    }
    wide, pstn = lines.get(DEFAULT_LINE, {}), lines.get("pstn", {})
    ratio = None
    if wide.get("first_audio_ms") and pstn.get("first_audio_ms") is not None:
        ratio = round((pstn["first_audio_ms"] - pstn["round_trip_ms"]) / wide["first_audio_ms"], 2)
    onset = pstn.get("onset_to_silence_ms")
    return {
        "line_turns": turns,
        "lines": lines,
        "pstn_first_audio_ratio": ratio,
        "pstn_onset_to_silence_net_ms": None if onset is None else onset - pstn["round_trip_ms"],
        "pstn_backchannels_answered": pstn.get("backchannel_answered_fraction"),
        "pstn_false_cutoff_fraction": pstn.get("false_cutoff_fraction"),
    }


def _line(name: str, run: DeviceRun, floor: FloorRun | None) -> dict[str, Any]:
    times = [t.to_first_audio_ms for t in run.turns]
    profile = PROFILES[name]
    return {
        "summary": profile.summary(),
        "round_trip_ms": profile.round_trip_ms,
        "word_error_rate": word_error_rate([(t.text, t.heard) for t in run.turns]),
        "first_audio_ms": run.first_audio_ms,
        "first_audio_p90_ms": percentile(times, 90),
        "unanswered": len(run.missed),
        "closes": run.closes,
        "onset_to_silence_ms": None if floor is None else floor.onset_to_silence_ms,
        "backchannel_answered_fraction": (
            None if floor is None else floor.backchannel_answered_fraction
        ),
    }


def lines_table(figures: dict[str, Any]) -> str:
    """The figures as lines: each target, then each line."""
    out = [f"phone lines: {figures['line_turns']} caller turns on each, timed from outside"]
    out += target_lines(figures, LINES.bounds())
    for name, line in figures["lines"].items():
        wer = line["word_error_rate"]
        out.append(
            f"  {name:<11} round trip {fmt_ms(line['round_trip_ms'])}, first audio "
            f"{fmt_ms(line['first_audio_ms'])} "
            f"(p90 {fmt_ms(line['first_audio_p90_ms'])}), "
            f"word errors {'—' if wer is None else f'{wer:.0%}'}, "
            f"unanswered {line['unanswered']}, onset → silent "
            f"{fmt_ms(line['onset_to_silence_ms'])}, backchannels answered "
            f"{_fraction(line['backchannel_answered_fraction'])}, paused callers cut off "
            f"{_fraction(line['false_cutoff_fraction'])}"
        )
    return "\n".join(out)


def _fraction(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"
