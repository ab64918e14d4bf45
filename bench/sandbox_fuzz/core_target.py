"""Fuzz target for the call core: arbitrary decoded envelopes and caller events, at
arbitrary times, on a fake clock with the simulated playout.

The invariants the core owes whatever the brain sends (docs/wire.md, "Invariants"): exactly one
Finalize per bracket it accepted, in the order the units opened, each a verbatim prefix
of the text the brain sent for that unit; the watermark only rises; exactly one Response
per Request; after a tick no deadline it reports has already passed; and every event leaves
it settled, so a tick before a deadline finds nothing to do.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from google.protobuf.message import Message

from sandbox.call.caller_events import (
    Backchannel,
    BargeIn,
    BotResumes,
    CallerSpeaking,
    DroppedEmpty,
    OverBot,
    TurnClose,
)
from sandbox.call.core import CallCore
from sandbox.call.effects import Effect, PlayoutEffect, SendFrame
from sandbox.call.inputs import (
    AppFrame,
    BrainClosed,
    BrainMalformed,
    Configure,
    CoreInput,
    FromBrain,
    HangUp,
    LineGiven,
    Start,
    Tick,
)
from sandbox.call.played import UnitUnspoken
from sandbox.call.ports import play
from sandbox.call.settings import Capabilities, Settings
from sandbox.call.sim_playout import SimPlayout
from sandbox.call.units import MAX_CHUNK_CHARS
from sandbox.check import rules
from sandbox.wire import pb
from sandbox.wire.catalog import RTVI_TYPE_BY_NAME
from sandbox.wire.codec import WireError, decode, encode, envelope
from sandbox_fuzz.draw import Draw
from sandbox_fuzz.envelopes import arbitrary_envelope, fill
from sandbox_fuzz.guard import InvariantBroken

SESSION = "11111111-2222-3333-4444-555555555555"
#: How many events one input plays at most.
MAX_EVENTS = 200
#: A drive of the clock that never settles is a hang: this many steps is a broken core.
MAX_STEPS = 100_000
_VOICES: dict[int, tuple[int, ...]] = {
    pb.VOICE_JOE: (pb.LANGUAGE_EN,),
    pb.VOICE_PRATHAM: (pb.LANGUAGE_HI,),
    pb.VOICE_AMY: (pb.LANGUAGE_EN,),
}
_LINES = ("hi", "and then", "", "  ", "what about Sunday?", '{"content": "typed"}')
_BRAIN_ARMS = (
    *(pb.SpeechStart,) * 3,
    *(pb.SpeechChunk,) * 4,
    *(pb.SpeechEnd,) * 2,
    pb.SpeechCancel,
    pb.Request,
    pb.RTVIFrame,
    pb.TurnStep,
    pb.Error,
)  # End and Cancel come rarely, through any-arm envelopes: they end the call
_RTVI_NAMES = (*RTVI_TYPE_BY_NAME, "not-a-type")


@dataclass
class _Drive:
    """Carries the core's effects like a host: to the playout, and the frames it sends."""

    core: CallCore
    playout: SimPlayout
    now: int = 0
    sent: list[pb.Envelope] = field(default_factory=list)
    #: Per unit the core had accepted when the text came: the brain's chunks, joined (but
    #: for a chunk over MAX_CHUNK_CHARS, which the core drops whole by design).
    said: dict[int, str] = field(default_factory=dict)
    requests: int = 0
    watermark: int = 0

    def feed(self, fed: CoreInput) -> list[Effect]:
        """One input into the core now, its effects taken."""
        return self.take(self.core.handle(fed, self.now))

    def take(self, effects: Iterable[Effect]) -> list[Effect]:
        batch = list(effects)
        for effect in batch:
            if isinstance(effect, SendFrame):
                self.sent.append(effect.env)
            elif isinstance(effect, PlayoutEffect):
                play(effect, self.now, self.playout)
        if self.core.watermark < self.watermark:
            raise InvariantBroken(
                rules.DEAD_TURN_STOPS,
                f"the watermark fell from {self.watermark} to {self.core.watermark}",
            )
        self.watermark = self.core.watermark
        self._settled()
        return batch

    def _settled(self) -> None:
        """Every event leaves the core settled: a tick before any timer is due finds nothing
        to do (the host asks the timers only when one is due)."""
        due = self.core.next_deadline()
        if self.core.ended is not None or (due is not None and due <= self.now):
            return
        left = self.core.handle(Tick(), self.now)
        if left:
            names = ", ".join(type(e).__name__ for e in left)
            raise InvariantBroken("time", f"a tick at {self.now}, nothing due, still had {names}")

    def brain(self, env: pb.Envelope) -> None:
        """One envelope from the brain, through the real codec as it crosses."""
        try:
            env = decode(encode(env))
        except WireError:
            return  # not sendable: it never reaches the core
        live = self.core.ended is None and self.core.started
        arm = env.WhichOneof("body")
        chunk = env.speech_chunk
        said = len(chunk.text) <= MAX_CHUNK_CHARS
        if live and arm == "speech_chunk" and said and self.core.unit(chunk.speech_id):
            self.said[chunk.speech_id] = self.said.get(chunk.speech_id, "") + chunk.text
        effects = self.feed(FromBrain(env))
        if live and arm == "request":
            self.requests += 1
            answers = [
                e.env.response.request_id
                for e in effects
                if isinstance(e, SendFrame) and e.env.HasField("response")
            ]
            if answers != [env.request.request_id]:
                raise InvariantBroken(
                    rules.ONE_RESPONSE,
                    f"Request {env.request.request_id} was answered by Responses {answers}",
                )

    def advance(self, ms: int) -> None:
        """Let ``ms`` pass, delivering playout progress and timers as they fall due."""
        end = self.now + ms
        for _ in range(MAX_STEPS):
            deadlines = (self.playout.next_deadline(), self.core.next_deadline())
            due = [d for d in deadlines if d is not None]  # 0 is a time: the playout's 'now'
            step = max(min(due), self.now) if due else None
            if step is None or step > end:
                self.now = end
                return
            self.now = step
            for event in self.playout.advance(self.now):
                self.feed(event)
            self.tick()
        raise InvariantBroken("time", f"the clock never settled within {MAX_STEPS} steps")

    def tick(self) -> None:
        """A tick: afterwards, every deadline the core reports lies ahead."""
        self.feed(Tick())
        deadline = self.core.next_deadline()
        if deadline is not None and deadline <= self.now:
            raise InvariantBroken("time", f"after a tick at {self.now} the core is due {deadline}")


