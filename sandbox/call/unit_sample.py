"""Which of a call's units its record keeps: the first ``MAX_UNITS_KEPT``, then a sample.

The contract sets no limit on units, so every unit a brain opens is opened, spoken and
Finalized, however many there are. What the record keeps of them is bounded: a brain that
opened 200,000 units and closed none made every one a report entry, a stored record, a
printed line and work for the end of the call, which then took seconds to write what no
one would read. Past ``MAX_UNITS_KEPT`` a unit is kept only as a sample, one opened at
least ``UNIT_SAMPLE_MS`` after the last one sampled (so the sample spans the flood), up to
``UNITS_SAMPLED`` of them; the rest are counted (a report's ``units_unkept``). Decided on
the core's clock, the time each SpeechStart was taken at.
"""

from __future__ import annotations

from dataclasses import dataclass

#: A call's units the record keeps whole (a long call opens a few hundred); later ones are
#: honoured all the same, and the record keeps a sample of them and counts the rest. Their
#: frames are the record's surplus too (``Surplus.UNIT_PAST_CAP``).
MAX_UNITS_KEPT = 1000
#: Past the cap, the least time between two units the sample keeps (ms, the core's clock).
UNIT_SAMPLE_MS = 1000
#: Past the cap, the most units the sample keeps.
UNITS_SAMPLED = 100


@dataclass
class UnitSample:
    """Counts the units opened and says, as each opens, whether the record keeps it."""

    opened: int = 0
    sampled: int = 0
    #: Units opened and not kept (only counted).
    unkept: int = 0
    _sampled_at: int | None = None

    def keeps(self, now: int) -> bool:
        """A unit opened at ``now``: True when the record keeps it."""
        self.opened += 1
        if self.opened <= MAX_UNITS_KEPT:
            return True
        due = self._sampled_at is None or now - self._sampled_at >= UNIT_SAMPLE_MS
        if due and self.sampled < UNITS_SAMPLED:
            self.sampled += 1
            self._sampled_at = now
            return True
        self.unkept += 1
        return False
