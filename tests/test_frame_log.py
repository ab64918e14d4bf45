"""The recorder's compact frame log: frames and other entries come back as added, in order."""

from __future__ import annotations

import tracemalloc

from sandbox.record.frame_log import FrameLog
from sandbox.wire import pb


def test_frames_and_other_entries_come_back_in_order() -> None:
    log: FrameLog[str] = FrameLog()
    log.add_frame(0, "out", b"\x0a\x02\x08\x01")
    log.add_other("not an envelope")
    log.add_frame(-5, "in", b"")
    log.add_frame(2**40, "in", bytes(range(256)) * 40)
    log.add_other("another")
    assert len(log) == 5
    assert list(log) == [
        (0, "out", b"\x0a\x02\x08\x01"),
        "not an envelope",
        (-5, "in", b""),
        (2**40, "in", bytes(range(256)) * 40),
        "another",
    ]
    assert list(log) == list(log)  # reading does not consume


def test_frames_can_be_added_after_a_read() -> None:
    log: FrameLog[str] = FrameLog()
    log.add_frame(1, "in", b"a")
    first = iter(log)
    assert next(first) == (1, "in", b"a")
    log.add_frame(2, "out", b"b")  # a read in progress does not lock the buffer
    assert list(log) == [(1, "in", b"a"), (2, "out", b"b")]


def test_a_frame_costs_little_more_than_its_bytes() -> None:
    raw = pb.Envelope(speech_chunk=pb.SpeechChunk(speech_id=7, text="right ")).SerializeToString()
    log: FrameLog[str] = FrameLog()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for t in range(10_000):
            log.add_frame(t, "in", raw)
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    # 13 bytes of head per frame; the buffer grows by at most an eighth more than it holds.
    assert grown <= 10_000 * (len(raw) + 13) * 1.2
