"""Figures for hostile input: ``sandbox bench --hostile``, and ``python -m sandbox_bench.hostile``.

``sandbox bench --hostile`` (:func:`measure_hostile`): text→speech fuzzed through real Piper
(dead TTS threads), the printers fuzzed with hostile text (escapes), and one call against
each misbehaving brain (``sandbox.brains.hostile``), each met for a minute (a flood of chunks
and the huge messages sent until the call ends), then hung up on with SIGTERM: the call's
peak memory, its report's size, and how long it took from the hang-up to its process's
exit. Each call is ``sandbox call --audio sim`` in a process of its own, so its RSS
high-water mark is that mode's alone, against the brain in another.

``python -m sandbox_bench.hostile``: the flood (one unit of N small chunks from a brain in
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
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from sandbox.brains.hostile import BEHAVIOURS, hostile_process
from sandbox.call.sim_playout import SimPlayout
from sandbox.call.units import Bracket
from sandbox.host.launch import CallOptions, open_call
from sandbox.host.session import CallHost
from sandbox.paths import HOME_ENV
from sandbox.record.store import STORE_FILE
from sandbox_bench.figures import Progress, target_lines
from sandbox_bench.mode_keys import HOSTILE_MODE

FLOOD_SIZES = (2_000, 4_000, 8_000, 20_000)

#: Fuzzed examples a run, each of text→speech and of the printers (--quick: QUICK_EXAMPLES).
EXAMPLES = 2_000
QUICK_EXAMPLES = 50
#: How long each misbehaving brain is met before the caller hangs up (--quick: QUICK_CALL_S):
#: what grows with time shows in a minute.
CALL_S = 60.0
QUICK_CALL_S = 10.0
#: After the hang-up, how long a call may take to exit before it is killed (and its figures
#: marked ``timed_out``).
EXIT_TIMEOUT_S = 60.0
#: Calls run side by side: most of a call is waiting out a stall or a flood.
CALLS_AT_ONCE = 2
#: Caller scripts (the simulated caller, 1 ms a word), each keeping the call up until the
#: bench hangs up: two lines, then silence; or a line, then talk over the reply after 20
#: words of it and wait for a reply that never ends.
_HELD = """ms_per_word = 1
[[step]]
say = "Hello there."
[[step]]
say = "Are you still there?"
[[step]]
silence_ms = 600000
[[step]]
end = true
"""
_TALKED_OVER = """ms_per_word = 1
[[step]]
say = "Hello there."
[[step]]
barge_in = "Stop, please."
after_words = 20
[[step]]
end = true
"""
#: The call measured: the real command, headless.
_CALL = (sys.executable, "-m", "sandbox.cli", "call", "--audio", "sim")
_SCRIPTS = {"endless": _TALKED_OVER}
#: More than a brain can send in the call's time: a behaviour with a count sends until the
#: call ends.
_UNTIL_THE_END = str(10**9)
#: Each behaviour's arguments (else its defaults: garbage's 300,000 messages). The floods
#: stream for the whole call at their default 10,000 frames a second: the rate a brain
#: gone wrong reaches, paced so that runs compare (flat out, the rate is the machine's).
_ARGS = {
    "flood": ("--chunks", _UNTIL_THE_END),
    "huge": ("--huge-chunks", _UNTIL_THE_END),
    "huge_errors": ("--huge-chunks", _UNTIL_THE_END),
}


@dataclass(frozen=True)
class BrainCall:
    """One call against one misbehaving brain, as measured from outside its process."""

    peak_rss_mb: float  # the call's process, its RSS high-water mark
    seconds: float
    exit_code: int
    timed_out: bool
    #: From the hang-up (SIGTERM) to the process's exit; None: it ended before.
    hang_up_exit_s: float | None
    report_kb: float  # the report it wrote (0: none)
    store_kb: float  # its session store, write-ahead log included
    outcome: str  # the report's outcome ("" without a report)
    #: What the report says was only counted, by kind (``frames_unkept``, ``malformed``
    #: for ``malformed_unkept`` and ``units`` for ``units_unkept``), where any was.
    unkept: dict[str, int]

    def as_json(self) -> dict[str, Any]:
        """The figures as the bench's JSON keeps them."""
        return asdict(self)


