"""A line's codec: FFmpeg's real encoders and decoders, through PyAV (which faster-whisper
brings), one 20 ms frame at a time, with the codec's own concealment for a lost packet.

A lost Opus packet is decoded as its table-of-contents byte alone, which libopus conceals
(its PLC); a lost AMR-NB frame as a SPEECH_LOST frame, which the AMR decoder conceals.
G.711 has no concealment of its own: a lost frame is silence.
"""

from __future__ import annotations

from fractions import Fraction
from typing import cast

import av
import numpy as np
import numpy.typing as npt
from av.audio.codeccontext import AudioCodecContext

from sandbox.line.profile import CODEC_RATES, FRAME_MS, Codec

Int16 = npt.NDArray[np.int16]
_ENCODERS = {"pcm_mulaw": "pcm_mulaw", "amr_nb": "libopencore_amrnb", "opus": "libopus"}
#: AMR's storage-format header of a frame lost in transit (frame type 14, quality bit set).
_AMR_SPEECH_LOST = bytes([(14 << 3) | 0x04])


class PacketCodec:
    """One direction's encoder and decoder for ``codec`` at ``bitrate`` (bits a second)."""

    def __init__(self, codec: Codec, bitrate: int | None) -> None:
        self.codec = codec
        self.rate = CODEC_RATES[codec]
        self.frame = self.rate * FRAME_MS // 1000
        name = _ENCODERS[codec]
        self._encoder = cast(AudioCodecContext, av.CodecContext.create(name, "w"))
        self._encoder.sample_rate = self.rate
        self._encoder.layout = "mono"
        self._encoder.format = "s16"
        self._encoder.time_base = Fraction(1, self.rate)
        if bitrate is not None:
            self._encoder.bit_rate = bitrate
        if codec == "opus":  # a voice call's settings: 20 ms packets, tuned for speech
            self._encoder.options = {"frame_duration": str(FRAME_MS), "application": "voip"}
        self._encoder.open()
        self._decoder = cast(AudioCodecContext, av.CodecContext.create(name, "r"))
        self._decoder.sample_rate = self.rate
        self._decoder.layout = "mono"
        self._decoder.open()
        self._pts = 0
        self._last_toc = b""
        #: The decoder's output rate (libopus decodes at 48 kHz), known from its first frame.
        self.out_rate = self.rate

    def encode(self, pcm: Int16) -> list[bytes]:
        """The packets one frame of ``pcm`` (``frame`` samples at ``rate``) yields."""
        frame = av.AudioFrame.from_ndarray(pcm.reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate = self.rate
        frame.pts = self._pts
        self._pts += len(pcm)
        return [bytes(packet) for packet in self._encoder.encode(frame)]

    def decode(self, packet: bytes | None) -> Int16:
        """The audio of ``packet``, or of a lost one (None) as the codec conceals it."""
        if packet is None:
            if self.codec == "pcm_mulaw":
                return np.zeros(self.out_rate * FRAME_MS // 1000, dtype=np.int16)
            packet = _AMR_SPEECH_LOST if self.codec == "amr_nb" else self._last_toc
            if not packet:  # nothing received yet to conceal from
                return np.zeros(self.out_rate * FRAME_MS // 1000, dtype=np.int16)
        elif self.codec == "opus":
            self._last_toc = packet[:1]
        out: list[Int16] = []
        for frame in self._decoder.decode(av.Packet(packet)):
            self.out_rate = frame.sample_rate
            out.append(frame.to_ndarray().reshape(-1).astype(np.int16))
        return np.concatenate(out) if out else np.zeros(0, dtype=np.int16)
