"""``sandbox call``: one call with no terminal UI, played from a caller script."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import signal
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from sandbox.audio.audio_options import phone_line
from sandbox.audio.voice_plugin import is_plugin
from sandbox.call.core import CallCore
from sandbox.call.effects import (
    BrainStalled,
    CallerShown,
    DeadAir,
    DeadAirEnded,
    Effect,
    ToApp,
)
from sandbox.call.ledger_records import WireErrorRecord
from sandbox.call.sim_playout import SimPlayout
from sandbox.call.turn_records import FinalizeSent, TurnKind, TurnSent
from sandbox.call.unit_records import WatermarkRaised
from sandbox.caller.script import DEFAULT_MS_PER_WORD, Script, load_script
from sandbox.caller.script_runner import ScriptRunner, play_through
from sandbox.commands.options import (
    add_audio_options,
    add_call_options,
    add_ms_per_word,
    audio_options,
    call_options,
)
from sandbox.commands.written import FORCE_HELP, clear_the_way
from sandbox.errors import UserError
from sandbox.harness.builtin import brain_url_for
from sandbox.host.launch import CallNotPlaced, open_call
from sandbox.host.session import CallHost
from sandbox.line.profile import DEFAULT_LINE, LineProfile, line_profile
from sandbox.option_values import path
from sandbox.record.plain_text import visible
from sandbox.record.record_text import record_lines
from sandbox.record.recorder import Recorder, default_report_path
from sandbox.record.reload_notice import notice_of
from sandbox.record.report import Report
from sandbox.record.session_kinds import CallMode
from sandbox.record.session_words import outcome_sentence
from sandbox.record.store import full_disk
from sandbox.record.transcript import (
    BotUnit,
    BrainReloaded,
    BrainStall,
    CallerBackchannel,
    CallerLine,
    DeadAirGap,
    EmptyUnits,
    Entry,
    FloorTaken,
    IdleNudge,
    dead_air_words,
    empty_run,
    is_empty,
    transcript_line,
    wire_error,
)
from sandbox.record.unkept_words import unkept_line

HELP = "run one headless call from a caller script (TOML) and write its report (JSON)"
#: Signals that end the call as the caller hanging up (Ctrl-C, ``kill``, a closed
#: terminal); the command then exits 128 + the signal's number, as the shell expects.
HANG_UP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``sandbox call``."""
    add_call_options(parser)
    parser.add_argument("--script", required=True, type=path, help="caller script (TOML)")
    parser.add_argument("--report", type=path, help="where to write the report JSON")
    parser.add_argument("--force", action="store_true", help=f"--report: {FORCE_HELP}")
    parser.add_argument(
        "--audio",
        choices=("sim", "real"),
        default="sim",
        help="sim: caller turns are text and playout is simulated (default)",
    )
    add_ms_per_word(
        parser, default=None, default_words=f"the script's ms_per_word, else {DEFAULT_MS_PER_WORD}"
    )
    # No --mic: the script speaks for the caller (espeak-ng into the microphone path).
    add_audio_options(parser, mic=False)
    parser.add_argument(
        "--echo-path",
        action="store_true",
        help="real audio: leak the bot's voice back into the injected microphone like a "
        "laptop speaker would (delay, gain, reverb)",
    )


def run(args: argparse.Namespace) -> int:
    """Run the call, printing what was said and what was heard as it goes; then how it ended
    and its record. A hang-up signal ends the call as the caller hanging up."""
    script = load_script(args.script)
    args = _in_script_language(args, script)
    if args.report is not None:  # refused now, not after the call
        clear_the_way([args.report], force=args.force)
    if args.audio == "sim" and (args.speaker or args.no_aec or args.stt_model or args.echo_path):
        raise UserError("--speaker, --no-aec, --stt-model and --echo-path need --audio real")
    if args.audio == "sim" and args.voice and is_plugin(args.voice):
        raise UserError(f"--voice {args.voice}: a voice of your own speaks: add --audio real")
    if args.echo_path and args.speaker not in (None, "none"):
        raise UserError("--echo-path plays through a simulated laptop speaker: leave out --speaker")
    line = _line(args, script)
    if args.audio == "sim" and line.is_line:
        raise UserError(
            f"the line {line.name} (--line, or the script's line) shapes the call's sound: "
            "it needs --audio real"
        )
    hang_up = HangUp()
    if args.audio == "real":
        report = asyncio.run(_real_call(args, script, line, hang_up))
    else:
        rate = args.ms_per_word or script.ms_per_word or DEFAULT_MS_PER_WORD
        report = asyncio.run(_sim_call(args, script, rate, hang_up))
    _print_summary(report, hang_up.caught)
    if hang_up.caught is not None:
        return 128 + hang_up.caught
    return 0 if report.report.outcome != "not_reached" else 1


