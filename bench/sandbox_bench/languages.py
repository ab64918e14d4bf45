"""``sandbox bench --languages [CODES]``: each language the sandbox serves, as its caller meets
it, beside English.

For each language, ``sandbox run --language CODE`` (the configuration a user runs: the
recognizer and the voice it picks for the language, AEC on, the default patience) answers
through PulseAudio's virtual devices, dialling a brain that replies in the language
(:mod:`sandbox_bench.language_brain`). Its caller (:mod:`sandbox_bench.language_set`) says
three questions and three statements in two espeak-ng voices, then the language's own
backchannels and objections over the brain's long reply, timed from outside as
:mod:`sandbox_bench.outside` and :mod:`sandbox_bench.outside_floor` time English. Per
language: the recognizer's word error rate (what the brain was sent against what was said,
words split as the floor judge splits them, any script: a Hindi line written in the Urdu
script counts every word wrong), end of speech → first audio (median, slowest), barge-in
onset → silent, the backchannels (did a turn start; did the bot sound again after), heard
text at every cut against the speaker leg (:mod:`sandbox_bench.language_cuts` for the espeak
voices; the Whisper audit of :mod:`sandbox.replay.audit` for English's Piper voice), the
app's peak memory, and the recognizer's load time and memory in a process of its own
(:mod:`sandbox_bench.recognizer_cost`). English runs first, the comparison's row.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Sequence
from typing import Any

from sandbox.audio.backchannels import tokens
from sandbox.audio.endpointer import PATIENCE_DEFAULT
from sandbox.audio.stt import Transcriber
from sandbox.errors import UserError
from sandbox.judges.word_errors import edit_distance
from sandbox.record.store import SessionStore
from sandbox.record.stored_call import StoredCall
from sandbox.replay.audit import audit_session
from sandbox_bench import pulse
from sandbox_bench.caller_set import CallerTurn, CallerVoice
from sandbox_bench.caller_voices import render
from sandbox_bench.device_report import close_reasons
from sandbox_bench.figures import Progress, fmt_ms, target_lines
from sandbox_bench.language_brain import LanguageReply, Replies
from sandbox_bench.language_cuts import check_cuts
from sandbox_bench.language_keys import LANGUAGES
from sandbox_bench.language_set import (
    CALLER_VARIANTS,
    CALLER_WPM,
    ENGLISH,
    LanguageLines,
    load_lines,
)
from sandbox_bench.outside import DeviceRun, measure_app
from sandbox_bench.outside_floor import FloorRun
from sandbox_bench.own_home import own_home
from sandbox_bench.probe import DeviceProbe, loop_latency_s
from sandbox_bench.recognizer_cost import recognizer_cost

#: Measured turns a language, and (backchannels, barge-ins) over its long reply; --quick.
TURNS, QUICK_TURNS = 12, 3
FLOOR, QUICK_FLOOR = (3, 2), (1, 1)
#: The default run when no code is given: a subset, each script family and both of the
#: floor judge's kinds (languages with words of their own, and those judged by the shared
#: hums), since every served language takes ~2.5 minutes (all 21: ~55 minutes on 2 cores).
DEFAULT_LANGUAGES = ("de", "fr", "es", "hi", "ur", "bn", "ta")


async def measure_languages(
    codes: Sequence[str], progress: Progress, *, quick: bool = False
) -> dict[str, Any]:
    """English and each of ``codes`` through the virtual devices: the ``languages`` keys."""
    started = time.monotonic()
    every = load_lines()
    order = [ENGLISH, *(c for c in codes if c != ENGLISH)]
    count = QUICK_TURNS if quick else TURNS
    floor = QUICK_FLOOR if quick else FLOOR
    try:
        await asyncio.to_thread(pulse.ensure)
    except pulse.PulseUnavailable as exc:
        raise UserError(f"timing at the devices needs PulseAudio: {exc}") from None
    loop_s = await asyncio.to_thread(loop_latency_s)
    progress(f"  the probe's own loop (played → recorded): {loop_s * 1000:.0f} ms, taken off")
    rows: dict[str, dict[str, Any]] = {}
    costs: dict[str, dict[str, Any]] = {}
    with own_home(), DeviceProbe() as probe:
        for number, code in enumerate(order, 1):
            lines = every[code]
            progress(f"language {number}/{len(order)}: {code} …")
            model = ENGLISH if code == ENGLISH else "base"
            if model not in costs:  # one per recognizer: every other language shares base
                costs[model] = await recognizer_cost(code)
                progress(
                    f"  {costs[model]['recognizer']}: loaded in {costs[model]['load_s']} s, "
                    f"+{costs[model]['rss_mb']} MB"
                )
            spoken = await asyncio.to_thread(render, lines.turns()[:count])
            warmup = await asyncio.to_thread(render, [_warmup(lines)])
            replies = Replies(lines.short, lines.long)
            with SessionStore() as store:
                before = {row.id for row in store.sessions()}
            run, floor_run = await measure_app(
                probe, loop_s, PATIENCE_DEFAULT, spoken, warmup, progress, floor,
                who=f"app ({code})",
                brain=functools.partial(LanguageReply, replies),
                options=("--language", code),
                floor_lines=lines.floor(),
                on_floor=replies.to_long,
            )  # fmt: skip
            cuts = await asyncio.to_thread(_cuts, before, lines, progress)
            rows[code] = _row(code, run, floor_run, cuts, costs[model])
            progress(_said(code, rows[code]))
    return languages_figures(count, rows, round(time.monotonic() - started, 1))


def _warmup(lines: LanguageLines) -> CallerTurn:
    """The first turn of a call, not counted: the floor's question in the caller's voice."""
    voice = CallerVoice("espeak", f"{lines.espeak}+{CALLER_VARIANTS[0]}", (CALLER_WPM,) * 2)
    return CallerTurn(lines.question, "warmup", voice, CALLER_WPM)


def _cuts(before: set[str], lines: LanguageLines, progress: Progress) -> dict[str, Any]:
    """Heard text at each cut of the session the language's call made (module doc)."""
    with SessionStore() as store:
        rows = [row for row in store.sessions() if row.id not in before]
        if not rows:
            return {"cuts": None, "cuts_exact_fraction": None, "cuts_max_words_off": None}
        (row,) = rows[:1]
        if lines.code == ENGLISH:  # joe (Piper) speaks English: the Whisper audit's check
            units = StoredCall.load(store, row).report.units
            cut = {u.speech_id for u in units if u.words_heard < u.words_total}
            audit = audit_session(store, row, Transcriber.load())
            offs = [u.words_off for u in audit.units if u.speech_id in cut]
            how = "Whisper tiny.en audit of each cut unit (one word either way free at a cut)"
        else:
            checks = check_cuts(store, row, lines.espeak)
            offs = [c.words_off for c in checks]
            how = "espeak rendering warped onto the speaker leg, each cut unit"
            for check in checks:
                if check.words_off:
                    progress(
                        f"  cut: unit {check.speech_id}: heard {check.heard_words} words "
                        f"({check.heard!r}), the leg shows {check.played_words}"
                    )
    return {
        "cuts": len(offs),
        "cuts_exact_fraction": round(offs.count(0) / len(offs), 3) if offs else None,
        "cuts_max_words_off": max(offs) if offs else None,
        "cuts_checked_by": how,
    }


