"""Self-interruptions: does the bot's own voice, leaking back into the microphone, cut it?

A real call to the concierge with no speaker, the microphone fed by a simulated laptop echo
path (the bot's released audio: delay, gain, room tail, hiss) and the echo canceller on.
The caller never speaks: turns are typed (so recognition noise is out of the loop), each
after the previous reply played out. Every Interruption sent is then a self-interruption,
and every pause the echo caused that resumed counts as half of one. Also counted: barge-ins
decided, backchannels heard and spoken turns committed from the echo (none of them should
happen either).
"""

from __future__ import annotations

from dataclasses import dataclass

from sandbox.audio.echo_path import LaptopEchoPath
from sandbox.audio.script_mic import ScriptMic
from sandbox.call.caller_events import Backchannel, BargeIn, BotResumes, OverBot, TurnCommitted
from sandbox.call.units import Fate
from sandbox_bench.call import answered, bench_call, listening, until
from sandbox_bench.figures import Progress
from sandbox_bench.models import Models
from sandbox_bench.texts import ECHO_PROMPTS


@dataclass(frozen=True)
class EchoFigures:
    """What the echo did over the replies."""

    replies: int  # bot replies spoken through the echo path (the greeting not counted)
    interruptions: int  # Interruption frames sent (the caller said nothing)
    pauses: int  # times the echo paused the bot
    resumes: int  # ... and it went on
    barge_ins: int
    backchannels: int
    spoken_turns: int
    audio_s: float  # seconds of bot audio released, greeting included
    echoed_s: float  # seconds of microphone audio that carried the bot's echo

    @property
    def self_interruptions(self) -> float:
        """Interruptions, plus half of each pause that resumed."""
        return self.interruptions + 0.5 * self.resumes


async def measure_echo(models: Models, replies: int, progress: Progress) -> EchoFigures:
    """``replies`` typed turns to the concierge, each reply played through the echo path."""
    done = 0
    async with bench_call(models, "concierge", echo=LaptopEchoPath(ScriptMic.RATE)) as call:
        host, log = call.host, call.log
        await until(listening(host))  # the greeting played out
        for index in range(1, replies + 1):
            turn = host.core.turn + 1
            host.caller_turn(ECHO_PROMPTS[(index - 1) % len(ECHO_PROMPTS)], typed=True)
            await until(answered(host, turn))
            await until(listening(host))
            units = [u for u in host.core.units if u.turn_id == turn]
            done += any(u.relayed for u in units)
            words = sum(len(u.heard.split()) for u in units)
            played = bool(units) and all(u.fate is Fate.PLAYED for u in units)
            outcome = "played out" if played else "did not play out"
            progress(
                f"  reply {index}/{replies}: {words} words {outcome}; "
                f"Interruptions so far {len(log.interruptions())}, pauses "
                f"{sum(isinstance(e, OverBot) for _t, e in log.events)}"
            )
        clock = call.engine.playout().clock
        block_s = clock.block_frames / clock.sample_rate
        events = [e for _t, e in log.events]
        return EchoFigures(
            replies=done,
            interruptions=len(log.interruptions()),
            pauses=sum(isinstance(e, OverBot) for e in events),
            resumes=sum(isinstance(e, BotResumes) for e in events),
            barge_ins=sum(isinstance(e, BargeIn) for e in events),
            backchannels=sum(isinstance(e, Backchannel) for e in events),
            spoken_turns=sum(isinstance(e, TurnCommitted) for e in events),
            audio_s=round(sum(bool(loud) for _t, loud in log.releases) * block_s, 1),
            echoed_s=round(call.mic.script.echoed_ms / 1000, 1),
        )
