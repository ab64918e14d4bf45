"""Each caller turn's latency waterfall, assembled by the core on a fake clock: the
listener's moments come with the turn, the wire's as frames cross, the playout's as it
reports them; first of each wins, absent stays absent."""

from __future__ import annotations

import json
from pathlib import Path

from call_rig import Rig
from cli_rig import sandbox_cli
from session_rig import recorded_call

from sandbox.call.caller_events import TurnClose, TurnCommitted
from sandbox.call.played import AudioMark
from sandbox.call.waterfall import (
    STAGES,
    HeardTiming,
    from_start,
    in_order,
    stages_named,
    summary,
)
from sandbox.record.latency_text import percentile
from sandbox.record.waterfall_text import waterfall_text


def _spoken_turn(rig: Rig, text: str, heard: HeardTiming) -> None:
    closes = (heard.voice_end_ms, heard.window_closed_ms, heard.committed_ms)
    rig.feed(TurnCommitted(text, TurnClose.CONFIDENT, *closes))


def _spoken_and_answered(rig: Rig) -> int:
    """A spoken turn and its reply, the real playout's marks given as it gives them."""
    rig.start()
    rig.advance(2_500)  # no greeting
    _spoken_turn(rig, "book a table", HeardTiming(2_100, 2_400, 2_480))
    turn = rig.core.turn
    rig.advance(300)
    rig.open(10, turn)
    rig.advance(40)
    rig.chunk(10, "Sure, for how many? ")
    # The real playout's marks, stamped on its threads, reach the core before the words
    # they come with: the clock moves here without draining the simulated playout.
    for stage, at in (("first_clause", 2_900), ("first_sample", 2_950), ("first_speaker", 2_990)):
        rig.now = at
        rig.take(rig.core.handle(AudioMark(10, stage, at), at))
    rig.chunk(10, "And when? ")  # a later chunk moves nothing
    rig.take(
        rig.core.handle(AudioMark(10, "first_sample", 3_500), 3_500)
    )  # later: the first stands
    rig.end(10)
    rig.advance(2_000)  # the words play: the playout's own mark came first and stands
    return turn


ON_THE_CALLS_CLOCK = {
    "voice_end": 2_100,
    "window_closed": 2_400,
    "committed": 2_480,
    "user_message": 2_500,
    "first_chunk": 2_840,
    "first_clause": 2_900,
    "first_sample": 2_950,
    "first_speaker": 2_990,
}


def test_a_spoken_turn_keeps_every_stage_on_the_calls_clock() -> None:
    rig = Rig(ms_per_word=100)
    turn = _spoken_and_answered(rig)
    assert rig.core.ledger.timelines == {turn: ON_THE_CALLS_CLOCK}
    # Every stage but the network's: a wideband call has no line.
    assert list(rig.core.ledger.timelines[turn]) == list(stages_named(on_line=False))
    assert "first audio at the ear" not in waterfall_text(turn, ON_THE_CALLS_CLOCK).plain


def test_a_turn_on_a_line_gains_the_networks_stages_its_delay_either_side() -> None:
    rig = Rig(ms_per_word=100, line_ms=80)
    turn = _spoken_and_answered(rig)
    timeline = rig.core.ledger.timelines[turn]
    # The caller stopped at their mouth 80 ms before the VAD heard it; the reply reached
    # their ear 80 ms after it left at the speaker.
    assert timeline == {"caller_voice_end": 2_020, **ON_THE_CALLS_CLOCK, "first_at_ear": 3_070}
    assert list(timeline) == list(STAGES)
    assert from_start(timeline)["first_at_ear"] == 1_050
    assert summary(turn, timeline).startswith(
        f"turn {turn} · first audio 1050 ms after voice end at the mouth"
    )
    drawn = waterfall_text(turn, timeline).plain
    assert "voice end at the mouth" in drawn
    assert "first audio at the ear" in drawn
    assert "not reached" not in drawn


def test_on_a_line_a_typed_turn_and_an_unmeasured_speaker_leave_the_network_out() -> None:
    rig = Rig(ms_per_word=100, line_ms=80)
    rig.start()
    rig.advance(2_500)
    rig.caller("hello there")  # typed: no voice end, so none at the mouth
    rig.advance(120)
    rig.say(5, rig.core.turn, "Hi, how can I help?")
    rig.take(
        rig.core.handle(AudioMark(5, "first_at_ear", 2_700), 2_700)
    )  # not the playout's to report
    rig.advance(1_000)
    (timeline,) = rig.core.ledger.timelines.values()
    # Nothing measured the speaker: the ear's moment is not guessed from the first sample.
    assert timeline == {"user_message": 2_500, "first_chunk": 2_620, "first_sample": 2_620}


