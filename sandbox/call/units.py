"""Speech units as the call core tracks them, and the book that owns their Finalizes.

:class:`UnitBook` holds every unit of a session and the rule the product exists for:
exactly one Finalize per bracket, sent in the order the units opened, each carrying a
verbatim prefix of that unit's own text (what the caller heard). The core decides *when*
a unit's fate is sealed; the book decides what goes out and in which order.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from sandbox.call.breaches import BrokenRule, WireBreach
from sandbox.call.heard import HeardCursor
from sandbox.wire import pb

#: The most text one unit keeps, relayed and discarded together (at 150 words a minute,
#: nearly two hours of speech), and the most chunks it takes it in (token by token, about
#: 80,000 characters). The wire sets no bound; these keep a brain that streams for ever
#: from growing the call, its report and its store without limit, whatever the size of
#: its chunks. The chunk that crosses either is a PROTOCOL error; the rest of the unit's
#: text is counted in ``Unit.dropped_chars`` and not kept, and the record keeps only a
#: sample of its frames (see :mod:`sandbox.call.surplus`).
MAX_UNIT_CHARS = 100_000
MAX_UNIT_CHUNKS = 20_000
#: The longest text one SpeechChunk may carry: the 64 KiB the wire bounds an RTVI payload by,
#: its only stated size. Chunks are streamed "as they are produced"; a longer one is a
#: PROTOCOL error and is dropped whole (the call goes on; the store keeps its bytes).
MAX_CHUNK_CHARS = 64 * 1024


class Bracket(enum.Enum):
    """Where the brain's bracket for a unit stands."""

    OPEN = "open"  # SpeechStart seen, no SpeechEnd or SpeechCancel yet
    ENDED = "ended"  # closed by SpeechEnd
    CANCELLED = "cancelled"  # closed by the brain's SpeechCancel


class Fate(enum.StrEnum):
    """How a unit's playout finished; None on a Unit means it is still in play. The stored
    report's vocabulary for a unit's fate too: a string enum, so its value is the word."""

    PLAYED = "played"  # every word reached the output
    BARGED = "barged"  # cut by the caller's barge-in (its turn is at or below the watermark)
    CANCELLED = "cancelled"  # cut by a SpeechCancel (the whole floor)
    DEAD_ON_ARRIVAL = "dead"  # opened for a turn already at or below the watermark
    SILENT = "silent"  # closed with no text: nothing to play, nothing cut
    ABANDONED = "abandoned"  # the call ended before it played
    UNSPOKEN = "unspoken"  # the playout could not speak it (see Unit.unspoken)
    # Never sealed by a live call: a reader of a stored session gives it to a unit in play
    # when the call's process died (killed, crashed) before its Finalize.
    CRASHED = "crashed"
    # Never sealed either: a report's word for a unit with no fate yet (the report was
    # written while it played, or rebuilt from a stored call that had not ended).
    IN_PLAY = "in play"


class WireRuleBroken(Exception):
    """A brain's frame broke a rule of the wire: the message says which in words, and
    ``breach`` records it typed. The frame is dropped and the call goes on."""

    def __init__(self, message: str, breach: WireBreach) -> None:
        super().__init__(message)
        self.breach = breach


