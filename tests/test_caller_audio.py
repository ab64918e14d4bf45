"""Cutting a real-audio session's microphone leg into the caller's lines, in step order."""

from __future__ import annotations

from typing import Any

import numpy as np

from sandbox.record.store import StoredEvent
from sandbox.replay.caller_audio import MARGIN_MS, SpokenLine, cut_clips, spoken_lines


def events(*raw: tuple[int, str, dict[str, Any]]) -> list[StoredEvent]:
    return [StoredEvent(seq, t, kind, data) for seq, (t, kind, data) in enumerate(raw)]


def words(start: int, count: int, step: int = 300) -> list[tuple[int, str, dict[str, Any]]]:
    return [(start + i * step, "word_played", {"speech_id": 2, "word": "w"}) for i in range(count)]


def test_turns_barge_ins_and_backchannels_become_lines_in_order() -> None:
    recorded = events(
        (1000, "caller_speaking", {"t": 1000}),
        (
            2500,
            "turn_committed",
            {
                "text": "hours?",
                "reason": "final",
                "t_end_of_speech": 2200,
                "t_window_closed": 2200,
                "t_committed": 2200,
            },
        ),
        *words(3000, 10),  # the reply: words at 3000, 3300, ..., 5700
        (4100, "backchannel", {"text": "mm-hmm", "t_onset": 3700, "t_end": 4000}),
        (6000, "barge_in", {"t_onset": 5400, "t_decided": 6000}),
        (6000, "caller_speaking", {"t": 5400}),
        (
            7500,
            "turn_committed",
            {
                "text": "sorry",
                "reason": "final",
                "t_end_of_speech": 7200,
                "t_window_closed": 7200,
                "t_committed": 7200,
            },
        ),
        (8000, "caller_speaking", {"t": 8000}),
        (8400, "dropped_empty", {"reason": "silence"}),  # a cough: not part of the next line
        (9000, "caller_speaking", {"t": 9000}),
        (
            9900,
            "turn_committed",
            {
                "text": "bye",
                "reason": "final",
                "t_end_of_speech": 9700,
                "t_window_closed": 9700,
                "t_committed": 9700,
            },
        ),
    )
    # Over the bot, a line waits for the words that had started before its clip does (its
    # onset less the margin): 3000 and 3300 before 3400; 3000 ... 4800 before 5100.
    assert spoken_lines(recorded) == [
        SpokenLine(1000, 2200, 0),
        SpokenLine(3700, 4000, 2),
        SpokenLine(5400, 7200, 7),
        SpokenLine(9000, 9700, 0),
    ]


def test_clips_keep_a_margin_either_side_and_stop_at_the_leg() -> None:
    rate = 16000
    mic = np.arange(rate * 3, dtype=np.int16)  # three seconds
    first, last = cut_clips(mic, rate, [SpokenLine(1000, 1500, 0), SpokenLine(2500, 3400, 0)])
    assert first[0] == (1000 - MARGIN_MS) * rate // 1000
    assert len(first) == (500 + 2 * MARGIN_MS) * rate // 1000
    assert last[-1] == mic[-1]  # the leg ended before the margin did