def measure_hostile(progress: Progress, *, quick: bool = False) -> dict[str, Any]:
    """Every hostile figure: dead TTS threads and printer escapes over fuzzed text, and a
    call against each misbehaving brain (run beside the fuzzing): its peak RSS, its
    report's size, and its hang-up → exit time; the worst of each is held to its target
    (:mod:`sandbox_bench.hostile_keys`)."""
    from sandbox_bench.tts_fuzz import tts_fuzz  # loads Piper: only when measured
    from sandbox_fuzz.printers import printer_escapes

    examples = QUICK_EXAMPLES if quick else EXAMPLES
    call_s = QUICK_CALL_S if quick else CALL_S
    started = time.monotonic()
    with ThreadPoolExecutor(CALLS_AT_ONCE, thread_name_prefix="hostile-call") as pool:
        calls = {
            name: pool.submit(measure_brain, name, call_s=call_s, progress=progress)
            for name in BEHAVIOURS
        }
        progress(f"[1/3] text→speech fuzzed through Piper, {examples:,} examples")
        figures: dict[str, Any] = dict(tts_fuzz(examples=examples, progress=progress))
        progress(f"[2/3] printers fuzzed with hostile text, {examples:,} examples")
        figures.update(printer_escapes(examples=examples))
        progress(
            f"[3/3] the calls against {len(calls)} misbehaving brains, {call_s:g} s each, "
            "then hung up"
        )
        brains = {name: call.result().as_json() for name, call in calls.items()}
    figures["brains"] = brains
    figures["call_s"] = call_s
    figures["peak_rss_mb"] = max(b["peak_rss_mb"] for b in brains.values())
    figures["report_mb"] = round(max(b["report_kb"] for b in brains.values()) / 1024, 2)
    exits = [b["hang_up_exit_s"] for b in brains.values() if b["hang_up_exit_s"] is not None]
    figures["hang_up_exit_s"] = max(exits, default=None)
    figures["seconds"] = round(time.monotonic() - started, 1)
    figures["quick"] = quick
    return figures


def measure_brain(behaviour: str, *, call_s: float = CALL_S, progress: Progress) -> BrainCall:
    """``sandbox call --audio sim`` against ``behaviour`` in a process of its own (the brain
    in another), with a data folder of its own, hung up on after ``call_s``; its peak RSS
    is read when it is reaped."""
    with tempfile.TemporaryDirectory(prefix=f"hostile-{behaviour}-") as folder:
        home = Path(folder)
        script = home / "caller.toml"
        script.write_text(_SCRIPTS.get(behaviour, _HELD))
        report, log = home / "report.json", home / "call.log"
        with hostile_process(behaviour, *_ARGS.get(behaviour, ())) as url:
            call = _reaped(
                [*_CALL, "--brain", url, "--script", str(script), "--report", str(report)],
                {**os.environ, HOME_ENV: folder},
                log,
                call_s,
            )
        read = _report(report)
        # A call that ended another way before the hang-up (the brain closed the socket)
        # may still be on its way out when it comes: no hang-up of its to time.
        hung_up = read.get("ended_by", "caller") == "caller"
        figures = BrainCall(
            peak_rss_mb=call.peak_rss_mb,
            seconds=call.seconds,
            exit_code=call.exit_code,
            timed_out=call.timed_out,
            hang_up_exit_s=call.hang_up_exit_s if hung_up else None,
            report_kb=_kb(report),
            store_kb=sum(_kb(f) for f in home.glob(f"{STORE_FILE}*")),
            outcome=str(read.get("outcome", "")),
            unkept=_unkept(read),
        )
        how = " (timed out)" if call.timed_out else ""
        if call.exit_code not in _HUNG_UP_EXITS and not call.timed_out:
            lines = log.read_text(errors="replace").strip().splitlines() or ["no output"]
            how = f" (exit {call.exit_code}: {lines[-1][:200]})"
    progress(
        f"  {behaviour}: peak {figures.peak_rss_mb:.0f} MB, {figures.seconds:.1f} s{how}, "
        f"report {figures.report_kb:.0f} KB, store {figures.store_kb:.0f} KB, "
        f"hang-up → exit {_exit_words(figures.hang_up_exit_s)}"
    )
    return figures


#: How a call the bench hung up on exits (128 + SIGTERM), or one that ended before.
_HUNG_UP_EXITS = (0, 128 + signal.SIGTERM)


@dataclass(frozen=True)
class _Reaped:
    peak_rss_mb: float
    seconds: float
    exit_code: int
    timed_out: bool
    hang_up_exit_s: float | None


