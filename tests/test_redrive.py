"""Re-driving a saved session against a brain and diffing the heard truth: the same brain
changes nothing, a reworded reply is exactly one changed turn, a broken brain is exit 2, a
brain that cannot be reached is exit 3."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from caller_audio import word_errors
from fixtures_bad_brains import WireBrain, serve_wire_brain
from session_rig import recorded_call
from ui_brains import version_refusing_brain

from sandbox.brains.echo import Echo
from sandbox.paths import HOME_ENV
from sandbox.record.store import SessionStore
from sandbox.replay.diff import side_by_side
from sandbox.replay.redrive import redrive
from sandbox.sdk import Session, Speech, SpeechChunk, SpeechEnd, SpeechStart, UserMessage, serve
from sandbox.wire import pb
from sandbox.wire.tokens import load_or_create_keys

# 60 ms a word: a barge-in "after 2 words" lands within the word it was posted in only if
# the loop answers inside a word's time; at 10 ms a word a loaded CI machine cut a word late.
SCRIPT = """
ms_per_word = 60
[[step]]
say = "good morning"
[[step]]
say = "what is the price"
[[step]]
barge_in = "stop there please"
after_words = 2
"""


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    monkeypatch.setenv(HOME_ENV, str(folder))
    return folder


class Rewords(Echo):
    """The echo brain, but one reply says it differently."""

    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        if msg.text != "what is the price":
            async for speech in super().on_user_message(session, msg):
                yield speech
            return
        yield SpeechStart()
        yield SpeechChunk(f"You asked: {msg.text}")
        yield SpeechEnd()


class ChunkOutsideAUnit(WireBrain):
    """Answers, then sends a chunk for a unit it never opened."""

    async def on_message(self, turn: int, text: str) -> None:
        await super().on_message(turn, text)
        await self.send(pb.SpeechChunk(speech_id=99, text="stray"))


async def _echo_url(brain: type[Echo]) -> tuple[str, object]:
    server = await serve(
        brain, host="127.0.0.1", port=0, public_key_pem=load_or_create_keys().public_pem
    )
    return server.url(), server


async def test_the_same_brain_changes_nothing_and_a_reworded_reply_is_one_turn() -> None:
    url, server = await _echo_url(Echo)
    try:
        original = await recorded_call(SCRIPT, brain_url=url)
        same = await redrive(original.core.session_id[:8], url)
    finally:
        await server.close()  # type: ignore[attr-defined]
    assert same.diff.exit_status == 0, same.diff.as_json()
    assert not same.diff.history_changed and same.diff.findings == []
    cut = same.diff.turns[-2]  # "what is the price": cut at the same heard word both times
    assert cut.before[0].cut and cut.before[0].heard == cut.after[0].heard
    # Each turn's answer time, before and after: the caller's frame out → the first chunk in.
    assert all(t.first_chunk_ms_before is not None for t in same.diff.turns)
    assert all(t.first_chunk_ms_after is not None for t in same.diff.turns)
    assert all(t.first_chunk_ms_after >= 0 for t in same.diff.turns if t.first_chunk_ms_after)
    with SessionStore() as store:
        assert store.find(same.session_id[:12]).redrive_of == original.core.session_id

    url, server = await _echo_url(Rewords)
    try:
        changed = await redrive(original.core.session_id[:8], url)
    finally:
        await server.close()  # type: ignore[attr-defined]
    assert changed.diff.exit_status == 1
    assert [t.caller for t in changed.diff.turns if t.changed(False)] == ["what is the price"]


async def test_a_brain_that_breaks_a_rule_is_exit_2() -> None:
    original = await recorded_call(SCRIPT)
    server = await serve_wire_brain(ChunkOutsideAUnit)
    try:
        broken = await redrive(original.core.session_id[:8], f"ws://127.0.0.1:{server.port}/b")
    finally:
        await server.close()
    assert broken.diff.exit_status == 2
    assert any("unit 99, which was never opened" in finding for finding in broken.diff.findings)


async def test_the_command_prints_the_diff_and_writes_it_as_json(
    home: Path, tmp_path: Path
) -> None:
    original = await recorded_call(SCRIPT)
    out = tmp_path / "diff.json"
    result = subprocess.run(
        [sys.executable, "-m", "sandbox.cli", "replay", original.core.session_id[:8],
         "--brain", "builtin", "--json", str(out)],
        capture_output=True, text=True, env={**os.environ, HOME_ENV: str(home)}, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "= caller: what is the price" in result.stdout
    assert "heard history unchanged" in result.stdout
    written = json.loads(out.read_text())
    assert written["exit_status"] == 0
    assert all(isinstance(t["first_chunk_ms_after"], int) for t in written["turns"])
    assert "first chunk" in result.stdout


async def test_a_batch_redrive_summarises_each_and_exits_with_the_worst(home: Path) -> None:
    first = await recorded_call(SCRIPT)
    second = await recorded_call(SCRIPT)
    env = {**os.environ, HOME_ENV: str(home)}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "sandbox.cli", "replay", *args],
            capture_output=True, text=True, env=env, timeout=180,
        )  # fmt: skip

    batch = cli("--all", "--brain", "builtin")
    assert batch.returncode == 0, batch.stdout + batch.stderr
    rows = batch.stdout.splitlines()[1:]
    assert sorted(r.split()[0] for r in rows) == sorted(
        s.core.session_id[:12] for s in (first, second)
    )
    assert all(r.split()[1] == "0" and "same" in r for r in rows)
    # The re-drives it recorded are not re-driven again by the next --all.
    again = cli("--all", "--brain", "builtin")
    assert len(again.stdout.splitlines()) == 3
    named = cli(first.core.session_id[:8], "zzzz", "--brain", "builtin")
    assert named.returncode == 1 and "no session 'zzzz'" in named.stderr
    alone = cli("--all")
    assert alone.returncode == 1 and "needs --brain" in alone.stderr


async def test_a_redrive_that_could_not_be_placed_is_exit_3_not_a_change(home: Path) -> None:
    """Issue 39: "`sandbox replay ID --brain URL` exits 1 ("changed") when the dial fails. A
    re-drive that could not be placed is not a change": it exits 3, its own status, with one
    line saying nothing was compared, why, and what to do."""
    original = await recorded_call(SCRIPT)
    # Bound and never listening: the dial is refused, and nothing else can take the port.
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        url = f"ws://127.0.0.1:{held.getsockname()[1]}/brain"
        result = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-m", "sandbox.cli", "replay", original.core.session_id[:8],
             "--brain", url],
            capture_output=True, text=True, env={**os.environ, HOME_ENV: str(home)}, timeout=120,
        )  # fmt: skip
    assert result.returncode == 3, result.stdout + result.stderr
    assert result.stdout == "" and "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith(
        f"sandbox replay: session {original.core.session_id[:8]} was not re-driven, so nothing "
        "was compared (the attempt is recorded as session "
    )
    assert f"could not reach the brain at {url}" in line and "Is it running" in line
    assert line.endswith("; then run the replay again")


class LongerReplies(Echo):
    """The echo brain, with every reply twice as long."""

    async def on_user_message(self, session: Session, msg: UserMessage) -> AsyncIterator[Speech]:
        yield SpeechStart()
        yield SpeechChunk(f"You said: {msg.text}. And then, to say it again, {msg.text}.")
        yield SpeechEnd()


class DiesOnTheSecondTurn(WireBrain):
    """Answers the first caller turn, then drops the connection mid-call."""

    async def on_message(self, turn: int, text: str) -> None:
        if turn > 2:
            await self.ws.close(1011, "the brain crashed")
            return
        await super().on_message(turn, text)


async def test_a_barge_in_against_longer_replies_cuts_at_the_same_heard_word() -> None:
    url, server = await _echo_url(Echo)
    try:
        original = await recorded_call(SCRIPT, brain_url=url)
    finally:
        await server.close()  # type: ignore[attr-defined]
    url, server = await _echo_url(LongerReplies)
    try:
        longer = await redrive(original.core.session_id[:8], url)
    finally:
        await server.close()  # type: ignore[attr-defined]
    cut = longer.diff.turns[-2]  # "what is the price", cut after two heard words both times
    assert cut.before[0].cut and cut.after[0].cut
    assert cut.before[0].generated != cut.after[0].generated
    assert cut.after[0].heard == cut.before[0].heard == "You said:"
    assert longer.diff.exit_status == 1  # the uncut replies are longer: heard history changed


async def test_a_brain_that_dies_mid_redrive_gives_the_partial_diff_and_says_so(
    home: Path, tmp_path: Path
) -> None:
    original = await recorded_call(SCRIPT)
    server = await serve_wire_brain(DiesOnTheSecondTurn)
    try:
        result = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-m", "sandbox.cli", "replay", original.core.session_id[:8],
             "--brain", f"ws://127.0.0.1:{server.port}/b", "--json", str(tmp_path / "d.json")],
            capture_output=True, text=True, env={**os.environ, HOME_ENV: str(home)}, timeout=120,
        )  # fmt: skip
    finally:
        await server.close()
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert "= caller: good morning" not in result.stdout  # the wire brain answers differently
    assert "caller: good morning" in result.stdout  # the turn it did answer is compared
    assert "the brain's connection closed" in result.stdout
    assert "the brain crashed" in result.stdout
    written = json.loads((tmp_path / "d.json").read_text())
    assert "the turns after it have no answer" in written["ended_early"]
    assert written["turns"][1]["after"] and not written["turns"][2]["after"]


async def test_a_brain_that_refuses_the_version_is_a_clear_line_and_exit_1(home: Path) -> None:
    original = await recorded_call(SCRIPT)
    async with version_refusing_brain() as url:
        refused = await redrive(original.core.session_id[:8], url)
    assert refused.diff.exit_status == 1
    assert refused.diff.ended_early is not None
    assert "fatal Error" in refused.diff.ended_early and "version" in refused.diff.ended_early
    assert all(not t.after for t in refused.diff.turns)
    assert "the re-drive stopped at" in side_by_side(refused.diff)


@pytest.mark.slow  # its kinds in CI: re-drives of sim calls, real-audio calls recorded
@pytest.mark.audio
def test_a_real_audio_call_redrives_from_its_own_caller_audio(home: Path, tmp_path: Path) -> None:
    """Recorded through espeak, the endpointing and Whisper with a barge-in; played again from
    its microphone leg through the same path, it hears the same lines and cuts the same unit
    at about the same word."""
    script = tmp_path / "s.toml"
    script.write_text(
        '[[step]]\nsay = "What are your opening hours?"\n'
        '[[step]]\nbarge_in = "Sorry, how much is a class?"\nafter_words = 8\n'
    )
    env = {**os.environ, HOME_ENV: str(home)}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "sandbox.cli", *args],
            capture_output=True, text=True, env=env, timeout=300,
        )  # fmt: skip

    recorded = cli("call", "--audio", "real", "--speaker", "none", "--script", str(script))
    assert recorded.returncode == 0, recorded.stderr
    with SessionStore() as store:
        (original,) = store.sessions()
    out = tmp_path / "diff.json"
    again = cli(
        "replay", original.id[:8], "--brain", "builtin", "--audio", "real", "--json", str(out)
    )
    assert again.returncode in (0, 1), again.stdout + again.stderr
    assert "Traceback" not in again.stderr and "models ready" in again.stderr
    diff = json.loads(out.read_text())
    assert diff["findings"] == [] and diff["ended_early"] is None
    _greeting, asked, _barged = diff["turns"]
    assert asked["after"] and asked["after"][0]["cut"]  # the barge-in cut the same answer
    heard_before = len(asked["before"][0]["heard"].split())
    assert abs(len(asked["after"][0]["heard"].split()) - heard_before) <= 2
    # Whisper heard the replayed lines much as it heard the caller (tiny.en on espeak varies
    # by a word or three from run to run, the original's included).
    lines_before = [line for role, line in diff["history_before"] if role == "user"]
    lines_after = [line for role, line in diff["history_after"] if role == "user"]
    assert len(lines_after) == len(lines_before) == 2
    pairs = list(zip(lines_before, lines_after, strict=True))
    assert all(word_errors(b, a) <= len(b.split()) // 2 for b, a in pairs), pairs
    assert "hours" in lines_after[0].lower() and "much" in lines_after[1].lower(), pairs
    with SessionStore() as store:
        redriven = [row for row in store.sessions() if row.redrive_of == original.id]
    assert [row.mode for row in redriven] == ["audio"]
    sim_only = cli("call", "--script", str(script))
    assert sim_only.returncode == 0
    with SessionStore() as store:
        sim = next(row for row in store.sessions() if row.mode == "sim")
    refused = cli("replay", sim.id[:8], "--brain", "builtin", "--audio", "real")
    assert refused.returncode == 1 and "without --audio real" in refused.stderr
