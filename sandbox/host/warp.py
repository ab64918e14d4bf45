"""Call time that skips the dead time of a simulated call: a re-drive at many times real time.

A simulated call spends almost all of its time waiting: for the next word's slot in the
playout, for a silence in the script, for the idle nudge. :class:`WarpClock` is a monotonic
clock the host can move forward over such waits instead of sleeping through them. Everything
recorded uses the warped time, so a re-drive's session reads as if it had played in real time.

A skip is only sound over time that is provably idle: the brain owes nothing, so no frame of
its can land inside the skipped stretch and reorder what the caller lived. The host (see
:meth:`CallHost._warped`) skips only to the next thing due (a word, the caller's next action,
a timer), and only when no event is queued and the brain is not *working*. The brain is
working, and the clock runs in real time, while any of these holds:

1. **A turn is owed** (:func:`brain_owes`): a turn was minted (the greeting's, a caller's
   UserMessage, a UserIdle) and no unit of it has opened yet, until the core's stall warning
   for it (so a brain that answers a turn with nothing costs real time up to the warning,
   never a hang);
2. **a unit is open**: the brain sent its SpeechStart and neither its SpeechEnd nor a
   SpeechCancel (nor the core's own close of a unit left silent); the rest of its text is
   owed, so a streamed reply's next piece lands at the word it would have;
3. **the link is not yet quiet**: a frame crossed either way less than :attr:`grace_s` of
   wall time ago (a brain's answer to a Finalize, or the next unit right behind a SpeechEnd,
   lands in that gap);
4. **the brain may still be answering its turn** after closing every unit it opened: the
   wire has no frame that says a turn is done, so a brain that speaks a filler, calls a tool
   for a second and then answers on the same turn cannot be told from one that is done.
   :attr:`hold_s` is how long the brain's link must have been quiet *from its side* before
   the clock may skip: 0 by default, and for a re-drive the longest such wait the original
   call showed (:func:`work_gaps`), with a margin; the clock raises it the same way when a
   brain opens a unit on a turn whose units were all closed (:meth:`WarpClock.frame`), so
   the rest of the call waits for it (that first wait may already have been skipped).

On a busy machine the host may wake later than what it waited for: on a warp clock the time
slept through is taken back (:meth:`WarpClock.woke_late`) and playout releases one word a
step, so a scripted caller waiting for a word acts at that word, as on an idle machine.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from sandbox.call.core import CallCore
from sandbox.call.turn_records import BracketClosed, TurnSent
from sandbox.call.unit_records import UnitOpened
from sandbox.call.units import Bracket

#: Wall time the brain's link must have been quiet before dead time is skipped.
DEFAULT_GRACE_S = 0.03
#: A wait the brain showed between closing a turn's units and opening another, stretched by
#: this much (and HOLD_MARGIN_S), is the quiet needed before a skip: its timing varies.
HOLD_FACTOR = 1.5
HOLD_MARGIN_S = 0.2
#: The most the hold can be: beyond the stall warning a wait is a stall, not work.
MAX_HOLD_S = 10.0


def brain_owes(core: CallCore) -> bool:
    """Whether the brain owes the call something right now (rules 1 and 2 of the module doc)."""
    return core.awaiting_brain or any(u.bracket is Bracket.OPEN for u in core.in_play)


def hold_for(gaps_s: Iterable[float]) -> float:
    """The :attr:`WarpClock.hold_s` for a brain that showed these waits (seconds)."""
    longest = max(gaps_s, default=0.0)
    return min(MAX_HOLD_S, longest * HOLD_FACTOR + HOLD_MARGIN_S) if longest > 0 else 0.0


def work_gaps(records: Iterable[tuple[int, object]]) -> list[float]:
    """Rule 4's evidence in a recorded call: each wait (seconds) between the brain closing
    every unit it had opened for the newest turn and opening another for that same turn.
    ``records``: the core's records of the call with the ms each happened at, in order (a
    stored session's, as :func:`~sandbox.record.unit_log.with_unit_records` gives them)."""
    work = TurnWork()
    found = (work.took(t / 1000, value) for t, value in records)
    return [gap for gap in found if gap is not None]


