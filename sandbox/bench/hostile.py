"""Figures for hostile input: ``sandbox bench --hostile``, and ``python -m sandbox.bench.hostile``.

``sandbox bench --hostile`` (:func:`measure_hostile`): text→speech fuzzed through real Piper
(dead TTS threads), the printers fuzzed with hostile text (escapes), and the peak memory of
one call against each misbehaving brain (``sandbox.brains.hostile``): each call is
``sandbox call --audio sim`` in a process of its own, so its RSS high-water mark is that
mode's alone, against the brain in another process.

``python -m sandbox.bench.hostile``: the flood (one unit of N small chunks from a brain in
a process of its own, sent as fast as it can, then at 10,000 a second) timed per chunk at
2,000, 4,000, 8,000 and 20,000 chunks, from the unit's first frame to its SpeechEnd
handled; and the call's peak memory (this process's RSS high-water mark) around one 10 MB
chunk.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from sandbox.bench.figures import Progress, target_lines
from sandbox.brains.hostile import BEHAVIOURS, hostile_process
from sandbox.call.sim_playout import SimPlayout
from sandbox.call.units import Bracket
from sandbox.host.launch import CallOptions, open_call
from sandbox.host.session import CallHost
from sandbox.paths import HOME_ENV
from sandbox.record.store import STORE_FILE

FLOOD_SIZES = (2_000, 4_000, 8_000, 20_000)

#: Bounds the hostile run is held to: no text stops speech, no printer lets text become
#: control, and no brain makes one call hold more than 400 MB (issue 28).
TARGETS: dict[str, tuple[str, float]] = {
    "tts_dead_threads": ("max", 0),
    "printer_escapes": ("max", 0),
    "peak_rss_mb": ("max", 400),
}
#: Fuzzed examples a run, each of text→speech and of the printers (--quick: QUICK_EXAMPLES).
EXAMPLES = 2_000
QUICK_EXAMPLES = 50
#: The most one call against a misbehaving brain may take before it is stopped (and its
#: figures marked ``timed_out``): the slowest, a brain that never reads, takes ~15 s.
CALL_TIMEOUT_S = 120.0
#: Calls run side by side: most of a call is waiting out a stall or a close.
CALLS_AT_ONCE = 2
#: Caller scripts (the simulated caller, 1 ms a word): answered twice, then hang up; hang up
#: once the first line is out (a brain that never answers it, or leaves its unit open); or
#: talk over a reply that never ends after a few seconds of it, then hang up.
_ANSWERED = """ms_per_word = 1
[[step]]
say = "Hello there."
[[step]]
say = "Are you still there?"
[[step]]
end = true
"""
_HUNG_UP = """ms_per_word = 1
[[step]]
say = "Hello there."
[[step]]
end = "now"
"""
_TALKED_OVER = """ms_per_word = 1
[[step]]
say = "Hello there."
[[step]]
barge_in = "Stop, please."
after_words = 3000
[[step]]
end = "now"
"""
#: The call measured: the real command, headless.
_CALL = (sys.executable, "-m", "sandbox.cli", "call", "--audio", "sim")
_SCRIPTS = {
    "silent": _HUNG_UP,
    "never_reads": _HUNG_UP,
    "stall_after_start": _HUNG_UP,
    "never_ends": _HUNG_UP,
    "endless": _TALKED_OVER,
}
#: Each behaviour's arguments in a full run and a quick one (else its defaults: the full
#: garbage is 300,000 one-byte frames, the full huge and huge_errors 30 of 15 MB each).
_FULL_ARGS = {"flood": ("--per-second", "0")}
_QUICK_ARGS = {
    "flood": ("--chunks", "2000", "--per-second", "0"),
    "garbage": ("--garbage-frames", "3000"),
    "huge": ("--huge-chunks", "3"),
    "huge_errors": ("--huge-chunks", "3"),
}


@dataclass(frozen=True)
class BrainCall:
    """One call against one misbehaving brain, as measured from outside its process."""

    peak_rss_mb: float  # the call's process, its RSS high-water mark
    seconds: float
    exit_code: int
    timed_out: bool
    report_kb: float  # the report it wrote (0: none)
    store_kb: float  # its session store, write-ahead log included
    outcome: str  # the report's outcome ("" without a report)

    def as_json(self) -> dict[str, Any]:
        """The figures as the bench's JSON keeps them."""
        return asdict(self)


