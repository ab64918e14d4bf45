"""The stt.patience scale: its bounds, and the one sentence that refuses a value off it.

A patience off the scale is refused at whichever door it arrives at, in the same words: the
command line, a Config at connect or mid-call, the SDK's ``SttConfig`` and the endpointer
all ask here. It sits in the wire because that is the one layer every door may import (the
SDK's import loads no runtime).
"""

from __future__ import annotations

PATIENCE_MIN = 0
PATIENCE_MAX = 10


def patience_error(patience: object) -> str | None:
    """Why ``patience`` is not a step of the scale, or None when it is. Any value is asked
    about, since a door whose types do not check it (the SDK's) asks too; a bool is no step."""
    on_scale = (
        isinstance(patience, int)
        and not isinstance(patience, bool)
        and PATIENCE_MIN <= patience <= PATIENCE_MAX
    )
    if on_scale:
        return None
    return f"stt.patience must be between {PATIENCE_MIN} and {PATIENCE_MAX} (got {patience!r})"
