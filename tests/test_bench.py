"""sandbox bench: the command end to end (real models, real calls), and the pure parts of each
measurement (log analysis, the heard-cut harness, targets, the table) on made-up timelines."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from bench_figures import stage_figures

from sandbox.audio.script_mic import ScriptMic
from sandbox.audio.sinks import Block
from sandbox.audio.tts import Clip, WordSpan
from sandbox.call.caller_events import BargeIn, OverBot, TurnClose, TurnCommitted
from sandbox.call.effects import CutPlayout, CutReason, PausePlayout, SendFrame
from sandbox.call.turn_records import TurnKind, TurnSent
from sandbox.call.unit_records import WatermarkRaised
from sandbox.wire import pb
from sandbox.wire.codec import envelope
from sandbox_bench.backchannels import trial_lines
from sandbox_bench.bargein import BargeInRun, barge_in_run, first_silence
from sandbox_bench.call import CallLog, until
from sandbox_bench.first_audio import first_chunk
from sandbox_bench.heard import (
    Cut,
    HeardFigures,
    cut_at,
    onset_margin_ms,
    released_samples,
    released_words,
    words,
)
from sandbox_bench.mic import CallerLine, Spoken, TimedMic
from sandbox_bench.report import result, table, targets
from sandbox_bench.runner import (
    FULL,
    QUICK,
    QUICK_DEVICE,
    QUICK_DEVICE_FLOOR,
    QUICK_FLOOR,
    BenchConfig,
)
from sandbox_bench.turns import TurnFigures, TurnRun, turn_run

ROOT = Path(__file__).resolve().parents[1]

#: Every key the issue asks for, with the type its value must have.
REQUIRED: dict[str, type | tuple[type, ...]] = {
    "end_of_speech_to_user_message_ms": (int, float),
    "patience_window_ms": int,
    "first_chunk_to_first_audio_ms": (int, float),
    "barge_in_decision_to_silence_ms": (int, float),
    "onset_to_interruption_ms": (int, float),
    "stt_rtf": (int, float),
    "tts_rtf": (int, float),
    "rss_after_load_mb": (int, float),
    "rss_after_warm_up_mb": (int, float),
    "peak_rss_mb": (int, float),
    "heard_cuts": int,
    "heard_exact_fraction": (int, float),
    "heard_max_word_error": int,
    "echo_replies": int,
    "echo_fed_s": float,
    "self_interruptions": (int, float),  # a pause that resumed counts as half
    "onset_to_silence_ms": (int, float),
    "backchannel_resumed_fraction": (int, float),
    "backchannel_answered_fraction": (int, float),
    "barge_in_landed_fraction": (int, float),
    "greeting_barge_in_landed": int,
    "resume_gap_ms": (int, float),
    "paused_heard_exact_fraction": (int, float),
    "paused_heard_agrees_fraction": (int, float),
    "heard_aligned_exact_fraction": (int, float),
    "heard_aligned_within_one_fraction": (int, float),
    "targets": dict,
}


def _bench(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sandbox.cli", "bench", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        check=False,
    )


# ------------------------------------------------------------ the command, for real


#: The quick preset cut to the fewest repeats that still give every figure: the command is
#: what this test checks (the bench's own runs are what measure the app), and each repeat of
#: a latency, an echo reply, a pair of cuts or a turn at the devices costs CI 5-30 s.
SMALLEST = {"runs": 1, "cuts": 2, "replies": 1, "turns": 2}


@pytest.mark.audio
def test_quick_json_run_reports_every_figure_with_progress_on_stderr() -> None:
    done = _bench("--json", "--quick", *(f"--{k}={v}" for k, v in SMALLEST.items()))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    figures = json.loads(done.stdout)  # exactly one JSON object: nothing else on stdout
    assert isinstance(figures, dict)
    for key, kind in REQUIRED.items():
        assert isinstance(figures.get(key), kind), (key, figures.get(key))
    for stage in range(1, 14):
        assert f"[{stage}/13]" in done.stderr
    assert "models ready" in done.stderr
    assert "false_cutoff_fraction" not in figures  # the caller pauses are not in --quick
    assert figures["heard_cuts"] == SMALLEST["cuts"]
    assert 0 <= figures["heard_exact_fraction"] <= 1
    assert 0 <= figures["heard_max_word_error"] < 20
    assert figures["echo_replies"] == SMALLEST["replies"]
    assert 0 <= figures["self_interruptions"] <= figures["echo_replies"]
    assert figures["echo_fed_s"] > 0  # the bot's voice reached the microphone through the echo
    # Each stage's time, adding up to the run's; with no peer, all of it is the run's own.
    assert len(figures["stage_s"]) == 13 and all(s >= 0 for s in figures["stage_s"])
    assert abs(sum(figures["stage_s"]) - figures["elapsed_s"]) < 1
    assert figures["elapsed_without_peer_s"] == figures["elapsed_s"]
    assert figures["targets"]["elapsed_without_peer_s"] == {"max": 1200, "met": True}
    assert figures["patience_window_ms"] in figures["patience_windows_ms"].values()
    assert figures["end_of_speech_to_user_message_ms"] > 0
    assert figures["first_chunk_to_first_audio_ms"] > 0
    assert figures["barge_in_decision_to_silence_ms"] >= 0
    assert figures["onset_to_interruption_ms"] > 0
    assert 0 < figures["stt_rtf"] < 10 and 0 < figures["tts_rtf"] < 10
    assert 100 < figures["rss_after_load_mb"] <= figures["peak_rss_mb"]
    assert 100 < figures["rss_after_warm_up_mb"] <= figures["peak_rss_mb"]
    assert "MB warmed up" in done.stderr
    assert figures["config"] == {
        "runs": SMALLEST["runs"],
        "cuts": SMALLEST["cuts"],
        "replies": SMALLEST["replies"],
        "quick": True,
        "seed": 7,
        "objections": QUICK_FLOOR[0],
        "backchannels": QUICK_FLOOR[1],
        "greetings": QUICK_FLOOR[2],
        "device_patiences": list(QUICK_DEVICE[0]),
        "device_turns": SMALLEST["turns"],
        "device_floor": list(QUICK_DEVICE_FLOOR),
        "peer": False,
    }
    # Timed outside the app at the devices: the reply came after the caller's last word.
    (run,) = figures["device_runs"]
    assert run["turns"] + run["missed"] == SMALLEST["turns"] and run["turns"] >= 1
    assert figures["device_end_of_speech_to_first_audio_ms"] > 0
    # Drawn from the set of callers, reported by class, each turn's close from the app's report.
    assert sum(c["turns"] for c in figures["device_class_first_audio_ms"].values()) == run["turns"]
    # (A turn whose reply came before it reached the brain has none: one may, not all.)
    reasons = figures["device_close_reasons"]
    assert sum(reasons.values()) == run["turns"] and reasons.get("unknown", 0) < run["turns"]
    # Calls at once at a caller's pace against the built-in brain, in processes of their own.
    assert figures["load_calls"] == figures["load_peak_concurrency"] == 100
    assert figures["load_errors"] == 0 and figures["load_first_chunk_p99_ms"] > 0
    # The peak may stay where loading put it for 100 small calls: a number, not a growth.
    assert figures["load_rss_kib_per_call"] >= 0
    assert figures["greeting_barge_in_trials"] == QUICK_FLOOR[2]
    assert figures["backchannel_trials"] == QUICK_FLOOR[1]
    assert set(figures["targets"]) >= {
        "end_of_speech_to_user_message_ms",
        "first_chunk_to_first_audio_ms",
        "barge_in_decision_to_silence_ms",
        "heard_exact_fraction",
        "heard_max_word_error",
        "self_interruptions",
        "peak_rss_mb",
        "onset_to_silence_ms",
        "backchannel_resumed_fraction",
        "backchannel_answered_fraction",
        "barge_in_landed_fraction",
        "greeting_barge_in_landed",
        "resume_gap_ms",
        "paused_heard_exact_fraction",
        "heard_aligned_exact_fraction",
        "device_end_of_speech_to_user_message_p7_ms",
        "backchannel_gap_ms",
        "barge_in_onset_to_silence_ms",
        "device_backchannel_answered_fraction",
        "load_errors",
        "load_first_chunk_p99_ms",
    }
    assert all(isinstance(t["met"], bool) for t in figures["targets"].values())


def test_a_count_below_one_is_refused_in_words() -> None:
    done = _bench("--runs", "0", timeout=60)
    assert done.returncode == 2
    assert "argument --runs: must be a whole number from 1 to 10,000 (got 0)" in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""


def test_quick_is_a_preset_that_explicit_counts_override() -> None:
    assert BenchConfig.from_flags(quick=False, runs=None, cuts=None, replies=None) == BenchConfig(
        *FULL
    )
    quick = BenchConfig.from_flags(quick=True, runs=None, cuts=9, replies=None)
    assert (quick.runs, quick.cuts, quick.replies, quick.quick) == (QUICK[0], 9, QUICK[2], True)


# ------------------------------------------------------------ the timed microphone


def test_a_line_lands_on_block_boundaries_and_its_voice_maps_to_host_time() -> None:
    script = ScriptMic()

    def now() -> int:
        """The host's clock as each block is handed on: one second ahead of the mic's."""
        return 1000 + script.delivered_ms

    tone = (np.cos(np.arange(4000) / 5.0) * 8000).astype(np.int16)  # 250 ms of "voice"
    samples = np.zeros(4160, dtype=np.int16)  # padded to 13 blocks of 20 ms
    samples[80:4080] = tone
    line = CallerLine("tone", samples, voice_start=80, voice_end=4080)
    mic = TimedMic(script)
    delivered: list[tuple[int, Block]] = []
    running, placed = threading.Event(), threading.Event()
    said: list[Spoken] = []

    def on_block(block: Block, _rate: int) -> None:  # as the engine takes a block
        mic.arrived(now())
        delivered.append((now(), block.copy()))
        if len(delivered) >= 5:
            running.set()
        if said and said[0].voice_end_ms is not None:
            placed.set()

    mic.start(on_block)
    try:
        assert running.wait(5)  # silence first: the line starts mid-stream
        spoken = mic.say(line)
        said.append(spoken)
        with pytest.raises(RuntimeError):
            mic.say(line)  # one line at a time: the next would not start on a block boundary
        assert spoken.done.wait(5)
        assert placed.wait(5)
    finally:
        mic.stop()
    assert spoken.voice_start_ms is not None and spoken.voice_end_ms is not None
    assert spoken.end_mic_ms is not None and spoken.end_mic_ms % 20 == 0
    assert spoken.voice_end_ms - spoken.voice_start_ms == 250
    # The line starts at sample 0 of a block; its voice 5 ms (80 samples) later.
    first = next(i for i, (_t, block) in enumerate(delivered) if np.any(block))
    assert np.flatnonzero(delivered[first][1])[0] == 80
    block_end, _block = delivered[first]
    assert spoken.voice_start_ms == block_end - 20 + 5
    assert spoken.end_mic_ms == spoken.voice_end_ms - 1000 + 5  # 80 samples of padding after


def test_a_spoken_line_is_padded_to_whole_blocks_around_its_voice() -> None:
    line = CallerLine.spoken("Hello there.")
    assert len(line.samples) % (ScriptMic.RATE // 50) == 0
    assert 0 <= line.voice_start < line.voice_end <= len(line.samples)
    assert line.voice_end - line.voice_start > ScriptMic.RATE // 4  # a real utterance
    assert not np.any(line.samples[line.voice_end :] > 300)


# ------------------------------------------------------------ reading a call's log


def test_a_turn_is_timed_from_the_voice_end_to_its_user_message() -> None:
    log = CallLog()
    log.events.append((1900, TurnCommitted("Book a table.", TurnClose.CONFIDENT, 1120, 1700, 1890)))
    # The UserMessage and, behind it in the same batch, the core's record of the turn.
    log.effects += [
        (1905, SendFrame(envelope(pb.UserMessage(turn_id=2, text="Book a table.")))),
        (1905, TurnSent(2, TurnKind.CALLER, "Book a table.")),
    ]
    log.releases += [(1500, 0.0), (1980, 0.0), (2040, 20.0), (2060, 20.0)]
    run = turn_run("Book a table.", 1000.0, log, {2: "confident"})
    assert run is not None
    assert (run.to_user_message_ms, run.to_first_audio_ms) == (905, 1040)
    assert (run.vad_lag_ms, run.to_commit_ms, run.closed_by) == (120, 900, "confident")
    assert turn_run("Too late.", 2000.0, log, {}) is None  # no message after that voice
    figures = TurnFigures((run,), 7, {"confident": 720, "silence": 1620})
    assert figures.breakdown_ms == {
        "voice_end_to_vad_end": 120,
        "vad_end_to_commit": 780,
        "commit_to_user_message": 5,
    }
    assert figures.patience_window_ms == 720


def test_the_patience_window_is_the_one_that_closed_most_turns() -> None:
    def run(reason: str) -> TurnRun:
        return TurnRun("x", "x", reason, 1000.0, None, None, None)

    windows = {"confident": 720, "silence": 1620}
    silence = TurnFigures((run("silence"), run("silence"), run("confident")), 7, windows)
    assert silence.patience_window_ms == 1620
    assert silence.closes == {"silence": 2, "confident": 1}
    assert TurnFigures((), 7, windows).patience_window_ms == 720


def test_silence_is_when_the_last_sound_before_the_cut_ended() -> None:
    releases = [(100, 20.0), (120, 0.0), (140, 20.0), (160, 20.0), (180, 0.0), (200, 0.0)]
    # Decided at 150, cut applied at 170: the block at 160 sounded to its end.
    assert first_silence(releases, 150, 170) == 180
    # A quiet gap before the decision does not count as the cut's silence.
    assert first_silence(releases, 110, 170) == 180
    # The block at 160 faded out within its first 10 ms: quiet from 170.
    faded = [(140, 20.0), (160, 10.0), (180, 0.0)]
    assert first_silence(faded, 150, 170) == 170
    # Decided and cut in a gap: the speaker was already quiet from the decision on.
    gap = [(100, 20.0), (120, 0.0), (140, 0.0), (160, 0.0)]
    assert first_silence(gap, 130, 150) == 140
    assert first_silence([(100, 0.0), (120, 20.0)], 90, 80) == 100  # quiet from the start
    assert first_silence([(100, 20.0)], 90, 110) is None  # nothing released after the cut


def test_a_barge_in_is_timed_from_the_objections_onset_to_the_pauses_silence() -> None:
    log = CallLog()
    log.events += [(1100, OverBot(1040, 1100)), (1750, BargeIn(1040, 1740))]
    log.effects += [
        (1102, PausePlayout()),
        (1760, SendFrame(envelope(pb.Interruption(through_turn=3)))),
        (1760, WatermarkRaised(3)),
        (1761, CutPlayout(CutReason.BARGE_IN)),
    ]
    log.releases += [(1100, 20.0), (1120, 10.0), (1140, 0.0), (1160, 0.0), (1780, 0.0)]
    run = barge_in_run(5, 1000.0, log)
    # Paused 100 ms after onset, faded out 30 ms later; the floor taken at 750, sent at 760.
    assert run == BargeInRun(5, 100, 30, 760, 130, 750)
    assert barge_in_run(5, 2000.0, log) is None  # nothing took the floor after that onset


# ------------------------------------------------------------ heard text at a cut


def test_a_cut_reports_the_words_whose_audio_had_started() -> None:
    rate = 22050  # blocks of 441 samples
    spans = tuple(
        WordSpan(w, i * 4410, (i + 1) * 4410) for i, w in enumerate(["one", "two", "three"])
    )
    clip = Clip(np.full(13230, 1000, np.int16), rate, spans, "one two three")
    sink, heard, emitted_s = cut_at([clip], 0.15)
    # Due at 0.15 s: 8 blocks (3528 samples): "one" has started, "two" (at 4410) has not.
    assert heard == ["one"]
    assert emitted_s == pytest.approx(8 * 441 / rate)
    samples = sink.samples()
    assert np.all(samples[: 8 * 441] == 1000)
    assert len(samples) > 8 * 441 and not np.any(samples[8 * 441 :])  # silence after the cut


def test_heard_and_emitted_are_compared_by_normalized_word_counts() -> None:
    assert words("We're open, early-ish. OK?") == ["we're", "open", "early", "ish", "ok"]
    exact = Cut("r", False, 1.0, "Our opening", "Our opening.", "Our opening.", "Our opening")
    one_more = Cut("r", True, 1.0, "Our opening", "Our opening hours.", "Our opening", "Our")
    figures = HeardFigures((exact, one_more, exact, exact))
    assert (one_more.count_error, one_more.midpoint_error) == (1, 0)
    assert figures.exact_fraction == 0.75 and figures.max_word_error == 1
    assert figures.paused_exact_fraction == 0.0  # the one cut through a pause was off
    assert figures.paused_agrees_fraction == 0.5  # ... where the same moment cut straight was not
    assert figures.midpoint_exact_fraction == 1.0
    assert figures.errors() == {"0": 3, "1": 1}
    assert figures.examples() == [
        {
            "emitted_s": 1.0,
            "heard_tail": "our opening",
            "transcript_tail": "our opening hours",
            "error": 1,
        }
    ]
    assert HeardFigures(()).exact_fraction is None
    assert figures.within_one_fraction == 1.0


def test_the_aligned_judge_applies_the_wires_rule_to_independent_word_starts() -> None:
    tokens = ["Our", "opening", "hours."]
    onsets = [1000, 5000, 9000]
    assert released_words(tokens, onsets, 1000) == ""  # not one sample of "Our" yet
    assert released_words(tokens, onsets, 1001) == "Our"  # its first sample counts
    assert released_words(tokens, onsets, 9001) == "Our opening hours."
    assert released_words(["Well", "—", "yes"], [0, None, 800], 900) == "Well yes"
    assert onset_margin_ms(onsets, 5441, 22050) == 20.0  # "opening" began 441 samples ago
    assert onset_margin_ms(onsets, 8559, 22050) == -20.0  # "hours" begins 441 samples on
    assert onset_margin_ms([None], 10, 22050) is None


def test_emitted_samples_are_the_run_of_the_replys_own_audio_before_the_cut() -> None:
    audio = np.arange(100, dtype=np.int16)
    assert released_samples(np.concatenate([audio[:40], np.zeros(60, np.int16)]), audio, 40) == 40
    repeated = np.concatenate([audio[:30], audio[20:30], audio[40:]])  # a block played twice
    assert released_samples(repeated, audio, 60) == 30
    # A pause's fade starts with a sample equal to the audio's: it is not released.
    assert released_samples(audio, audio, 55) == 55


def test_a_paused_cut_releases_no_sample_of_the_word_its_fade_previews() -> None:
    rate = 22050
    spans = (WordSpan("one", 0, 3528), WordSpan("two", 3528, 8820))
    clip = Clip(np.full(8820, 1000, np.int16), rate, spans, "one two")
    sink, heard, emitted_s = cut_at([clip], 0.15, paused=True)  # 8 blocks, then the fade
    emitted = round(emitted_s * rate)
    assert heard == ["one"] and emitted == 3528
    assert released_samples(sink.samples(), clip.samples, emitted) == 3528
    assert released_words(["one", "two"], [0, 3528], emitted) == "one"


def test_aligned_figures_count_exact_and_within_one_word() -> None:
    def cut(paused: bool, aligned: str, margin: float) -> Cut:
        return Cut("r", paused, 1.0, "a b", "a b", "a b", aligned, margin)

    figures = HeardFigures(
        (
            cut(False, "a b", -80.0),
            cut(True, "a b c", 12.5),
            cut(False, "a", -3.0),
            cut(True, "a b", 90.0),
        )
    )
    assert figures.aligned_exact_fraction == 0.5
    assert figures.paused_aligned_exact_fraction == 0.5
    assert figures.aligned_within_one_fraction == 1.0
    assert figures.aligned_max_word_error == 1
    assert figures.errors("aligned") == {"-1": 1, "0": 2, "1": 1}
    assert figures.errors() == {"0": 4}  # Whisper's count agreed every time
    assert figures.aligned_examples()[0] == {
        "emitted_s": 1.0,
        "paused": True,
        "heard_tail": "a b",
        "aligned_tail": "a b c",
        "error": 1,
        "onset_margin_ms": 12.5,
    }
    far = HeardFigures((cut(False, "a b c d", 0.0),))
    assert far.aligned_within_one_fraction == 0.0 and far.aligned_max_word_error == 2


def test_a_first_chunk_is_the_first_clause_and_the_word_after_it() -> None:
    assert first_chunk("Your first class is free, so you can try us.") == (
        "Your first class is free, so"
    )
    assert first_chunk("Sorry, I'm not sure. I can help.") == "Sorry, I'm"
    assert first_chunk("Fine. I can help.") == "Fine. I"


# ------------------------------------------------------------ targets and the table


def test_targets_are_reported_met_or_missed_never_enforced() -> None:
    good = result(
        stage_figures(decision_ms=17, self_interruptions=0),
        {"elapsed_s": 1.0, "elapsed_without_peer_s": 1.0},
    )
    assert good["targets"]["end_of_speech_to_user_message_ms"] == {"max": 870, "met": True}
    assert all(t["met"] for t in good["targets"].values())
    assert good["elapsed_s"] == 1.0 and good["barge_in_attempts"] == 1
    assert (good["rss_after_load_mb"], good["rss_after_warm_up_mb"], good["peak_rss_mb"]) == (
        290.0,
        350.0,
        550.0,
    )
    assert good["targets"]["greeting_barge_in_landed"] == {"min": 1, "met": True}
    assert good["targets"]["onset_to_silence_ms"] == {"max": 300, "met": True}
    assert good["backchannel_resumed_fraction"] == 1.0 and good["resume_gap_ms"] == 640.0
    bad = result(
        stage_figures(decision_ms=45, self_interruptions=2), {"elapsed_without_peer_s": 1300}
    )
    assert bad["targets"]["elapsed_without_peer_s"] == {"max": 1200, "met": False}
    assert bad["targets"]["barge_in_decision_to_silence_ms"] == {"max": 30, "met": False}
    assert bad["targets"]["self_interruptions"] == {"max": 0, "met": False}
    assert targets({"patience_window_ms": 720})["peak_rss_mb"] == {"max": 600, "met": None}


def test_the_table_shows_measured_target_and_peer() -> None:
    text = table(result(stage_figures(decision_ms=45, self_interruptions=0), {}))
    lines = text.splitlines()
    assert lines[0].split()[:2] == ["measure", "measured"]
    decision = next(line for line in lines if line.startswith("pause decision → silence"))
    assert "45 ms" in decision and "≤ 30 ms ✗" in decision
    reply = next(line for line in lines if line.startswith("end of speech → first reply audio"))
    assert "1000 ms" in reply and "1470 ms" in reply  # the peer's figure beside ours
    assert "≤ 870 ms ✓" in text and "patience 7" in text and "20 replies" in text
    memory = next(line for line in lines if line.startswith("peak RSS"))
    assert "550 MB" in memory and "≤ 600 MB ✓" in memory
    assert "290 MB loaded, 350 MB warmed up" in memory


async def test_every_wait_in_a_call_gives_up_after_its_timeout() -> None:
    loop = asyncio.get_running_loop()
    started = loop.time()
    assert await asyncio.wait_for(until(lambda: False, 0.05), 10) is False  # it gives up
    assert loop.time() - started >= 0.05  # ... once its timeout has passed, not before
    assert await until(lambda: True, 0.05) is True


def test_backchannel_trials_cover_every_variant_voice_and_level() -> None:
    lines = trial_lines(22)
    labels = {t.line.text for t in lines}
    assert len(labels) >= 10 and "(a cough)" in labels and "Mm-hmm." in labels
    assert len({t.voice for t in lines}) >= 4 and len({t.gain for t in lines}) >= 3
    assert all(t.line.voice_end > t.line.voice_start for t in lines)  # every one is audible


def test_the_pause_stage_target_is_judged_when_the_stage_ran() -> None:
    figures = stage_figures(decision_ms=17, self_interruptions=0)
    cut = result(figures, {"false_cutoff_fraction": 0.2})
    assert cut["targets"]["false_cutoff_fraction"] == {"max": 0.05, "met": False}
    assert "false_cutoff_fraction" not in result(figures, {})["targets"]
    row = next(line for line in table(cut).splitlines() if line.startswith("paused callers"))
    assert row.split()[-4:] == ["20%", "≤", "5%", "✗"]