def word_errors(pairs: Sequence[tuple[str, str | None]]) -> float | None:
    """Word error rate over (said, written) pairs, words split as the floor judge splits them
    (:func:`~sandbox.audio.backchannels.tokens`: letters and marks of any script, lower case,
    no punctuation); None without words."""
    said = sum(len(tokens(text)) for text, _ in pairs)
    if not said:
        return None
    wrong = sum(edit_distance(tokens(text), tokens(heard or "")) for text, heard in pairs)
    return round(wrong / said, 3)


def _row(
    code: str,
    run: DeviceRun,
    floor: FloorRun | None,
    cuts: dict[str, Any],
    cost: dict[str, Any],
) -> dict[str, Any]:
    times = [t.to_first_audio_ms for t in run.turns]
    return {
        "recognizer": cost["recognizer"],
        "recognizer_load_s": cost["load_s"],
        "recognizer_rss_mb": cost["rss_mb"],
        "turns": len(run.turns),
        "unanswered": len(run.missed),
        "word_error_rate": word_errors([(t.text, t.heard) for t in run.turns]),
        "first_audio_ms": run.first_audio_ms,
        "first_audio_max_ms": round(max(times)) if times else None,
        "close_reasons": close_reasons(run),
        "onset_to_silence_ms": None if floor is None else floor.onset_to_silence_ms,
        "barge_ins_landed_fraction": None if floor is None else floor.landed_fraction,
        "backchannels_answered_fraction": (
            None if floor is None else floor.backchannel_answered_fraction
        ),
        "backchannels_went_on_fraction": (
            None if floor is None else floor.backchannel_went_on_fraction
        ),
        **cuts,
        "app_peak_rss_mb": run.peak_rss_mb,
        "heard": [{"said": t.text, "heard": t.heard, "voice": t.voice} for t in run.turns],
    }