def brain_busy_ms(records: Iterable[tuple[int, object]]) -> int:
    """How long the brain was answering in a recorded call (ms): the union of the spans from
    each turn going out to the SpeechEnd of each unit of it. ``records`` as
    :func:`work_gaps` takes them."""
    work = TurnWork()
    for t_ms, value in records:
        work.took(t_ms / 1000, value)
    busy, reach = 0.0, 0.0
    for start, end in sorted(work.answered):
        start = max(start, reach)
        if end > start:
            busy += end - start
            reach = end
    return round(busy * 1000)


@dataclass
class TurnWork:
    """Follows the brain's work in the core's records: which units of the newest turn are
    open, and when they were all closed (says how long the brain waited when it opens
    another unit for it); and, for every turn, from its going out to each SpeechEnd of a
    unit of it (:attr:`answered`)."""

    newest: int = 0
    open_units: set[int] = field(default_factory=set)
    closed_at: float | None = None
    #: When each turn went out, and which turn each unit answers.
    asked_at: dict[int, float] = field(default_factory=dict)
    turn_of: dict[int, int] = field(default_factory=dict)
    #: (turn out, a unit of it ended by SpeechEnd) for every such unit, in order.
    answered: list[tuple[float, float]] = field(default_factory=list)

    def took(self, at_s: float, value: object) -> float | None:
        """One of the core's records, at ``at_s``; the wait it ended, or None."""
        match value:
            case TurnSent(turn_id=turn):
                self.newest, self.open_units, self.closed_at = turn or 1, set(), None
                self.asked_at[turn] = at_s
            case UnitOpened(speech_id=sid, turn_id=turn):
                self.turn_of[sid] = turn
                if turn != self.newest:
                    return None
                waited = None
                if self.closed_at is not None and not self.open_units:
                    waited = at_s - self.closed_at
                self.open_units.add(sid)
                return waited
            case BracketClosed(speech_id=sid, cancelled=cancelled):
                asked = self.asked_at.get(self.turn_of.get(sid, -1))
                if asked is not None and not cancelled:
                    self.answered.append((asked, at_s))
                if sid in self.open_units:
                    self.open_units.discard(sid)
                    if not self.open_units:
                        self.closed_at = at_s
        return None


class WarpClock:
    """A monotonic clock (seconds) that can be moved forward; see the module doc."""

    def __init__(
        self,
        wall: Callable[[], float] = time.monotonic,
        grace_s: float = DEFAULT_GRACE_S,
        hold_s: float = 0.0,
    ) -> None:
        """``wall``: the real clock underneath; ``grace_s``: the quiet needed to skip;
        ``hold_s``: the quiet from the brain's side needed to skip (rule 4)."""
        self._wall = wall
        self.grace_s = grace_s
        self.hold_s = hold_s
        self._skipped = 0.0
        self._last = 0.0  # the latest time read
        self._io_at = self._in_at = wall()
        self._work = TurnWork()

    def __call__(self) -> float:
        """Now, on the warped clock."""
        self._last = max(self._last, self._wall() + self._skipped)
        return self._last

    @property
    def skipped_s(self) -> float:
        """How much time has been skipped so far."""
        return self._skipped

    def brain_io(self, *, incoming: bool = False) -> None:
        """A frame crossed the brain's link (``incoming``: from the brain): wait for quiet
        again before skipping."""
        self._io_at = self._wall()
        if incoming:
            self._in_at = self._io_at

    def took(self, value: object) -> None:
        """One of the core's effects as the call runs: a brain that opens a unit on a turn
        whose units it had all closed was still working on it, so the hold grows to cover
        that wait (rule 4)."""
        waited = self._work.took(self._wall(), value)
        if waited is not None:
            self.hold_s = max(self.hold_s, hold_for([waited]))

    def quiet_left(self) -> float:
        """Wall seconds until the link has been quiet long enough to skip (0: now)."""
        now = self._wall()
        return max(0.0, self.grace_s - (now - self._io_at), self.hold_s - (now - self._in_at))

    def skip(self, seconds: float) -> None:
        """Move the clock forward."""
        self._skipped += max(0.0, seconds)

    def woke_late(self, due: float) -> None:
        """The host slept past ``due`` (warped seconds) on a busy machine: the time nobody
        read since is taken back, so what was due happens at its time, one thing after
        another as on an idle machine (a scripted barge-in still lands on its word). The
        clock never goes back past a time it has told."""
        ahead = self._wall() + self._skipped - max(due, self._last)
        if ahead > 0:
            self._skipped -= ahead
