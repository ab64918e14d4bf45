"""The figures timed at the devices, from outside the app: keys, targets and lines.

The headline is end of speech → first audio at the default patience (7) and at patience 6,
the one below it; with ``--peer``, each over the peer's median on the same devices in the
same run, and the slowest turn at the default patience over the peer's slowest
(``worst_turn_ratio``). Then the floor: the silence the caller hears around a backchannel,
and how soon a barge-in silences the bot, at the speaker. The
audit of the app's sessions (``audit_units``, ``audit_exact_fraction``,
``audit_max_words_off``) is bounded by the words the audit tolerates.
"""

from __future__ import annotations

from typing import Any

from sandbox.audio.endpointer import windows_for
from sandbox.bench.figures import fmt_ms
from sandbox.bench.outside import DeviceFigures, DeviceRun
from sandbox.bench.outside_floor import FloorRun
from sandbox.judges.heard_truth import TOLERATED_WORDS_OFF

#: The default patience, and the one below it.
DEFAULT_PATIENCE, PEER_FOOTING_PATIENCE = 7, 6
#: End of speech -> UserMessage may exceed the confident window by this much.
WINDOW_SLACK_MS = 150
#: Ratios to the peer's end of speech -> first audio (the issue's targets).
RATIO_TARGETS: dict[str, tuple[str, float]] = {
    "peer_ratio_end_of_speech_to_first_audio": ("max", 0.70),
    "peer_ratio_end_of_speech_to_first_audio_fast": ("max", 0.75),
    # Our slowest turn at the default patience over the peer's slowest: no slow tail.
    "worst_turn_ratio": ("max", 1.0),
}
#: The floor at the speaker (issue 31).
FLOOR_TARGETS: dict[str, tuple[str, float]] = {
    "backchannel_gap_ms": ("max", 500),
    "barge_in_onset_to_silence_ms": ("max", 200),
    "device_backchannel_answered_fraction": ("max", 0),
}


def _run(run: DeviceRun) -> dict[str, Any]:
    return {
        "who": run.who,
        "patience": run.patience,
        "turns": len(run.turns),
        "missed": run.missed,
        "end_of_speech_to_first_audio_ms": run.first_audio_ms,
        "spread_ms": list(run.first_audio_spread_ms or ()),
        "end_of_speech_to_brain_ms": run.to_brain_ms,
        "values_ms": [t.to_first_audio_ms for t in run.turns],
        "brain_values_ms": [t.to_brain_ms for t in run.turns],
    }


def _floor(run: FloorRun) -> dict[str, Any]:
    return {
        "backchannel_gap_ms": run.backchannel_gap_ms,
        "device_backchannel_answered_fraction": run.backchannel_answered_fraction,
        "barge_in_onset_to_silence_ms": run.onset_to_silence_ms,
        "barge_in_sound_after_silence_ms": run.sound_after_silence_ms,
        "device_barge_in_landed_fraction": run.landed_fraction,
        "device_floor_missed": run.missed,
        "device_floor_trials": [
            {
                "text": t.text,
                "voice": t.voice,
                "barge_in": t.barge_in,
                "answered": t.answered,
                "gap_ms": t.gap_ms,
                "onset_to_silence_ms": t.onset_to_silence_ms,
                "sound_after_silence_ms": t.sound_after_silence_ms,
            }
            for t in run.trials
        ],
    }


def _ratio(ours: float | None, theirs: float | None) -> float | None:
    return None if ours is None or not theirs else round(ours / theirs, 2)


def _worst(run: DeviceRun) -> float | None:
    """The slowest answered turn; None when none was."""
    return max((t.to_first_audio_ms for t in run.turns), default=None)


