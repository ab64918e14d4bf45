"""``sandbox check``: the every-frame rules on the core's records, and the suite over real sockets.

The example brains pass; brains written straight against the wire
(``fixtures_bad_brains``) fail with the finding for the one rule each breaks.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

import pytest
from call_rig import Rig
from fixtures_bad_brains import BAD_BRAINS, WireBrain, serve_wire_brain

from sandbox import cli
from sandbox.brains import make_brain
from sandbox.call.effects import Effect, SpeakText
from sandbox.call.inputs import BrainMalformed
from sandbox.call.turn_records import BracketClosed, FinalizeSent, TurnKind, TurnSent
from sandbox.call.unit_records import UnitOpened, UnitSealed
from sandbox.call.units import Fate
from sandbox.check import SCENARIOS, ScenarioResult, Status, WireLog, check_brain, rules
from sandbox.check.results import Finding
from sandbox.check.rules import Rule
from sandbox.check.suite import run_scenario
from sandbox.commands.check import passed, summary
from sandbox.paths import HOME_ENV
from sandbox.sdk import (
    Brain,
    Config,
    Session,
    Speech,
    SpeechChunk,
    SpeechEnd,
    SpeechStart,
    SttConfig,
    UserMessage,
    serve,
)
from sandbox.wire import pb

# ------------------------------------------------------------- the every-frame rules


def opening() -> Rig:
    """SessionStart, a greeting played out, and the caller's turn 2 at 1000 ms."""
    rig = Rig()
    rig.start()
    rig.advance(5)
    rig.say(1, 1, "Hi there.")
    rig.advance(995)
    rig.caller("hello")
    return rig


def judged(rig: Rig) -> WireLog:
    """The call's record so far, as the checker reads it."""
    return WireLog(rig.timed)


def broken(log: WireLog) -> list[Rule]:
    return [f.rule for f in log.findings]


def test_a_clean_call_breaks_nothing() -> None:
    rig = opening()
    rig.advance(10)
    rig.say(2, 2, "Hello ", "again.")
    rig.advance(1000)
    log = judged(rig)
    assert log.findings == []
    assert [(u.speech_id, u.turn_id, u.text) for u in log.units.values()] == [
        (1, 1, "Hi there."),
        (2, 2, "Hello again."),
    ]
    assert [turn for turn, _ in log.caller_turns] == [2]


def barged() -> Rig:
    """Turn 2's unit is cut by a barge-in at 1100 ms; turn 3 is minted right after."""
    rig = opening()
    rig.advance(10)
    rig.open(2, 2)
    rig.chunk(2, "One two three ")
    rig.advance(90)
    rig.barge_in()
    rig.caller("stop")
    return rig


def test_a_dead_turn_may_finish_what_was_in_flight() -> None:
    rig = barged()
    rig.advance(50)
    rig.chunk(2, "four ")
    rig.advance(10)
    rig.end(2)
    rig.advance(40)
    rig.say(3, 3, "Okay.")
    rig.advance(1000)
    assert judged(rig).findings == []


def test_a_dead_turn_speaking_past_the_grace_is_flagged_once() -> None:
    rig = barged()
    rig.advance(1100)
    for _ in range(5):
        rig.chunk(2, "more ")
        rig.advance(1)
    rig.end(2)
    [finding] = judged(rig).findings
    assert finding.rule is rules.DEAD_TURN_STOPS
    assert "5 chunk(s)" in finding.detail and "1100 ms after Interruption" in finding.detail


def test_a_dead_turn_speaking_after_its_successor_is_flagged_at_once() -> None:
    rig = barged()
    rig.advance(100)
    rig.open(3, 3)
    rig.advance(10)
    rig.chunk(2, "still me ")  # within the grace
    rig.advance(10)
    rig.open(4, 2)
    log = judged(rig)
    assert rules.DEAD_TURN_STOPS in broken(log)
    assert {"unit 4 opened on turn 2 120 ms after Interruption(through_turn=2)"} <= {
        f.detail for f in log.findings
    }


def test_brackets_balance_and_cancel_closes_a_unit() -> None:
    rig = opening()
    rig.advance(10)
    rig.open(2, 2)
    rig.chunk(2, "Your card is 4")
    rig.cancel(2)
    rig.chunk(2, " 4 1 2")  # kept unspoken, legal
    rig.end(2)  # ignored, legal
    rig.say(3, 2, "Sorry.")
    rig.cancel(3)  # after SpeechEnd: legal
    rig.advance(1000)
    log = judged(rig)
    assert log.findings == []
    assert log.units[2].cancel_index is not None


