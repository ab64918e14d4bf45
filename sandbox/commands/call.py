"""``sandbox call``: one call with no terminal UI, played from a caller script."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from sandbox.audio.echo_path import LaptopEchoPath
from sandbox.audio.engine import AudioEngine
from sandbox.audio.script_mic import ScriptMic
from sandbox.call.core import CallCore
from sandbox.call.sim_playout import SimPlayout
from sandbox.commands.options import (
    add_audio_options,
    add_call_options,
    audio_options,
    call_options,
)
from sandbox.errors import UserError
from sandbox.harness.builtin import brain_url_for
from sandbox.host.launch import CallNotPlaced, open_call
from sandbox.host.legs import audio_call
from sandbox.host.script import Script, load_script
from sandbox.host.script_runner import ScriptRunner, play_through
from sandbox.host.session import CallHost
from sandbox.host.voice_caller import InjectedVoice
from sandbox.record.record_text import record_lines
from sandbox.record.recorder import Recorder, default_report_path
from sandbox.record.transcript import transcript, transcript_line

HELP = "run one headless call from a caller script (TOML) and write its report (JSON)"
#: The simulated speaking rate when the script does not set one (~170 words a minute).
DEFAULT_MS_PER_WORD = 350


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``sandbox call``."""
    add_call_options(parser)
    parser.add_argument("--script", required=True, type=Path, help="caller script (TOML)")
    parser.add_argument("--report", type=Path, help="where to write the report JSON")
    parser.add_argument(
        "--audio",
        choices=("sim", "real"),
        default="sim",
        help="sim: caller turns are text and playout is simulated (default)",
    )
    parser.add_argument("--ms-per-word", type=int, help="simulated speaking rate")
    # No --mic: the script speaks for the caller (espeak-ng into the microphone path).
    add_audio_options(parser, mic=False)
    parser.add_argument(
        "--echo-path",
        action="store_true",
        help="real audio: leak the bot's voice back into the injected microphone like a "
        "laptop speaker would (delay, gain, reverb)",
    )


def run(args: argparse.Namespace) -> int:
    """Run the call and print what was said and what was heard."""
    script = load_script(args.script)
    if args.audio == "sim" and (args.speaker or args.no_aec or args.stt_model or args.echo_path):
        raise UserError("--speaker, --no-aec, --stt-model and --echo-path need --audio real")
    if args.echo_path and args.speaker not in (None, "none"):
        raise UserError("--echo-path plays through a simulated laptop speaker: leave out --speaker")
    if args.audio == "real":
        report = asyncio.run(_real_call(args, script))
    else:
        rate = args.ms_per_word or script.ms_per_word or DEFAULT_MS_PER_WORD
        report = asyncio.run(_sim_call(args, script, rate))
    _print_summary(report)
    return 0 if report["outcome"] != "not_reached" else 1


async def _sim_call(args: argparse.Namespace, script: Script, ms_per_word: int) -> dict[str, Any]:
    options = call_options(args, recording="sim")
    async with brain_url_for(options) as url:
        try:
            host = await open_call(options, url, SimPlayout(ms_per_word=ms_per_word))
        except CallNotPlaced as failed:
            return _written(args, failed.core, failed.recorder)
        return await _play(args, host, ScriptRunner(host, script))


async def _real_call(args: argparse.Namespace, script: Script) -> dict[str, Any]:
    options = call_options(args, recording="audio")
    engine = AudioEngine(audio_options(args))
    echo = LaptopEchoPath(ScriptMic.RATE) if args.echo_path else None
    mic = ScriptMic(echo)
    engine.mic_source = mic
    if echo is not None:  # the simulated laptop's speaker, on the mic's clock
        engine.speaker_sink = mic.speaker
    await asyncio.to_thread(engine.load, lambda words: print(words, file=sys.stderr))
    async with brain_url_for(options) as url:
        try:
            async with audio_call(options, url, engine) as host:
                return await _play(
                    args, host, ScriptRunner(host, script, caller=InjectedVoice(mic))
                )
        except CallNotPlaced as failed:
            return _written(args, failed.core, failed.recorder)


async def _play(args: argparse.Namespace, host: CallHost, runner: ScriptRunner) -> dict[str, Any]:
    if host.recorder.writer is not None:  # told from the writer's thread
        host.recorder.writer.on_failure = lambda words: print(
            f"sandbox call: {words}", file=sys.stderr
        )
    await play_through(host, runner)
    return _written(args, host.core, host.recorder, host.now(), script_notes=runner.notes)


def _written(
    args: argparse.Namespace,
    core: CallCore,
    recorder: Recorder,
    duration_ms: int = 0,
    **extra: Any,
) -> dict[str, Any]:
    """Finish the session and export its report (a call never placed has one too)."""
    path: Path = args.report or default_report_path(core.session_id, recorder.started_at)
    recorder.write(path, core, duration_ms, **extra)
    report: dict[str, Any] = json.loads(path.read_text())
    report["_path"] = str(path)
    return report


def _print_summary(report: dict[str, Any]) -> None:
    """The call as it went: caller turns, what the caller heard of each unit, and each error
    or stall where it happened."""
    print(f"session {report['session_id']} · outcome {report['outcome']} · {report['ended_by']}")
    if report["ended_by"] == "dial_failed":
        print(f"  the call was never placed: {report['end_detail']}")
    for entry in transcript(report):
        print(transcript_line(entry))
    for note in report.get("script_notes", []):
        print(f"  note: {note}")
    print("the call record:")
    for line in record_lines(report["record"]):
        print(f"  {line}")
    print(f"report: {report['_path']}")