@dataclass
class HangUp:
    """Hangs the call up on a signal, as the caller would: every open unit Finalized with
    what was heard, End sent, the session closed. A signal while the brain is being dialed
    hangs up as soon as it answers (the dial is bounded); a second signal stops at once."""

    caught: int | None = None
    host: CallHost | None = None

    def listen(self) -> None:
        """Catch the signals on the running loop (it drops them when it closes)."""
        loop = asyncio.get_running_loop()
        for number in HANG_UP_SIGNALS:
            # None on Windows, nor off the main thread (run in-process): the default stands.
            with contextlib.suppress(NotImplementedError, ValueError):
                loop.add_signal_handler(number, self._signalled, number)

    def attach(self, host: CallHost) -> None:
        """The call is up: a signal from now on hangs it up at once."""
        self.host = host
        if self.caught is not None:
            host.hang_up()

    def _signalled(self, number: int) -> None:
        if self.caught is not None:
            raise KeyboardInterrupt  # asked twice: out of the loop now, nothing more waited
        if self.host is not None and self.host.core.ended is not None:
            return  # it ended another way: its report is being written, as it would be
        self.caught = number
        if self.host is not None:
            self.host.hang_up()


@dataclass
class LiveTranscript:
    """Prints the call as it goes, from the core's effects as the host carries them out: each
    caller line, idle nudge, barge-in, error and reload of the brain as the core records it,
    a unit's heard text when its Finalize goes out, backchannels, stalls and dead air. A run
    of empty units is held and printed as one line when something else is, or the call ends
    (:meth:`flush`)."""

    host: CallHost
    _run: EmptyUnits | None = None  # the empty units not yet printed

    def __post_init__(self) -> None:
        self.host.on_effect.append(self._effect)

    def _effect(self, effect: Effect) -> None:
        match effect:
            case TurnSent(turn_id=turn, kind=TurnKind.CALLER, text=text):
                self._print(CallerLine(turn, text))
            case TurnSent(turn_id=turn, kind=TurnKind.IDLE, level=level):
                self._print(IdleNudge(turn, level))
            case WatermarkRaised(through_turn=through):
                self._print(FloorTaken(through))
            case WireErrorRecord():
                self._print(wire_error(effect))
            case ToApp(type=rtvi_type, data=data, recorded=True):
                notice = notice_of(rtvi_type, data)
                if notice is not None:
                    self._print(BrainReloaded(notice, self.host.now()))
            case FinalizeSent(speech_id=sid):
                unit = self.host.core.unit(sid)
                if unit is not None:  # its heard text is fixed: the Finalize says so
                    fate, cut = unit.reported_fate, unit.interrupted
                    self._print(
                        BotUnit(unit.speech_id, unit.turn_id, unit.generated, unit.heard, fate, cut)
                    )
            case CallerShown(kind="backchannel", text=text, resumed=resumed):
                self._print(CallerBackchannel(text, resumed))
            case BrainStalled(turn_id=turn, waited_ms=waited):
                self._print(BrainStall(turn, waited))
            case DeadAir(turn_id=turn, speech_id=sid, silent_ms=silent):
                words = dead_air_words(turn, sid, silent, lasting=True)
                self._line(f"  ⏸ {words}")
            case DeadAirEnded(turn_id=turn, speech_id=sid, silent_ms=silent):
                self._print(DeadAirGap(turn, sid, silent))

    def _print(self, entry: Entry) -> None:
        if isinstance(entry, BotUnit) and is_empty(entry):
            self._run = empty_run(entry) if self._run is None else self._run.add(entry)
            return
        self._line(transcript_line(entry))

    def _line(self, line: str) -> None:
        self.flush()
        print(line, flush=True)

    def flush(self) -> None:
        """Print the run of empty units held, if any."""
        if self._run is not None:
            print(transcript_line(self._run), flush=True)
            self._run = None


async def _sim_call(
    args: argparse.Namespace, script: Script, ms_per_word: int, hang_up: HangUp
) -> Written:
    options = call_options(args, recording=CallMode.SIM)
    async with brain_url_for(options) as url:
        hang_up.listen()
        try:
            host = await open_call(options, url, SimPlayout(ms_per_word=ms_per_word))
        except CallNotPlaced as failed:
            return _written(args, failed.core, failed.recorder)
        return await _play(args, host, ScriptRunner(host, script), hang_up)


def _in_script_language(args: argparse.Namespace, script: Script) -> argparse.Namespace:
    """The call starts in the script's language on both legs when the command line names
    no language."""
    named = args.language or args.speak_language or args.hear_language
    if script.language is None or named:
        return args
    return argparse.Namespace(**{**vars(args), "language": script.language})


