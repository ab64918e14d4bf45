"""The keys of the devices stage (:mod:`sandbox_bench.device_report`): the app timed from
outside at the virtual devices, Pipecat beside it, the floor at the speaker, the audit of the
app's sessions. Their targets are reported once a figure was measured."""

from __future__ import annotations

from sandbox.judges.heard_truth import TOLERATED_WORDS_OFF
from sandbox_bench.bench_key import BenchKey, Stage, Target

DEVICES = Stage(
    "devices",
    "the app at the devices, end of speech at the microphone to first audio at the speaker",
    (
        BenchKey(
            "device_end_of_speech_to_first_audio_ms",
            "number",
            "ms",
            "median end of speech → first audio at the default patience (7)",
            label="at the devices: end of speech → first audio",
        ),
        BenchKey(
            "device_end_of_speech_to_first_audio_fast_ms",
            "number",
            "ms",
            "the same at patience 6",
            label="  the same at patience 6",
        ),
        BenchKey("device_probe_loop_ms", "number", "ms", "the probe's own loop, taken off"),
        BenchKey("device_classes", "object", None, "the set of callers' classes, each described"),
        BenchKey("device_runs", "array", None, "each patience's run: medians, spread, turns"),
        BenchKey(
            "device_class_first_audio_ms",
            "object",
            "ms",
            "each class at the default patience: turns, missed, median, p90, worst",
        ),
        BenchKey(
            "device_close_reasons",
            "object",
            "count",
            "how the app's endpointer closed its turns at the default patience",
        ),
        BenchKey(
            "device_class_close_reasons",
            "object",
            "count",
            "the same, class by class",
        ),
        BenchKey(
            "device_word_error_rate",
            "number",
            "frac",
            "what reached the brain against the words the caller said, at the default patience",
            target=Target("max", None, "the peer's on the same turns", when="peer_word_error_rate"),
            label="  caller's word error rate",
        ),
        BenchKey(
            "device_class_word_error_rate",
            "object",
            "frac",
            "the same, class by class",
        ),
        BenchKey(
            "device_doubled_turns",
            "number",
            "count",
            "turns that reached the brain doubled or looped where the caller said them once",
            target=Target("max", 0),
            label="  turns doubled or looped",
        ),
        BenchKey(
            "device_first_turn_ms",
            "number",
            "ms",
            "the session's first caller turn at the default patience (the stage's warm-up "
            "turn, unmeasured otherwise): end of speech → first audio",
        ),
        BenchKey(
            "device_first_turn_over_median_ms",
            "number",
            "ms",
            "how much longer the session's first reply took after its turn reached the brain "
            "than the session's median reply",
            target=Target("max", 150),
            label="  first turn of the session over its median",
        ),
        BenchKey(
            "device_mended_turns",
            "object",
            "count",
            "the app's transcripts mended before they became turns, by how (its report's)",
        ),
        BenchKey(
            "device_end_of_speech_to_user_message_p{patience}_ms",
            "number",
            "ms",
            "median end of speech → the turn at the brain, at that patience",
            target=Target("max", None, "the patience's confident window + 150 ms"),
        ),
        BenchKey(
            "device_app_peak_rss_mb",
            "number",
            "MB",
            "the app's whole process at the devices, its highest peak",
            target=Target("max", 600),
        ),
    ),
    reported="measured",
)

PEER = Stage(
    "peer",
    "Pipecat run fully locally on the same turns (--peer), both its configurations",
    (
        BenchKey(
            "peer_ratio_end_of_speech_to_first_audio",
            "number",
            "x",
            "our median at patience 7 over the faster Pipecat configuration's",
            target=Target("max", 0.65),
            label="  over the faster Pipecat's, patience 7",
        ),
        BenchKey(
            "peer_ratio_end_of_speech_to_first_audio_fast",
            "number",
            "x",
            "our median at patience 6 over the faster Pipecat configuration's",
            target=Target("max", 0.75),
            label="  over the faster Pipecat's, patience 6",
        ),
        BenchKey(
            "worst_turn_ratio",
            "number",
            "x",
            "our slowest turn at patience 7 over the faster configuration's slowest",
            target=Target("max", 0.9),
            label="  slowest turn over the faster Pipecat's slowest",
        ),
        BenchKey("peer_runs", "array", None, "each Pipecat configuration's run"),
        BenchKey("peer_stage_s", "number", "s", "the peer's stage's own time"),
        BenchKey("peer_faster", "string", None, "the faster configuration"),
        BenchKey(
            "peer_end_of_speech_to_first_audio_ms",
            "number",
            "ms",
            "the faster configuration's median end of speech → first audio",
        ),
        BenchKey("peer_peak_rss_mb", "number", "MB", "the peer's highest peak"),
        BenchKey("device_worst_turn_ms", "number", "ms", "our slowest turn at patience 7"),
        BenchKey("peer_worst_turn_ms", "number", "ms", "the faster configuration's slowest"),
        BenchKey(
            "peer_class_ratio_{class}",
            "number",
            "x",
            "the class's median over the faster configuration's median for that class",
            target=Target("max", 0.80),
        ),
        BenchKey(
            "peer_class_faster_ms",
            "object",
            "ms",
            "each class: the faster configuration's median and which it was",
        ),
        BenchKey(
            "peer_word_error_rate",
            "number",
            "frac",
            "the faster configuration's Whisper on the same turns, against the words said",
            label="  the peer's word error rate",
        ),
        BenchKey(
            "peer_class_word_error_rate",
            "object",
            "frac",
            "the same, class by class",
        ),
        BenchKey(
            "peer_doubled_turns",
            "number",
            "count",
            "the faster configuration's turns that reached its LLM doubled or looped",
        ),
    ),
    reported="measured",
)

FLOOR = Stage(
    "floor",
    "backchannels and barge-ins over the app's replies, at the speaker",
    (
        BenchKey(
            "backchannel_gap_ms",
            "number",
            "ms",
            "median silence around a backchannel",
            target=Target("max", 500),
        ),
        BenchKey(
            "barge_in_onset_to_silence_ms",
            "number",
            "ms",
            "median barge-in onset → silence at the speaker",
            target=Target("max", 200),
        ),
        BenchKey(
            "device_backchannel_answered_fraction",
            "number",
            "frac",
            "backchannels answered as a turn",
            target=Target("max", 0),
        ),
        BenchKey("barge_in_sound_after_silence_ms", "number", "ms", "bot audio after the silence"),
        BenchKey("device_barge_in_landed_fraction", "number", "frac", "barge-ins that landed"),
        BenchKey("device_floor_missed", "integer", "count", "trials whose reply never came"),
        BenchKey("device_floor_trials", "array", None, "each trial: text, voice, timings"),
    ),
    reported="measured",
)

AUDIT = Stage(
    "audit",
    "the app's real-audio sessions: recorded heard text against Whisper on the speaker leg",
    (
        BenchKey("audit_sessions", "integer", "count", "sessions audited"),
        BenchKey("audit_units", "integer", "count", "units audited"),
        BenchKey("audit_exact_fraction", "number", "frac", "units whose heard text was exact"),
        BenchKey(
            "audit_max_words_off",
            "integer",
            "count",
            "the most words a unit was off",
            target=Target("max", TOLERATED_WORDS_OFF),
        ),
        BenchKey("audit_doubted", "array", None, "each unit further off than tolerated"),
    ),
    reported="measured",
)

#: The devices stage as ``sandbox bench --devices`` reports it.
DEVICE_STAGES = (DEVICES, PEER, FLOOR, AUDIT)
