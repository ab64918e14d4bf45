"""The worker failing is ``not_reached`` with its reason, never ``no_answer`` (the call record; the
decision is written in :mod:`sandbox.call.outcome`): a brain that closes the socket right
after SessionStart, sends a fatal Error, or never speaks; and a greeting the runtime could
not speak, even when the caller talks afterwards. ``no_answer`` keeps its one meaning: the
brain was reached and the caller said nothing.

The rules on the core with a fake clock, then each cause through ``sandbox call`` against a
raw-wire brain, read back from the report, ``sessions show --json`` and ``sessions list``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

import pytest
from brain_process import reported_call, run
from call_rig import Rig
from fault_brains import (
    ANSWER,
    FATAL,
    FELL_OVER,
    closes_after_start,
    fatal_after_start,
    greets_unsayably,
    never_speaks,
    served,
)
from ui_brains import dropping_brain, in_thread

from sandbox.call.core import DEFAULT_STALL_MS, SILENT_BRAIN_MS
from sandbox.call.inputs import BrainClosed, HangUp
from sandbox.call.outcome import Outcome, Verdict
from sandbox.call.played import ClauseUnsaid, UnitPlayed, WordPlayed
from sandbox.call.settings import Settings
from sandbox.wire import pb

FAILED = "the brain failed before the caller heard a word from it: "


def started() -> Rig:
    rig = Rig()
    rig.start()
    return rig


def hung_up(rig: Rig) -> Verdict:
    rig.feed(HangUp())
    assert rig.core.ended is not None and rig.core.ended.outcome == rig.core.verdict().word
    return rig.core.verdict()


# ------------------------------------------------------------- the rules, on the core


def test_a_socket_closed_before_a_word_was_heard_is_not_reached() -> None:
    rig = started()
    rig.feed(BrainClosed("the brain closed the connection (code 1011)"))
    why = FAILED + "the brain closed the connection (code 1011)"
    assert rig.core.verdict() == Verdict(Outcome.NOT_REACHED, why)


def test_a_fatal_error_is_not_reached_naming_its_code() -> None:
    rig = started()
    rig.brain(pb.Error(code=pb.ERROR_CODE_INTERNAL, message="no key", fatal=True))
    assert rig.core.verdict() == Verdict(
        Outcome.NOT_REACHED, FAILED + "it sent a fatal INTERNAL Error: no key"
    )


def test_a_cancel_before_a_word_was_heard_is_not_reached() -> None:
    rig = started()
    rig.brain(pb.Cancel(reason="shutting down"))
    assert rig.core.verdict() == Verdict(
        Outcome.NOT_REACHED, FAILED + "it cancelled the call: shutting down"
    )


def test_a_brain_that_never_sends_a_frame_is_not_reached_even_when_the_caller_talks() -> None:
    rig = started()
    rig.advance(SILENT_BRAIN_MS)
    rig.caller("Hello, is anybody there at all?")
    rig.advance(1_000)
    rig.caller("Hello?")
    assert hung_up(rig) == Verdict(
        Outcome.NOT_REACHED,
        FAILED + f"it sent nothing in the {SILENT_BRAIN_MS // 1000} s after SessionStart",
    )


def test_a_brain_that_sent_no_frame_is_not_reached_however_soon_the_caller_hangs_up() -> None:
    """003: "not_reached — it never rang at all: The dial, the dispatch or the worker
    failed". A caller who spoke into a brain that sent nothing at all heard nobody: decided
    from what the caller heard, not from the silent-brain timer (4 s), which never ran out."""
    rig = started()
    rig.advance(1_000)
    rig.caller("Hi, this is Sarah. My number is 07700 900123.")
    rig.advance(500)
    assert hung_up(rig) == Verdict(
        Outcome.NOT_REACHED, FAILED + "it sent no frame at all, so the caller heard nothing from it"
    )


def test_a_brain_that_leaves_the_callers_turn_unanswered_is_not_reached() -> None:
    """It sent a frame (no greeting is owed), then never answered the caller."""
    rig = started()
    rig.brain(pb.RTVIFrame(type=pb.RTVI_TYPE_SERVER_MESSAGE, data="{}"))
    rig.advance(2_500)
    rig.caller("I would like to book a table for two tonight")
    rig.advance(DEFAULT_STALL_MS)
    assert hung_up(rig) == Verdict(
        Outcome.NOT_REACHED, FAILED + f"it left turn 2 unanswered for {DEFAULT_STALL_MS // 1000} s"
    )


def test_a_brain_that_fails_after_it_was_heard_leaves_the_callers_outcome() -> None:
    """It rang and somebody picked up: the greeting was heard. A silent caller is then
    ``no_answer`` however the brain ends, and a caller who talked had a conversation."""
    rig = started()
    rig.say(1, 1, "Hello.")
    rig.advance(100)
    rig.feed(BrainClosed("the brain closed the connection (code 1011)"))
    assert rig.core.verdict() == Verdict(Outcome.NO_ANSWER)

    rig = started()
    rig.say(1, 1, "Hello.")
    rig.advance(100)
    rig.caller("I want to book a table for two")
    rig.advance(DEFAULT_STALL_MS)
    assert hung_up(rig) == Verdict(Outcome.COMPLETED)


def test_no_answer_is_a_reached_brain_and_a_silent_caller() -> None:
    rig = Rig(settings=Settings(idle_ms=800))
    rig.start()
    rig.say(1, 1, "Hello.")
    rig.advance(5_000)  # idle turns the brain leaves unanswered owe nothing
    assert hung_up(rig) == Verdict(Outcome.NO_ANSWER)


def test_a_caller_who_hangs_up_before_the_greeting_played_is_no_answer() -> None:
    rig = started()
    rig.say(1, 1, "Hello, and welcome to the shop.")
    assert hung_up(rig) == Verdict(Outcome.NO_ANSWER)  # nobody failed: the caller left


def test_an_unspoken_greeting_is_not_reached_though_the_caller_talks_and_hears_a_reply() -> None:
    rig = started()
    rig.say(1, 1, "Hello there.")
    rig.feed(ClauseUnsaid(1, "Hello there.", "the synthesizer failed"))
    rig.feed(UnitPlayed(1))  # its audio is out: none
    rig.caller("Hello? I can't hear anything at all")
    rig.say(2, 2, "Sorry, can you hear me now?")
    rig.advance(1_000)
    rig.caller("Yes I can hear you now, thanks")
    verdict = hung_up(rig)
    assert [u.heard for u in rig.core.units] == ["", "Sorry, can you hear me now?"]
    assert verdict.word == "not_reached"
    assert verdict.reason == (
        "the greeting could not be spoken: a silent failure; "
        "could not say 'Hello there.': the synthesizer failed"
    )


def test_a_greeting_cut_by_the_caller_before_its_first_word_is_no_fault() -> None:
    rig = started()
    rig.say(1, 1, "Hello, and welcome to the shop.")
    rig.barge_in()
    rig.caller("Hi, I need to book a table for tonight")
    assert hung_up(rig) == Verdict(Outcome.COMPLETED)


def test_a_greeting_heard_in_part_is_not_a_silent_failure() -> None:
    """Its first clause played, the second could not be said: the caller heard the bot (the
    record's speech_unsaid finding says what stopped), so the call was reached."""
    rig = started()
    rig.say(1, 1, "Hello. ", "Welcome!")
    rig.feed(WordPlayed(1, "Hello."))
    rig.feed(ClauseUnsaid(1, "Welcome!", "the synthesizer failed"))
    rig.feed(UnitPlayed(1))
    assert rig.finalizes() == [(1, "Hello.")]
    assert hung_up(rig) == Verdict(Outcome.NO_ANSWER)


# ------------------------------------------------------------- through sandbox call

SILENT = "[[step]]\nsilence_ms = 3000\n[[step]]\nend = true\n"
Serve = Callable[[], AbstractContextManager[str]]
#: The cause, and what the record's reason says (its start, then words it must hold).
CASES: dict[str, tuple[Serve, str, tuple[str, ...]]] = {
    "closes 1011 right after SessionStart": (
        lambda: served(closes_after_start),
        FAILED + "the brain closed the connection (code 1011",
        (FELL_OVER,),
    ),
    "sends a fatal Error": (
        lambda: served(fatal_after_start),
        FAILED + "it sent a fatal INTERNAL Error: ",
        (FATAL,),
    ),
    "never speaks": (
        lambda: served(never_speaks),
        FAILED + "it sent nothing in the ",
        ("after SessionStart",),
    ),
}


@pytest.mark.parametrize("cause", list(CASES))
def test_a_brain_that_fails_the_silent_caller_is_not_reached(cause: str, tmp_path: Path) -> None:
    serve, starts, holds = CASES[cause]
    home = tmp_path / "home"
    with serve() as url:
        done, report = reported_call(tmp_path, home, SILENT, "--brain", url, "--idle-ms", "0")
    assert done.returncode == 1, done.stdout + done.stderr
    record = report["record"]
    assert report["outcome"] == record["outcome"] == "not_reached"
    assert record["reason"].startswith(starts) and all(w in record["reason"] for w in holds)
    assert f"outcome not_reached: {record['reason']}" in done.stdout  # said where it ran
    _assert_stored(tmp_path, home, report["session_id"], record)


def test_a_brain_that_greets_then_falls_over_is_still_no_answer(tmp_path: Path) -> None:
    """The greeting was heard: it rang and somebody picked up; the caller never spoke."""
    home = tmp_path / "home"
    with in_thread(dropping_brain) as url:
        done, report = reported_call(tmp_path, home, SILENT, "--brain", url, "--idle-ms", "0")
    assert done.returncode == 0, done.stdout + done.stderr
    assert report["ended_by"] == "brain_closed"
    assert report["record"]["outcome"] == "no_answer" and report["record"]["reason"] == ""
    _assert_stored(tmp_path, home, report["session_id"], report["record"])


TALKS_AFTER = (
    "[[step]]\ntype = 'Hello? This is Sarah, I cannot hear anything at all'\n[[step]]\nend = true\n"
)
#: A caller who gives a name and a number into the silence, then hangs up at once.
SARAH = "[[step]]\ntype = 'Hi, this is Sarah. My number is 07700 900123.'\n[[step]]\nend = 'now'\n"
#: Words a record says when it learned nothing from a call that was not reached.
NO_FACTS = "skipped: the call was not reached"


def assert_no_facts(record: dict[str, object]) -> None:
    """003: "not_reached — it never rang at all | No lead, no facts"."""
    assert record["caller_name"] is None
    assert record["entities"] == [] and record["readbacks"] == []
    assert record["addressed_as"] == []
    assert str(record["summary"]).startswith(NO_FACTS), record["summary"]


def test_a_caller_who_speaks_into_a_silent_brain_and_hangs_up_is_not_reached_with_no_facts(
    tmp_path: Path,
) -> None:
    """A brain that never sends a frame; the caller gives a name and a number and hangs up
    within a second, long before the silent-brain notice: never ``completed``, and the
    record keeps the reason and nothing learned about the caller."""
    home = tmp_path / "home"
    with served(never_speaks) as url:
        done, report = reported_call(tmp_path, home, SARAH, "--brain", url, "--idle-ms", "0")
    assert done.returncode == 1, done.stdout + done.stderr
    record = report["record"]
    assert report["outcome"] == record["outcome"] == "not_reached"
    assert (
        record["reason"] == FAILED + "it sent no frame at all, so the caller heard nothing from it"
    )
    assert_no_facts(record)
    _assert_stored(tmp_path, home, report["session_id"], record)


@pytest.mark.audio
def test_a_greeting_the_tts_cannot_say_is_not_reached_though_the_caller_talks_after(
    tmp_path: Path,
) -> None:
    """Real Piper: the greeting is one word no synthesizer says, so nobody hears a word of
    it; the caller speaks after it and hears the brain's answer. Still a silent failure."""
    home = tmp_path / "home"
    with served(greets_unsayably) as url:
        done, report = reported_call(
            tmp_path, home, TALKS_AFTER, "--brain", url, "--audio", "real", "--speaker", "none"
        )
    assert done.returncode == 1, done.stdout + done.stderr
    greeting, answer = report["units"]
    assert greeting["fate"] == "unspoken" and greeting["heard"] == ""
    assert answer["fate"] == "played" and answer["heard"] == ANSWER
    record = report["record"]
    assert report["outcome"] == record["outcome"] == "not_reached"
    assert record["reason"].startswith("the greeting could not be spoken: a silent failure; ")
    assert record["caller_lines"] == 1
    assert_no_facts(record)
    _assert_stored(tmp_path, home, report["session_id"], record)


def _assert_stored(folder: Path, home: Path, session_id: str, record: dict[str, object]) -> None:
    """The stored session keeps the same record, and ``sessions list`` the outcome."""
    shown = run(folder, home, "sessions", "show", session_id[:8], "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["record"] == record
    listed = run(folder, home, "sessions", "list")
    row = next(line for line in listed.stdout.splitlines() if line.startswith(session_id[:8]))
    assert str(record["outcome"]) in row
