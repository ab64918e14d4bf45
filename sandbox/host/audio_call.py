"""What a real-audio call's engine adds to its session: the two legs (the cleaned microphone
and what playout released, each on the call's clock; see :mod:`sandbox.record.legs`) and the
endpointing steps (pauses, speculative transcripts, how each turn closed) as events."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from sandbox.audio.engine import AudioEngine, EngineHooks
from sandbox.audio.sinks import Block
from sandbox.audio.stt import SAMPLE_RATE
from sandbox.call.endpointing_steps import EndpointingStep
from sandbox.host.launch import CallOptions, open_call
from sandbox.host.session import CallHost
from sandbox.record.leg_files import leg_path
from sandbox.record.legs import MIC, SPEAKER, AudioLeg


def record_legs(engine: AudioEngine, host: CallHost) -> tuple[list[AudioLeg], EngineHooks]:
    """Start recording the engine's side of ``host``'s call: both legs, which the caller
    closes once the engine has stopped, and the endpointing steps; the hooks that feed them,
    for :meth:`AudioEngine.start`.

    Nothing is recorded for a call that is not recorded (the conformance driver's)."""
    writer = host.recorder.writer
    if writer is None:
        return [], EngineHooks()
    session_id = host.core.session_id
    mic = AudioLeg(leg_path(session_id, MIC), SAMPLE_RATE)
    speaker = AudioLeg(leg_path(session_id, SPEAKER), engine.output_rate())

    def stopped(words: str) -> None:  # told the way the store's own failure is
        if writer.on_failure is not None:
            writer.on_failure(words)

    mic.on_failure = speaker.on_failure = stopped

    # A device pulls each block as it plays it, late callbacks and underruns included: it
    # starts to play now. A paced sink's blocks are one stream (see _Stream).
    paced = engine.playout().clock.paced
    stream = _Stream()

    def released(block: Block, rate: int) -> None:
        now = host.now()
        speaker.add(block, stream.place(now, len(block), rate) if paced else now)

    def decided(t_ms: int, step: EndpointingStep) -> None:
        host.recorder.event(t_ms, step)

    hooks = EngineHooks(released=(released,), cleaned=(mic.add,), decided=(decided,))
    return [mic, speaker], hooks


#: A released block this far behind its place in the stream opens a gap instead: the sink
#: stopped and a new pace began (a device lost), not a catch-up after a stall.
GAP_MS = 3000


class _Stream:
    """Where each block playout releases into a paced sink belongs on the call's clock.

    Playout releases every block, silence included, so the stream is continuous: a block
    plays where the one before it ends. Stamped with the moment it was handed over, the
    burst a paced sink releases to catch up after its thread stalled (Whisper, Piper and
    the host share two cores) was padded with silence for the stall and then laid after the
    padding, and every later block sat that much late: a stall of 1.9 s put the reply after
    a barge-in 1.9 s behind its ``word_played`` times. A block more than :data:`GAP_MS`
    behind its place starts a new stretch at its own time.
    """

    def __init__(self) -> None:
        self._start_ms: int | None = None
        self._frames = 0
        self._rate = 0

    def place(self, now_ms: int, frames: int, rate: int) -> int:
        """The call ms at which a block of ``frames`` released at ``now_ms`` starts."""
        if self._start_ms is None or rate != self._rate:
            self._start_ms, self._frames, self._rate = now_ms, 0, rate
        at = self._start_ms + self._frames * 1000 // rate
        if now_ms - at > GAP_MS:
            self._start_ms, self._frames, at = now_ms, 0, now_ms
        self._frames += frames
        return at


@contextlib.asynccontextmanager
async def audio_call(
    options: CallOptions, url: str, engine: AudioEngine
) -> AsyncIterator[CallHost]:
    """Dial ``url`` for a call on the loaded ``engine``, its legs recorded, the engine
    started on it; stops the engine and closes the legs when the block ends. A failed dial raises
    :class:`~sandbox.host.launch.CallNotPlaced` before anything starts."""
    host = await open_call(
        options, url, engine.playout(), caps=engine.capabilities(), listening=engine
    )
    legs, hooks = record_legs(engine, host)
    engine.start(host, hooks)
    try:
        yield host
    finally:
        for leg in legs:
            leg.end_at(host.now())
        engine.stop()
        for leg in legs:
            leg.close()
