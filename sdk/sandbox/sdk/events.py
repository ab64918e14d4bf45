"""What reaches a brain's callbacks: the Voqalize → brain frames, decoded."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True)
class UserMessage:
    """The caller finished an utterance: ``text`` is the committed transcript, verbatim."""

    text: str


@dataclass(frozen=True)
class UserIdle:
    """The caller has been silent past the idle timeout.

    ``level`` counts consecutive nudges with no speech between them (1 is the first);
    ``idle_ms`` is the silence elapsed when it fired.
    """

    level: int
    idle_ms: int


@dataclass(frozen=True)
class RTVIFrame:
    """One RTVI message from the app, delivered verbatim.

    ``type`` is the RTVI spelling (``"ui-event"``), ``data`` the JSON-decoded payload
    (a dict in practice), ``id`` RTVI's own correlation id, if the app set one.
    """

    type: str
    data: Any
    id: str | None = None


@dataclass(frozen=True)
class Finalize:
    """What the caller actually heard of one speech unit, reported once, after playout.

    ``heard`` is the delivered prefix; ``generated`` is everything the brain yielded
    into that unit (kept by the SDK), including text the SDK discarded because its
    turn died first. Build history from ``heard``.
    """

    speech_id: int
    heard: str
    generated: str

    @property
    def interrupted(self) -> bool:
        """``heard != generated``: the unit was cut (or never reached the ear)."""
        return self.heard != self.generated


@dataclass(frozen=True)
class Error:
    """Something went wrong, reported to ``on_error``.

    ``code`` is the wire's ErrorCode without its prefix (``"PROTOCOL"``, ``"VERSION"``,
    ``"INTERNAL"``, ``"TIMEOUT"``, ``"MALFORMED"``). ``origin`` says who found it:
    ``"voqalize"`` for an Error frame, ``"sdk"`` for a mistake the SDK caught in this
    process (an illegal yield, a callback that raised). ``fatal`` means the session is ending.
    """

    code: str
    message: str
    fatal: bool = False
    origin: Literal["voqalize", "sdk"] = "voqalize"