#: Runs a command (its output to a log), hangs it up (SIGTERM) a while after it started,
#: and no sooner than a second after its first output (the call is up: a signal before
#: would kill it, not hang it up), kills it if it has not exited a while after that, and
#: prints its own RSS high-water mark (KiB), exit code and seconds from the hang-up to the
#: exit (-1: it ended before). A tiny process of its own
#: starts the call because Linux carries the high-water mark across exec: a call started
#: straight from the bench (Piper loaded, 500 MB and more) would report the bench's size,
#: not its own.
_PEAK_OF = """\
import os, signal, sys, time
hang_up_after, kill_after, log = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
command = sys.argv[4:]
out = [(os.POSIX_SPAWN_OPEN, fd, log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
       for fd in (1, 2)]
pid = os.posix_spawn(command[0], command, os.environ, file_actions=out)
hung_up = []
def alarm(*_):
    if hung_up:
        os.kill(pid, signal.SIGKILL)
        return
    hung_up.append(time.monotonic())
    os.kill(pid, signal.SIGTERM)
    signal.setitimer(signal.ITIMER_REAL, kill_after)
started = time.monotonic()
reaped = os.wait4(pid, os.WNOHANG)
while not reaped[0] and os.stat(log).st_size == 0 and time.monotonic() < started + kill_after:
    time.sleep(0.05)
    reaped = os.wait4(pid, os.WNOHANG)
if not reaped[0]:
    signal.signal(signal.SIGALRM, alarm)
    now = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, max(started + hang_up_after - now, 1.0))
    reaped = os.wait4(pid, 0)
_, status, usage = reaped
took = time.monotonic() - hung_up[0] if hung_up else -1
print(usage.ru_maxrss, os.waitstatus_to_exitcode(status), took)
"""


def _reaped(command: list[str], env: dict[str, str], log: Path, call_s: float) -> _Reaped:
    """Run ``command``, its output into ``log``; hang it up ``call_s`` after it started
    (killed EXIT_TIMEOUT_S later); its peak RSS and hang-up → exit time as :data:`_PEAK_OF`
    says."""
    start = time.monotonic()
    timing = (str(call_s), str(EXIT_TIMEOUT_S), str(log))
    done = subprocess.run(
        [sys.executable, "-S", "-c", _PEAK_OF, *timing, *command],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    kib, exit_code, took = done.stdout.split()
    return _Reaped(
        peak_rss_mb=round(int(kib) / 1024, 1),  # ru_maxrss is in KiB on Linux
        seconds=round(time.monotonic() - start, 1),
        exit_code=int(exit_code),
        timed_out=int(exit_code) == -signal.SIGKILL,
        hang_up_exit_s=None if float(took) < 0 else round(float(took), 2),
    )


def _kb(path: Path) -> float:
    return round(path.stat().st_size / 1024, 1) if path.exists() else 0.0


def _report(path: Path) -> dict[str, Any]:
    """The report as written (empty without one)."""
    if not path.exists():
        return {}
    read: dict[str, Any] = json.loads(path.read_text())
    return read


def _unkept(report: dict[str, Any]) -> dict[str, int]:
    """What the report counted and did not keep, by kind (``units``: units only counted),
    where any was."""
    counts = {
        "malformed": report.get("malformed_unkept", 0),
        "units": report.get("units_unkept", 0),
    }
    counts |= report.get("frames_unkept", {})
    return {kind: int(count) for kind, count in counts.items() if count}


def _exit_words(seconds: float | None) -> str:
    return "— (it ended before)" if seconds is None else f"{seconds:.2f} s"


def hostile_table(figures: dict[str, Any]) -> str:
    """The figures as lines: each target, then each brain's call."""
    lines = [
        f"hostile input: {figures['tts_examples']:,} texts spoken, "
        f"{figures['printer_examples']:,} printed, each brain met for "
        f"{figures['call_s']:g} s ({figures['seconds']:.0f} s)"
    ]
    lines += target_lines(figures, HOSTILE_MODE.bounds())
    for name, call in figures["brains"].items():
        late = ", timed out" if call["timed_out"] else ""
        unkept = ", ".join(f"{kind} {count:,}" for kind, count in call["unkept"].items())
        lines.append(
            f"  {name:<18} peak {call['peak_rss_mb']:>5.0f} MB  {call['seconds']:>5.1f} s  "
            f"report {call['report_kb']:>6.0f} KB  store {call['store_kb']:>6.0f} KB  "
            f"hang-up → exit {_exit_words(call['hang_up_exit_s'])}  "
            f"{call['outcome'] or 'no report'}{late}" + (f"  counted: {unkept}" if unkept else "")
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