def fuzz_core(data: bytes) -> None:
    """See the module doc."""
    draw = Draw(data)
    caps = draw.pick(((pb.CAPABILITY_SPEECH_CANCEL, pb.CAPABILITY_TURN_STEPS), ()))
    core = CallCore(
        SESSION,
        caps=Capabilities(voices=_VOICES),
        settings=Settings(idle_ms=draw.pick((0, 300, 8000))),
        capabilities=caps,
        stall_ms=draw.pick((500, 10_000)),
    )
    drive = _Drive(core, SimPlayout(ms_per_word=draw.pick((1, 90, 300))))
    drive.feed(Start())
    for _ in range(MAX_EVENTS):
        if not draw.left:
            break
        draw.pick(_EVENTS)(drive, draw)
    drive.advance(60_000)  # everything that can play, plays
    drive.feed(HangUp())  # and the rest is abandoned
    _check_finalizes(drive)


def _brain_frame(drive: _Drive, draw: Draw) -> None:
    if draw.number(0, 7) == 0:
        drive.brain(arbitrary_envelope(draw))  # any arm, Voqalize's own included
        return
    body = draw.pick(_BRAIN_ARMS)()
    fill(body, draw)
    if draw.number(0, 3):
        _plausible(body, drive.core.turn, draw)
    drive.brain(envelope(body))


