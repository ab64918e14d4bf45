"""VoqalizeDriver: the example brains' heard-truth histories against the real call core."""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from sandbox.brains import Concierge, Echo, Guardrail, HeardHistory
from sandbox.brains.concierge import GREETING
from sandbox.brains.echo import GREETING as ECHO_GREETING
from sandbox.brains.guardrail import APOLOGY
from sandbox.brains.rule_model import RuleModel
from sandbox.call.settings import Settings
from sandbox.harness import DriverError, VoqalizeDriver
from sandbox.paths import HOME_ENV
from sandbox.sdk import (
    Brain,
    Chunk,
    Finalize,
    Session,
    Speech,
    SpeechEnd,
    SpeechStart,
    UserMessage,
)


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(HOME_ENV, str(tmp_path / "home"))


def said(history: list[dict[str, str]]) -> list[dict[str, str]]:
    """A brain's history without its tool entries: what it believes was said."""
    return [e for e in history if e["role"] != "tool"]


def kinds(driver: VoqalizeDriver, direction: str) -> list[str]:
    return [f.type for f in driver.frames if f.dir == direction]


async def test_echo_each_turn_is_heard_in_full() -> None:
    async with VoqalizeDriver(Echo()) as driver:
        await driver.say("hello there")
        await driver.type("typed words")
        await driver.settle()
        assert driver.heard == [ECHO_GREETING, "You said: hello there", "You said: typed words"]
        assert [(u.speech_id, u.turn_id) for u in driver.units] == [(1, 1), (2, 2), (3, 3)]
        assert not any(u.interrupted for u in driver.units)
        assert {u.fate for u in driver.units} == {"played"}
        assert driver.errors == []
    assert driver.ended is not None and driver.ended.ended_by == "caller"
    out = kinds(driver, "out")
    assert out[0] == "session_start" and out[-1] == "end"
    assert out.count("finalize") == 3


async def test_concierge_history_is_what_the_driver_heard_after_a_barge_in() -> None:
    brain = Concierge()
    async with VoqalizeDriver(brain) as driver:
        await driver.say("Hello there!")
        await driver.barge_in("Where are you?", after_words=3)
        await driver.settle()
        await driver.say("Can you repeat that?")
        await driver.settle()
        greeting, cut, directions, repeat = driver.units
        assert greeting.heard == GREETING
        assert cut.turn_id == 2 and cut.interrupted and cut.fate == "barged"
        assert cut.heard and cut.generated.startswith(cut.heard)
        assert len(cut.heard.split()) == 3
        assert directions.turn_id == 3 and directions.heard.startswith("We're at 12 Harbour")
        # The model planned on what was heard, never on the sentence it did not finish.
        assert repeat.heard == f"I said: {directions.heard}"
        assert said(brain.history) == driver.transcript
        assert brain.awaiting == 0


async def test_an_unheard_greeting_leaves_no_trace_in_history() -> None:
    brain = Concierge()
    async with VoqalizeDriver(brain) as driver:
        # The caller talks before a word of the greeting plays.
        await driver.barge_in("Where are you?", after_words=0)
        await driver.settle()
        greeting = [u for u in driver.units if u.turn_id == 1]
        assert all(u.heard == "" for u in greeting)  # dead on arrival, or never sent
        assert driver.units[-1].heard.startswith("We're at 12 Harbour Street")
        assert said(brain.history) == driver.transcript
        assert driver.transcript[0] == {"role": "user", "text": "Where are you?"}


class FillerThenAnswer(Brain):
    """Says a filler and an answer as two units per turn, with heard-truth history."""

    def __init__(self) -> None:
        self.heard = HeardHistory()

    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        self.heard.user(msg.text)
        for text in ("Let me just check that for you.", "The answer is forty two."):
            reply = self.heard.reply()
            for item in [*reply.say(text), *reply.end()]:
                yield item

    async def on_finalize(self, session: Session, fin: Finalize) -> None:
        self.heard.on_finalize(fin)


async def test_a_unit_queued_behind_a_cut_is_heard_as_nothing_and_leaves_history() -> None:
    brain = FillerThenAnswer()
    async with VoqalizeDriver(brain) as driver:
        await driver.say("What is the answer?")
        await driver.barge_in("Never mind.", after_words=2)
        await driver.settle()
        filler, answer = driver.units[:2]
        assert filler.heard == "Let me" and filler.interrupted
        assert answer.heard == "" and answer.generated == "The answer is forty two."
        assert answer.interrupted and answer.fate == "barged"
        assert said(brain.heard.entries) == driver.transcript
        assert {"role": "assistant", "text": "Let me"} in driver.transcript


