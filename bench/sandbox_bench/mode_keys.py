"""Every key of the bench's modes run on their own, declared once, stage by stage as the full
run's are (:mod:`sandbox_bench.run_keys`): ``--sessions`` and ``--redrive`` here, ``--soak``
in :mod:`sandbox_bench.soak_keys`, ``--hostile`` in :mod:`sandbox_bench.hostile_keys`,
``--lines`` in :mod:`sandbox_bench.line_keys`, ``--languages`` in
:mod:`sandbox_bench.language_keys`. Each
mode's targets come from its own stages, and ``sandbox schema bench-MODE`` is built from
them. Targets from the issues, on the project's 2-core machine; reported, never enforced.
"""

from __future__ import annotations

from sandbox_bench.bench_key import BenchKey, Mode, Stage, Target
from sandbox_bench.device_keys import AUDIT
from sandbox_bench.hostile_keys import HOSTILE_CALLS, PRINTERS, TTS_FUZZ
from sandbox_bench.language_keys import LANGUAGES
from sandbox_bench.line_keys import LINES
from sandbox_bench.soak_keys import SOAK

SESSIONS = Stage(
    "sessions",
    "a synthetic call written through the real recorder and audio legs into a store of its own",
    (
        BenchKey("minutes", "number", "min", "the call's length"),
        BenchKey(
            "replay_open_ms",
            "number",
            "ms",
            "median of 3: opening it by id prefix and drawing its first moment",
            target=Target("max", 1000),
        ),
        BenchKey(
            "recording_cpu_percent",
            "number",
            "%",
            "CPU the recording spent, a share of one core over the call's length",
            target=Target("max", 5),
        ),
        BenchKey(
            "frame_record_us",
            "number",
            "µs",
            "median cost of queuing a frame for the recorder, the writer running",
        ),
        BenchKey("frame_record_unrecorded_us", "number", "µs", "the same, without a writer"),
        BenchKey(
            "disk_mb_per_minute",
            "number",
            "MB/min",
            "the store and both legs on disk",
            target=Target("max", 2),
        ),
        BenchKey(
            "html_mb_per_10_minutes",
            "number",
            "MB/10min",
            "its self-contained page (sandbox export --html), audio embedded",
            target=Target("max", 15),
        ),
        BenchKey("moments", "integer", "count", "the recording's moments"),
    ),
)

REDRIVE = Stage(
    "redrive",
    "a simulated call recorded on the warp clock, re-driven against the same brain",
    (
        BenchKey("call_s", "number", "s", "the recorded call's length"),
        BenchKey("turns", "integer", "count", "its caller turns"),
        BenchKey("redrive_s", "number", "s", "the whole re-drive: dial, play, record, diff"),
        BenchKey(
            "speedup",
            "number",
            "x",
            "the call's length over the re-drive's time",
            target=Target("min", 20),
        ),
        BenchKey("redrive_exit", "integer", None, "the diff's exit status: 0, heard the same"),
        BenchKey("brain_s", "number", "s", "of the re-drive, the brain answering"),
        BenchKey(
            "speedup_without_brain",
            "number",
            "x",
            "the call's length over the re-drive's time less the brain's",
        ),
    ),
)

FALSE_ALARMS = Stage(
    "false_alarms",
    "sessions of every mode, each re-driven against its own brain (--quick: no real audio)",
    (
        BenchKey("redrive_sessions", "integer", "count", "sessions recorded"),
        BenchKey("redrive_runs", "integer", "count", "re-drives made"),
        BenchKey(
            "redrive_false_changes",
            "integer",
            "count",
            "re-drives that said changed, or broke a rule, against the same brain",
            target=Target("max", 0),
        ),
        BenchKey(
            "redrive_stt_differences",
            "integer",
            "count",
            "real-audio re-drives whose caller lines Whisper heard with other words",
        ),
        BenchKey(
            "redrive_speed_x",
            "number",
            "x",
            "the simulated sessions' call time over their re-drives' less the brain's",
        ),
        BenchKey("redrive_by_kind", "object", "count", "sessions, runs, false changes by kind"),
        BenchKey("redrive_changes", "array", None, "what each false change was"),
    ),
)

#: What every mode's result ends with (``sandbox/commands/bench.py``).
MODE_TARGETS = Stage(
    "targets",
    "the targets the mode's figures are held to",
    (
        BenchKey(
            "targets",
            "object",
            None,
            "each target: its kind (bound: max or min) and its bound (value)",
        ),
    ),
)

SESSIONS_MODE = Mode("sessions", "--sessions [--minutes N]", (SESSIONS,), (MODE_TARGETS,))
REDRIVE_MODE = Mode(
    "redrive",
    "--redrive [--minutes N] [--quick]",
    (REDRIVE, FALSE_ALARMS),
    (AUDIT, MODE_TARGETS),  # the audit of its real-audio sessions: the full run's keys
)
SOAK_MODE = Mode("soak", "--soak MINUTES [--audio sim|real]", (SOAK,), (MODE_TARGETS,))
HOSTILE_MODE = Mode(
    "hostile", "--hostile [--quick]", (TTS_FUZZ, PRINTERS, HOSTILE_CALLS), (MODE_TARGETS,)
)
LINES_MODE = Mode("lines", "--lines [--turns N] [--quick]", (LINES,), (MODE_TARGETS,))
LANGUAGES_MODE = Mode("languages", "--languages [CODES] [--quick]", (LANGUAGES,), (MODE_TARGETS,))
#: The modes run on their own, as ``sandbox schema`` lists them.
MODES = (SESSIONS_MODE, REDRIVE_MODE, SOAK_MODE, HOSTILE_MODE, LINES_MODE, LANGUAGES_MODE)
