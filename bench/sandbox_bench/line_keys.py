"""The keys of ``sandbox bench --lines``, declared once as the other modes' are
(:mod:`sandbox_bench.mode_keys`). Targets from issue 44, on the project's 2-core machine:
the endpointer and the floor judge keep their wideband figures on a landline (the false
cut-offs' is the pauses stage's, ``false_cutoff_fraction`` in :mod:`sandbox_bench.run_keys`)."""

from __future__ import annotations

from sandbox_bench.bench_key import BenchKey, Stage, Target

LINES = Stage(
    "lines",
    "the varied caller turns, backchannels and barge-ins through the virtual devices, the app "
    "on each phone line (sandbox run --line), timed from outside as the caller meets it",
    (
        BenchKey("line_turns", "integer", "count", "measured caller turns on each line"),
        BenchKey(
            "lines",
            "object",
            None,
            "each line by name: its summary, its round trip (ms), the recognizer's word error "
            "rate on the caller's turns, end of speech → first audio as the caller meets it "
            "(median, p90), turns never answered, caller onset → bot silent at the caller's "
            "ear, backchannels answered, and the false cut-off fraction: the held-apart pause "
            "set's paused utterances only (not its complete ones or afterthoughts), each "
            "through the line's uplink, committed in their pause at patience 7 (in process)",
        ),
        BenchKey(
            "pstn_first_audio_ratio",
            "number",
            "x",
            "end of speech → first audio on pstn, the line's round trip taken off, over the "
            "same on wideband (medians)",
            target=Target("max", 1.10),
        ),
        BenchKey(
            "pstn_onset_to_silence_net_ms",
            "number",
            "ms",
            "on pstn: caller onset → the bot silent at the caller's ear (median), the line's "
            "round trip taken off",
            target=Target("max", 250),
        ),
        BenchKey(
            "pstn_backchannels_answered",
            "number",
            "frac",
            "on pstn: backchannels that reached the brain as a turn",
            target=Target("max", 0),
        ),
        BenchKey(
            "pstn_false_cutoff_fraction",
            "number",
            "frac",
            "on pstn: the held-apart pause set's paused utterances (only those), each through "
            "the line's uplink, committed in their pause at patience 7 (VAD, endpointer, turn "
            "model and Whisper in process, as the pauses stage runs them)",
            target=Target("max", 0.05),
        ),
    ),
)
