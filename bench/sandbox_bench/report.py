"""The bench's result: one JSON object, its targets (from the issue) and a readable table.

Targets are reported, never enforced: a benchmark says how fast, tests say whether it works.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich import box
from rich.table import Table

from sandbox.record.table_text import table_lines
from sandbox_bench.backchannels import BackchannelFigures
from sandbox_bench.bargein import BargeInFigures
from sandbox_bench.bench_key import all_keys, computed_bound
from sandbox_bench.device_report import WINDOW_SLACK_MS, device_lines, patience_bounds
from sandbox_bench.echo import EchoFigures
from sandbox_bench.first_audio import FirstAudioFigures
from sandbox_bench.greeting import GreetingFigures
from sandbox_bench.heard import HeardFigures
from sandbox_bench.models import MemoryFigures
from sandbox_bench.rtf import RtfFigures
from sandbox_bench.run_keys import FULL_RUN
from sandbox_bench.turns import TurnFigures

#: The peer (Pipecat 1.14.0, fully local with the same models; see DESIGN.md).
PEER: dict[str, float | str] = {
    "end_of_speech_to_first_audio_ms": 1470,
    "onset_to_silence_ms": 380,
    "source": "Pipecat 1.14.0, Whisper tiny.en + Piper joe, plain VAD + 0.6 s timeout",
}


@dataclass(frozen=True)
class Figures:
    """Every stage's figures."""

    turns: TurnFigures
    first_audio: FirstAudioFigures
    barge_in: BargeInFigures
    backchannels: BackchannelFigures
    greeting: GreetingFigures
    heard: HeardFigures
    echo: EchoFigures
    rtf: RtfFigures
    memory: MemoryFigures


def result(figures: Figures, extra: dict[str, Any]) -> dict[str, Any]:
    """The JSON object: the figures, their targets, the peer's figures, then ``extra``."""
    turns, barge, heard, echo = figures.turns, figures.barge_in, figures.heard, figures.echo
    backs = figures.backchannels
    out: dict[str, Any] = {
        "end_of_speech_to_user_message_ms": turns.end_of_speech_to_user_message_ms,
        "patience_window_ms": turns.patience_window_ms,
        "patience": turns.patience,
        "patience_windows_ms": turns.windows_ms,
        "turn_closes": turns.closes,
        "turns": len(turns.runs),
        "turn_breakdown_ms": turns.breakdown_ms,
        "end_of_speech_to_first_audio_ms": turns.end_of_speech_to_first_audio_ms,
        "first_chunk_to_first_audio_ms": figures.first_audio.first_chunk_to_first_audio_ms,
        "first_audio_units": len(figures.first_audio.runs),
        "barge_in_decision_to_silence_ms": barge.decision_to_silence_ms,
        "onset_to_interruption_ms": barge.onset_to_interruption_ms,
        "onset_to_silence_ms": barge.onset_to_silence_ms,
        "onset_to_pause_decision_ms": barge.onset_to_decision_ms,
        "onset_to_barge_in_decision_ms": barge.onset_to_barge_in_ms,
        "barge_ins": len(barge.runs),
        "barge_in_attempts": barge.attempts,
        "barge_in_landed_fraction": barge.landed_fraction,
        "backchannel_trials": len(backs.trials),
        "backchannel_variants": backs.variants,
        "backchannel_resumed_fraction": backs.resumed_fraction,
        "backchannel_resumed_whole_fraction": backs.whole_fraction,
        "backchannel_answered_fraction": backs.answered_fraction,
        "backchannel_paused_fraction": backs.paused_fraction,
        "resume_gap_ms": backs.resume_gap_ms,
        "backchannel_misses": [
            {
                "label": t.label,
                "voice": t.voice,
                "gain": t.gain,
                "answered": t.answered,
                "decision": t.decision,
            }
            for t in backs.trials
            if not t.kept
        ],
        "greeting_barge_in_landed": figures.greeting.landed,
        "greeting_barge_in_trials": len(figures.greeting.trials),
        "greeting_onset_to_pause_ms": figures.greeting.onset_to_pause_ms,
        "stt_rtf": figures.rtf.stt_rtf,
        "stt_ms": figures.rtf.stt_ms,
        "tts_rtf": figures.rtf.tts_rtf,
        "rss_after_load_mb": figures.memory.after_load_mb,
        "rss_after_warm_up_mb": figures.memory.after_warm_up_mb,
        "peak_rss_mb": figures.memory.peak_mb,
        "heard_cuts": len(heard.cuts),
        "heard_exact_fraction": heard.exact_fraction,
        "paused_heard_exact_fraction": heard.paused_exact_fraction,
        "paused_heard_agrees_fraction": heard.paused_agrees_fraction,
        "heard_max_word_error": heard.max_word_error,
        "heard_word_errors": heard.errors(),
        "heard_midpoint_exact_fraction": heard.midpoint_exact_fraction,
        "heard_midpoint_max_word_error": heard.midpoint_max_word_error,
        "heard_midpoint_word_errors": heard.errors("midpoint"),
        "heard_mismatches": heard.examples(),
        "heard_within_one_fraction": heard.within_one_fraction,
        "heard_aligned_exact_fraction": heard.aligned_exact_fraction,
        "paused_heard_aligned_exact_fraction": heard.paused_aligned_exact_fraction,
        "heard_aligned_within_one_fraction": heard.aligned_within_one_fraction,
        "heard_aligned_max_word_error": heard.aligned_max_word_error,
        "heard_aligned_word_errors": heard.errors("aligned"),
        "heard_aligned_mismatches": heard.aligned_examples(),
        "echo_replies": echo.replies,
        "echo_fed_s": echo.echoed_s,
        "self_interruptions": echo.self_interruptions,
        "echo_interruptions": echo.interruptions,
        "echo_pauses": echo.pauses,
        "echo_resumes": echo.resumes,
        "echo_barge_ins": echo.barge_ins,
        "echo_backchannels": echo.backchannels,
        "echo_spoken_turns": echo.spoken_turns,
        "echo_audio_s": echo.audio_s,
    }
    out |= extra
    out["targets"] = targets(out)
    out["peer"] = PEER
    return out


