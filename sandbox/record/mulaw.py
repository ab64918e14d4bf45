"""G.711 μ-law WAV files, written as they grow: a call's audio legs at telephone quality.

μ-law keeps 14 bits of dynamic range in one byte a sample (half of 16-bit PCM), the way
phone calls are carried. The header's sizes are rewritten after every append, and a reader
takes the data to the end of the file whatever the header says, so a file whose writer was
killed reads back to its last append.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import BinaryIO

import numpy as np
import numpy.typing as npt

_BIAS = 0x84
_CLIP = 32635
_FORMAT_MULAW = 7
#: RIFF header, fmt (18 bytes: non-PCM formats carry cbSize), fact, then the data chunk.
_HEADER = struct.Struct("<4sI4s4sIHHIIHHH4sII4sI")
_RIFF_SIZE_AT, _FACT_AT, _DATA_SIZE_AT = 4, 46, 54


class WavError(ValueError):
    """The file is not a μ-law WAV written here (or is damaged)."""


def encode(pcm: npt.NDArray[np.int16]) -> npt.NDArray[np.uint8]:
    """16-bit samples as μ-law bytes."""
    x = pcm.astype(np.int32)
    sign = (x < 0).astype(np.int32) << 7
    magnitude = np.minimum(np.abs(x), _CLIP) + _BIAS
    exponent = np.clip(np.floor(np.log2(magnitude)).astype(np.int32) - 7, 0, 7)
    mantissa = (magnitude >> (exponent + 3)) & 0x0F
    code: npt.NDArray[np.uint8] = (~(sign | (exponent << 4) | mantissa) & 0xFF).astype(np.uint8)
    return code


def _decode_table() -> npt.NDArray[np.int16]:
    b = ~np.arange(256, dtype=np.int32) & 0xFF
    exponent = (b >> 4) & 0x07
    magnitude = (((b & 0x0F) << 3) + _BIAS) << exponent
    return np.where(b & 0x80, _BIAS - magnitude, magnitude - _BIAS).astype(np.int16)


#: Every byte's sample: decoding a long leg is one lookup per byte.
_DECODED = _decode_table()


def decode(data: npt.NDArray[np.uint8]) -> npt.NDArray[np.int16]:
    """μ-law bytes as 16-bit samples."""
    samples: npt.NDArray[np.int16] = _DECODED[data]
    return samples


def write_header(out: BinaryIO, rate: int, samples: int) -> None:
    """The whole header for ``samples`` μ-law samples at ``rate`` (mono)."""
    out.write(
        _HEADER.pack(
            b"RIFF", _HEADER.size - 8 + samples, b"WAVE",
            b"fmt ", 18, _FORMAT_MULAW, 1, rate, rate, 1, 8, 0,
            b"fact", 4, samples,
            b"data", samples,
        )
    )  # fmt: skip


def append(out: BinaryIO, total_before: int, pcm: npt.NDArray[np.int16]) -> int:
    """Append samples at the end and bring the header's sizes up to date; the new total."""
    out.seek(0, 2)
    out.write(encode(pcm).tobytes())
    total = total_before + len(pcm)
    for offset, value in (
        (_RIFF_SIZE_AT, _HEADER.size - 8 + total),
        (_FACT_AT, total),
        (_DATA_SIZE_AT, total),
    ):
        out.seek(offset)
        out.write(struct.pack("<I", value))
    out.flush()
    return total


def read(path: Path) -> tuple[npt.NDArray[np.int16], int]:
    """A μ-law WAV's samples and rate, to the end of the file (a stale header is ignored)."""
    raw = path.read_bytes()
    if len(raw) < _HEADER.size:
        raise WavError(f"{path} is too short to be an audio leg ({len(raw)} bytes)")
    fields = _HEADER.unpack_from(raw)
    if fields[0] != b"RIFF" or fields[2] != b"WAVE" or fields[5] != _FORMAT_MULAW:
        raise WavError(f"{path} is not a μ-law WAV")
    data = np.frombuffer(raw, dtype=np.uint8, offset=_HEADER.size)
    return decode(data), int(fields[7])