def measure_hostile(progress: Progress, *, quick: bool = False) -> dict[str, Any]:
    """Every hostile figure: dead TTS threads and printer escapes over fuzzed text, and the
    peak RSS of a call against each misbehaving brain (run beside the fuzzing)."""
    from sandbox.bench.tts_fuzz import tts_fuzz  # loads Piper: only when measured
    from sandbox.fuzz.printers import printer_escapes

    examples = QUICK_EXAMPLES if quick else EXAMPLES
    started = time.monotonic()
    with ThreadPoolExecutor(CALLS_AT_ONCE, thread_name_prefix="hostile-call") as pool:
        calls = {
            name: pool.submit(measure_brain, name, quick=quick, progress=progress)
            for name in BEHAVIOURS
        }
        progress(f"[1/3] text→speech fuzzed through Piper, {examples:,} examples")
        figures: dict[str, Any] = dict(tts_fuzz(examples=examples, progress=progress))
        progress(f"[2/3] printers fuzzed with hostile text, {examples:,} examples")
        figures.update(printer_escapes(examples=examples))
        progress(f"[3/3] the calls against {len(calls)} misbehaving brains, to their end")
        brains = {name: call.result().as_json() for name, call in calls.items()}
    figures["brains"] = brains
    figures["peak_rss_mb"] = max(b["peak_rss_mb"] for b in brains.values())
    figures["seconds"] = round(time.monotonic() - started, 1)
    figures["quick"] = quick
    return figures


def measure_brain(behaviour: str, *, quick: bool = False, progress: Progress) -> BrainCall:
    """``sandbox call --audio sim`` against ``behaviour`` in a process of its own (the brain
    in another), with a data folder of its own; its peak RSS is read when it is reaped."""
    args = (_QUICK_ARGS if quick else _FULL_ARGS).get(behaviour, ())
    with tempfile.TemporaryDirectory(prefix=f"hostile-{behaviour}-") as folder:
        home = Path(folder)
        script = home / "caller.toml"
        script.write_text(_SCRIPTS.get(behaviour, _ANSWERED))
        report, log = home / "report.json", home / "call.log"
        with hostile_process(behaviour, *args) as url:
            call = _reaped(
                [*_CALL, "--brain", url, "--script", str(script), "--report", str(report)],
                {**os.environ, HOME_ENV: folder},
                log,
            )
        figures = BrainCall(
            peak_rss_mb=call.peak_rss_mb,
            seconds=call.seconds,
            exit_code=call.exit_code,
            timed_out=call.timed_out,
            report_kb=_kb(report),
            store_kb=sum(_kb(f) for f in home.glob(f"{STORE_FILE}*")),
            outcome=_outcome(report),
        )
        how = " (timed out)" if call.timed_out else ""
        if call.exit_code and not call.timed_out:
            lines = log.read_text(errors="replace").strip().splitlines() or ["no output"]
            how = f" (exit {call.exit_code}: {lines[-1][:200]})"
    progress(
        f"  {behaviour}: peak {figures.peak_rss_mb:.0f} MB, {figures.seconds:.1f} s{how}, "
        f"report {figures.report_kb:.0f} KB, store {figures.store_kb:.0f} KB"
    )
    return figures


@dataclass(frozen=True)
class _Reaped:
    peak_rss_mb: float
    seconds: float
    exit_code: int
    timed_out: bool


#: Runs a command (its output to a log), kills it after a timeout, and prints its own RSS
#: high-water mark (KiB) and exit code. A tiny process of its own starts the call because
#: Linux carries the high-water mark across exec: a call started straight from the bench
#: (Piper loaded, 500 MB and more) would report the bench's size, not its own.
_PEAK_OF = """\
import os, signal, sys
timeout, log, command = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
out = [(os.POSIX_SPAWN_OPEN, fd, log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
       for fd in (1, 2)]
pid = os.posix_spawn(command[0], command, os.environ, file_actions=out)
signal.signal(signal.SIGALRM, lambda *_: os.kill(pid, signal.SIGKILL))
signal.alarm(timeout)
_, status, usage = os.wait4(pid, 0)
print(usage.ru_maxrss, os.waitstatus_to_exitcode(status))
"""


