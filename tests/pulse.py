"""The PulseAudio virtual devices of the audio tests (the bench uses them too)."""

from sandbox_bench.pulse import (
    MIC,
    MIC_FEED,
    SPEAKER,
    WORKER_TAG,
    PulseUnavailable,
    echo_path,
    ensure,
    env,
    play_into_mic,
    read_wav,
    record_speaker,
    shutdown,
)

__all__ = [
    "MIC",
    "MIC_FEED",
    "SPEAKER",
    "WORKER_TAG",
    "PulseUnavailable",
    "echo_path",
    "ensure",
    "env",
    "play_into_mic",
    "read_wav",
    "record_speaker",
    "shutdown",
]