class ForgetsSilentBrackets(Brain):
    """Opens a unit for a tool hop that says nothing, and forgets it is owed a Finalize."""

    def __init__(self) -> None:
        self.history: list[dict[str, str]] = []
        self._awaiting: deque[dict[str, str]] = deque()

    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        self.history.append({"role": "user", "text": msg.text})
        yield SpeechStart()  # the tool hop: nothing said, and not enrolled
        yield SpeechEnd()
        unit = {"role": "assistant", "text": ""}
        self.history.append(unit)
        self._awaiting.append(unit)
        yield SpeechStart()
        unit["text"] = "Done, it is booked."
        yield Chunk(unit["text"])
        yield SpeechEnd()

    async def on_finalize(self, session: Session, fin: Finalize) -> None:
        if not self._awaiting:
            return
        unit = self._awaiting.popleft()
        if fin.heard:
            unit["text"] = fin.heard
        else:
            self.history = [e for e in self.history if e is not unit]


async def test_the_driver_answers_silent_brackets_so_a_forgotten_one_shows() -> None:
    brain = ForgetsSilentBrackets()
    async with VoqalizeDriver(brain) as driver:
        await driver.say("Book it.")
        await driver.settle()
        silent, answer = driver.units
        assert (silent.generated, silent.heard, silent.fate) == ("", "", "silent")
        assert not silent.interrupted  # nothing was cut
        assert answer.heard == "Done, it is booked."
        # The silent unit's Finalize paired with the answer, so history lost it.
        assert brain.history != driver.transcript
        assert brain.history == [{"role": "user", "text": "Book it."}]


async def test_guardrail_takes_back_a_card_number_and_history_keeps_what_played() -> None:
    brain = Guardrail()
    async with VoqalizeDriver(brain) as driver:
        await driver.say("What is my card number?")
        await driver.settle()
        _, cut, apology = driver.units
        assert cut.fate == "cancelled" and cut.interrupted
        assert cut.turn_id == apology.turn_id == 2  # the turn stayed open
        assert cut.generated.startswith(cut.heard)
        assert [f.heard for f in brain.cuts] == [cut.heard]
        assert apology.heard == APOLOGY
        assert "interruption" not in kinds(driver, "out")
        assert brain.history == driver.transcript


async def test_guardrail_without_speech_cancel_lets_the_unit_play_out() -> None:
    brain = Guardrail()
    async with VoqalizeDriver(brain, capabilities=()) as driver:
        await driver.say("What is my card number?")
        await driver.settle()
        _, flagged, apology = driver.units
        assert "speech_cancel" not in kinds(driver, "in")
        assert flagged.fate == "played" and not flagged.interrupted
        assert apology.heard == APOLOGY
        assert brain.cuts == []
        assert brain.history == driver.transcript


async def test_a_backchannel_does_not_cut_and_the_app_reaches_the_brain() -> None:
    brain = Concierge(model=RuleModel(piece_delay_s=0.005))
    async with VoqalizeDriver(brain) as driver:
        await driver.say("Hello!")
        await driver.backchannel("mm-hmm", after_words=2)
        await driver.rtvi("ui-event", {"event": "tap", "target": "pricing"})
        await driver.settle()
        assert not driver.units[1].interrupted
        assert brain.screen_events == [{"event": "tap", "target": "pricing"}]
        assert "interruption" not in kinds(driver, "out")


async def test_idle_mints_a_turn_the_brain_answers() -> None:
    async with VoqalizeDriver(Echo(), settings=Settings(idle_ms=1000)) as driver:
        await driver.settle()
        await driver.idle(1100)  # the nudge fires 1 s into the silence
        await driver.settle()
        assert "user_idle" in kinds(driver, "out")
        assert driver.heard[1] == "I'm still here. Say something and I'll repeat it."


async def test_a_step_that_cannot_happen_is_a_driver_error() -> None:
    async with VoqalizeDriver(Echo(), step_timeout_s=2) as driver:
        await driver.say("hi")
        with pytest.raises(DriverError, match="gave up waiting for 500 words"):
            await driver.barge_in("stop", after_words=500)


class HangsUp(Brain):
    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        session.end()
        return
        yield


async def test_acting_after_the_brain_hung_up_is_a_driver_error() -> None:
    async with VoqalizeDriver(HangsUp()) as driver:
        await driver.say("bye")
        await driver.settle()
        with pytest.raises(DriverError, match="the call has ended, by brain"):
            await driver.say("hello?")


async def test_the_report_is_the_headless_call_shape() -> None:
    async with VoqalizeDriver(Echo(), ms_per_word=5) as driver:
        await driver.say("one two three")
        await driver.say("four five")
        await driver.settle()
    report = driver.report()
    assert report["session_id"] == driver.session_id
    assert [u["heard"] for u in report["units"]][-1] == "You said: four five"
    assert report["outcome"] == "completed"


def test_the_driver_needs_exactly_one_brain() -> None:
    with pytest.raises(ValueError, match="brain or a brain_url"):
        VoqalizeDriver()
    with pytest.raises(ValueError, match="brain or a brain_url"):
        VoqalizeDriver(Echo(), brain_url="ws://127.0.0.1:1/brain")
