"""The core's records of one call, each with the moment the core made it, kept as the host
carries them out: what a reader judging the call afterwards takes (``sandbox check``'s
:class:`~sandbox.check.wirelog.WireLog`), in place of the frames that crossed.

Kept are the core's records of its units and turns and of the brain's wire
(:data:`~sandbox.call.effects.RecordEffect`: a frame dropped for the rule it broke among
them), the text it relayed, the RTVI frames that crossed to the app and the call's end; not
the frames themselves, playout commands nor redraws, which say nothing more of the wire.
"""

from __future__ import annotations

from sandbox.call.effects import CallEnded, Effect, RecordEffect, SpeakText, ToApp
from sandbox.call.inputs import CoreInput
from sandbox.host.session import CallHost

CoreRecord = RecordEffect | SpeakText | ToApp | CallEnded
"""An effect this log keeps (see the module doc)."""


class CoreRecords:
    """One call's :data:`CoreRecord` s in the order the core made them, each with the call's
    time when it did (the time of the input that made it)."""

    def __init__(self, host: CallHost) -> None:
        """Keep ``host``'s records from now on: made before its call runs, it keeps them all."""
        self.records: list[tuple[int, CoreRecord]] = []
        self._now = 0
        host.on_input.append(self._fed)
        host.on_effect.append(self._carried)

    def _fed(self, now: int, _fed: CoreInput) -> None:
        self._now = now  # the effects the host carries next are this input's

    def _carried(self, effect: Effect) -> None:
        if isinstance(effect, CoreRecord):
            self.records.append((self._now, effect))
