"""The unit book alone: one Finalize per bracket, in opening order, heard a verbatim prefix."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sandbox.call.units import Bracket, Fate, UnitBook, WireRuleBroken
from sandbox.wire import pb


def opened(*ids: int, minted: int = 3) -> UnitBook:
    book = UnitBook()
    for sid in ids:
        book.open(sid, 1, pb.VOICE_JOE, pb.LANGUAGE_EN, minted=minted)
    return book


def test_finalizes_go_in_opening_order_none_overtaking_an_older_unit() -> None:
    book = opened(1, 2, 3)
    for sid in (1, 2, 3):
        assert book.chunk(sid, f"unit {sid} text")
    unit2, unit3 = book.get(2), book.get(3)
    assert unit2 is not None and unit3 is not None
    book.seal(unit3, Fate.CANCELLED)
    book.seal(unit2, Fate.CANCELLED)
    assert book.flush() == []  # unit 1 is still in play: nothing may overtake it
    unit1 = book.get(1)
    assert unit1 is not None
    unit1.cursor.played("unit")
    book.seal(unit1, Fate.BARGED)
    assert [(f.speech_id, f.heard_text) for f in book.flush()] == [(1, "unit"), (2, ""), (3, "")]
    assert book.flush() == []  # exactly once
    assert all(u.finalized for u in book.units) and book.unresolved() == []


def test_a_fate_is_sealed_once() -> None:
    book = opened(1)
    unit = book.get(1)
    assert unit is not None
    assert book.seal(unit, Fate.PLAYED)
    assert not book.seal(unit, Fate.BARGED)
    assert unit.fate is Fate.PLAYED


def test_heard_is_a_verbatim_prefix_of_the_relayed_text() -> None:
    book = opened(1)
    book.chunk(1, "We open at ")
    book.chunk(1, "nine, Monday to Friday.")
    unit = book.get(1)
    assert unit is not None
    for word in ("we", "OPEN", "at", "nine"):
        unit.cursor.played(word)
    book.seal(unit, Fate.BARGED)
    (fin,) = book.flush()
    assert fin.heard_text == "We open at nine,"
    assert unit.relayed.startswith(fin.heard_text)


def test_text_after_a_cut_is_kept_unspoken_and_counts_as_generated() -> None:
    book = opened(1)
    assert book.chunk(1, "Hello")
    assert book.cancel(1) is not None
    assert not book.chunk(1, " there")  # in flight before the brain saw its cut land
    unit = book.get(1)
    assert unit is not None and unit.bracket is Bracket.CANCELLED
    assert (unit.relayed, unit.generated) == ("Hello", "Hello there")
    assert book.cancel(1) is None  # a second cancel takes nothing back


def test_bracket_rules_raise_with_the_rule_broken() -> None:
    book = opened(1)
    with pytest.raises(WireRuleBroken, match="speech_id 0"):
        book.open(0, 1, pb.VOICE_JOE, pb.LANGUAGE_EN, minted=3)
    with pytest.raises(WireRuleBroken, match="reuses speech_id 1"):
        book.open(1, 1, pb.VOICE_JOE, pb.LANGUAGE_EN, minted=3)
    with pytest.raises(WireRuleBroken, match="outside an open unit"):
        book.chunk(9, "x")
    assert book.end(1) is not None
    with pytest.raises(WireRuleBroken, match="after SpeechEnd"):
        book.chunk(1, "x")
    with pytest.raises(WireRuleBroken, match="second SpeechEnd"):
        book.end(1)
    with pytest.raises(WireRuleBroken, match="never opened"):
        book.cancel(7)


def test_a_refused_unit_drops_the_rest_of_its_bracket_quietly() -> None:
    book = opened()
    with pytest.raises(WireRuleBroken, match="never minted; unit refused"):
        book.open(5, 4, pb.VOICE_JOE, pb.LANGUAGE_EN, minted=3)
    assert not book.chunk(5, "ignored")
    assert book.end(5) is None
    with pytest.raises(WireRuleBroken, match="never opened"):
        book.cancel(5)  # the cancel table: a unit this session never opened
    assert book.units == [] and book.flush() == []
    with pytest.raises(WireRuleBroken, match="reuses speech_id 5"):
        book.open(5, 1, pb.VOICE_JOE, pb.LANGUAGE_EN, minted=3)


#: Writing one of a unit's own fields, or walking its heard cursor, in place.
_WRITES_A_UNIT = re.compile(
    r"\.(fate|unspoken|last_frame_ms|dropped_chars|past_cap|chunks|finalized)\s*(=|\+=)(?!=)"
    r"|\.cursor\.(extend|played|played_all|heard_through|settle)\("
    r"|\.discarded\.(append|extend)\("
)


def test_a_unit_is_written_only_in_its_own_module() -> None:
    """``sandbox/call/units.py`` is the one place a ``Unit`` changes (its methods and its
    book's); the core and the fold of a stored call call them."""
    root = Path(__file__).resolve().parent.parent
    found = [
        f"{path.relative_to(root)}:{number}"
        for path in sorted((root / "sandbox").rglob("*.py"))
        if path != root / "sandbox" / "call" / "units.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if _WRITES_A_UNIT.search(line)
    ]
    assert found == []
