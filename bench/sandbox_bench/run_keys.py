"""Every key of the full run's result (``sandbox bench --json``), declared once, stage by
stage: the table (:mod:`sandbox_bench.report`) shows the labelled keys in this order, the
targets come from here, and ``sandbox schema bench`` is built from it.

Targets from the issues, on the project's 2-core machine; reported, never enforced.
"""

from __future__ import annotations

from sandbox_bench.bench_key import BenchKey, Stage, Target
from sandbox_bench.device_keys import AUDIT, DEVICES, FLOOR, PEER

TURNS = Stage(
    "turns",
    "spoken turns through the echo brain: end of speech → UserMessage and first audio",
    (
        BenchKey(
            "end_of_speech_to_user_message_ms",
            "number",
            "ms",
            "median end of speech → UserMessage sent",
            target=Target("max", None, "the patience window + 150 ms"),
            label="end of speech → UserMessage",
        ),
        BenchKey(
            "end_of_speech_to_first_audio_ms",
            "number",
            "ms",
            "median end of speech → first reply audio",
            label="end of speech → first reply audio",
        ),
        BenchKey("patience_window_ms", "integer", "ms", "the window that closed most turns"),
        BenchKey("patience", "integer", None, "the patience the turns were spoken at"),
        BenchKey("patience_windows_ms", "object", "ms", "the patience's windows, by close"),
        BenchKey("turn_closes", "object", "count", "turns closed by each reason"),
        BenchKey("turns", "integer", "count", "turns timed"),
        BenchKey(
            "turn_breakdown_ms",
            "object",
            "ms",
            "medians of each leg: voice end → VAD end → commit → UserMessage sent",
        ),
    ),
)

PAUSES = Stage(
    "pauses",
    "paused and complete utterances through the end of turn (not in --quick)",
    (
        BenchKey(
            "false_cutoff_fraction",
            "number",
            "frac",
            "paused callers cut off at the default patience",
            target=Target("max", 0.05),
            label="paused callers cut off (patience 7)",
        ),
        BenchKey(
            "afterthought_cutoff_fraction",
            "number",
            "frac",
            "afterthoughts answered after the statement",
            label="afterthoughts answered after the statement",
        ),
        BenchKey(
            "early_commit_fraction",
            "number",
            "frac",
            "complete turns committed within 300 ms",
            label="complete turns committed within 300 ms",
        ),
        BenchKey(
            "turn_model_ms",
            "number",
            "ms",
            "the turn model's median inference",
            label="turn model, one inference",
        ),
        BenchKey("false_cutoff_by_patience", "object", "frac", "cut off, by patience"),
        BenchKey("false_cutoff_causes", "object", "count", "what cut them off"),
        BenchKey("false_cutoff_by_kind", "object", "frac", "cut off, by kind of pause"),
        BenchKey(
            "commit_after_end_ms",
            "object",
            "ms",
            "complete turns' commit after their end: punctuated, unpunctuated, worst",
        ),
        BenchKey("pause_set", "object", "count", "the utterances: paused, complete, afterthoughts"),
        BenchKey("pause_stage_s", "number", "s", "the stage's own time"),
    ),
    reported="present",
)

FIRST_AUDIO = Stage(
    "first_audio",
    "a reply's first clause to its first audio",
    (
        BenchKey(
            "first_chunk_to_first_audio_ms",
            "number",
            "ms",
            "median first clause → first audio",
            target=Target("max", 200),
            label="first clause → first audio",
        ),
        BenchKey("first_audio_units", "integer", "count", "units timed"),
    ),
)

BARGE_IN = Stage(
    "barge_in",
    "objections over the concierge",
    (
        BenchKey(
            "onset_to_silence_ms",
            "number",
            "ms",
            "median caller onset → silence (pause)",
            target=Target("max", 300),
            label="caller onset → silence (pause)",
        ),
        BenchKey(
            "barge_in_decision_to_silence_ms",
            "number",
            "ms",
            "median pause decision → silence",
            target=Target("max", 30),
            label="pause decision → silence",
        ),
        BenchKey(
            "onset_to_barge_in_decision_ms",
            "number",
            "ms",
            "median caller onset → the caller takes the floor",
            label="caller onset → takes the floor",
        ),
        BenchKey(
            "onset_to_interruption_ms",
            "number",
            "ms",
            "median caller onset → Interruption",
            label="caller onset → Interruption",
        ),
        BenchKey(
            "barge_in_landed_fraction",
            "number",
            "frac",
            "objections that landed",
            target=Target("min", 0.95),
            label="barge-ins that landed",
        ),
        BenchKey("onset_to_pause_decision_ms", "number", "ms", "median onset → pause decision"),
        BenchKey("barge_ins", "integer", "count", "objections that landed"),
        BenchKey("barge_in_attempts", "integer", "count", "objections tried"),
    ),
)

