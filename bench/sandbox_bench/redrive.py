"""How fast a saved call re-drives: ``sandbox bench --redrive [--minutes 5]``.

A simulated call of about the length asked for is recorded against the built-in concierge
(a caller asking the studio's usual questions at 350 ms a word, with a barge-in every fifth
turn, a backchannel every seventh and an idle nudge every tenth), itself on the warp clock
so the bench does not wait five minutes for it. Then it is re-driven against the same brain
the way ``sandbox replay ID --brain builtin`` does, and timed on the wall clock:

* ``redrive_s``: wall seconds for the whole re-drive (dial, play, record, diff);
* ``speedup``: the call's own length over that (target ≥ 20 times real time, so that a
  5-minute call re-drives in ≤ 15 s on a 2-core machine);
* ``redrive_exit``: the diff's exit status, 0 when the same brain heard the same;
* ``brain_s``: of the re-drive, the wall time the brain spent answering (a caller's turn
  going out → that answer's SpeechEnd coming in), which the warp clock never skips: the
  built-in concierge streams a piece every 15 ms, as a language model would;
* ``speedup_without_brain``: the call's length over the re-drive's time less ``brain_s``,
  what the sandbox's own side manages.

Then the false alarms (:func:`measure_false_alarms`): a re-drive against the same brain must
say "unchanged", in every mode, or a brain author stops believing it. Sessions are recorded
the way users record them (:func:`record_sessions`): typed calls in the app, driven headless
by Textual's pilot, with typing over the bot, F2 with and without text and a hang-up over the
bot; simulated calls on real time with barge-ins, backchannels, paused thoughts, idle nudges
and app messages; the tool-waits brain (a filler, a 0.3-2 s tool, the answer); the guardrail
brain taking speech back (SpeechCancel); the demo's scenes; and a couple of real-audio calls
(espeak into the microphone path, PulseAudio's virtual speaker when there is one) with a
barge-in. Each is re-driven against its own brain :data:`RUNS` times and every verdict counted:

* ``redrive_sessions``, ``redrive_runs``: sessions recorded, re-drives made;
* ``redrive_false_changes``: re-drives that said "changed" (or broke a rule) although the
  brain was the same: must be 0;
* ``redrive_stt_differences``: real-audio re-drives whose caller lines Whisper heard with
  other words than the original's (the answers may follow them), kept apart, never counted
  as a change of heard history;
* ``redrive_speed_x``: the simulated sessions' call time over their re-drives' wall time
  less the brain's own answering (as ``speedup_without_brain``);
* ``redrive_by_kind``: sessions, runs and false changes per kind; ``redrive_changes``: what
  each false change was, to read when it is not 0;
* ``audit_sessions``, ``audit_units``, ``audit_exact_fraction``, ``audit_max_words_off``:
  every real-audio session of the store, originals and re-drives, audited against its
  speaker leg (:mod:`sandbox_bench.audit`).

The keys and their targets are declared in :mod:`sandbox_bench.mode_keys`.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TypeVar

from textual.widgets import Input

from sandbox.audio.audio_options import AudioOptions
from sandbox.audio.engine import AudioEngine
from sandbox.call.effects import CallState
from sandbox.call.settings import Settings
from sandbox.call.sim_playout import SimPlayout
from sandbox.caller.script import parse_script
from sandbox.caller.script_runner import ScriptRunner, play_through
from sandbox.demo.headless import play_scene
from sandbox.demo.scene import SHIPPED, load_scene
from sandbox.harness.builtin import brain_url_for
from sandbox.host.audio_call import audio_call
from sandbox.host.launch import CallOptions, open_call
from sandbox.host.session import CallHost
from sandbox.host.warp import WarpClock, brain_busy_ms
from sandbox.record.export import session_records
from sandbox.record.session_kinds import CallMode
from sandbox.record.store import SessionStore, short_id
from sandbox.replay.diff import Diff
from sandbox.replay.redrive import Redrive, redrive, redrive_audio
from sandbox.ui.app import SandboxApp
from sandbox.ui.runner import CallSetup
from sandbox.ui.typed_audio import TypedAudio
from sandbox_bench import pulse
from sandbox_bench.audit import audit_stored_sessions
from sandbox_bench.figures import Progress, target_lines
from sandbox_bench.mode_keys import REDRIVE_MODE
from sandbox_bench.own_home import own_home
from sandbox_bench.pulse_voice import PulseVoice

_MS_PER_WORD = 350
_SECONDS_PER_TURN = 9  # the concierge's answers at 350 ms a word, roughly
_QUESTIONS = (
    "What are your opening hours?",
    "How much is a class?",
    "Where are you exactly?",
    "Is there parking?",
    "Can I book a class for tomorrow?",
)


@dataclass(frozen=True)
class RedriveFigures:
    """One recorded call and its re-drive."""

    call_s: float
    turns: int
    redrive_s: float
    speedup: float
    redrive_exit: int
    brain_s: float
    speedup_without_brain: float


def script_for(minutes: float) -> str:
    """A caller script of about ``minutes`` against the concierge."""
    turns = max(3, round(minutes * 60 / _SECONDS_PER_TURN))
    lines = [f"ms_per_word = {_MS_PER_WORD}"]
    for turn in range(1, turns + 1):
        question = _QUESTIONS[turn % len(_QUESTIONS)]
        if turn % 5 == 0:
            step = f'barge_in = "Sorry, {question.lower()}"\nafter_words = 6'
        else:
            step = f'say = "{question}"'
        lines.append(f"[[step]]\n{step}")
        if turn % 7 == 0:
            lines.append('[[step]]\nbackchannel = "mm-hmm"\nafter_words = 3')
        if turn % 10 == 0:
            lines.append("[[step]]\nsilence_ms = 9000")
    return "\n\n".join(lines) + "\n"


async def measure_redrive(minutes: float, progress: Progress) -> RedriveFigures:
    """Record a call of about ``minutes`` in a store of the bench's own and re-drive it."""
    with own_home():
        script = parse_script(script_for(minutes), "the bench's caller")
        progress(f"  recording a {minutes:g}-minute simulated call (on the warp clock)")
        options = CallOptions(builtin="concierge", recording=CallMode.SIM)
        async with brain_url_for(options) as url:
            host = await open_call(
                options, url, SimPlayout(ms_per_word=_MS_PER_WORD), warp=WarpClock()
            )
            runner = ScriptRunner(host, script)
            await play_through(host, runner)
            host.recorder.finish(host.core, host.now(), script_notes=runner.notes)
        with SessionStore() as store:
            row = store.find(host.core.session_id)
        call_s = (row.duration_ms or 0) / 1000
        progress(f"  re-driving it ({call_s:.0f} s of call, {row.caller_turns} turns)")
        start = time.perf_counter()
        done = await redrive(row.id, None)
        redrive_s = time.perf_counter() - start
        progress(f"  re-drove in {redrive_s:.1f} s ({call_s / redrive_s:.0f} times real time)")
        with SessionStore() as store:
            brain_s = brain_busy_ms(session_records(store, done.session_id)) / 1000
        return RedriveFigures(
            call_s=round(call_s, 1),
            turns=row.caller_turns or 0,
            redrive_s=round(redrive_s, 2),
            speedup=round(call_s / redrive_s, 1),
            redrive_exit=done.diff.exit_status,
            brain_s=round(brain_s, 2),
            speedup_without_brain=round(call_s / max(redrive_s - brain_s, 1e-3), 1),
        )


