"""The figures timed at the devices, from outside the app: keys, targets and lines.

The headline is end of speech → first audio over the set of callers at the default patience
(7), overall and for each class of turn (``device_class_first_audio_ms``: median, p90,
worst), and how the app's endpointer closed its turns (``device_close_reasons``: final,
confident, silence). With ``--peer``, both of Pipecat's configurations heard the same turns:
every ratio is against the faster of the two, for the whole set (by its median) and for each
class (``peer_class_ratio_<class>``: ours over the faster configuration's median for that
class); the slowest turn at the default patience is over the slowest of the configuration
that is faster overall (``worst_turn_ratio``). Patience 6's median has its ratio too. Then
the floor: the silence the caller hears around a backchannel, and how soon a barge-in
silences the bot, at the speaker. The audit of the app's sessions (``audit_units``,
``audit_exact_fraction``, ``audit_max_words_off``) is bounded by the words the audit
tolerates.

The caller's words: each system's word error rate, overall and by class, of what reached its
brain against the text the caller spoke (``device_word_error_rate``, at most the peer's on the
same turns), the turns that reached it doubled or looped (``device_doubled_turns``, target 0),
how the app mended its transcripts (``device_mended_turns``, from its report) and, class by
class, how its endpointer closed them (``device_class_close_reasons``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from rich import box
from rich.table import Table

from sandbox.audio.endpointer import windows_for
from sandbox.audio.plausible import first_of_double, plain_words, unlooped
from sandbox.judges.word_errors import word_error_rate
from sandbox.load.tally import percentile
from sandbox.record.table_text import table_lines
from sandbox_bench.bench_key import computed_bound
from sandbox_bench.device_keys import DEVICE_STAGES
from sandbox_bench.figures import fmt_ms, median
from sandbox_bench.outside import DeviceFigures, DeviceRun, DeviceTurn
from sandbox_bench.outside_floor import FloorRun

#: The default patience, and the one below it.
DEFAULT_PATIENCE, PEER_FOOTING_PATIENCE = 7, 6
#: End of speech -> UserMessage may exceed the confident window by this much.
WINDOW_SLACK_MS = 150
#: Each class's median over the faster configuration's median for that class.
CLASS_RATIO_PREFIX = "peer_class_ratio_"
#: The close reasons always reported, each 0 when none closed that way.
CLOSE_REASONS = ("final", "confident", "silence")


def class_figures(
    turns: Iterable[DeviceTurn], order: Sequence[str] = (), missed: Iterable[str] = ()
) -> dict[str, Any]:
    """Each class's answered turns, its turns with no reply (``missed``: their classes), and
    its end of speech → first audio: median, p90 (nearest rank) and worst; classes in
    ``order`` first, then as they came."""
    values: dict[str, list[float]] = {kind: [] for kind in order}
    for turn in turns:
        values.setdefault(turn.kind, []).append(turn.to_first_audio_ms)
    unanswered = Counter(missed)
    for kind in unanswered:
        values.setdefault(kind, [])
    return {
        kind: {
            "turns": len(got),
            "missed": unanswered[kind],
            "median_ms": median(got),
            "p90_ms": percentile(got, 90),
            "worst_ms": max(got, default=None),
        }
        for kind, got in values.items()
        if got or unanswered[kind]
    }


def close_reasons(run: DeviceRun) -> dict[str, int]:
    """How many of the app's turns each reason closed (final, confident, silence, and any
    other its report named; ``unknown``: turns it has none for)."""
    return _closes(run.turns)


def _closes(turns: Sequence[DeviceTurn]) -> dict[str, int]:
    found = dict(Counter(t.closed_by for t in turns if t.closed_by is not None))
    out = {reason: 0 for reason in CLOSE_REASONS} | found
    unknown = len(turns) - sum(found.values())
    return out | ({"unknown": unknown} if unknown else {})


def class_close_reasons(run: DeviceRun, order: Sequence[str] = ()) -> dict[str, dict[str, int]]:
    """:func:`close_reasons` class by class (classes in ``order`` first, then as they came)."""
    by_class: dict[str, list[DeviceTurn]] = {kind: [] for kind in order}
    for turn in run.turns:
        by_class.setdefault(turn.kind, []).append(turn)
    return {kind: _closes(turns) for kind, turns in by_class.items() if turns}


def heard_doubled(turn: DeviceTurn) -> bool:
    """Whether the brain got the caller's words over again: what it got loops or is one
    passage twice, or holds twice the words said or more, where the caller said them once."""
    heard = turn.heard or ""
    said = plain_words(turn.text)
    if not heard or first_of_double(turn.text) is not None or unlooped(turn.text) != turn.text:
        return False
    repeated = first_of_double(heard) is not None or unlooped(heard) != heard
    return repeated or (len(said) >= 2 and len(plain_words(heard)) >= 2 * len(said))


def word_errors(turns: Iterable[DeviceTurn]) -> float | None:
    """The word error rate of what reached the brain against the words said, over the turns
    that reached it (None: none did)."""
    return word_error_rate([(t.text, t.heard) for t in turns if t.heard is not None])


def class_word_errors(turns: Sequence[DeviceTurn], order: Sequence[str] = ()) -> dict[str, Any]:
    """:func:`word_errors` class by class (classes in ``order`` first, then as they came)."""
    kinds = [k for k in dict.fromkeys([*order, *(t.kind for t in turns)]) if _asked(k, turns)]
    return {kind: word_errors(t for t in turns if t.kind == kind) for kind in kinds}


def _asked(kind: str, turns: Sequence[DeviceTurn]) -> bool:
    return any(t.kind == kind for t in turns)


def _words(run: DeviceRun, order: Sequence[str]) -> dict[str, Any]:
    """A run's word figures: word error rate overall and by class, the turns doubled."""
    return {
        "word_error_rate": word_errors(run.turns),
        "class_word_error_rate": class_word_errors(run.turns, order),
        "doubled_turns": sum(heard_doubled(t) for t in run.turns),
    }


