"""The keys of ``sandbox bench --soak MINUTES --json`` (:mod:`sandbox_bench.soak`): one long
call watched for leaks. Its targets, from the issue: memory flat, no growth in flight,
latency at the end as at the start."""

from __future__ import annotations

from sandbox_bench.bench_key import BenchKey, Stage, Target

#: Each slope is over the samples after the warm-up, per ten minutes of call.
SOAK = Stage(
    "soak",
    "one long call against the built-in concierge, watched for leaks after its warm-up",
    (
        BenchKey("audio", "string", None, "the call's audio: sim or real"),
        BenchKey("call_s", "number", "s", "the call's length"),
        BenchKey("warm_up_s", "number", "s", "left out: a fifth of the call, at most two minutes"),
        BenchKey("turns_answered", "integer", "count", "caller turns answered"),
        BenchKey("barge_ins", "integer", "count", "Interruption frames sent"),
        BenchKey("backchannels", "integer", "count", "backchannels the call heard"),
        BenchKey("idle_nudges", "integer", "count", "UserIdle frames sent"),
        BenchKey("rss_start_mb", "number", "MB", "resident memory, the first sample"),
        BenchKey("rss_end_mb", "number", "MB", "resident memory, the last sample"),
        BenchKey(
            "rss_slope_mb_per_10min",
            "number",
            "MB/10min",
            "resident memory's least-squares slope",
            target=Target("max", 1.0),
        ),
        BenchKey("quiet_samples", "integer", "count", "samples taken while the call was quiet"),
        BenchKey(
            "quiet_rss_slope_mb_per_10min",
            "number",
            "MB/10min",
            "the quiet samples' least-squares slope",
        ),
        BenchKey(
            "quiet_rss_trend_mb_per_10min",
            "number",
            "MB/10min",
            "the quiet samples' trend: the median of every pair's slope (Theil-Sen)",
            target=Target("max", 1.0),
        ),
        BenchKey(
            "quiet_anon_trend_mb_per_10min",
            "number",
            "MB/10min",
            "the same of private memory",
        ),
        BenchKey(
            "rss_floor_slope_mb_per_10min",
            "number",
            "MB/10min",
            "the slope of the floor: the lowest of each ten samples",
        ),
        BenchKey("anon_slope_mb_per_10min", "number", "MB/10min", "private memory's slope"),
        BenchKey("file_slope_mb_per_10min", "number", "MB/10min", "mapped files' slope"),
        BenchKey("shmem_slope_mb_per_10min", "number", "MB/10min", "shared memory's slope"),
        BenchKey("in_flight_start", "number", "count", "frames in flight, first quarter's mean"),
        BenchKey("in_flight_end", "number", "count", "frames in flight, last quarter's mean"),
        BenchKey("in_flight_max", "integer", "count", "the most frames in flight, any sample"),
        BenchKey(
            "in_flight_growth",
            "number",
            "count",
            "frames in flight, the last quarter's mean over the first's (0 when fewer)",
            target=Target("max", 0),
        ),
        BenchKey("tasks_start", "integer", "count", "asyncio tasks, the first sample"),
        BenchKey("tasks_end", "integer", "count", "asyncio tasks, the last sample"),
        BenchKey(
            "first_chunk_start_ms",
            "number",
            "ms",
            "median UserMessage → first SpeechChunk, the first turns",
        ),
        BenchKey("first_chunk_end_ms", "number", "ms", "the same, the last turns"),
        BenchKey(
            "first_chunk_drift_ms",
            "number",
            "ms",
            "the last turns' median less the first turns'",
            target=Target("max", 50),
        ),
        BenchKey(
            "first_audio_start_ms",
            "number",
            "ms",
            "median UserMessage → first word released, the first turns",
        ),
        BenchKey("first_audio_end_ms", "number", "ms", "the same, the last turns"),
        BenchKey("first_audio_drift_ms", "number", "ms", "the last turns' median less the first's"),
        BenchKey(
            "samples",
            "array",
            None,
            "each look at the process: memory and its parts, frames and units in flight, "
            "tasks, threads, whether the call was quiet",
        ),
        BenchKey(
            "turns",
            "array",
            None,
            "each answered turn: when, and its first chunk and first audio after its UserMessage",
        ),
    ),
)
