"""Running caller scripts as tests against one brain: each script is a real call over the
real WebSocket, its expectations judged once it has ended (:mod:`sandbox.caller.expect`).

A script *fails* when an expectation does not hold or a step could not be carried out (the
script's notes); it is *broken* when the brain could not be reached or a rule of the wire
was broken (the conformance checker's findings on the call's frames), whatever its
expectations said: 0, 1 and 2 as an exit status. Run N times (``--repeat``), a script that
passes some runs and not others is flaky (:mod:`sandbox.testing.script_results`).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from sandbox.audio.voices import voice_speaking
from sandbox.brains import make_brain
from sandbox.call.sim_playout import SimPlayout
from sandbox.caller.expect import Answer, Failure, answer, check_end, check_step
from sandbox.caller.script import DEFAULT_MS_PER_WORD, Script, ScriptProblems, load_script
from sandbox.caller.script_runner import ScriptRunner, play_through
from sandbox.check.wirelog import WireLog
from sandbox.errors import UsageError, UserError
from sandbox.harness.builtin import brain_choice, serving
from sandbox.host.core_records import CoreRecords
from sandbox.host.launch import CallNotPlaced, CallOptions, open_call
from sandbox.host.session import CallHost
from sandbox.host.warp import WarpClock
from sandbox.line.profile import DEFAULT_LINE, line_profile
from sandbox.record.plain_text import visible
from sandbox.record.report import Report
from sandbox.record.session_kinds import CallMode
from sandbox.record.store import TEST_ORIGIN
from sandbox.sdk import Brain
from sandbox.testing.script_results import Run, ScriptResult, ScriptRuns
from sandbox.wire.catalog import language_name

if TYPE_CHECKING:  # the speech stack loads only for a run with real audio
    from sandbox.audio.engine import AudioEngine

#: What names the brain under test: a WebSocket URL, a built-in brain's name, or a factory
#: of brains served in-process for the run (a pytest fixture's own brain class).
BrainSpec = str | Callable[[], Brain]
#: Scripts played at once with simulated audio (a real voice has one microphone).
SIM_AT_ONCE = 3
#: Failures listed for one script; the rest are counted.
MAX_FAILURES = 50
#: Folders never searched for scripts, as pytest's ``norecursedirs`` (hidden ones too).
_NOT_SEARCHED = frozenset({"node_modules", "venv", "build", "dist", "__pycache__"})


def find_scripts(paths: Sequence[Path]) -> list[Path]:
    """Every ``test_*.toml`` under ``paths`` (a file named is taken as it is), sorted; a
    :class:`~sandbox.errors.UsageError` when a path is missing or nothing is found."""
    found: list[Path] = []
    for path in paths:
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            found += sorted(
                p
                for p in path.rglob("test_*.toml")
                if p.is_file() and not _skipped(p.relative_to(path).parts[:-1])
            )
        else:
            raise UsageError(f"{path}: no such file or folder")
    if not found:
        where = ", ".join(str(p) for p in paths)
        raise UsageError(f"no caller scripts (test_*.toml) under {where}")
    return found


def _skipped(folders: Sequence[str]) -> bool:
    """A folder pytest would not look in either: hidden, a virtualenv, a build's output
    (an installed package's own test files are not this brain's scripts)."""
    return any(f.startswith(".") or f in _NOT_SEARCHED for f in folders)


async def run_scripts(
    paths: Iterable[Path],
    brain: BrainSpec,
    audio: str = "sim",
    done: Callable[[ScriptResult], None] | None = None,
    repeat: int = 1,
) -> Run:
    """Run every script ``repeat`` times against ``brain`` (three calls at once in sim, one
    at a time with real audio); ``done`` is told of each run's result as it comes."""
    scripts = list(paths)
    gate = asyncio.Semaphore(SIM_AT_ONCE if audio == "sim" else 1)
    models = await _loaded_models() if audio == "real" else None

    async with brain_url(brain) as url:

        async def one(path: Path) -> ScriptResult:
            async with gate:
                result = await run_script(path, url, models)
            if done is not None:
                done(result)
            return result

        results = await asyncio.gather(*(one(path) for path in scripts for _ in range(repeat)))
    runs = (results[i * repeat : (i + 1) * repeat] for i in range(len(scripts)))
    return Run(tuple(ScriptRuns(p, tuple(r)) for p, r in zip(scripts, runs, strict=True)), repeat)


@contextlib.asynccontextmanager
async def brain_url(brain: BrainSpec) -> AsyncIterator[str]:
    """The URL to dial for ``brain``: its own, or a built-in or given brain served on
    loopback for as long as the block runs."""
    if isinstance(brain, str):
        url, builtin = brain_choice(brain)
        if url is not None:
            yield url
            return
        brain = make_brain(builtin)
    async with serving(brain) as url:
        yield url