def targets(figures: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each target: its bound ("max" or "min") and whether the measured figure met it."""
    bounds: dict[str, tuple[str, float]] = {}
    for stage in FULL_RUN:
        bounds |= stage.reported_bounds(figures)
    window = figures["patience_window_ms"] + WINDOW_SLACK_MS
    bounds["end_of_speech_to_user_message_ms"] = computed_bound(
        FULL_RUN, "end_of_speech_to_user_message_ms", window
    )
    bounds |= patience_bounds(figures)
    if trials := figures.get("greeting_barge_in_trials"):  # every one of them
        bounds["greeting_barge_in_landed"] = computed_bound(
            FULL_RUN, "greeting_barge_in_landed", trials
        )
    out: dict[str, dict[str, Any]] = {}
    for key, (kind, bound) in bounds.items():
        value = figures.get(key)
        met = None if value is None else (value <= bound if kind == "max" else value >= bound)
        out[key] = {kind: bound, "met": met}
    return out


# ------------------------------------------------------------------ the table


def _value(value: Any, unit: str | None) -> str:
    if value is None:
        return "—"
    if unit == "ms":
        return f"{value:.0f} ms"
    if unit == "frac":
        return f"{value:.0%}"
    if unit == "MB":
        return f"{value:.0f} MB"
    if unit == "x":
        return f"{value:.2f}"
    if unit == "s":
        return f"{value:.0f} s"
    return str(value)


def _target(target: dict[str, Any] | None, unit: str | None) -> str:
    if target is None:
        return ""
    kind = "max" if "max" in target else "min"
    mark = {True: "✓", False: "✗", None: "?"}[target["met"]]
    return f"{'≤' if kind == 'max' else '≥'} {_value(target[kind], unit)} {mark}"


def table(result: dict[str, Any]) -> str:
    """The result as a table: measured, target (✓ met, ✗ missed), the peer's figure."""
    notes = {
        "end_of_speech_to_user_message_ms": (
            f"{result['turns']} turns, patience {result['patience']} "
            f"(confident {result['patience_windows_ms']['confident']} ms, silence "
            f"{result['patience_windows_ms']['silence']} ms), closed: "
            + ", ".join(f"{n} {k}" for k, n in sorted(result["turn_closes"].items()))
        ),
        "heard_exact_fraction": f"{result['heard_cuts']} random cuts",
        "heard_aligned_exact_fraction": (
            f"after a pause {_value(result.get('paused_heard_aligned_exact_fraction'), 'frac')}"
        ),
        "self_interruptions": f"{result['echo_replies']} replies",
        "barge_in_landed_fraction": (
            f"{result['barge_ins']} of {result['barge_in_attempts']} objections"
        ),
        "greeting_barge_in_landed": f"of {result['greeting_barge_in_trials']} calls",
        "backchannel_resumed_fraction": (
            f"{result['backchannel_trials']} trials, {result['backchannel_variants']} "
            "backchannels and noises"
        ),
        "peak_rss_mb": f"after the calls (resident {result['rss_after_load_mb']:.0f} MB "
        f"loaded, {result['rss_after_warm_up_mb']:.0f} MB warmed up)"
        + (
            f"; the whole bench {result['bench_peak_rss_mb']:.0f} MB"
            if "bench_peak_rss_mb" in result
            else ""
        ),
    }
    header = ("measure", "measured", "target", "peer", "")
    rows = Table(*header, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for key in all_keys(FULL_RUN):
        if key.label is None:  # in the JSON only
            continue
        peer = PEER.get(key.name)
        rows.add_row(
            key.label,
            _value(result.get(key.name), key.unit),
            _target(result["targets"].get(key.name), key.unit),
            "" if peer is None else _value(peer, key.unit),
            notes.get(key.name, ""),
        )
    lines = table_lines(rows)
    if "device_runs" in result:
        lines += ["", *device_lines(result)]
    return "\n".join(line.rstrip() for line in lines)
