"""The RTVI plane's whitelist: which side may originate which type, and the size bound."""

from __future__ import annotations

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


def _size_problem(data: str) -> str | None:
    size = len(data.encode())
    if size > RTVI_DATA_LIMIT:
        return f"RTVI data is {size} bytes; the limit is {RTVI_DATA_LIMIT} (64 KiB)"
    return None


def brain_frame_problem(frame: pb.RTVIFrame) -> str | None:
    """Why a brain may not send this frame to the app, or None when it crosses."""
    if frame.type not in BRAIN_RTVI_TYPES:
        name = rtvi_name(frame.type)
        if name.startswith(("bot-", "llm-")):
            return f"RTVI {name} is Voqalize's own assertion; a brain may not send it"
        allowed = ", ".join(sorted(rtvi_name(t) for t in BRAIN_RTVI_TYPES))
        return f"RTVI {name} may not be sent by a brain; a brain may send: {allowed}"
    return _size_problem(frame.data)


def app_frame_problem(rtvi_type: int, data: str) -> str | None:
    """Why the app may not send this frame to the brain, or None when it crosses.

    send-text is on the app's half but never crosses: the caller of this check commits
    it as a caller turn before asking.
    """
    if rtvi_type not in APP_RTVI_TYPES:
        allowed = ", ".join(sorted(rtvi_name(t) for t in APP_RTVI_TYPES | {pb.RTVI_TYPE_SEND_TEXT}))
        return f"RTVI {rtvi_name(rtvi_type)} may not be sent by the app; it may send: {allowed}"
    return _size_problem(data)