def test_a_typed_turn_on_the_simulated_playout_starts_at_its_user_message() -> None:
    rig = Rig(ms_per_word=100)
    rig.start()
    rig.advance(2_500)
    rig.caller("hello there")
    rig.advance(120)
    rig.say(5, rig.core.turn, "Hi, how can I help?")
    rig.advance(1_000)
    (timeline,) = rig.core.ledger.timelines.values()
    # No listener: no voice end; no synthesis: no clause; the simulated playout's first
    # word starts its audio; nothing measured the speaker.
    assert timeline == {"user_message": 2_500, "first_chunk": 2_620, "first_sample": 2_620}
    assert from_start(timeline) == {"user_message": 0, "first_chunk": 120, "first_sample": 120}


def test_the_greeting_and_an_idle_turn_keep_no_timeline() -> None:
    rig = Rig(ms_per_word=100)
    rig.start()
    rig.say(1, 1, "Hello!")
    rig.take(rig.core.handle(AudioMark(1, "first_sample", 5), 5))
    rig.advance(1_000)
    assert rig.core.ledger.timelines == {}


def test_each_turn_keeps_its_own_waterfall_and_a_cut_reply_stops_where_it_was_cut() -> None:
    rig = Rig(ms_per_word=100)
    rig.start()
    rig.advance(2_500)
    rig.caller("first")
    first = rig.core.turn
    rig.open(1, first)
    rig.advance(100)
    rig.chunk(1, "Let me see what we have this evening. ")
    rig.advance(150)  # two words in, the caller speaks again: turn 2 cuts the reply
    rig.caller("second")
    second = rig.core.turn
    rig.chunk(1, "Too late. ")  # for a dead turn: never relayed, never played
    rig.advance(100)
    rig.say(2, second, "Right away.")
    rig.advance(1_000)
    timelines = rig.core.ledger.timelines
    assert timelines[first] == {"user_message": 2_500, "first_chunk": 2_600, "first_sample": 2_600}
    assert timelines[second] == {
        "user_message": 2_750,
        "first_chunk": 2_850,
        "first_sample": 2_850,
    }


def test_an_unknown_stage_from_a_playout_is_ignored_and_stages_read_in_order() -> None:
    rig = Rig()
    rig.start()
    rig.advance(2_500)
    rig.caller("hi")
    rig.open(3, rig.core.turn)
    mark = AudioMark(3, "made_up", 2_600)
    rig.take(rig.core.handle(AudioMark(mark.speech_id, mark.stage, mark.t_ms), mark.t_ms))
    (timeline,) = rig.core.ledger.timelines.values()
    assert "made_up" not in timeline
    assert list(in_order({"first_sample": 3, "voice_end": 1, "user_message": 2})) == [
        "voice_end",
        "user_message",
        "first_sample",
    ]


async def test_a_sim_call_stores_each_turns_timeline_in_order_and_prints_its_table(
    home: Path,
) -> None:
    host = await recorded_call()
    sid = host.core.session_id
    shown = sandbox_cli(home, "sessions", "show", sid, "--json")
    assert shown.returncode == 0, shown.stderr
    turns = json.loads(shown.stdout)["turns"]
    # The question and the barge-in both got an answer: each timeline runs from its
    # UserMessage through the first chunk to the first sample, in order, on one clock.
    assert [t["turn_id"] for t in turns] == [2, 3]
    for turn in turns:
        timeline = turn["timeline"]
        assert list(timeline) == ["user_message", "first_chunk", "first_sample"]
        times = list(timeline.values())
        assert times == sorted(times) and times[0] > 0
    table = sandbox_cli(home, "sessions", "show", sid, "--latency")
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    # Each turn's waterfall first, drawn as f7 draws it, then the table.
    for turn in turns:
        drawn = waterfall_text(turn["turn_id"], turn["timeline"]).plain.splitlines()
        at = lines.index(drawn[0])
        assert lines[at : at + len(drawn)] == drawn and "█" in drawn[1]
    lines = lines[next(i for i, line in enumerate(lines) if line.startswith("latency:")) :]
    header = next(line for line in lines if line.lstrip().startswith("turn"))
    assert header.split() == ["turn", "user", "message", "first", "chunk", "first", "sample"]
    rows = {line.split()[0]: line.split()[1:] for line in lines if line[:6].strip()}
    for turn in turns:
        offsets = from_start(turn["timeline"])
        assert rows[str(turn["turn_id"])] == [str(ms) for ms in offsets.values()]
    assert {"p50", "p90"} <= set(rows)
    assert "mappingproxy" not in table.stdout and "{" not in table.stdout


def test_percentiles_are_values_that_were_measured() -> None:
    assert percentile([300, 100, 200], 0.5) == 200
    assert percentile([300, 100, 200], 0.9) == 300
    assert percentile([7], 0.9) == 7
    assert percentile(list(range(1, 11)), 0.9) == 9
