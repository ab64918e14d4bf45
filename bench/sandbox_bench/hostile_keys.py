"""The keys of ``sandbox bench --hostile --json`` (:mod:`sandbox_bench.hostile`), by its
parts: text→speech fuzzed (:mod:`sandbox_bench.tts_fuzz`), the printers fuzzed
(:mod:`sandbox_fuzz.printers`), a call against each misbehaving brain. Their targets: no
text stops speech, no printer lets text become control (issue 28); however long a brain
misbehaves, no call holds more than 400 MB or writes a report over 5 MB, and a hang-up ends
the call's process within 2 s (issue 43)."""

from __future__ import annotations

from sandbox_bench.bench_key import BenchKey, Stage, Target

TTS_FUZZ = Stage(
    "tts_fuzz",
    "hostile texts through real Piper and a real speech-out thread, each a unit in chunks",
    (
        BenchKey("tts_examples", "integer", "count", "texts spoken"),
        BenchKey(
            "tts_dead_threads",
            "integer",
            "count",
            "synthesis threads that died: the call would have gone silent",
            target=Target("max", 0),
        ),
        BenchKey("tts_repaired", "integer", "count", "clauses said normalized"),
        BenchKey("tts_skipped", "integer", "count", "clauses whose rest was left unsaid"),
        BenchKey("tts_clauses", "integer", "count", "calls to the synthesizer"),
        BenchKey("tts_broken", "integer", "count", "clauses or units that broke a rule"),
        BenchKey("tts_stalls", "integer", "count", "units whose playout stopped moving"),
    ),
)

PRINTERS = Stage(
    "printers",
    "seeded random bytes through every printer",
    (
        BenchKey("printer_examples", "integer", "count", "inputs, each through every printer"),
        BenchKey(
            "printer_escapes",
            "integer",
            "count",
            "outputs that broke their printer's invariant, or crashes",
            target=Target("max", 0),
        ),
    ),
)

HOSTILE_CALLS = Stage(
    "hostile_calls",
    "a call against each misbehaving brain, each in a process of its own, then hung up on",
    (
        BenchKey(
            "brains",
            "object",
            None,
            "each brain's call: peak RSS, seconds, exit code, timed out, hang-up → exit, "
            "report and store sizes, outcome, what was counted and not kept",
        ),
        BenchKey("call_s", "number", "s", "how long each brain was met before the hang-up"),
        BenchKey(
            "peak_rss_mb",
            "number",
            "MB",
            "the highest peak of the calls' processes",
            target=Target("max", 400),
        ),
        BenchKey(
            "report_mb", "number", "MB", "the largest report written", target=Target("max", 5)
        ),
        BenchKey(
            "hang_up_exit_s",
            "number",
            "s",
            "the slowest hang-up → exit (null: every call ended before)",
            target=Target("max", 2),
        ),
        BenchKey("seconds", "number", "s", "the hostile run's own time"),
        BenchKey("quick", "boolean", None, "--quick: fewer examples, shorter calls"),
    ),
)