GREETING = Stage(
    "greeting",
    "barge-ins into the greeting, laptop echo path, AEC on",
    (
        BenchKey(
            "greeting_barge_in_landed",
            "integer",
            "count",
            "barge-ins into the greeting landed",
            target=Target("min", None, "every trial (greeting_barge_in_trials)"),
            label="barge-ins into the greeting landed",
        ),
        BenchKey("greeting_barge_in_trials", "integer", "count", "calls tried"),
        BenchKey("greeting_onset_to_pause_ms", "number", "ms", "median onset → pause"),
    ),
)

BACKCHANNELS = Stage(
    "backchannels",
    "backchannels and noises over the concierge",
    (
        BenchKey(
            "backchannel_resumed_fraction",
            "number",
            "frac",
            "trials the bot kept the floor",
            target=Target("min", 0.9),
            label="backchannels: the bot kept the floor",
        ),
        BenchKey(
            "backchannel_resumed_whole_fraction",
            "number",
            "frac",
            "resumed trials whose every word played once",
            target=Target("min", 1.0),
            label="backchannels: every word played once",
        ),
        BenchKey(
            "backchannel_answered_fraction",
            "number",
            "frac",
            "trials answered as a turn",
            target=Target("max", 0),
            label="backchannels answered as turns",
        ),
        BenchKey(
            "resume_gap_ms",
            "number",
            "ms",
            "median pause → resumed audio",
            target=Target("max", 1200),
            label="pause → resumed audio",
        ),
        BenchKey("backchannel_trials", "integer", "count", "trials"),
        BenchKey("backchannel_variants", "integer", "count", "backchannels and noises tried"),
        BenchKey("backchannel_paused_fraction", "number", "frac", "trials that paused the bot"),
        BenchKey("backchannel_misses", "array", None, "each trial the bot did not keep"),
    ),
)

HEARD = Stage(
    "heard",
    "heard text at random cuts, against Whisper and word starts aligned by espeak",
    (
        BenchKey(
            "heard_exact_fraction",
            "number",
            "frac",
            "cuts whose heard text was exact (count)",
            target=Target("min", 0.95),
            label="heard = emitted (Whisper's count)",
        ),
        BenchKey(
            "paused_heard_exact_fraction",
            "number",
            "frac",
            "the same, cuts after a pause",
            target=Target("min", 0.95),
            label="heard = emitted, cuts after a pause",
        ),
        BenchKey(
            "paused_heard_agrees_fraction",
            "number",
            "frac",
            "paused cuts judged as the same cut straight",
            label="paused cut judged as the same cut straight",
        ),
        BenchKey(
            "heard_max_word_error",
            "integer",
            "count",
            "the largest word error (count)",
            target=Target("max", 1),
            label="heard: largest word error",
        ),
        BenchKey(
            "heard_midpoint_exact_fraction",
            "number",
            "frac",
            "exact by Whisper's midpoints",
            label="heard = emitted (Whisper's midpoints)",
        ),
        BenchKey(
            "heard_aligned_exact_fraction",
            "number",
            "frac",
            "exact by aligned word starts",
            target=Target("min", 0.95),
            label="heard = emitted (word starts aligned by espeak)",
        ),
        BenchKey(
            "heard_aligned_within_one_fraction",
            "number",
            "frac",
            "within one word by aligned word starts",
            label="  the same, within one word",
        ),
        BenchKey("heard_cuts", "integer", "count", "random cuts"),
        BenchKey("heard_word_errors", "object", "count", "cuts by word error (count)"),
        BenchKey("heard_midpoint_max_word_error", "integer", "count", "largest error (midpoints)"),
        BenchKey("heard_midpoint_word_errors", "object", "count", "cuts by error (midpoints)"),
        BenchKey("heard_mismatches", "array", None, "examples of inexact cuts"),
        BenchKey("heard_within_one_fraction", "number", "frac", "within one word (count)"),
        BenchKey(
            "paused_heard_aligned_exact_fraction",
            "number",
            "frac",
            "exact by aligned word starts, cuts after a pause",
        ),
        BenchKey("heard_aligned_max_word_error", "integer", "count", "largest error (aligned)"),
        BenchKey("heard_aligned_word_errors", "object", "count", "cuts by error (aligned)"),
        BenchKey("heard_aligned_mismatches", "array", None, "examples of inexact aligned cuts"),
    ),
)

