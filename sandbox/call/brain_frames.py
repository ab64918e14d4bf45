"""What a frame on the brain's link is to the call, for the parts around the core that must
tell frames apart before or without the core: the host's reader (a SpeechStart read and not
yet handled may open the unit later frames name; a frame only counted holds so much text),
the wire pane (which turn a unit's frames answer) and the app pane (the app's own RTVI
messages, which the core relays unread and keeps no record of). The envelope's arms are read
here, in the core's package, so no module outside it looks inside an envelope by its arm.
"""

from __future__ import annotations

from sandbox.wire import pb

#: The arm of the frame that opens a unit, of the one that carries its text, and of RTVI.
_OPENS = "speech_start"
_SPEAKS = "speech_chunk"
_RTVI = "rtvi"


def opens_unit(env: pb.Envelope) -> bool:
    """A SpeechStart: it may open a unit that the brain's later frames name."""
    return env.HasField(_OPENS)


def recorded_opens_unit(arm: str) -> bool:
    """The same of a frame as recorded, by its arm's name (a frame record's ``type``)."""
    return arm == _OPENS


def speech_chars(env: pb.Envelope) -> int:
    """Characters of speech the frame carries: a SpeechChunk's text; 0 for any other."""
    return len(env.speech_chunk.text) if env.HasField(_SPEAKS) else 0


def pad_speech(env: pb.Envelope, chars: int) -> None:
    """Lengthen a SpeechChunk's text to ``chars`` characters with spaces: a stored chunk the
    call dropped for its length alone, kept as its start, is fed again as long as it was
    (nothing of it past its length is read)."""
    if env.HasField(_SPEAKS):
        text = env.speech_chunk.text
        env.speech_chunk.text = text + " " * (chars - len(text))


def recorded_rtvi(arm: str) -> bool:
    """An RTVI frame, as recorded, by its arm's name (a frame record's ``type``)."""
    return arm == _RTVI
