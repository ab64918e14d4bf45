"""The reload notice: what ``sandbox brain --reload`` tells each call in progress when it
has loaded the brain's file again, and how a call's record knows it.

It crosses as an ordinary RTVI ``server-message`` from the brain (the runtime adds no rule
for it), whose data is one JSON object::

    {"voqalize_sandbox": "brain-reloaded", "file": "mymodule.py", "serving": "Greeter",
     "moved": true}

``moved`` is false when that call's brain could not be moved onto the new class (its layout
changed) and keeps the old code. The readers of a record (``sessions show``, the Markdown
export, the replay, the page) mark the call at that moment with :attr:`ReloadNotice.words`,
each escaping it for its destination: the names are the brain's text, so data.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sandbox.call.brain_frames import recorded_rtvi
from sandbox.wire.catalog import rtvi_spelling

#: The RTVI type the notice crosses as.
RTVI_TYPE = "server-message"
#: The key that makes a server-message's data one of the sandbox's own, and its value for
#: this notice.
SANDBOX_KEY = "voqalize_sandbox"
RELOADED = "brain-reloaded"
#: What marks the notice in a transcript line.
RELOAD_MARK = "⟳"


@dataclass(frozen=True)
class ReloadNotice:
    """The brain's ``file`` was loaded again and ``serving`` is the class now serving;
    ``moved``: this call goes on with the new code (else it keeps the old class)."""

    file: str
    serving: str
    moved: bool

    def data(self) -> dict[str, Any]:
        """The notice as the server-message's data."""
        return {
            SANDBOX_KEY: RELOADED,
            "file": self.file,
            "serving": self.serving,
            "moved": self.moved,
        }

    @property
    def words(self) -> str:
        """The notice in words, as a transcript marks it (after :data:`RELOAD_MARK`)."""
        words = f"brain reloaded: {self.file}, serving {self.serving}"
        if not self.moved:
            words += "; this call keeps the old code (its class could not be swapped)"
        return words


def notice_in(frame: Mapping[str, Any]) -> ReloadNotice | None:
    """The reload notice a frame carries, as the report keeps the frame (``dir``, ``type``,
    ``rtvi_type``, ``data``); None for any other frame."""
    if frame.get("dir") != "in" or not recorded_rtvi(str(frame.get("type"))):
        return None
    return notice_of(rtvi_spelling(frame.get("rtvi_type")), frame.get("data"))


def notice_of(rtvi_type: str, data: object) -> ReloadNotice | None:
    """The reload notice an RTVI message from the brain is (``rtvi_type`` in RTVI spelling,
    its ``data`` as it crossed), as the app is shown it; None for any other message."""
    if rtvi_type != RTVI_TYPE or not isinstance(data, str):
        return None
    if RELOADED not in data:
        return None  # most server-messages are not one: not parsed
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):  # the brain's text: nested deep enough, it recurses
        return None
    if not isinstance(value, dict) or value.get(SANDBOX_KEY) != RELOADED:
        return None
    file, serving, moved = value.get("file"), value.get("serving"), value.get("moved")
    if isinstance(file, str) and isinstance(serving, str) and isinstance(moved, bool):
        return ReloadNotice(file, serving, moved)
    return None