@dataclass
class Unit:
    """One unit of speech: brain-minted id, the turn it answers, and its heard truth."""

    speech_id: int
    turn_id: int
    voice: int
    language: int
    bracket: Bracket = Bracket.OPEN
    fate: Fate | None = None
    cursor: HeardCursor = field(default_factory=HeardCursor)
    finalized: bool = False
    #: Text the brain sent that was never relayed: it came after the unit's fate was sealed.
    discarded: list[str] = field(default_factory=list)
    #: Why the playout could not speak it, when it could not (its fate is then UNSPOKEN).
    unspoken: str = ""
    #: Characters of its text not kept: past MAX_UNIT_CHARS or MAX_UNIT_CHUNKS, or in
    #: frames only counted (:mod:`sandbox.call.surplus`).
    dropped_chars: int = 0
    #: It passed one of those limits: the rest of its text is dropped.
    past_cap: bool = False
    #: Chunks it took, relayed, discarded or empty (not those past its limit).
    chunks: int = 0
    #: When the brain last sent a frame of this unit (the core's clock, ms).
    last_frame_ms: int = 0
    #: The call's record keeps it (see :mod:`sandbox.call.unit_sample`); else it is honoured
    #: all the same, but only counted.
    kept: bool = True
    _discarded_chars: int = 0

    @property
    def reported_fate(self) -> Fate:
        """Its fate as a report states it: :attr:`Fate.IN_PLAY` while it has none."""
        return self.fate or Fate.IN_PLAY

    @property
    def has_text(self) -> bool:
        """Some text has been relayed to playout (cheap: no join)."""
        return self.cursor.chars > 0

    @property
    def kept_chars(self) -> int:
        """Characters kept of what the brain sent, relayed and discarded."""
        return self.cursor.chars + self._discarded_chars

    # What happens to it: a unit changes only through these (and its book), so this module
    # is the one place it is written.

    def discard(self, text: str) -> None:
        """Keep text that will never be spoken, for the record."""
        self.discarded.append(text)
        self._discarded_chars += len(text)

    def relay(self, text: str) -> None:
        """More of its text goes to playout."""
        self.cursor.extend(text)

    def frame_at(self, now: int) -> None:
        """The brain sent a frame of it at ``now``."""
        self.last_frame_ms = now

    def counted(self, chars: int, now: int) -> None:
        """Frames of it holding ``chars`` characters were only counted (surplus), the last
        at ``now``: their text is dropped."""
        self.dropped_chars += chars
        self.last_frame_ms = now

    def play(self, word: str) -> bool:
        """The playout released ``word`` of it; False when the word matched none of its text
        (skipped, see :mod:`sandbox.call.heard`)."""
        return self.cursor.played(word)

    def play_all(self) -> None:
        """All of its audio was released: every word of its text is heard."""
        self.cursor.played_all()

    def cannot_speak(self, reason: str) -> None:
        """The playout could not speak (the rest of) it, for ``reason``."""
        self.unspoken = reason

    def seal(self, fate: Fate) -> bool:
        """Fix how its playout ended, and so its heard text; False if it already was."""
        if self.fate is not None:
            return False
        self.fate = fate
        return True

    def as_the_crash_left_it(self) -> Unit:
        """This unit as the call's process dying left it: one still in play was cut by the
        crash (fate ``crashed``, heard what played), a copy, so the core's own is untouched;
        one already sealed, itself."""
        if self.fate is not None:
            return self
        cut = replace(self)
        cut.seal(Fate.CRASHED)
        return cut

    def sealed_as_recorded(self, fate: Fate, heard: str, unspoken: str) -> None:
        """A stored call's record sealed it (see :mod:`sandbox.call.unit_fold`): its fate,
        its heard text (a prefix of its own) and why it went unspoken, as the core had them."""
        self.cursor.heard_through(len(heard))
        self.fate, self.unspoken = fate, unspoken

    @property
    def relayed(self) -> str:
        """The text relayed to playout, in order: what the heard prefix is taken from."""
        return self.cursor.text

    @property
    def generated(self) -> str:
        """Everything the brain sent for this unit: the relayed text, then what was discarded."""
        return self.cursor.text + "".join(self.discarded)

    @property
    def heard(self) -> str:
        """The delivered prefix of the unit's own text."""
        return self.cursor.heard

    @property
    def words_heard(self) -> int:
        """How many of its words lie inside the heard prefix."""
        return self.cursor.words_heard

    def view(self) -> UnitView:
        """The unit as it stands now, frozen: what a screen on another thread is handed."""
        return UnitView(
            self.speech_id,
            self.turn_id,
            self.fate,
            has_text=self.has_text,
            heard=self.heard,
            relayed=self.relayed,
            discarded=tuple(self.discarded),
            words_heard=self.words_heard,
        )

    @property
    def interrupted(self) -> bool:
        """The caller did not hear all the brain generated for it: its fate is sealed (or it
        died with the call's process) and its heard text is short of its generated text. A
        unit still in play is not interrupted yet. The one definition: the live report, a
        rebuilt one, the replay and the driver all read it here."""
        return (
            self.fate is not None
            and self.fate is not Fate.IN_PLAY
            and (self.heard != self.generated)
        )


@dataclass(frozen=True)
class UnitView:
    """A unit as it stood at one moment (:meth:`Unit.view`): what the screen draws."""

    speech_id: int
    turn_id: int
    fate: Fate | None
    has_text: bool
    heard: str
    relayed: str
    discarded: tuple[str, ...]
    words_heard: int

    @property
    def generated(self) -> str:
        """Everything the brain sent for it: the relayed text, then what was discarded."""
        return self.relayed + "".join(self.discarded)