def _run(run: DeviceRun, order: Sequence[str]) -> dict[str, Any]:
    values = [t.to_first_audio_ms for t in run.turns]
    return {
        "who": run.who,
        "patience": run.patience,
        "strategy": run.strategy,
        "turns": len(run.turns),
        "missed": len(run.missed),
        "end_of_speech_to_first_audio_ms": run.first_audio_ms,
        "spread_ms": list(run.first_audio_spread_ms or ()),
        "end_of_speech_to_brain_ms": run.to_brain_ms,
        # Answered before the caller's voice ended: a turn cut off (its value is negative).
        "answered_before_end": sum(v < 0 for v in values),
        # Sound before the turn reached the brain: a reply to something else, heard first.
        "first_audio_before_brain": sum(
            t.to_brain_ms is not None and t.to_first_audio_ms < t.to_brain_ms for t in run.turns
        ),
        "classes": class_figures(run.turns, order, run.missed),
        "close_reasons": None if run.patience is None else close_reasons(run),
        "class_close_reasons": None if run.patience is None else class_close_reasons(run, order),
        **_words(run, order),
        "mends": None
        if run.patience is None
        else dict(Counter(t.mend for t in run.turns if t.mend)),
        "values_ms": values,
        "brain_values_ms": [t.to_brain_ms for t in run.turns],
        "peak_rss_mb": run.peak_rss_mb,
        "first_turn_ms": None if run.first_turn is None else run.first_turn.to_first_audio_ms,
        "turn_log": [
            {
                "class": t.kind,
                "text": t.text,
                "voice": t.voice,
                "first_audio_ms": t.to_first_audio_ms,
                "brain_ms": t.to_brain_ms,
                "closed_by": t.closed_by,
                "heard": t.heard,
                "mend": t.mend,
            }
            for t in run.turns
        ],
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


def faster(peers: Sequence[DeviceRun]) -> DeviceRun | None:
    """The peer configuration with the lower median (the first on a tie); None when none
    answered a turn."""
    answered = [p for p in peers if p.first_audio_ms is not None]
    return min(answered, key=lambda p: p.first_audio_ms or 0.0, default=None)


def _peer_keys(
    figures: DeviceFigures, default: DeviceRun | None, fast: DeviceRun | None
) -> dict[str, Any]:
    """The peer's runs and every ratio against the faster of its configurations."""
    order = list(figures.classes or {})
    best = faster(figures.peers)
    theirs = None if best is None else best.first_audio_ms
    ours = None if default is None else default.first_audio_ms
    ours_worst = None if default is None else _worst(default)
    out: dict[str, Any] = {
        "peer_runs": [_run(p, order) for p in figures.peers],
        "peer_stage_s": figures.peer_s,
        "peer_faster": None if best is None else best.strategy,
        "peer_end_of_speech_to_first_audio_ms": theirs,
        "peer_ratio_end_of_speech_to_first_audio": _ratio(ours, theirs),
        "peer_ratio_end_of_speech_to_first_audio_fast": _ratio(
            None if fast is None else fast.first_audio_ms, theirs
        ),
        "peer_peak_rss_mb": _highest(figures.peers),
        "device_worst_turn_ms": ours_worst,
        "peer_worst_turn_ms": None if best is None else _worst(best),
        # The same Whisper in both configurations: the faster one's turns, as for the times.
        "peer_word_error_rate": None if best is None else word_errors(best.turns),
        "peer_class_word_error_rate": None
        if best is None
        else class_word_errors(best.turns, order),
        "peer_doubled_turns": None if best is None else sum(heard_doubled(t) for t in best.turns),
    }
    out["worst_turn_ratio"] = _ratio(ours_worst, out["peer_worst_turn_ms"])
    # Per class, the faster configuration is the one with the lower median for that class.
    their_classes = [(p.strategy, class_figures(p.turns, order)) for p in figures.peers]
    our_classes = class_figures(default.turns if default is not None else (), order)
    by_class: dict[str, Any] = {}
    for kind in dict.fromkeys([*order, *our_classes]):
        medians = [
            (c[kind]["median_ms"], who)
            for who, c in their_classes
            if c.get(kind, {}).get("median_ms") is not None
        ]
        if not medians:
            continue
        fastest, who = min(medians, key=lambda m: m[0])
        by_class[kind] = {"median_ms": fastest, "strategy": who}
        ours_here = our_classes.get(kind, {}).get("median_ms")
        out[f"{CLASS_RATIO_PREFIX}{kind}"] = _ratio(ours_here, fastest)
    out["peer_class_faster_ms"] = by_class
    return out


def device_result(figures: DeviceFigures) -> dict[str, Any]:
    """The JSON keys of the devices stage."""
    default, fast = figures.at(DEFAULT_PATIENCE), figures.at(PEER_FOOTING_PATIENCE)
    order = list(figures.classes or {})
    out: dict[str, Any] = {
        "device_probe_loop_ms": figures.loop_ms,
        "device_classes": figures.classes,
        "device_runs": [_run(r, order) for r in figures.runs],
        "device_end_of_speech_to_first_audio_ms": None,
        "device_end_of_speech_to_first_audio_fast_ms": None,
        "device_class_first_audio_ms": None,
        "device_close_reasons": None,
        "device_class_close_reasons": None,
        "device_word_error_rate": None,
        "device_class_word_error_rate": None,
        "device_doubled_turns": None,
        "device_mended_turns": None,
        "device_first_turn_ms": None,
        "device_first_turn_over_median_ms": None,
        **figures.audit,
    }
    if fast is not None:
        out["device_end_of_speech_to_first_audio_fast_ms"] = fast.first_audio_ms
    if default is not None:
        out["device_end_of_speech_to_first_audio_ms"] = default.first_audio_ms
        out["device_class_first_audio_ms"] = class_figures(default.turns, order)
        out["device_close_reasons"] = close_reasons(default)
        out["device_class_close_reasons"] = class_close_reasons(default, order)
        words = _words(default, order)
        out["device_word_error_rate"] = words["word_error_rate"]
        out["device_class_word_error_rate"] = words["class_word_error_rate"]
        out["device_doubled_turns"] = words["doubled_turns"]
        out["device_mended_turns"] = dict(Counter(t.mend for t in default.turns if t.mend))
        out.update(first_turn_keys(default))
    for run in figures.runs:
        out[f"device_end_of_speech_to_user_message_p{run.patience}_ms"] = run.to_brain_ms
    # The app as its users run it (`sandbox run`, real devices, both models), from outside.
    out["device_app_peak_rss_mb"] = _highest(figures.runs)
    if figures.peers:
        out.update(_peer_keys(figures, default, fast))
    if figures.floor is not None:
        out.update(_floor(figures.floor))
    return out


def _after_brain(turn: DeviceTurn) -> float | None:
    """The turn at the brain → its first audio (ms): the reply's part, whatever closed it."""
    return None if turn.to_brain_ms is None else turn.to_first_audio_ms - turn.to_brain_ms


def first_turn_keys(run: DeviceRun) -> dict[str, float | None]:
    """The session's first turn: end of speech → first audio, and how much longer its reply
    took after the turn reached the brain than the session's median reply (so a first turn
    of a slower class, a spelled item's silence-forced close, is not counted as cold)."""
    first = run.first_turn
    replies = [ms for t in run.turns if (ms := _after_brain(t)) is not None]
    ours = None if first is None else _after_brain(first)
    usual = median(replies)
    return {
        "device_first_turn_ms": None if first is None else first.to_first_audio_ms,
        "device_first_turn_over_median_ms": (
            None if ours is None or usual is None else round(ours - usual, 1)
        ),
    }


def _highest(runs: Sequence[DeviceRun]) -> float | None:
    """The highest peak resident memory of ``runs`` (MB), None when none was read."""
    return max((r.peak_rss_mb for r in runs if r.peak_rss_mb is not None), default=None)


def device_targets(figures: dict[str, Any]) -> dict[str, tuple[str, float]]:
    """The bounds of the device keys present in ``figures``."""
    bounds: dict[str, tuple[str, float]] = {}
    for stage in DEVICE_STAGES:
        bounds |= stage.reported_bounds(figures)
    theirs = figures.get("peer_word_error_rate")
    if theirs is not None and figures.get("device_word_error_rate") is not None:
        bounds["device_word_error_rate"] = computed_bound(
            DEVICE_STAGES, "device_word_error_rate", theirs
        )
    return bounds | patience_bounds(figures)


def patience_bounds(figures: dict[str, Any]) -> dict[str, tuple[str, float]]:
    """Each device run's end of speech → the turn at the brain, bounded by its patience's
    confident window."""
    bounds: dict[str, tuple[str, float]] = {}
    for run in figures.get("device_runs", []):
        patience = run["patience"]
        key = f"device_end_of_speech_to_user_message_p{patience}_ms"
        window = windows_for(patience).confident_ms + WINDOW_SLACK_MS
        bounds[key] = computed_bound(DEVICE_STAGES, key, window)
    return bounds


def _spread(run: dict[str, Any]) -> str:
    """A class's or run's median / p90 / worst, and its turns with no reply."""
    keys = ("median_ms", "p90_ms", "worst_ms")
    spread = " / ".join(fmt_ms(run.get(k)).removesuffix(" ms") for k in keys)
    return spread + (f" ({run['missed']} unanswered)" if run.get("missed") else "")


def class_lines(figures: dict[str, Any]) -> list[str]:
    """The app at the default patience and each peer configuration, class by class: median /
    p90 / worst (ms), and our median over the faster configuration's for the class."""
    default = next((r for r in figures["device_runs"] if r["patience"] == DEFAULT_PATIENCE), None)
    if default is None or not default["classes"]:
        return []
    peers = figures.get("peer_runs", [])
    header = ["class", "turns", default["who"], *(p["who"] for p in peers)]
    if peers:
        header.append("ratio")
    table = Table(*header, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for kind, ours in default["classes"].items():
        row = [kind, str(ours["turns"]), _spread(ours)]
        row += [_spread(p["classes"].get(kind, {})) for p in peers]
        if peers:
            ratio = figures.get(f"{CLASS_RATIO_PREFIX}{kind}")
            row.append("—" if ratio is None else f"{ratio:.2f}")
        table.add_row(*row)
    table.add_row(
        "all", str(default["turns"]), _overall(default), *(_overall(p) for p in peers),
        *(["" if figures.get("peer_ratio_end_of_speech_to_first_audio") is None
           else f"{figures['peer_ratio_end_of_speech_to_first_audio']:.2f}"] if peers else []),
    )  # fmt: skip
    lines = [
        "by class: end of speech → first audio, median / p90 / worst (ms)"
        + ("; ratio: ours over the faster Pipecat configuration's median" if peers else "")
    ]
    return lines + ["  " + line for line in table_lines(table)]


def word_lines(figures: dict[str, Any]) -> list[str]:
    """The caller's words at the default patience (word error rate, the peer's beside it,
    turns doubled or looped, the app's mends), then each class's close reasons."""
    if figures.get("device_word_error_rate") is None and not figures.get(
        "device_class_close_reasons"
    ):
        return []
    wer = figures.get("device_word_error_rate")
    theirs = figures.get("peer_word_error_rate")
    mends = figures.get("device_mended_turns") or {}
    line = (
        f"  caller's words: word error rate {'—' if wer is None else wer}"
        + ("" if theirs is None else f" (the faster Pipecat's {theirs})")
        + f"; turns doubled or looped {figures.get('device_doubled_turns')}"
        + "; mended "
        + (", ".join(f"{n} {how}" for how, n in sorted(mends.items())) or "none")
    )
    closes = figures.get("device_class_close_reasons") or {}
    return [line] + [
        f"  closed, {kind}: " + ", ".join(f"{n} {how}" for how, n in reasons.items())
        for kind, reasons in closes.items()
    ]


def _overall(run: dict[str, Any]) -> str:
    values = run["values_ms"]
    figures = {
        "median_ms": run["end_of_speech_to_first_audio_ms"],
        "p90_ms": percentile(values, 90),
        "worst_ms": max(values, default=None),
    }
    return _spread(figures)


def _run_line(run: dict[str, Any]) -> str:
    """A run's median, spread and turns (with those unanswered, answered before the caller
    finished, or heard before the turn reached the brain), turn at the brain, closes."""
    low, high = run["spread_ms"] or (None, None)  # empty: no turn was answered
    notes = [f"{run['turns']} turns"] + [
        f"{run[key]} {words}"
        for key, words in (
            ("missed", "unanswered"),
            ("answered_before_end", "answered early"),
            ("first_audio_before_brain", "heard before the turn reached the brain"),
        )
        if run[key]
    ]
    closes = run["close_reasons"]
    peak = run.get("peak_rss_mb")
    return (
        f"  {run['who']:<28} {fmt_ms(run['end_of_speech_to_first_audio_ms']):>8} "
        f"({fmt_ms(low)} to {fmt_ms(high)}, {', '.join(notes)}); "
        f"at the brain {fmt_ms(run['end_of_speech_to_brain_ms'])}"
        + ("; closed " + ", ".join(f"{n} {how}" for how, n in closes.items()) if closes else "")
        + ("" if peak is None else f"; peak {peak:.0f} MB")
    )


def device_lines(figures: dict[str, Any]) -> list[str]:
    """The runs as lines: median, spread, turn at the brain, close reasons; then the classes,
    the audit and the floor."""
    lines = [
        "end of speech at the microphone → first audio at the speaker, timed outside the app "
        f"(the probe's own {figures['device_probe_loop_ms']:.0f} ms taken off)"
    ]
    lines += [_run_line(run) for run in [*figures["device_runs"], *figures.get("peer_runs", [])]]
    if figures.get("peer_faster"):
        lines.append(f"  the faster Pipecat configuration: {figures['peer_faster']}")
    lines += class_lines(figures) + word_lines(figures)
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
