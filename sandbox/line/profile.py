"""Line profiles: what a call's audio goes through between the caller and the runtime.

A profile names a codec (a real one, through PyAV's FFmpeg: G.711 μ-law, AMR-NB, Opus), the
band the line passes, a packet loss model, the network's jitter and one-way delay, and the
jitter buffer that absorbs it. ``wideband`` is the laptop's own path: no line at all. A user
writes their own in TOML (:func:`load_profile`).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from sandbox.errors import UserError

#: The codecs a line may carry: G.711 μ-law (8 kHz), AMR-NB (8 kHz), Opus (16 kHz here).
Codec = Literal["pcm_mulaw", "amr_nb", "opus"]
#: Each codec's sample rate and the bitrates it takes (None: its one rate).
CODEC_RATES: dict[str, int] = {"pcm_mulaw": 8000, "amr_nb": 8000, "opus": 16000}
AMR_BITRATES = (4750, 5150, 5900, 6700, 7400, 7950, 10200, 12200)
OPUS_BITRATES = range(6000, 128001)
#: A packet's audio: every codec here is framed at 20 ms.
FRAME_MS = 20
#: What a line's path adds beyond the network and the jitter buffer: room for the codec's
#: look-ahead and the resamplers' filters, so that its stream out never runs dry.
MARGIN_MS = FRAME_MS


@dataclass(frozen=True)
class LineProfile:
    """One line. ``band_hz``: the band the line passes (None: the codec's own). ``loss``:
    the fraction of packets lost, in bursts of ``mean_burst`` packets on average.
    ``jitter_ms``: the standard deviation of each packet's extra network delay; a packet later
    than the ``jitter_buffer_ms`` the receiver waits is lost too. ``delay_ms``: one-way
    network delay. ``codec`` None: no line (the laptop's wideband path)."""

    name: str
    description: str
    codec: Codec | None = None
    bitrate: int | None = None
    band_hz: tuple[int, int] | None = None
    loss: float = 0.0
    mean_burst: float = 1.0
    jitter_ms: int = 0
    jitter_buffer_ms: int = 0
    delay_ms: int = 0

    @property
    def is_line(self) -> bool:
        """Whether audio goes through anything (``wideband`` does not)."""
        return self.codec is not None

    @property
    def narrowband(self) -> bool:
        """Whether the line carries nothing above 4 kHz (an 8 kHz codec, or its band)."""
        if self.codec is None:
            return False
        top = self.band_hz[1] if self.band_hz is not None else CODEC_RATES[self.codec] // 2
        return min(top, CODEC_RATES[self.codec] // 2) <= 4000

    @property
    def one_way_ms(self) -> int:
        """What the line adds to each direction: the network and the jitter buffer."""
        return self.delay_ms + self.jitter_buffer_ms

    @property
    def path_delay_ms(self) -> int:
        """How much later audio comes out of either direction than it went in: the network,
        the jitter buffer and :data:`MARGIN_MS` (0 with no line)."""
        return self.one_way_ms + MARGIN_MS if self.is_line else 0

    @property
    def round_trip_ms(self) -> int:
        """The line's delay there and back, which no endpointer can take back."""
        return 2 * self.path_delay_ms

    def summary(self) -> str:
        """The profile in one line, as the banner and the record say it."""
        if self.codec is None:
            return f"{self.name}: {self.description}"
        parts = [
            _CODEC_WORDS[self.codec] + (f" {self.bitrate / 1000:g} kbps" if self.bitrate else "")
        ]
        if self.band_hz is not None:
            parts.append(f"{self.band_hz[0]} to {self.band_hz[1]} Hz")
        if self.loss:
            parts.append(f"{self.loss:.0%} loss (bursts of {self.mean_burst:g})")
        if self.jitter_ms:
            parts.append(f"{self.jitter_ms} ms jitter, {self.jitter_buffer_ms} ms buffer")
        parts.append(f"{self.delay_ms} ms one way")
        return f"{self.name}: " + ", ".join(parts)


_CODEC_WORDS = {"pcm_mulaw": "G.711 μ-law 8 kHz", "amr_nb": "AMR-NB 8 kHz", "opus": "Opus 16 kHz"}

#: The built-in profiles, by name.
PROFILES: dict[str, LineProfile] = {
    p.name: p
    for p in (
        LineProfile("wideband", "the laptop's own microphone and speaker, no line (the default)"),
        LineProfile(
            "pstn",
            "a landline: band-limited, G.711 μ-law both ways, no loss",
            codec="pcm_mulaw",
            band_hz=(300, 3400),
            delay_ms=40,
        ),
        LineProfile(
            "mobile",
            "a mobile call: AMR-NB at 7.4 kbps, 2 % loss concealed by the codec",
            codec="amr_nb",
            bitrate=7400,
            band_hz=(300, 3400),
            loss=0.02,
            mean_burst=1.5,
            jitter_ms=20,
            jitter_buffer_ms=60,
            delay_ms=80,
        ),
        LineProfile(
            "voip-lossy",
            "a poor VoIP link: Opus wideband, 5 % burst loss, 40 ms jitter",
            codec="opus",
            bitrate=24000,
            loss=0.05,
            mean_burst=3.0,
            jitter_ms=40,
            jitter_buffer_ms=100,
            delay_ms=60,
        ),
    )
}
DEFAULT_LINE = "wideband"


def line_profile(spec: str) -> LineProfile:
    """A built-in profile by name, or a TOML profile file (a path ending in ``.toml``)."""
    if spec.endswith(".toml"):
        return load_profile(Path(spec))
    found = PROFILES.get(spec)
    if found is None:
        raise UserError(
            f"no line profile {spec!r}: use one of {', '.join(PROFILES)}, or a profile file "
            "(name.toml; see docs/lines.md)"
        )
    return found


def load_profile(path: Path) -> LineProfile:
    """A line profile from TOML: ``codec``, ``bitrate``, ``band_hz``, ``loss``, ``mean_burst``,
    ``jitter_ms``, ``jitter_buffer_ms``, ``delay_ms`` (and an optional ``description``)."""
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except OSError as exc:
        raise UserError(f"cannot read the line profile {path}: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"the line profile {path} is not valid TOML: {exc}") from None
    return profile_from(path.stem, data, str(path))


def profile_from(name: str, data: dict[str, Any], where: str) -> LineProfile:
    """Check a profile's table (every problem said at once) and build it."""
    problems: list[str] = []
    known = {"description", "codec", "bitrate", "band_hz", "loss", "mean_burst", "jitter_ms",
             "jitter_buffer_ms", "delay_ms"}  # fmt: skip
    problems += [f"unknown key {key!r}" for key in sorted(set(data) - known)]
    codec = data.get("codec")
    if codec not in CODEC_RATES:
        problems.append(f"codec must be one of {', '.join(CODEC_RATES)} (got {codec!r})")
    bitrate = data.get("bitrate")
    if codec == "amr_nb" and bitrate not in AMR_BITRATES:
        problems.append(f"AMR-NB's bitrate is one of {', '.join(map(str, AMR_BITRATES))}")
    if codec == "opus" and not (isinstance(bitrate, int) and bitrate in OPUS_BITRATES):
        problems.append("Opus's bitrate is a whole number from 6000 to 128000")
    if codec == "pcm_mulaw" and bitrate is not None:
        problems.append("G.711 μ-law has one bitrate (64 kbps): leave bitrate out")
    band = data.get("band_hz")
    rate = CODEC_RATES.get(codec, 8000) if isinstance(codec, str) else 8000
    if band is not None and not (
        isinstance(band, list) and len(band) == 2 and all(isinstance(b, int) for b in band)
        and 0 <= band[0] < band[1] <= rate // 2
    ):  # fmt: skip
        problems.append(f"band_hz is [low, high] in Hz, 0 ≤ low < high ≤ {rate // 2}")
    checks = (
        ("loss", 0.0, 0.5, float),
        ("mean_burst", 1.0, 50.0, float),
        ("jitter_ms", 0, 500, int),
        ("jitter_buffer_ms", 0, 1000, int),
        ("delay_ms", 0, 2000, int),
    )
    for key, low, high, kind in checks:
        value = data.get(key, low)
        if isinstance(value, bool) or not isinstance(value, int | float):
            problems.append(f"{key} must be a number from {low} to {high}")
        elif kind is int and not isinstance(value, int):
            problems.append(f"{key} must be a whole number of milliseconds")
        elif not low <= value <= high:
            problems.append(f"{key} must be from {low} to {high} (got {value})")
    description = data.get("description", f"the profile in {where}")
    if not isinstance(description, str):
        problems.append("description must be text")
    if problems:
        raise UserError(f"the line profile {where} has problems: " + "; ".join(problems))
    return LineProfile(
        name,
        description,
        codec=codec,
        bitrate=bitrate,
        band_hz=None if band is None else (band[0], band[1]),
        loss=float(data.get("loss", 0.0)),
        mean_burst=float(data.get("mean_burst", 1.0)),
        jitter_ms=int(data.get("jitter_ms", 0)),
        jitter_buffer_ms=int(data.get("jitter_buffer_ms", 0)),
        delay_ms=int(data.get("delay_ms", 0)),
    )
