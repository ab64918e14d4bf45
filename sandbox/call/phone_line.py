"""The phone line a call is on, as the call core and its record know it. The profiles and
their audio are :mod:`sandbox.line`'s and the audio engine's; the core needs only the line's
words, for the record, and its delay, for the waterfall's network stages
(:func:`sandbox.call.waterfall.on_the_line`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PhoneLine:
    """``words``: the profile in one line (``LineProfile.summary``); ``delay_ms``: how much
    later audio comes out of either direction than it went in (``LineProfile.path_delay_ms``)."""

    words: str
    delay_ms: int