class ShownUnit(Protocol):
    """What drawing a unit reads: a live unit's :class:`UnitView`, or a stored call's
    :class:`Unit` rebuilt by the replay (each owned by the thread that draws it)."""

    @property
    def speech_id(self) -> int:
        """Its brain-minted id."""

    @property
    def turn_id(self) -> int:
        """The turn it answers."""

    @property
    def fate(self) -> Fate | None:
        """How its playout finished; None while in play."""

    @property
    def has_text(self) -> bool:
        """Some text has been relayed to playout."""

    @property
    def heard(self) -> str:
        """The delivered prefix of its text."""

    @property
    def relayed(self) -> str:
        """The text relayed to playout."""

    @property
    def discarded(self) -> Sequence[str]:
        """Text kept for the record, never spoken."""

    @property
    def generated(self) -> str:
        """Everything the brain sent for it."""

    @property
    def words_heard(self) -> int:
        """How many of its words were heard."""


@dataclass
class UnitBook:
    """Every unit of one session, in the order they opened, and their Finalizes."""

    units: list[Unit] = field(default_factory=list)
    #: Those the call's record keeps (:attr:`Unit.kept`), in the same order.
    kept: list[Unit] = field(default_factory=list)
    _by_id: dict[int, Unit] = field(default_factory=dict)
    _refused: set[int] = field(default_factory=set)
    _next_finalize: int = 0

    def get(self, speech_id: int) -> Unit | None:
        """A unit by its brain-minted id."""
        return self._by_id.get(speech_id)

    def unresolved(self) -> list[Unit]:
        """Units still in play (opened, queued or playing), oldest first."""
        return [u for u in self.units[self._next_finalize :] if u.fate is None]

    # ------------------------------------------------------------ the brackets

    def open(
        self,
        speech_id: int,
        turn_id: int,
        voice: int,
        language: int,
        *,
        minted: int,
        kept: Callable[[], bool] = lambda: True,
    ) -> Unit:
        """A SpeechStart: a new unit, after every older one; ``kept`` says, once it opens,
        whether the record keeps it. Raises WireRuleBroken for an id that is unset or
        already used (the frame is dropped), and for a turn beyond the last ``minted`` one
        (the id is refused: the rest of its bracket drops quietly)."""
        if speech_id == 0:
            raise WireRuleBroken(
                "SpeechStart with speech_id 0 (unset); frame dropped",
                WireBreach(BrokenRule.SPEECH_ID_UNSET, turn_id=turn_id),
            )
        if speech_id in self._by_id or speech_id in self._refused:
            raise WireRuleBroken(
                f"SpeechStart reuses speech_id {speech_id}; frame dropped",
                WireBreach(BrokenRule.SPEECH_ID_REUSED, speech_id, turn_id),
            )
        if turn_id == 0 or turn_id > minted:
            self._refused.add(speech_id)
            raise WireRuleBroken(
                f"SpeechStart {speech_id} names turn {turn_id}, which was never minted; "
                "unit refused",
                WireBreach(BrokenRule.TURN_NEVER_MINTED, speech_id, turn_id),
            )
        unit = Unit(speech_id, turn_id, voice, language, kept=kept())
        self.units.append(unit)
        if unit.kept:
            self.kept.append(unit)
        self._by_id[speech_id] = unit
        return unit

    def chunk(self, speech_id: int, text: str) -> bool:
        """A SpeechChunk: True when its text joins the unit's relayed text and must be
        spoken; False when it is dropped (a refused unit, no text) or kept unspoken in
        ``discarded`` (a unit cancelled or already sealed)."""
        unit = self._bracketed(
            speech_id,
            f"SpeechChunk for speech_id {speech_id} outside an open unit",
            BrokenRule.CHUNK_OUTSIDE_UNIT,
        )
        if unit is None:
            return False
        if unit.bracket is Bracket.ENDED:
            raise WireRuleBroken(
                f"SpeechChunk for speech_id {speech_id} after SpeechEnd",
                WireBreach(BrokenRule.CHUNK_AFTER_END, speech_id),
            )
        if len(text) > MAX_CHUNK_CHARS:
            raise WireRuleBroken(
                f"SpeechChunk of {len(text):,} characters for speech_id {speech_id}, over the "
                f"{MAX_CHUNK_CHARS:,}-character limit; frame dropped (stream speech as it "
                "is produced)",
                WireBreach(BrokenRule.CHUNK_TOO_LONG, speech_id),
            )
        if (
            unit.past_cap
            or unit.kept_chars + len(text) > MAX_UNIT_CHARS
            or unit.chunks >= MAX_UNIT_CHUNKS
        ):
            first = not unit.past_cap
            unit.past_cap = True
            unit.dropped_chars += len(text)
            if first:
                raise WireRuleBroken(
                    f"speech_id {speech_id} passed {MAX_UNIT_CHARS:,} characters or "
                    f"{MAX_UNIT_CHUNKS:,} chunks, the most one unit keeps; the rest of its "
                    "text is dropped",
                    WireBreach(BrokenRule.UNIT_PAST_CAP, speech_id),
                )
            return False
        unit.chunks += 1
        if unit.bracket is Bracket.CANCELLED or unit.fate is not None:
            # Sent before the brain saw its cut land, or for a dead turn: never spoken.
            unit.discard(text)
            return False
        if not text:
            return False
        unit.relay(text)
        return True

    def end(self, speech_id: int) -> Unit | None:
        """A SpeechEnd: the unit whose bracket it closes, or None when there is nothing to
        close (a refused unit, or one the brain already cancelled)."""
        unit = self._bracketed(
            speech_id,
            f"SpeechEnd for speech_id {speech_id}, never opened",
            BrokenRule.END_NEVER_OPENED,
        )
        if unit is None or unit.bracket is Bracket.CANCELLED:
            return None
        if unit.bracket is Bracket.ENDED:
            raise WireRuleBroken(
                f"second SpeechEnd for speech_id {speech_id}",
                WireBreach(BrokenRule.SECOND_END, speech_id),
            )
        unit.bracket = Bracket.ENDED
        return unit

    def cancel(self, speech_id: int) -> Unit | None:
        """A SpeechCancel: the unit it takes back, its bracket now closed; None when there is
        nothing to take back (a second cancel, a unit already finalized).
        Which other units the cut reaches is the core's rule."""
        unit = self.named_by_cancel(speech_id)
        if unit.finalized or unit.bracket is Bracket.CANCELLED:
            return None
        if unit.bracket is Bracket.OPEN:
            unit.bracket = Bracket.CANCELLED
        return unit

    def named_by_cancel(self, speech_id: int) -> Unit:
        """The unit a SpeechCancel names. Naming 0 or a unit this session never opened (a
        refused one included: it never opened) raises WireRuleBroken, the cancel table's
        PROTOCOL error."""
        unit = self._by_id.get(speech_id)
        if unit is None:
            raise WireRuleBroken(
                f"SpeechCancel names speech_id {speech_id}, which this session never opened",
                WireBreach(BrokenRule.CANCEL_NAMES_NO_UNIT, speech_id),
            )
        return unit

    # ------------------------------------------------------------- heard truth

    def seal(self, unit: Unit, fate: Fate) -> bool:
        """Fix how a unit's playout ended, and so its heard text; False if it already was."""
        return unit.seal(fate)

    def cut_by_cancel(self) -> list[Unit]:
        """A SpeechCancel cuts the whole floor: every unit still in play, an open bracket
        closed as cancelled; the units it reaches, oldest first, for the core to seal."""
        reached = self.unresolved()
        for unit in reached:
            if unit.bracket is Bracket.OPEN:
                unit.bracket = Bracket.CANCELLED
        return reached

    def flush(self) -> list[pb.Finalize]:
        """Every Finalize now due: oldest unit first, none overtaking an older unit still in
        play, each unit's exactly once, each carrying the heard prefix of its own text."""
        out: list[pb.Finalize] = []
        while self._next_finalize < len(self.units):
            unit = self.units[self._next_finalize]
            if unit.fate is None:
                break
            unit.finalized = True
            unit.cursor.settle()
            self._next_finalize += 1
            out.append(pb.Finalize(speech_id=unit.speech_id, heard_text=unit.heard))
        return out

    def _bracketed(self, speech_id: int, unknown: str, rule: BrokenRule) -> Unit | None:
        """The unit a bracket frame names; None for a refused one; for an id never opened,
        ``unknown`` (the words) and ``rule`` are the WireRuleBroken raised."""
        unit = self._by_id.get(speech_id)
        if unit is None and speech_id not in self._refused:
            raise WireRuleBroken(unknown, WireBreach(rule, speech_id))
        return unit
