"""One direction of a line, streaming: blocks at the call's rate go in, as many samples come
out, later by the line's one-way delay, having been band-limited, encoded into 20 ms packets,
lost as the profile loses them and decoded (a lost one concealed by the codec)."""

from __future__ import annotations

import threading

import numpy as np
import numpy.typing as npt

from sandbox.audio.resample import Float32, StreamResampler, as_float32, as_int16
from sandbox.line.band import BandPass
from sandbox.line.loss import PacketLoss
from sandbox.line.packet_codec import PacketCodec
from sandbox.line.profile import LineProfile

Int16 = npt.NDArray[np.int16]
#: Each direction's losses, fixed: a profile loses the same packets every call.
UPLINK_SEED, DOWNLINK_SEED = 1, 2


class LinePath:
    """One direction of ``profile``'s line for a stream at ``rate``; ``seed`` fixes its
    losses. Thread-safe: a device's callback and the engine's threads may both feed it."""

    def __init__(self, profile: LineProfile, rate: int, seed: int) -> None:
        if profile.codec is None:
            raise ValueError(f"{profile.name} is no line: audio goes straight through")
        self.profile = profile
        self.rate = rate
        self._codec = PacketCodec(profile.codec, profile.bitrate)
        self._into = StreamResampler(rate, self._codec.rate)
        self._out_of: StreamResampler | None = None  # once the decoder's rate is known
        self._band = (
            None if profile.band_hz is None else BandPass(*profile.band_hz, self._codec.rate)
        )
        self.losses = PacketLoss(
            profile.loss, profile.mean_burst, profile.jitter_ms, profile.jitter_buffer_ms, seed
        )
        self._waiting: Float32 = np.zeros(0, dtype=np.float32)  # at the codec's rate
        self._out: Float32 = np.zeros(rate * self.delay_ms // 1000, dtype=np.float32)
        self._lock = threading.Lock()

    @property
    def delay_ms(self) -> int:
        """How much later a sample comes out than it went in."""
        return self.profile.path_delay_ms

    def process(self, block: Int16) -> Int16:
        """The next ``len(block)`` samples of the far end's stream, ``block`` fed in."""
        with self._lock:
            self._waiting = np.concatenate([self._waiting, self._into.push(block)])
            frame = self._codec.frame
            while len(self._waiting) >= frame:
                pcm, self._waiting = self._waiting[:frame], self._waiting[frame:]
                if self._band is not None:
                    pcm = self._band.filter(pcm)
                for packet in self._codec.encode(as_int16(pcm)):
                    lost = self.losses.next_lost()
                    self._heard(self._codec.decode(None if lost else packet))
            out, self._out = self._out[: len(block)], self._out[len(block) :]
        if len(out) < len(block):  # only if the margin was too small: silence, said as such
            out = np.concatenate([out, np.zeros(len(block) - len(out), dtype=np.float32)])
        return as_int16(out)

    def _heard(self, decoded: Int16) -> None:
        if self._out_of is None:
            self._out_of = StreamResampler(self._codec.out_rate, self.rate)
        self._out = np.concatenate([self._out, self._out_of.push(as_float32(decoded))])
