"""Opening a saved session for replay: its index, its timeline, and its audio legs if any."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from sandbox.errors import UserError
from sandbox.record.leg_files import leg_path
from sandbox.record.legs import MIC, SPEAKER, read_leg
from sandbox.record.store import SessionRow, SessionStore
from sandbox.record.stored_call import StoredCall
from sandbox.replay.timeline import Replayer

Leg = tuple[npt.NDArray[np.int16], int]


@dataclass
class Recording:
    """A session ready to replay. ``legs`` is empty for a sim or typed call, and ``no_audio``
    says why there is nothing to hear (None when both legs are there)."""

    row: SessionRow
    replayer: Replayer
    legs: dict[str, Leg]
    no_audio: str | None
    brain: str  # the brain by its recorded name (see sandbox.record.session_words)
    #: Each caller turn's latency waterfall, from the session's report (none recorded by
    #: an older build, or by a call cut short).
    timelines: Mapping[int, Mapping[str, int]]
    #: The phone line the call was on, in words (None: none, the laptop's wideband path).
    line: str | None = None

    @property
    def duration_ms(self) -> int:
        """How long the replay runs: the call, or what it recorded if it never ended."""
        recorded = max(
            self.replayer.duration_ms, *(len(s) * 1000 // r for s, r in self.legs.values()), 0
        )
        return max(self.row.duration_ms or 0, recorded)


def open_recording(session: str, store: SessionStore | None = None) -> Recording:
    """The session named by id or prefix, loaded for replay (UserError in words if not)."""
    own = store is None
    store = store or SessionStore()
    try:
        row = store.find(session)
        call = StoredCall.load(store, row)
        replayer = Replayer.of(call)
        brain = call.head.brain_name or row.brain_url
        turns, line = call.report.turns or (), call.report.line or None
    finally:
        if own:
            store.close()
    legs: dict[str, Leg] = {}
    no_audio: str | None = None
    if row.mode != "audio":
        no_audio = f"this was a {row.mode} call: it has no audio to play"
    else:
        try:
            legs = {leg: read_leg(leg_path(row.id, leg)) for leg in (MIC, SPEAKER)}
        except UserError as exc:
            no_audio = str(exc)
    timelines = {turn.turn_id: turn.timeline.marks for turn in turns}
    return Recording(row, replayer, legs, no_audio, brain, timelines, line)