def _plausible(body: Message, turn: int, draw: Draw) -> None:
    """Mostly, a unit and a turn the session really has: arbitrary numbers seldom name
    one, and a brain that never opens a unit tests little of the core."""
    speech_id, turn_id = draw.number(1, 4), max(0, turn - draw.pick((0, 0, 0, 1, 2, -1)))
    for name, value in (("speech_id", speech_id), ("turn_id", turn_id)):
        if name in body.DESCRIPTOR.fields_by_name:
            setattr(body, name, value)
    if isinstance(body, pb.Error) and draw.number(0, 7):
        body.fatal = False  # a fatal one ends the call, and the input with it


def _raw_bytes(drive: _Drive, draw: Draw) -> None:
    raw = draw.bytes(48)
    try:
        env = decode(raw)
    except WireError as exc:
        drive.feed(BrainMalformed(str(exc)))
        return
    drive.brain(env)


def _caller(drive: _Drive, draw: Draw) -> None:
    now = drive.now
    choices: tuple[Callable[[], CoreInput], ...] = (
        lambda: CallerSpeaking(now),
        lambda: DroppedEmpty(TurnClose.SILENCE),
        lambda: OverBot(now, now),
        lambda: BotResumes(now, now, "noise"),
        lambda: BargeIn(now, now),
        lambda: Backchannel(draw.pick(_LINES), now, now, resumed=draw.flip()),
        lambda: LineGiven(draw.pick(_LINES), typed=draw.flip()),
        lambda: LineGiven(draw.text(40)),
    )
    drive.feed(draw.pick(choices)())


def _app(drive: _Drive, draw: Draw) -> None:
    name = draw.pick(_RTVI_NAMES)
    data = draw.pick(_LINES) if draw.flip() else draw.text(80)
    rtvi_id = draw.pick((None, "r1", ""))
    drive.feed(AppFrame(name, data, rtvi_id))


def _configure(drive: _Drive, draw: Draw) -> None:
    config = pb.Config()
    fill(config, draw)
    drive.feed(Configure(config))


def _playout(drive: _Drive, draw: Draw) -> None:
    sid = draw.number(0, 7)
    drive.feed(UnitUnspoken(sid, "the voice would not load"))


def _time(drive: _Drive, draw: Draw) -> None:
    usual = draw.pick((0, 1, 50, 300, 2_000, 10_000))
    drive.advance(usual if draw.flip() else draw.number(0, 20_000))


def _end(drive: _Drive, draw: Draw) -> None:
    choice = draw.number(0, 31)  # mostly not: a call that ends early hides the rest of the input
    if choice == 0:
        drive.feed(HangUp())
    elif choice == 1:
        drive.feed(BrainClosed("the socket closed"))


_EVENTS: tuple[Callable[[_Drive, Draw], None], ...] = (
    *(_brain_frame,) * 6,
    _raw_bytes,
    _caller,
    _caller,
    _app,
    _configure,
    _playout,
    _time,
    _time,
    _time,
    _end,
)


def _check_finalizes(drive: _Drive) -> None:
    accepted = [unit.speech_id for unit in drive.core.units]
    finals = [
        (env.finalize.speech_id, env.finalize.heard_text)
        for env in drive.sent
        if env.HasField("finalize")
    ]
    if [sid for sid, _ in finals] != accepted:
        raise InvariantBroken(
            rules.ONE_FINALIZE,
            f"Finalizes went out for {[sid for sid, _ in finals]}, brackets opened as {accepted}",
        )
    for sid, heard in finals:
        said = drive.said.get(sid, "")
        if not said.startswith(heard):
            raise InvariantBroken(
                rules.HEARD_IS_PREFIX, f"unit {sid} said {said!r}; reported heard: {heard!r}"
            )
    marks = [env.interruption.through_turn for env in drive.sent if env.HasField("interruption")]
    if any(b <= a for a, b in itertools.pairwise(marks)):
        raise InvariantBroken(rules.DEAD_TURN_STOPS, f"Interruptions went out as {marks}")
    responses = sum(env.HasField("response") for env in drive.sent)
    if responses != drive.requests:
        raise InvariantBroken(
            rules.ONE_RESPONSE, f"{drive.requests} Requests got {responses} Responses"
        )