def redrive_table(figures: dict[str, object]) -> str:
    """The figures as lines, the speed and the false alarms beside their targets."""
    head = (
        f"re-drive, a {figures['call_s']} s simulated call ({figures['turns']} turns): "
        f"{figures['redrive_s']} s, exit {figures['redrive_exit']}; the brain answering "
        f"{figures['brain_s']} s of it ({figures['speedup_without_brain']} times real time "
        "without it)"
    )
    alarms = (
        f"false alarms: {figures['redrive_false_changes']} of {figures['redrive_runs']} "
        f"re-drives of {figures['redrive_sessions']} sessions against their own brain said "
        f"changed; {figures['redrive_stt_differences']} real-audio re-drives heard other "
        f"words (Whisper); the sandbox's own part at {figures['redrive_speed_x']} times "
        "real time"
    )
    audit = (
        [
            f"audit of the {figures['audit_sessions']} real-audio sessions: "
            f"{figures['audit_units']} units, {figures['audit_exact_fraction']} exact, "
            f"words off at most {figures['audit_max_words_off']}"
        ]
        if figures.get("audit_units")
        else []
    )
    return "\n".join([head, alarms, *audit, *target_lines(figures, REDRIVE_MODE.bounds())])


async def measure_redrive_bench(
    minutes: float, progress: Progress, *, quick: bool = False
) -> dict[str, object]:
    """``sandbox bench --redrive``: the speed of one long call's re-drive, then the false
    alarms (``quick``: a reduced set, no real audio), each in a store of the bench's own."""
    speed = await measure_redrive(minutes, progress)
    progress("  false alarms: sessions in every mode, re-driven against their own brain")
    with own_home():
        alarms = await measure_false_alarms(progress, quick=quick)
        audit = await asyncio.to_thread(audit_stored_sessions, progress)
    return {**asdict(speed), **asdict(alarms), **audit}