def _line(args: argparse.Namespace, script: Script) -> LineProfile:
    """The line the call is on: --line's, else the script's (a profile file beside it)."""
    given: LineProfile | None = args.line  # parsed by --line's type
    if given is not None:
        return given
    spec = script.line or DEFAULT_LINE
    if spec.endswith(".toml"):
        spec = str(Path(args.script).parent / spec)
    return line_profile(spec)


async def _real_call(
    args: argparse.Namespace, script: Script, line: LineProfile, hang_up: HangUp
) -> Written:
    # The speech stack loads only here: a simulated call needs none of it.
    from sandbox.audio.echo_path import LaptopEchoPath
    from sandbox.audio.engine import AudioEngine
    from sandbox.audio.script_mic import ScriptMic
    from sandbox.caller.espeak_voice import caller_voice
    from sandbox.caller.voice_caller import InjectedVoice
    from sandbox.host.audio_call import audio_call

    options = call_options(args, recording=CallMode.AUDIO)
    options = replace(options, line=phone_line(line))
    echo = LaptopEchoPath(ScriptMic.RATE) if args.echo_path else None
    mic = ScriptMic(echo)
    # With an echo path the speaker is the simulated laptop's, on the mic's clock.
    speaker = mic.speaker if echo is not None else None
    audio = replace(audio_options(args), line=line)
    engine = AudioEngine(audio, mic_source=mic, speaker_sink=speaker)
    await asyncio.to_thread(engine.load, lambda words: print(words, file=sys.stderr))
    async with brain_url_for(options) as url:
        hang_up.listen()
        try:
            async with audio_call(options, url, engine) as host:
                caller = InjectedVoice(mic, voice=caller_voice(script.language))
                runner = ScriptRunner(host, script, caller=caller)
                return await _play(args, host, runner, hang_up)
        except CallNotPlaced as failed:
            return _written(args, failed.core, failed.recorder)


async def _play(
    args: argparse.Namespace, host: CallHost, runner: ScriptRunner, hang_up: HangUp
) -> Written:
    stopped: list[str] = []
    if host.recorder.writer is not None:  # told from the writer's thread
        host.recorder.writer.on_failure = lambda words: _recording_stopped(words, stopped)
    printer = LiveTranscript(host)
    hang_up.attach(host)
    try:
        await play_through(host, runner)
    finally:
        printer.flush()
    written = _written(args, host.core, host.recorder, host.now(), script_notes=runner.notes)
    return replace(written, recording_stopped=stopped[0]) if stopped else written


def _recording_stopped(words: str, stopped: list[str]) -> None:
    stopped.append(words)
    print(f"sandbox call: {words}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Written:
    """A finished call's report and where it went: ``unwritten`` says why the file is
    missing (a full disk); ``recording_stopped``, why the store holds the call in part."""

    report: Report
    path: Path
    unwritten: str | None = None
    recording_stopped: str | None = None


def _written(
    args: argparse.Namespace,
    core: CallCore,
    recorder: Recorder,
    duration_ms: int = 0,
    script_notes: list[str] | None = None,
) -> Written:
    """Finish the session and export its report (a call never placed has one too). A
    report that cannot be written (a full disk) is still the call's: it is printed, and
    ``unwritten`` says why the file is missing."""
    path: Path = args.report or default_report_path(core.session_id, recorder.started_at)
    try:
        recorder.write(path, core, duration_ms, script_notes)
    except OSError as exc:
        report = recorder.final_report
        if report is None:  # the session itself could not be finished: not the disk's doing
            raise
        full = exc.errno == errno.ENOSPC
        unwritten = str(full_disk(path.parent)) if full else f"{exc.strerror or exc}"
        return Written(report, path, unwritten)
    assert recorder.final_report is not None  # write() finished the session
    return Written(recorder.final_report, path)


def _print_summary(written: Written, signalled: int | None) -> None:
    """How the call ended, the script's notes, the call record and where the report is (the
    transcript was printed as the call went)."""
    report = written.report
    ending = outcome_sentence(report.outcome, report.ended_by)
    print(f"session {report.session_id} · outcome {ending}")
    detail = visible(report.end_detail)
    if report.ended_by == "dial_failed":
        print(f"  the call was never placed: {detail}")
    elif detail:
        print(f"  the call ended: {detail}")
    if signalled is not None:
        name = signal.Signals(signalled).name
        print(f"  hung up on {name}{' (Ctrl-C)' if signalled == signal.SIGINT else ''}")
    for note in report.script_notes or ():
        print(f"  note: {visible(note)}")
    if (unkept := unkept_line(report)) is not None:
        print(f"  {unkept}")
    print("the call record:")
    for line in record_lines(report.record) if report.record else ():
        print(f"  {line}")
    if written.recording_stopped is not None:
        print(f"  the session store holds the call only in part: {written.recording_stopped}")
    if written.unwritten is not None:
        print(f"report: not written to {written.path}: {written.unwritten}")
    else:
        print(f"report: {written.path}")
