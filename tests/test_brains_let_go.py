"""The built-in brains let an absent caller go (issue 57, item 2): on UserIdle's ``level``
they nudge, nudge again, say goodbye and End the call, and the goodbye is heard whole. The
real call core on the driver's simulated clock; the CLI's walk is in tests/test_let_go_cli.py.
"""

from __future__ import annotations

import pytest

from sandbox.brains.concierge import Concierge
from sandbox.brains.echo import GOODBYE, NUDGE, Echo
from sandbox.brains.rule_model import RuleModel
from sandbox.call.effects import EndedBy
from sandbox.call.settings import Settings
from sandbox.harness import DriverError, VoqalizeDriver
from sandbox.sdk import Brain

IDLE_MS = 1000
CONCIERGE_IDLE = [
    "Are you still there?",
    "No rush. I'm here whenever you're ready.",
    "I'll let you go now. Thanks for calling Harbour Street Studio. Goodbye!",
]


MS_PER_WORD = 20
#: A nudge's playout on the simulated clock; the next idle wait starts when it ends.
NUDGE_MS = len(NUDGE.split()) * MS_PER_WORD


@pytest.mark.parametrize(
    ("brain", "lines"),
    [
        (Concierge(model=RuleModel(piece_delay_s=0)), CONCIERGE_IDLE),
        (Echo(), [NUDGE, NUDGE, GOODBYE]),
    ],
    ids=["concierge", "echo"],
)
async def test_an_absent_caller_is_nudged_twice_told_goodbye_and_let_go(
    brain: Brain, lines: list[str]
) -> None:
    async with VoqalizeDriver(
        brain, ms_per_word=MS_PER_WORD, settings=Settings(idle_ms=IDLE_MS)
    ) as driver:
        await driver.settle()
        with pytest.raises(DriverError, match="the call has ended, by brain"):
            await driver.idle(60_000)  # far longer than the brain waits
        ended = driver.ended
        assert ended is not None and ended.ended_by is EndedBy.BRAIN
        assert driver.heard[1:] == lines  # each idle turn's line, the goodbye played whole
        assert not driver.units[-1].interrupted


async def test_a_caller_who_speaks_between_nudges_starts_the_count_again() -> None:
    """``level`` resets when the caller speaks, so two nudges, a word, then two more nudges
    keep the call; the goodbye comes only at a third nudge in a row."""
    async with VoqalizeDriver(
        Echo(), ms_per_word=MS_PER_WORD, settings=Settings(idle_ms=IDLE_MS)
    ) as driver:
        await driver.settle()
        await driver.idle(2 * IDLE_MS + NUDGE_MS + IDLE_MS // 2)  # two nudges
        await driver.say("still here")
        await driver.settle()
        await driver.idle(2 * IDLE_MS + NUDGE_MS + IDLE_MS // 2)  # two more, from level 1
        assert driver.ended is None
        assert driver.heard[1:] == [NUDGE, NUDGE, "You said: still here", NUDGE, NUDGE]


async def test_a_caller_who_cuts_into_the_goodbye_keeps_the_call() -> None:
    async with VoqalizeDriver(
        Echo(), ms_per_word=MS_PER_WORD, settings=Settings(idle_ms=IDLE_MS)
    ) as driver:
        await driver.settle()
        await driver.idle(3 * IDLE_MS + 2 * NUDGE_MS + 10)  # two nudges, the goodbye begun
        await driver.barge_in("wait, I am here", after_words=2)  # the goodbye's second word
        await driver.settle()
        assert driver.ended is None
        assert driver.units[3].interrupted and GOODBYE.startswith(driver.heard[3])
        assert driver.heard[4] == "You said: wait, I am here"