# ------------------------------------------------------------------ false alarms

_T = TypeVar("_T")
#: Re-drives of each session against its own brain.
RUNS = 3
#: Re-drives at once (as ``sandbox replay --all`` runs them); real audio goes one at a time,
#: beside them.
AT_ONCE = 3
#: Simulated calls recorded at once.
RECORD_AT_ONCE = 6
#: Speaking rate of the bench's own calls: fast, so recording them in real time is quick.
_FAST_MS = 60
#: The idle wait of the simulated calls, so a silence step meets a nudge in under 2 s.
_IDLE_MS = 1500
_TOOL_WAITS = "sandbox.brains.tool_waits:ToolWaits"


@dataclass(frozen=True)
class Recorded:
    """A session the bench recorded, and how to re-drive it."""

    session_id: str
    kind: str
    #: The built-in brain it was recorded against (a spec ``make_brain`` reads).
    brain: str = "concierge"
    audio: bool = False


@dataclass(frozen=True)
class FalseAlarmFigures:
    """Every re-drive's verdict, counted (see the module doc)."""

    redrive_sessions: int
    redrive_runs: int
    redrive_false_changes: int
    redrive_stt_differences: int
    redrive_speed_x: float
    redrive_by_kind: dict[str, dict[str, int]]
    redrive_changes: list[str]


def _script(*steps: str, rate: int = _FAST_MS) -> str:
    return f"ms_per_word = {rate}\n" + "".join(f"[[step]]\n{step}\n" for step in steps)


#: Simulated callers against the concierge, on real time: barge-ins (over the greeting too),
#: backchannels, paused thoughts, idle nudges and an escalation, app messages, typed turns,
#: a hang-up over the bot.
SIM_SCRIPTS = (
    _script(
        'say = "What are your opening hours?"',
        'barge_in = "Sorry, how much is a class?"\nafter_words = 4',
        'say = "Thanks"',
    ),
    _script(
        'say = "How much is a class?"',
        'backchannel = "mm-hmm"\nafter_words = 3',
        'say = "Where are you exactly?"',
    ),
    _script(
        'say = "Can I come on"\nthen = "Saturday morning?"\npause_ms = 500',
        'barge_in = "Actually, what are your opening hours?"\nafter_words = 6',
    ),
    _script('say = "What are your opening hours?"', "silence_ms = 2000", 'say = "Sorry, back"'),
    _script(
        'rtvi = { type = "ui-event", data = { event = "tap", target = "pricing" } }',
        'say = "How much is a class?"',
        'barge_in = "And a monthly pass?"\nafter_words = 2',
    ),
    _script(
        'say = "Where are you exactly?"',
        'barge_in = "Wait"\nafter_words = 1',
        'barge_in = "No, the prices please"\nafter_words = 3',
    ),
    _script(
        'say = "What are your opening hours?"',
        'backchannel = "uh huh"\nafter_words = 2',
        'backchannel = "right"\nafter_words = 8',
        'end = "now"',
    ),
    _script('say = "Is there parking?"', "silence_ms = 2000", "silence_ms = 3600", 'say = "Yes"'),
    _script(
        'type = "I would rather type this"',
        'say = "How much is a class?"',
        'type = "and where are you"',
    ),
    _script('barge_in = "Hi, the opening hours?"\nafter_words = 3', 'say = "And on Sunday?"'),
    _script(
        'say = "Is there parking"\nthen = "and somewhere for bikes?"\npause_ms = 800',
        'say = "Can I book a class for tomorrow?"',
    ),
    _script(
        'say = "Can I book a class for tomorrow?"',
        'barge_in = "Make it the evening one"\nafter_words = 10',
        "end = true",
    ),
)

