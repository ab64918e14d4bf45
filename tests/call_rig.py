"""A test rig for the call core: a fake clock, simulated playout, and a scripted brain."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from google.protobuf.message import Message

from sandbox.call.caller_events import BargeIn, BotResumes, OverBot
from sandbox.call.core import CallCore
from sandbox.call.effects import Effect, PlayoutEffect, SendFrame
from sandbox.call.inputs import CoreInput, FromBrain, LineGiven, Start, Tick
from sandbox.call.ports import play
from sandbox.call.settings import Capabilities, Settings
from sandbox.call.sim_playout import SimPlayout
from sandbox.wire import pb
from sandbox.wire.codec import envelope

SPOKEN: dict[int, tuple[int, ...]] = {
    pb.VOICE_JOE: (pb.LANGUAGE_EN,),
    pb.VOICE_PRATHAM: (pb.LANGUAGE_HI,),
    pb.VOICE_AMY: (pb.LANGUAGE_EN,),
}


def make_caps() -> Capabilities:
    return Capabilities(voices=SPOKEN)


class Rig:
    """Drives a CallCore like the host does, with time under the test's control."""

    __test__ = False

    def __init__(self, ms_per_word: int = 100, **core: Any) -> None:
        core.setdefault("caps", make_caps())
        core.setdefault("settings", Settings(idle_ms=0))
        self.core = CallCore("11111111-2222-3333-4444-555555555555", **core)
        self.sim = SimPlayout(ms_per_word=ms_per_word)
        self.now = 0
        self.effects: list[Effect] = []
        #: Every effect with the time the core made it, as the host's record keeps them.
        self.timed: list[tuple[int, Effect]] = []
        self.sent: list[pb.Envelope] = []

    # -- plumbing
    def take(self, effects: Iterable[Effect]) -> list[Effect]:
        batch = list(effects)
        for effect in batch:
            self.effects.append(effect)
            self.timed.append((self.now, effect))
            if isinstance(effect, SendFrame):
                self.sent.append(effect.env)
            elif isinstance(effect, PlayoutEffect):
                play(effect, self.now, self.sim)
        return batch

    def feed(self, fed: CoreInput) -> list[Effect]:
        """One input into the core now, its effects taken."""
        return self.take(self.core.handle(fed, self.now))

    def start(self) -> list[Effect]:
        return self.feed(Start())

    def brain(self, body: Message) -> list[Effect]:
        return self.feed(FromBrain(envelope(body)))

    def advance(self, ms: int) -> None:
        """Let ``ms`` of time pass, delivering playout progress and timers as they fall due."""
        end = self.now + ms
        for _ in range(100_000):
            due = [
                d for d in (self.sim.next_deadline(), self.core.next_deadline()) if d is not None
            ]
            step = max(min(due), self.now) if due else None
            if step is None or step > end:
                break
            self.now = step
            for event in self.sim.advance(self.now):
                self.feed(event)
            self.feed(Tick())
        self.now = end

    # -- brain frames
    def open(self, sid: int, turn: int) -> list[Effect]:
        return self.brain(pb.SpeechStart(speech_id=sid, turn_id=turn))

    def chunk(self, sid: int, text: str) -> list[Effect]:
        return self.brain(pb.SpeechChunk(speech_id=sid, text=text))

    def end(self, sid: int) -> list[Effect]:
        return self.brain(pb.SpeechEnd(speech_id=sid))

    def cancel(self, sid: int) -> list[Effect]:
        return self.brain(pb.SpeechCancel(speech_id=sid))

    def say(self, sid: int, turn: int, *chunks: str) -> None:
        self.open(sid, turn)
        for text in chunks:
            self.chunk(sid, text)
        self.end(sid)

    # -- caller
    def caller(self, text: str) -> list[Effect]:
        return self.feed(LineGiven(text))

    def barge_in(self) -> list[Effect]:
        return self.feed(BargeIn(self.now, self.now))

    def over_bot(self) -> list[Effect]:
        return self.feed(OverBot(self.now, self.now))

    def keep_floor(self) -> list[Effect]:
        return self.feed(BotResumes(self.now, self.now, "noise"))

    # -- reading what went out
    def arms(self) -> list[str]:
        return [str(env.WhichOneof("body")) for env in self.sent]

    def finalizes(self) -> list[tuple[int, str]]:
        return [
            (e.finalize.speech_id, e.finalize.heard_text)
            for e in self.sent
            if e.HasField("finalize")
        ]

    def errors(self) -> list[pb.Error]:
        return [e.error for e in self.sent if e.HasField("error")]

    def interruptions(self) -> list[int]:
        return [e.interruption.through_turn for e in self.sent if e.HasField("interruption")]

    def responses(self) -> list[pb.Response]:
        return [e.response for e in self.sent if e.HasField("response")]

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.effects if isinstance(e, kind)]
