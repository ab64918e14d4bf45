"""The kinds of frame a call's record only counts past its sample, by the word it keeps them
under (a report's ``frames_unkept`` keys): the core's kinds of frame the call has no more use
for (:class:`sandbox.call.surplus.Surplus`), and the record's own, a frame kept cut for its
size past the sample (``oversized``)."""

from __future__ import annotations

import enum

from sandbox.call.surplus import Surplus

#: The kind of a frame cut for its size, past the sample: the record's, not the core's.
OVERSIZED = "oversized"

#: Every word a report's ``frames_unkept`` is keyed by: the core's kinds and the record's own.
UnkeptKind = enum.StrEnum(  # type: ignore[misc]  # its words are the core's and the record's
    "UnkeptKind", {**{kind.name: kind.value for kind in Surplus}, "OVERSIZED": OVERSIZED}
)