#: Callers of the tool-waits brain (a filler, a 0.3-2 s tool, the answer), at three rates.
TOOL_SCRIPTS = (
    _script('say = "What is the weather in Paris?"', 'say = "And in Rome?"', rate=250),
    _script('say = "Find me a flight to Oslo"', 'say = "Thanks"', rate=150),
    _script(
        'say = "Look up my last order"',
        'barge_in = "Never mind, my balance"\nafter_words = 9',
        rate=150,
    ),
    _script('say = "Who won the match?"', 'say = "And the score?"', 'say = "Bye"'),
    _script(
        'say = "Check the train times"',
        'backchannel = "okay"\nafter_words = 3',
        'say = "Thanks"',
        rate=250,
    ),
)

#: Callers of the guardrail brain, which takes a card number back mid-sentence, at a voice's
#: pace: at 60 ms a word its take-back would race a loaded machine's playout by a word.
GUARDRAIL_SCRIPTS = (
    _script('say = "What is my card number?"', 'say = "What is my balance then?"', rate=250),
    _script('say = "What is my balance?"', 'barge_in = "And my card?"\nafter_words = 3', rate=250),
    _script(
        'say = "Read me my card"',
        'barge_in = "Stop"\nafter_words = 5',
        'say = "Balance?"',
        rate=250,
    ),
)

#: Real-audio callers (espeak into the microphone): a question, then a barge-in.
AUDIO_SCRIPTS = (
    _script(
        'say = "What are your opening hours?"',
        'barge_in = "Sorry, how much is a class?"\nafter_words = 8',
    ),
    _script(
        'say = "Where are you exactly?"',
        'barge_in = "Is there parking there?"\nafter_words = 6',
    ),
)

#: Typed callers in the app: ("type", text) types and presses enter; ("fill", text) only
#: types; ("f2",) barges in; ("words", n) waits for n words since the caller's last action;
#: ("listening",) waits for the bot to finish; ("sleep", ms). Each ends with ctrl+q.
TYPED_PLANS: tuple[tuple[tuple[str, ...], ...], ...] = (
    (
        ("type", "what are your opening hours"),
        ("words", "6"),
        ("type", "how much is a class"),  # typed over the reply
        ("listening",),
        ("type", "where are you exactly"),
        ("listening",),
    ),
    (
        ("type", "how much is a class"),
        ("words", "4"),
        ("fill", "is there parking"),
        ("f2",),  # F2 with text in the box
        ("words", "5"),  # then ctrl+q over the reply
    ),
    (
        ("type", "where are you exactly"),
        ("words", "3"),
        ("f2",),  # F2 with an empty box: the floor is the caller's
        ("sleep", "400"),
        ("type", "and on sunday"),
        ("listening",),
    ),
    (
        ("type", "what are your opening hours"),
        ("type", "actually, how much is a class"),  # while the answer is still owed
        ("listening",),
    ),
)