def _reaped(command: list[str], env: dict[str, str], log: Path) -> _Reaped:
    """Run ``command`` to its end (killed after CALL_TIMEOUT_S), its output into ``log``;
    its peak RSS as measured by :data:`_PEAK_OF`."""
    start = time.monotonic()
    timeout = str(int(CALL_TIMEOUT_S))
    done = subprocess.run(
        [sys.executable, "-S", "-c", _PEAK_OF, timeout, str(log), *command],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    kib, exit_code = (int(word) for word in done.stdout.split())
    return _Reaped(
        peak_rss_mb=round(kib / 1024, 1),  # ru_maxrss is in KiB on Linux
        seconds=round(time.monotonic() - start, 1),
        exit_code=exit_code,
        timed_out=exit_code == -9,
    )


def _kb(path: Path) -> float:
    return round(path.stat().st_size / 1024, 1) if path.exists() else 0.0


def _outcome(report: Path) -> str:
    if not report.exists():
        return ""
    return str(json.loads(report.read_text()).get("outcome", ""))


def hostile_table(figures: dict[str, Any]) -> str:
    """The figures as lines: each target, then each brain's call."""
    lines = [
        f"hostile input: {figures['tts_examples']:,} texts spoken, "
        f"{figures['printer_examples']:,} printed ({figures['seconds']:.0f} s)"
    ]
    lines += target_lines(figures, TARGETS)
    for name, call in figures["brains"].items():
        late = ", timed out" if call["timed_out"] else ""
        lines.append(
            f"  {name:<18} peak {call['peak_rss_mb']:>5.0f} MB  {call['seconds']:>5.1f} s  "
            f"report {call['report_kb']:>6.0f} KB  store {call['store_kb']:>6.0f} KB  "
            f"{call['outcome'] or 'no report'}{late}"
        )
    return "\n".join(lines)


def _bracket(host: CallHost, speech_id: int) -> Bracket | None:
    unit = host.core.unit(speech_id)
    return None if unit is None else unit.bracket


async def _one_call(
    behaviour: str, chunks: int = 20_000, per_second: int = 0
) -> tuple[float, CallHost]:
    """Seconds from the reply's first frame to its last handled, and the finished call."""
    pace = ("--chunks", str(chunks), "--per-second", str(per_second))
    with hostile_process(behaviour, *pace) as url:
        host = await open_call(CallOptions(brain_url=url), url, SimPlayout(ms_per_word=10))
        running = asyncio.create_task(host.run())
        await host.wait_for(lambda: _bracket(host, 1) is Bracket.ENDED, 10)
        host.caller_turn("Hello there.")
        await host.wait_for(lambda: _bracket(host, 2) is not None, 10)
        start = time.monotonic()
        await host.wait_for(lambda: _bracket(host, 2) is not Bracket.OPEN, 600)
        took = time.monotonic() - start
        host.hang_up()
        await running
        return took, host


def main() -> int:
    """Print the figures, one line each (the 10 MB chunk first, so the peak is its own)."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    _took, host = asyncio.run(_one_call("huge_chunk"))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    errors = [e.message for e in host.core.ledger.errors]
    print(f"10 MB chunk: peak RSS {peak:.0f} MB (before the call {before:.0f} MB); {errors[0]}")
    for per_second in (0, 10_000):
        rate = "flat out" if not per_second else f"{per_second:,} a second"
        for chunks in FLOOD_SIZES:
            took, _host = asyncio.run(_one_call("flood", chunks, per_second))
            each = took / chunks * 1e6
            print(f"flood of {chunks:>6,} chunks, {rate}: {took:5.2f} s, {each:4.0f} µs a chunk")
    return 0


if __name__ == "__main__":
    sys.exit(main())
