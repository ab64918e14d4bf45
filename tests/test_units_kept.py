"""Which units a call's record keeps (issue 56): the first MAX_UNITS_KEPT, then one unit a
``UNIT_SAMPLE_MS`` on the core's clock, up to ``UNITS_SAMPLED``; every unit is honoured all
the same (opened, spoken, Finalized in order), and a unit not kept leaves no record, no
screen effect and no report entry, only its count. Time is the rig's, never the wall's."""

from __future__ import annotations

from call_rig import Rig

from sandbox.call.effects import OpenUnit, SpeakText, UnitChanged
from sandbox.call.inputs import HangUp
from sandbox.call.turn_records import FinalizeSent
from sandbox.call.unit_records import UnitOpened, UnitSealed
from sandbox.call.unit_sample import MAX_UNITS_KEPT, UNIT_SAMPLE_MS, UNITS_SAMPLED, UnitSample
from sandbox.record.call_report import ReportHead, Unkept, call_report


def test_the_sample_keeps_the_first_units_then_one_a_while_up_to_its_size() -> None:
    sample = UnitSample()
    assert all(sample.keeps(0) for _ in range(MAX_UNITS_KEPT))  # all at one instant
    assert sample.keeps(0)  # the first past the cap is sampled
    assert not sample.keeps(UNIT_SAMPLE_MS - 1)  # too soon after it
    assert sample.keeps(UNIT_SAMPLE_MS)
    kept = sum(sample.keeps(t) for t in range(UNIT_SAMPLE_MS + 1, 10**6, 10))
    assert kept == UNITS_SAMPLED - 2  # then one a UNIT_SAMPLE_MS, to the sample's size
    assert sample.sampled == UNITS_SAMPLED
    assert sample.unkept == sample.opened - MAX_UNITS_KEPT - UNITS_SAMPLED


def test_units_past_the_cap_are_honoured_but_only_a_sample_is_kept() -> None:
    rig = Rig()
    rig.start()
    opened = MAX_UNITS_KEPT + 2_000
    for sid in range(1, opened + 1):
        rig.now = sid  # a unit a millisecond: two seconds past the cap
        rig.open(sid, 1)
    rig.chunk(opened, "the last unit speaks")  # not kept, still spoken
    rig.now += 1
    rig.feed(HangUp())
    core = rig.core
    # The cap's units, then the first past it and the one a UNIT_SAMPLE_MS after that.
    sampled = [MAX_UNITS_KEPT + 1, MAX_UNITS_KEPT + 1 + UNIT_SAMPLE_MS]
    kept_ids = [u.speech_id for u in core.units]
    assert kept_ids == [*range(1, MAX_UNITS_KEPT + 1), *sampled]
    assert core.units_unkept == opened - len(kept_ids)
    # Every unit opened is owed and sent its Finalize, in the order they opened.
    assert [sid for sid, _ in rig.finalizes()] == list(range(1, opened + 1))
    assert len(rig.of(OpenUnit)) == opened
    assert [e.speech_id for e in rig.of(SpeakText)] == [opened]
    # Only the units kept have records and screen effects of their own.
    kept = set(kept_ids)
    for kind in (UnitOpened, UnitSealed, FinalizeSent, UnitChanged):
        assert {e.speech_id for e in rig.of(kind)} == kept, kind
    assert not core.unit_kept(opened) and core.unit_kept(1) and core.unit_kept(10**9)
    head = ReportHead(core.session_id, "ws://brain", None, None, 0.0)
    report = call_report(head, core, (), (), Unkept())
    assert [u.speech_id for u in report.units] == kept_ids
    assert report.units_unkept == core.units_unkept
