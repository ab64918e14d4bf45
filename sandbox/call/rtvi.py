"""The RTVI plane's whitelist: which side may originate which type, and the size bound."""

from __future__ import annotations

from sandbox.call.breaches import BrokenRule, WireBreach
from sandbox.wire import pb
from sandbox.wire.catalog import (
    APP_RTVI_TYPES,
    BRAIN_RTVI_TYPES,
    RTVI_DATA_LIMIT,
    RTVI_NAME_BY_TYPE,
)


def rtvi_name(rtvi_type: int) -> str:
    """The RTVI spelling of a type, or a placeholder naming an unknown number."""
    return RTVI_NAME_BY_TYPE.get(rtvi_type, f"unknown type {rtvi_type}")


def _size_problem(size: int) -> str | None:
    if size > RTVI_DATA_LIMIT:
        return f"RTVI data is {size} bytes; the limit is {RTVI_DATA_LIMIT} (64 KiB)"
    return None


def brain_frame_problem(frame: pb.RTVIFrame) -> tuple[str, WireBreach] | None:
    """Why a brain may not send this frame to the app, in words and as the breach recorded,
    or None when it crosses."""
    size = len(frame.data.encode())
    if frame.type not in BRAIN_RTVI_TYPES:
        name = rtvi_name(frame.type)
        if name.startswith(("bot-", "llm-")):
            words = f"RTVI {name} is Voqalize's own assertion; a brain may not send it"
            return words, WireBreach(BrokenRule.RTVI_FORGED, rtvi_type=frame.type, size=size)
        allowed = ", ".join(sorted(rtvi_name(t) for t in BRAIN_RTVI_TYPES))
        words = f"RTVI {name} may not be sent by a brain; a brain may send: {allowed}"
        return words, WireBreach(BrokenRule.RTVI_NOT_LISTED, rtvi_type=frame.type, size=size)
    too_big = _size_problem(size)
    if too_big is None:
        return None
    return too_big, WireBreach(BrokenRule.RTVI_TOO_BIG, rtvi_type=frame.type, size=size)


def app_frame_problem(rtvi_type: int, data: str) -> str | None:
    """Why the app may not send this frame to the brain, or None when it crosses.

    send-text is on the app's half but never crosses: the caller of this check commits
    it as a caller turn before asking.
    """
    if rtvi_type not in APP_RTVI_TYPES:
        allowed = ", ".join(sorted(rtvi_name(t) for t in APP_RTVI_TYPES | {pb.RTVI_TYPE_SEND_TEXT}))
        return f"RTVI {rtvi_name(rtvi_type)} may not be sent by the app; it may send: {allowed}"
    return _size_problem(len(data.encode()))