ECHO = Stage(
    "echo",
    "replies through a laptop echo path, AEC on, the caller silent",
    (
        BenchKey(
            "self_interruptions",
            "number",
            "count",
            "Interruptions, plus half of each pause that resumed",
            target=Target("max", 0),
            label="self-interruptions (echo, AEC on)",
        ),
        BenchKey("echo_replies", "integer", "count", "replies spoken through the echo path"),
        BenchKey("echo_fed_s", "number", "s", "microphone audio that carried the bot's echo"),
        BenchKey("echo_interruptions", "integer", "count", "Interruption frames sent"),
        BenchKey("echo_pauses", "integer", "count", "times the echo paused the bot"),
        BenchKey("echo_resumes", "integer", "count", "... and it went on"),
        BenchKey("echo_barge_ins", "integer", "count", "barge-ins the echo made"),
        BenchKey("echo_backchannels", "integer", "count", "backchannels the echo made"),
        BenchKey("echo_spoken_turns", "integer", "count", "turns the echo made"),
        BenchKey("echo_audio_s", "number", "s", "bot audio released, greeting included"),
    ),
)

RTF = Stage(
    "rtf",
    "Whisper's and Piper's real-time factors",
    (
        BenchKey("stt_rtf", "number", "x", "Whisper's median", label="Whisper real-time factor"),
        BenchKey("tts_rtf", "number", "x", "Piper's median", label="Piper real-time factor"),
        BenchKey("stt_ms", "object", "ms", "Whisper's time by utterance length (s)"),
    ),
)

MEMORY = Stage(
    "memory",
    "resident memory of the bench's own process, both models loaded",
    (
        BenchKey(
            "peak_rss_mb",
            "number",
            "MB",
            "peak after the calls, both models used",
            target=Target("max", 600),
            label="peak RSS (both models used)",
        ),
        BenchKey("rss_after_load_mb", "number", "MB", "resident after loading the models"),
        BenchKey("rss_after_warm_up_mb", "number", "MB", "resident after warming them up"),
    ),
)

# Issue 43: every call completes, the first chunk's p99 within 100 ms.
LOAD = Stage(
    "load",
    "calls at once at a caller's pace against the built-in brain, in processes of their own",
    (
        BenchKey(
            "load_peak_concurrency",
            "integer",
            "count",
            "calls on at once at the peak",
            label="load: calls at once, at a caller's pace",
        ),
        BenchKey(
            "load_errors",
            "integer",
            "count",
            "calls with an error",
            target=Target("max", 0),
            label="  calls with an error",
        ),
        BenchKey(
            "load_first_chunk_p99_ms",
            "number",
            "ms",
            "the first chunk's 99th percentile",
            target=Target("max", 100),
            label="  first chunk p99",
        ),
        BenchKey(
            "load_rss_kib_per_call",
            "number",
            "KiB",
            "memory a call",
            label="  memory a call (KiB)",
        ),
        BenchKey("load_calls", "integer", "count", "calls made"),
        BenchKey("load_errors_by_code", "object", "count", "errors by class or code"),
        BenchKey("load_with_findings", "integer", "count", "calls with wire-rule findings"),
        BenchKey("load_unjudged_findings", "integer", "count", "findings not judged"),
        BenchKey("load_first_chunk_p50_ms", "number", "ms", "the first chunk's median"),
        BenchKey("load_loop_late_p99_ms", "number", "ms", "the load generator's loop, late"),
        BenchKey("load_cpu_ms_per_call", "number", "ms", "CPU a call"),
        BenchKey("load_wall_s", "number", "s", "the load run's own time"),
    ),
    reported="present",
)

RUN = Stage(
    "run",
    "the run as a whole: its time, memory, configuration and machine",
    (
        BenchKey(
            "elapsed_without_peer_s",
            "number",
            "s",
            "the run's time, the peer's stage apart",
            target=Target("max", 1200),
            label="the run's own time (the peer's stage apart)",
        ),
        BenchKey(
            "elapsed_s",
            "number",
            "s",
            "the whole run's time",
            target=Target("max", 1500, when="peer_stage_s"),
            label="the whole run's time",
        ),
        BenchKey("bench_peak_rss_mb", "number", "MB", "the whole bench process's peak"),
        BenchKey("config", "object", None, "how much was measured (BenchConfig)"),
        BenchKey("machine", "object", None, "cpus, platform, Python"),
        BenchKey("stage_s", "array", "s", "each stage's time"),
        BenchKey("targets", "object", None, "each target: its bound and whether it was met"),
        BenchKey("peer", "object", None, "the peer's published figures, for the table"),
    ),
)

#: The full run's stages, in the table's order.
FULL_RUN = (
    DEVICES,
    PEER,
    TURNS,
    PAUSES,
    FIRST_AUDIO,
    BARGE_IN,
    GREETING,
    BACKCHANNELS,
    HEARD,
    ECHO,
    RTF,
    MEMORY,
    LOAD,
    RUN,
    FLOOR,
    AUDIT,
)
