"""A real-audio call's two legs into its session: the engine's cleaned microphone and what
its playout released, each on the call's clock (see :mod:`sandbox.record.legs`)."""

from __future__ import annotations

from sandbox.audio.engine import AudioEngine
from sandbox.audio.sinks import Block
from sandbox.audio.stt import SAMPLE_RATE
from sandbox.host.session import CallHost
from sandbox.record.legs import MIC, SPEAKER, AudioLeg, leg_path


def record_legs(engine: AudioEngine, host: CallHost) -> list[AudioLeg]:
    """Start writing both legs of ``host``'s call; close them once the engine has stopped.

    Nothing is recorded for a call that is not recorded (the conformance driver's)."""
    if host.recorder.writer is None:
        return []
    session_id = host.core.session_id
    mic = AudioLeg(leg_path(session_id, MIC), SAMPLE_RATE)
    speaker = AudioLeg(leg_path(session_id, SPEAKER), engine.output_rate())

    def released(block: Block, _rate: int) -> None:
        speaker.add(block, host.now())  # handed to the device now: it starts to play now

    engine.capture_hooks.append(mic.add)
    engine.release_hooks.append(released)
    return [mic, speaker]
