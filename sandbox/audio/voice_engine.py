"""The voice seam: what the audio engine needs of a voice, whichever engine speaks it.

Piper (:class:`sandbox.audio.tts.Synthesizer`), espeak-ng
(:class:`sandbox.audio.espeak_tts.EspeakVoice`) and a voice of your own
(``--voice module:Class``, :mod:`sandbox.audio.voice_plugin`) all meet it. The playout clock
needs each word placed on the samples that speak it: a word counts as heard once its first
sample is released, so the spans are what makes Finalize's heard text exact.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:  # the seam loads no part of the speech stack: a simulated call names it
    from sandbox.audio.tts import Clip, TroubleSink


@runtime_checkable
class VoiceEngine(Protocol):
    """A loaded voice: text in, clips out, each word of the text on its samples.

    ``name`` is the catalog voice it speaks as (``joe``, ``espeak_female``: a ``Voice`` of
    frames.proto, lower case, without ``VOICE_``); ``languages`` are the ``Language`` values
    it speaks; ``sample_rate`` is the rate of its clips (the engine converts a clip to the
    speaker's rate when they differ).
    """

    @property
    def name(self) -> str:
        """The Voice it speaks as, e.g. ``joe``."""
        ...

    @property
    def sample_rate(self) -> int:
        """Samples per second of every clip it makes."""
        ...

    @property
    def languages(self) -> tuple[int, ...]:
        """The ``Language`` values it speaks."""
        ...

    def synthesize(
        self, text: str, trouble: TroubleSink | None = None, *, language: int | None = None
    ) -> Iterator[Clip]:
        """``text`` spoken in ``language`` (None: the voice's first), as clips in order.

        Each clip's words are the text's whitespace-separated words as written, with their
        samples; the clips' texts run together to ``text``, or to a prefix of it when the
        rest could not be said, which ``trouble`` hears of. Never raises on text.
        """
        ...