def test_bracket_breaks_are_flagged() -> None:
    rig = opening()
    rig.chunk(9, "out of nowhere")
    rig.open(1, 2)  # reused
    rig.open(2, 7)  # never minted
    rig.chunk(2, "x")  # its unit was refused
    rig.open(3, 2)
    rig.end(3)  # silent: opened for nothing
    rig.open(4, 2)  # never closed: the brain's End closes it where it stops
    rig.cancel(0)
    rig.brain(pb.End())
    log = judged(rig)
    assert broken(log) == [
        rules.BRACKETS_BALANCE,
        rules.ONE_SPEECH_ID,
        rules.SPEECH_NAMES_TURN,
        rules.CANCEL_NAMES_A_UNIT,
        rules.BRACKETS_BALANCE,
    ]
    assert log.notes == [
        "unit 3 (turn 2) was opened and closed with no text in it: legal on the wire; check "
        "in your brain's tests (VoqalizeDriver) that it pairs its Finalize with that unit"
    ]


def test_frames_only_voqalize_sends_and_forged_rtvi_are_flagged() -> None:
    rig = opening()
    rig.brain(pb.Finalize(speech_id=1, heard_text="all of it"))
    rig.brain(pb.RTVIFrame(type=pb.RTVI_TYPE_BOT_READY, data="{}"))
    rig.brain(pb.RTVIFrame(type=pb.RTVI_TYPE_UI_EVENT, data="{}"))
    rig.brain(pb.RTVIFrame(type=pb.RTVI_TYPE_SERVER_MESSAGE, data="x" * 70_000))
    rig.brain(pb.RTVIFrame(type=pb.RTVI_TYPE_UI_COMMAND, data="{}"))
    rig.feed(BrainMalformed("text WebSocket message"))
    log = judged(rig)
    assert broken(log) == [
        rules.FLOOR_IS_VOQALIZES,
        rules.RTVI_NOT_FORGED,
        rules.RTVI_WHITELIST,
        rules.RTVI_SIZE,
        rules.BINARY_ONLY,
    ]
    assert "RTVI bot-ready" in log.findings[1].detail


def test_the_control_leg_and_steps_name_what_they_must() -> None:
    rig = opening()
    rig.brain(pb.Request(request_id=1))
    rig.brain(pb.Request(request_id=1))  # reused
    rig.brain(pb.TurnStep(turn_id=9, kind="tool", name="lookup"))
    log = judged(rig)
    assert broken(log) == [rules.REQUEST_IDS_RISE, rules.ONE_RESPONSE]
    (note,) = log.notes  # a TurnStep is never answered: a step for an unknown turn is noted
    assert "a TurnStep (tool 'lookup') names turn 9" in note and "unknown turn" in note


def test_a_missing_or_misordered_finalize_is_the_runtimes_fault_and_says_so() -> None:
    """The core cannot do it, so its records are written by hand."""
    records: list[Effect] = [
        TurnSent(1, TurnKind.GREETING),
        UnitOpened(1, 1, 0, 0),
        SpeakText(1, "Hi there."),
        BracketClosed(1, cancelled=False),
        TurnSent(2, TurnKind.CALLER, "hello"),
        UnitOpened(2, 2, 0, 0),
        SpeakText(2, "Hi"),
        BracketClosed(2, cancelled=False),
        UnitSealed(2, Fate.PLAYED, "Hi there"),
        FinalizeSent(2),
        UnitSealed(1, Fate.PLAYED, "Hi there."),
        FinalizeSent(1),
    ]
    log = WireLog((10 * i, record) for i, record in enumerate(records))
    assert broken(log) == [rules.HEARD_IS_PREFIX, rules.ONE_FINALIZE]
    assert all("runtime" in f.detail for f in log.findings)


def test_the_verdict_needs_something_exercised_and_nothing_failed() -> None:
    exercised = ScenarioResult("a", "a")
    untried = ScenarioResult("b", "b", not_exercised="the brain sent no Request")
    assert untried.status is Status.NOT_EXERCISED
    assert passed([exercised, untried])
    assert not passed([untried])


# --------------------------------------------------------------- over real sockets


class Running(Protocol):
    port: int

    async def close(self) -> None: ...


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(HOME_ENV, str(tmp_path / "home"))