async def _until(predicate: Callable[[], bool], what: str, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError(f"the bench's typed caller gave up waiting for {what}")
        await asyncio.sleep(0.01)


def _played(host: CallHost, mark: int, words: int) -> Callable[[], bool]:
    """``words`` words since ``mark``, or a shorter reply played out."""

    def played() -> bool:
        if host.words_played >= mark + words:
            return True
        return host.core.state is CallState.LISTENING and host.words_played > mark

    return played


async def _typed_call(plan: tuple[tuple[str, ...], ...]) -> str:
    """One typed call in the app, driven headless by Textual's pilot; its session id."""
    options = CallOptions(
        builtin="concierge", recording=CallMode.TYPED, settings=Settings(idle_ms=0)
    )
    audio = TypedAudio(_FAST_MS, "the bench's typed caller")
    app = SandboxApp(CallSetup(options, audio))
    async with app.run_test(size=(160, 50)) as pilot:
        await _until(lambda: app.host is not None, "the call")
        host = app.host
        assert host is not None

        def listening() -> bool:
            return host.words_played > 0 and host.core.state is CallState.LISTENING

        await _until(listening, "the greeting")
        box = app.query_one("#say", Input)
        mark = host.words_played
        for act, *arg in plan:
            if act in ("type", "fill"):
                box.value = arg[0]
                if act == "type":
                    await pilot.press("enter")
                    mark = host.words_played
            elif act == "f2":
                await pilot.press("f2")
                mark = host.words_played
            elif act == "words":
                await _until(_played(host, mark, int(arg[0])), f"{arg[0]} words")
            elif act == "listening":
                await asyncio.sleep(0.1)  # the line's turn is taken first
                await _until(listening, "the bot to finish")
            else:
                await asyncio.sleep(int(arg[0]) / 1000)
        await pilot.press("ctrl+q")
    return host.core.session_id


async def _sim_call(script: str, brain: str, idle_ms: int | None = None) -> str:
    """One simulated call on real time, recorded; its session id."""
    settings = Settings() if idle_ms is None else Settings(idle_ms=idle_ms)
    options = CallOptions(builtin=brain, settings=settings, recording=CallMode.SIM)
    parsed = parse_script(script, "the bench's caller")
    async with brain_url_for(options) as url:
        host = await open_call(options, url, SimPlayout(ms_per_word=parsed.ms_per_word or 60))
        runner = ScriptRunner(host, parsed)
        await play_through(host, runner)
        host.recorder.finish(host.core, host.now(), script_notes=runner.notes)
    return host.core.session_id


async def _audio_call(script: str) -> str:
    """One real-audio call: espeak into PulseAudio's virtual microphone, Whisper, Piper and
    the playout clock into its virtual speaker; its session id."""
    engine = AudioEngine(AudioOptions())  # the default devices: the virtual ones
    await asyncio.to_thread(engine.load)
    options = CallOptions(builtin="concierge", recording=CallMode.AUDIO)
    async with brain_url_for(options) as url, audio_call(options, url, engine) as host:
        runner = ScriptRunner(host, parse_script(script, "the bench's caller"), caller=PulseVoice())
        await play_through(host, runner)
        host.recorder.finish(host.core, host.now(), script_notes=runner.notes)
    return host.core.session_id


def _pick(quick: bool, items: tuple[_T, ...]) -> tuple[_T, ...]:
    return items[:1] if quick else items


async def record_sessions(progress: Progress, *, quick: bool = False) -> list[Recorded]:
    """Record the bench's sessions in every mode (``quick``: one of each kind, no real
    audio) in the current data directory. The simulated calls are recorded
    :data:`RECORD_AT_ONCE` at a time, beside the real-audio ones (one at a time: they share
    the virtual microphone)."""
    recorded: list[Recorded] = []
    progress(f"  recording typed calls in the app ({len(_pick(quick, TYPED_PLANS))})")
    for plan in _pick(quick, TYPED_PLANS):
        try:
            recorded.append(Recorded(await _typed_call(plan), "typed"))
        except RuntimeError as exc:  # said, and the bench goes on with the others
            progress(f"  a typed call could not be played: {exc}")
    sims: list[tuple[str, str, str, int | None]]
    sims = [(s, "concierge", "sim", _IDLE_MS) for s in _pick(quick, SIM_SCRIPTS)]
    sims += [(s, _TOOL_WAITS, "tool_waits", None) for s in _pick(quick, TOOL_SCRIPTS)]
    sims += [(s, "guardrail", "guardrail", None) for s in _pick(quick, GUARDRAIL_SCRIPTS)]
    audio = () if quick else AUDIO_SCRIPTS
    progress(
        f"  recording simulated calls on real time ({len(sims)}, {RECORD_AT_ONCE} at once) "
        f"and real-audio calls through PulseAudio ({len(audio)})"
    )
    gate = asyncio.Semaphore(RECORD_AT_ONCE)

    async def one(script: str, brain: str, idle_ms: int | None) -> str:
        async with gate:
            return await _sim_call(script, brain, idle_ms)

    simulated = asyncio.gather(*(one(s, b, i) for s, b, _k, i in sims))
    voiced = await _audio_calls(audio, progress)
    for sid, (_script, brain, kind, _idle) in zip(await simulated, sims, strict=True):
        recorded.append(Recorded(sid, kind, brain))
    scenes = _pick(quick, SHIPPED)
    progress(f"  recording the demo's scenes ({len(scenes)})")
    for name in scenes:
        scene = load_scene(name)
        played = await play_scene(scene)
        recorded.append(Recorded(played.host.core.session_id, "scene", scene.brain))
    return recorded + [Recorded(sid, "audio", audio=True) for sid in voiced]


async def _audio_calls(scripts: tuple[str, ...], progress: Progress) -> list[str]:
    """The real-audio calls, one after another; none without PulseAudio (said)."""
    if not scripts:
        return []
    try:
        await asyncio.to_thread(pulse.ensure)
    except pulse.PulseUnavailable as exc:
        progress(f"  no real-audio calls: {exc}")
        return []
    return [await _audio_call(script) for script in scripts]


@dataclass
class Verdicts:
    """Every re-drive's verdict as it comes in: false changes (what each was), Whisper's
    differences, per kind, and the call time and the sandbox's own time for the speed."""

    runs: int = 0
    false_changes: list[str] = field(default_factory=list)
    stt_differences: int = 0
    call_s: float = 0.0
    own_s: float = 0.0
    kinds: dict[str, dict[str, int]] = field(default_factory=dict)

    def count(self, session: Recorded, done: Redrive) -> None:
        """One re-drive's verdict."""
        self.runs += 1
        kind = self.kinds.setdefault(session.kind, {"sessions": 0, "runs": 0, "false": 0})
        kind["runs"] += 1
        diff = done.diff
        if diff.exit_status == 0:
            return
        if (
            session.audio
            and not diff.findings
            and _lines(diff.history_before) != _lines(diff.history_after)
        ):
            self.stt_differences += 1  # Whisper heard other words: not a change of history
            return
        kind["false"] += 1
        self.false_changes.append(f"{session.kind} {short_id(session.session_id)}: {_first(diff)}")


def _lines(history: list[tuple[str, str]]) -> list[str]:
    return [text for role, text in history if role == "user"]


def _first(diff: Diff) -> str:
    """What a false change was, in a line."""
    if diff.findings:
        return f"rule broken: {diff.findings[0]}"
    if diff.ended_early:
        return diff.ended_early
    for turn in diff.turns:
        if turn.changed(diff.ignore_text):
            before = [u.heard for u in turn.before]
            after = [u.heard for u in turn.after]
            return f"after {turn.caller!r}: heard {before} then {after}"
    pairs = itertools.zip_longest(diff.history_before, diff.history_after)
    was, now = next((a, b) for a, b in pairs if a != b)
    return f"the heard history changed: {was} then {now}"


async def measure_false_alarms(
    progress: Progress, *, quick: bool = False, runs: int = RUNS
) -> FalseAlarmFigures:
    """Record sessions in every mode and re-drive each against its own brain ``runs`` times,
    in the current data directory; see the module doc."""
    began = time.monotonic()

    def said(words: str) -> None:
        progress(f"{words}  [{time.monotonic() - began:.0f} s]")

    sessions = await record_sessions(said, quick=quick)
    tally = Verdicts()
    for session in sessions:
        tally.kinds.setdefault(session.kind, {"sessions": 0, "runs": 0, "false": 0})
        tally.kinds[session.kind]["sessions"] += 1
    sims = [s for s in sessions if not s.audio]
    said(
        f"  re-driving {len(sims)} sessions {runs} times each ({AT_ONCE} at once), and "
        f"{len(sessions) - len(sims)} real-audio ones beside them"
    )
    gate = asyncio.Semaphore(AT_ONCE)

    async def one(session: Recorded) -> None:
        async with gate:
            start = time.perf_counter()
            done = await redrive(session.session_id, None, builtin=session.brain)
            wall = time.perf_counter() - start
        with SessionStore() as store:
            row = store.find(session.session_id)
            records = session_records(store, done.session_id)
        tally.call_s += (row.duration_ms or 0) / 1000
        tally.own_s += max(wall - brain_busy_ms(records) / 1000, 1e-3)
        tally.count(session, done)

    async def simulated() -> None:
        for run in range(1, runs + 1):
            await asyncio.gather(*(one(s) for s in sims))
            said(f"    run {run}: {len(tally.false_changes)} false changes so far")

    async def voiced() -> None:
        for session in (s for s in sessions if s.audio):
            for run in range(1, runs + 1):
                done = await redrive_audio(session.session_id, None)
                tally.count(session, done)
                said(f"    real-audio session {short_id(session.session_id)}, run {run} re-driven")

    await asyncio.gather(simulated(), voiced())
    for line in tally.false_changes:
        said(f"  false change: {line}")
    return FalseAlarmFigures(
        redrive_sessions=len(sessions),
        redrive_runs=tally.runs,
        redrive_false_changes=len(tally.false_changes),
        redrive_stt_differences=tally.stt_differences,
        redrive_speed_x=round(tally.call_s / max(tally.own_s, 1e-3), 1),
        redrive_by_kind=tally.kinds,
        redrive_changes=tally.false_changes,
    )