def device_result(figures: DeviceFigures) -> dict[str, Any]:
    """The JSON keys of the devices stage."""
    default, fast = figures.at(DEFAULT_PATIENCE), figures.at(PEER_FOOTING_PATIENCE)
    ours = None if default is None else default.first_audio_ms
    ours_fast = None if fast is None else fast.first_audio_ms
    out: dict[str, Any] = {
        "device_probe_loop_ms": figures.loop_ms,
        "device_runs": [_run(r) for r in figures.runs],
        "device_end_of_speech_to_first_audio_ms": ours,
        "device_end_of_speech_to_first_audio_fast_ms": ours_fast,
        **figures.audit,
    }
    for run in figures.runs:
        out[f"device_end_of_speech_to_user_message_p{run.patience}_ms"] = run.to_brain_ms
    if figures.peer is not None:
        peer = figures.peer.first_audio_ms
        out["peer_run"] = _run(figures.peer)
        out["peer_stage_s"] = figures.peer_s
        out["peer_end_of_speech_to_first_audio_ms"] = peer
        out["peer_ratio_end_of_speech_to_first_audio"] = _ratio(ours, peer)
        out["peer_ratio_end_of_speech_to_first_audio_fast"] = _ratio(ours_fast, peer)
        ours_worst = None if default is None else _worst(default)
        out["device_worst_turn_ms"] = ours_worst
        out["peer_worst_turn_ms"] = _worst(figures.peer)
        out["worst_turn_ratio"] = _ratio(ours_worst, out["peer_worst_turn_ms"])
    if figures.floor is not None:
        out.update(_floor(figures.floor))
    return out


def device_targets(figures: dict[str, Any]) -> dict[str, tuple[str, float]]:
    """The bounds of the device keys present in ``figures``."""
    bounds: dict[str, tuple[str, float]] = {
        k: v for k, v in (RATIO_TARGETS | FLOOR_TARGETS).items() if figures.get(k) is not None
    }
    if figures.get("audit_max_words_off") is not None:
        bounds["audit_max_words_off"] = ("max", TOLERATED_WORDS_OFF)
    for run in figures.get("device_runs", []):
        patience = run["patience"]
        window = windows_for(patience).confident_ms + WINDOW_SLACK_MS
        bounds[f"device_end_of_speech_to_user_message_p{patience}_ms"] = ("max", window)
    return bounds


def device_lines(figures: dict[str, Any]) -> list[str]:
    """The runs as lines: median, spread, turn at the brain."""
    lines = [
        "end of speech at the microphone → first audio at the speaker, timed outside the app "
        f"(the probe's own {figures['device_probe_loop_ms']:.0f} ms taken off)"
    ]
    runs = list(figures["device_runs"])
    if "peer_run" in figures:
        runs.append(figures["peer_run"])
    for run in runs:
        low, high = run["spread_ms"] or (None, None)  # empty: no turn was answered
        lines.append(
            f"  {run['who']:<28} {fmt_ms(run['end_of_speech_to_first_audio_ms']):>8} "
            f"({fmt_ms(low)} to {fmt_ms(high)}, {run['turns']} turns"
            + (f", {run['missed']} unanswered" if run["missed"] else "")
            + f"); at the brain {fmt_ms(run['end_of_speech_to_brain_ms'])}"
        )
    if figures.get("audit_units"):
        lines.append(
            f"  audit of the app's {figures['audit_sessions']} sessions: "
            f"{figures['audit_units']} units, {figures['audit_exact_fraction']:.0%} exact, "
            f"words off at most {figures['audit_max_words_off']}"
        )
    if "device_floor_trials" in figures:
        trials = figures["device_floor_trials"]
        backs = sum(not t["barge_in"] for t in trials)
        lines += [
            f"over the bot, at the speaker ({backs} backchannels, {len(trials) - backs} barge-ins)",
            f"  silence around a backchannel {fmt_ms(figures['backchannel_gap_ms'])} median; "
            f"answered as a turn {figures['device_backchannel_answered_fraction']}",
            f"  barge-in onset → silence {fmt_ms(figures['barge_in_onset_to_silence_ms'])}; "
            f"bot audio after it {fmt_ms(figures['barge_in_sound_after_silence_ms'])}; "
            f"became a turn {figures['device_barge_in_landed_fraction']}",
        ]
    return lines