@contextmanager
def served(start: Callable[[], Coroutine[Any, Any, Running]]) -> Iterator[str]:
    """A brain server on its own event loop in a thread; yields its inbound URL."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        server = asyncio.run_coroutine_threadsafe(start(), loop).result(10)
        try:
            yield f"ws://127.0.0.1:{server.port}/brain"
        finally:
            asyncio.run_coroutine_threadsafe(server.close(), loop).result(10)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


def example(name: str) -> Callable[[], Coroutine[Any, Any, Running]]:
    return lambda: serve(make_brain(name))


def check_json(url: str, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, Any]:
    code = cli.main(["check", url, "--json", *extra])
    return code, json.loads(capsys.readouterr().out)


def scenario(name: str, url: str) -> ScenarioResult:
    [chosen] = [s for s in SCENARIOS if s.name == name]
    return asyncio.run(run_scenario(url, chosen, relay=False))


@pytest.mark.parametrize(
    ("name", "exercised"),
    [
        ("echo", {"greeting", "brackets", "barge-in"}),
        ("concierge", {"greeting", "brackets", "tool-hop", "barge-in"}),
        ("guardrail", {"greeting", "brackets", "barge-in", "cancel"}),
    ],
)
def test_the_example_brains_pass(
    name: str, exercised: set[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with served(example(name)) as url:
        code, doc = check_json(url, capsys)
    statuses = {s["name"]: s["status"] for s in doc["scenarios"]}
    assert code == 0 and doc["passed"], doc
    assert {n for n, s in statuses.items() if s == "PASS"} == exercised
    assert set(statuses.values()) <= {"PASS", "NOT EXERCISED"}


def test_the_relay_leg(capsys: pytest.CaptureFixture[str]) -> None:
    with served(example("echo")) as url:
        relay = url.replace("/brain", "/agent")
        results = asyncio.run(check_brain(relay, relay=True, scenarios=SCENARIOS[:1]))
    assert [r.status for r in results] == [Status.PASS]


class Configures(Brain):
    """Asks Voqalize to wait longer for this caller, then answers."""

    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        await session.configure(Config(stt=SttConfig(patience=9)))
        yield SpeechStart()
        yield SpeechChunk("Sure, I'll give you more time to finish.")
        yield SpeechEnd()


def test_a_brain_that_configures_gets_one_response_per_request() -> None:
    with served(lambda: serve(Configures)) as url:
        result = scenario("config", url)
    assert result.status is Status.PASS, result
    assert result.notes == ["Request 1: ACCEPTED"]


def test_a_hand_written_wire_brain_that_keeps_the_rules_passes() -> None:
    with served(lambda: serve_wire_brain(WireBrain)) as url:
        results = asyncio.run(check_brain(url))
    assert Status.FAIL not in [r.status for r in results], results
    assert passed(results)


@pytest.mark.parametrize(
    ("bad", "where", "rule", "words"),
    [
        ("reuses_ids", "greeting", rules.ONE_SPEECH_ID, "names speech_id 2, already used"),
        ("chunk_after_end", "greeting", rules.BRACKETS_BALANCE, "already closed by SpeechEnd"),
        ("forges_bot_ready", "greeting", rules.RTVI_NOT_FORGED, "RTVI bot-ready"),
        ("names_unminted_turn", "greeting", rules.SPEECH_NAMES_TURN, "names turn 3"),
        ("forges_finalize", "greeting", rules.FLOOR_IS_VOQALIZES, "the brain sent finalize"),
    ],
)
def test_a_broken_brain_fails_with_the_rule_it_breaks(
    bad: str, where: str, rule: Rule, words: str
) -> None:
    with served(lambda: serve_wire_brain(BAD_BRAINS[bad])) as url:
        result = scenario(where, url)
    assert result.status is Status.FAIL
    assert any(f.rule is rule and words in f.detail for f in result.findings), result.findings
    # The runtime's own answers (PROTOCOL Errors) are shown beside the rule, not twice.
    assert all("Voqalize answered" not in f.detail for f in result.findings)


def test_a_brain_that_talks_over_a_barge_in_fails_and_the_cli_quotes_the_rule(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with served(lambda: serve_wire_brain(BAD_BRAINS["talks_over_barge_in"])) as url:
        code = cli.main(["check", url])
    text = capsys.readouterr().out
    assert code == 1
    assert "FAIL           barge-in" in text
    assert "unit 2 kept speaking for turn 2" in text
    assert 'breaks the wire contract (docs/wire.md), section "Barge-in":' in text
    assert '"Voqalize sends Interruption(through_turn), and that is a watermark' in text
    assert "PASS           greeting" in text
    assert text.rstrip().endswith("failed, 3 not exercised: FAIL")


def test_an_unreachable_brain_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["check", "ws://127.0.0.1:9/brain"])
    err = capsys.readouterr().err
    assert code == 1 and "could not reach the brain" in err and "Traceback" not in err


def test_the_summary_spells_out_a_brains_control_characters() -> None:
    hostile = "chunk '\x1b[2J\x1b]0;owned\x07' \u202eevil"
    result = ScenarioResult(
        "brackets", "brackets balance", findings=[Finding(rules.BRACKETS_BALANCE, hostile)]
    )
    result.notes.append("note \r- forged")
    shown = summary("ws://127.0.0.1:1/brain", [result])
    assert "\x1b" not in shown and "\u202e" not in shown and "\r" not in shown
    assert "\\x1b[2J\\x1b]0;owned\\x07" in shown and "\\u202eevil" in shown