def languages_figures(
    turns: int, rows: dict[str, dict[str, Any]], elapsed: float
) -> dict[str, Any]:
    """The ``languages`` keys from each language's row (English's among them)."""
    english = rows.get(ENGLISH, {}).get("first_audio_ms")
    ratios: list[float] = []
    for code, row in rows.items():
        ratio = None
        if english and row.get("first_audio_ms") is not None and code != ENGLISH:
            ratio = round(row["first_audio_ms"] / english, 2)
            ratios.append(ratio)
        row["first_audio_ratio_to_english"] = ratio
    exact = [r["cuts_exact_fraction"] for r in rows.values()]
    exact = [fraction for fraction in exact if fraction is not None]
    return {
        "language_turns": turns,
        "languages": rows,
        "languages_first_audio_ratio_max": max(ratios, default=None),
        "languages_cuts_exact_fraction_min": min(exact, default=None),
        "languages_elapsed_s": elapsed,
    }


def _said(code: str, row: dict[str, Any]) -> str:
    wer = row["word_error_rate"]
    return (
        f"  {code}: word errors {'—' if wer is None else f'{wer:.0%}'}, first audio "
        f"{fmt_ms(row['first_audio_ms'])} (slowest {fmt_ms(row['first_audio_max_ms'])}; "
        f"closed {_closed(row['close_reasons'])}), "
        f"onset → silent {fmt_ms(row['onset_to_silence_ms'])}, backchannels answered "
        f"{_fraction(row['backchannels_answered_fraction'])} (bot went on "
        f"{_fraction(row['backchannels_went_on_fraction'])}), cuts exact "
        f"{_fraction(row['cuts_exact_fraction'])} of {row['cuts']}"
    )


def languages_table(figures: dict[str, Any]) -> str:
    """The figures as lines: each target, then each language."""
    out = [f"languages: {figures['language_turns']} caller turns each, timed from outside"]
    out += target_lines(figures, LANGUAGES.bounds())
    for code, row in figures["languages"].items():
        out.append(
            _said(code, row) + f"; {row['recognizer']} {row['recognizer_load_s']} s "
            f"+{row['recognizer_rss_mb']} MB, app peak {row['app_peak_rss_mb']} MB"
        )
    return "\n".join(out)


def _fraction(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def _closed(reasons: dict[str, int]) -> str:
    return ", ".join(f"{n} {how}" for how, n in reasons.items() if n) or "none"