async def run_script(path: Path, url: str, models: AudioEngine | None = None) -> ScriptResult:
    """One script as one call to ``url``, judged; with real audio through an engine of its
    own on ``models``' loaded models (an engine serves one call), its caller's voice
    spoken into the microphone path."""
    started = time.monotonic()
    try:
        script = load_script(path)
    except UserError as exc:  # the author's script, not the brain: this one fails, others run
        problems = exc.problems if isinstance(exc, ScriptProblems) else (str(exc),)
        failures = [Failure("script", "a caller script that reads", visible(p)) for p in problems]
        return ScriptResult(path, time.monotonic() - started, bounded(failures))
    recording = CallMode.SIM if models is None else CallMode.AUDIO
    options = CallOptions(brain_url=url, recording=recording, origin=TEST_ORIGIN)
    if script.language is not None:
        voice = voice_speaking(script.language)
        if voice is None:
            code = language_name(script.language)
            failure = Failure("script", "a voice that speaks its language", f"none speaks {code}")
            return ScriptResult(path, time.monotonic() - started, (failure,))
        settings = replace(
            options.settings,
            voice=voice,
            tts_language=script.language,
            stt_language=script.language,
        )
        options = replace(options, settings=settings)
    try:
        line = line_profile(
            str(path.parent / script.line) if script.line and script.line.endswith(".toml")
            else script.line or DEFAULT_LINE
        )  # fmt: skip
    except UserError as exc:
        failure = Failure("script", "a line profile that reads", visible(str(exc)))
        return ScriptResult(path, time.monotonic() - started, (failure,))
    if line.is_line and models is None:
        failure = Failure(
            "script",
            "a call with sound",
            f"line = {visible(line.name)} shapes the call's sound: run it with --audio real",
        )
        return ScriptResult(path, time.monotonic() - started, (failure,))
    try:
        if models is None:
            rate = script.ms_per_word or DEFAULT_MS_PER_WORD
            host = await open_call(options, url, SimPlayout(ms_per_word=rate), warp=WarpClock())
            return await _played(path, started, script, host, ScriptRunner(host, script))
        from sandbox.audio.audio_options import AudioOptions, phone_line
        from sandbox.audio.engine import AudioEngine
        from sandbox.audio.script_mic import ScriptMic
        from sandbox.caller.espeak_voice import caller_voice
        from sandbox.caller.voice_caller import InjectedVoice
        from sandbox.host.audio_call import audio_call

        mic = ScriptMic()
        options = replace(options, line=phone_line(line))
        engine = AudioEngine(
            AudioOptions(line=line),
            transcriber=models.transcriber,
            synthesizers=models.synthesizers,
            mic_source=mic,
        )
        async with audio_call(options, url, engine) as host:
            caller = InjectedVoice(mic, voice=caller_voice(script.language))
            runner = ScriptRunner(host, script, caller=caller)
            return await _played(path, started, script, host, runner)
    except CallNotPlaced as failed:
        return ScriptResult(path, time.monotonic() - started, unreachable=str(failed))


async def _played(
    path: Path, started: float, script: Script, host: CallHost, runner: ScriptRunner
) -> ScriptResult:
    """Play the script into the host's call to its end, and judge it."""
    kept = CoreRecords(host)
    await play_through(host, runner)
    report = host.recorder.finish(host.core, host.now(), runner.notes)
    rule_breaks = tuple(
        visible(f"{f.rule.section}: {f.detail}") for f in WireLog(kept.records).findings
    )
    answers = answers_of(runner, report)
    return ScriptResult(
        path,
        time.monotonic() - started,
        bounded(judge(script, runner.notes, answers, report)),
        rule_breaks,
        session_id=report.session_id,
        answers=tuple(sorted(answers.items())),
    )


def bounded(failures: Sequence[Failure]) -> tuple[Failure, ...]:
    """The first :data:`MAX_FAILURES` failures, and one more line counting the rest: a script
    with thousands of misses reads as a screenful, in the terminal and in the files."""
    if len(failures) <= MAX_FAILURES:
        return tuple(failures)
    rest = len(failures) - MAX_FAILURES
    more = Failure("script", f"at most {MAX_FAILURES} failures listed", f"{rest:,} more not listed")
    return (*failures[:MAX_FAILURES], more)


def answers_of(runner: ScriptRunner, report: Report) -> dict[int, Answer]:
    """The answer to each step that minted a turn, by the step's number."""
    starts = sorted(mark.at_ms for mark in runner.marks)
    answers = {}
    for mark in runner.marks:
        after = [t for t in starts if t > mark.at_ms]
        answers[mark.index] = answer(mark, after[0] if after else None, report, runner.first_audio)
    return answers


def judge(
    script: Script, notes: Sequence[str], answers: Mapping[int, Answer], report: Report
) -> list[Failure]:
    """Every failure of a played script: its notes (a step it could not carry out), each
    step's expectations on its answer, then the script's own on the whole call."""
    failures = [Failure("script", "every step played", visible(note)) for note in notes]
    for index, step in enumerate(script.steps, start=1):
        if step.expect is None:
            continue
        where = f"step {index} ({step.kind})"
        got = answers.get(index)
        if got is None:
            failures.append(Failure(where, "its answer", "the step was never played"))
            continue
        failures += check_step(where, step.expect, got)
    if script.expect is not None:
        failures += check_end(script.expect, report)
    return failures


async def _loaded_models() -> AudioEngine:
    """An engine whose models (Whisper, the default voice) are loaded once for the run."""
    from sandbox.audio.audio_options import AudioOptions
    from sandbox.audio.engine import AudioEngine

    engine = AudioEngine(AudioOptions())
    await asyncio.to_thread(engine.load, lambda words: print(words, file=sys.stderr))
    return engine
