"""The session store's figures: opening a long session for replay, what recording costs, and
the disk a minute of real-audio call takes.

A synthetic call of the length asked for is written through the real writer and the real
audio legs, at a real call's density (a caller turn every 15 s answered by a 20-word unit
played at 250 ms a word, both legs in 20 ms blocks), into a store of its own:

* ``replay_open_ms``: opening it by id prefix and drawing its first moment (median of 3);
* ``recording_cpu_percent``: the CPU the recording spent (the call's side queuing, the
  writer threads committing and encoding), as a share of one core over the call's length;
* ``frame_record_us``: what recording adds to handling one frame on the event loop (the
  median of queuing it, with the writer running), against the same without a writer;
* ``disk_mb_per_minute``: the store and both legs on disk, per minute of call;
* ``html_mb_per_10_minutes``: its self-contained page (``sandbox export --html``), audio
  embedded, per ten minutes of call.

The keys and their targets are declared in :mod:`sandbox_bench.mode_keys`.
"""

from __future__ import annotations

import statistics
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from google.protobuf.message import Message

from sandbox.call.played import WordPlayed
from sandbox.record.leg_files import leg_path
from sandbox.record.legs import MIC, SPEAKER, STORED_RATE, AudioLeg
from sandbox.record.page.build import session_page
from sandbox.record.recorder import Recorder
from sandbox.record.session_kinds import CallMode, Leg
from sandbox.record.store import SessionStore, short_id
from sandbox.record.stored_call import StoredCall
from sandbox.record.writer import SessionEnd, SessionWriter
from sandbox.replay.leg_player import LegPlayer
from sandbox.replay.source import open_recording
from sandbox.wire import encode, envelope, pb
from sandbox_bench.figures import Progress, median, target_lines
from sandbox_bench.mode_keys import SESSIONS_MODE
from sandbox_bench.own_home import own_home

_TURN_MS = 15_000
_WORD_MS = 250
_BLOCK_MS = 20
_REPLY = " ".join(["word"] * 20)


@dataclass(frozen=True)
class SessionFigures:
    """The store's figures for one synthetic call of ``minutes``."""

    minutes: float
    replay_open_ms: float | None
    recording_cpu_percent: float
    frame_record_us: float | None
    frame_record_unrecorded_us: float | None
    disk_mb_per_minute: float
    html_mb_per_10_minutes: float
    moments: int


def measure_sessions(minutes: float, progress: Progress) -> SessionFigures:
    """Write, measure and open one synthetic call of ``minutes`` in a store of its own."""
    with own_home() as home:
        return _measure(minutes, home, progress)


def _measure(minutes: float, home: Path, progress: Progress) -> SessionFigures:
    session_id = str(uuid.uuid4())
    duration_ms = int(minutes * 60_000)
    recorder = Recorder(session_id, "ws://127.0.0.1:8765/brain")
    recorder.writer = SessionWriter(
        session_id, brain_url=recorder.brain_url, leg=Leg.DIRECT, mode=CallMode.AUDIO
    )
    legs = {MIC: AudioLeg(leg_path(session_id, MIC), 16_000),
            SPEAKER: AudioLeg(leg_path(session_id, SPEAKER), 22_050)}  # fmt: skip
    progress(f"  writing a {minutes:g}-minute call through the recorder and both legs")
    cpu_before = time.process_time()
    frame_us = _write_call(recorder, legs, duration_ms)
    for leg in legs.values():
        leg.close()
    recorder.writer.finish(SessionEnd("completed", "caller", "", duration_ms, 0, 0, 0, 0, {}))
    cpu_s = time.process_time() - cpu_before
    unrecorded = Recorder(session_id, recorder.brain_url)
    bare_us = _frame_costs(unrecorded, 2_000)
    disk = sum(p.stat().st_size for p in home.rglob("*") if p.is_file())
    opens: list[float] = []
    moments = 0
    for _ in range(3):
        start = time.perf_counter()
        recording = open_recording(short_id(session_id))
        LegPlayer(recording.legs, STORED_RATE).pull(1024)  # ready to play: its first block
        recording.replayer.seek(0)
        opens.append((time.perf_counter() - start) * 1000)
        moments = len(recording.replayer.moments)
    progress(f"  opened for replay in {statistics.median(opens):.0f} ms ({moments} moments)")
    with SessionStore() as store:
        progress("  exporting it as one HTML page")
        page_bytes = len(session_page(StoredCall.load(store, store.find(session_id))).encode())
        store.delete(session_id)
    return SessionFigures(
        minutes=minutes,
        replay_open_ms=median(opens),
        recording_cpu_percent=round(cpu_s * 100_000 / duration_ms, 2),
        frame_record_us=median(frame_us, 2),
        frame_record_unrecorded_us=median(bare_us, 2),
        disk_mb_per_minute=round(disk / 2**20 / minutes, 2),
        html_mb_per_10_minutes=round(page_bytes / 2**20 / minutes * 10, 2),
        moments=moments,
    )


def _write_call(recorder: Recorder, legs: dict[str, AudioLeg], duration_ms: int) -> list[float]:
    """Feed a call's frames, events and audio in time order; the cost of each frame queued."""
    frame_us: list[float] = []
    rng = np.random.default_rng(7)
    mic_block = (rng.standard_normal(16_000 * _BLOCK_MS // 1000) * 0.05).astype(np.float32)
    speaker_block = (rng.standard_normal(22_050 * _BLOCK_MS // 1000) * 3000).astype(np.int16)
    sid, turn, next_turn = 0, 1, 0
    for t in range(0, duration_ms, _BLOCK_MS):
        legs[MIC].add(mic_block, t)
        legs[SPEAKER].add(speaker_block, t)
        if t >= next_turn:
            turn, sid, next_turn = turn + 1, sid + 1, t + _TURN_MS
            for body in (
                pb.UserMessage(turn_id=turn, text="What are your opening hours on Sunday?"),
                pb.SpeechStart(speech_id=sid, turn_id=turn),
                pb.SpeechChunk(speech_id=sid, text=_REPLY),
                pb.SpeechEnd(speech_id=sid),
            ):
                frame_us.append(_frame_cost(recorder, body, t))
            for index, word in enumerate(_REPLY.split()):
                recorder.event(t + index * _WORD_MS, WordPlayed(sid, word))
            finalize = pb.Finalize(speech_id=sid, heard_text=_REPLY)
            frame_us.append(_frame_cost(recorder, finalize, t + 20 * _WORD_MS))
    return frame_us


def _frame_cost(recorder: Recorder, body: Message, t_ms: int) -> float:
    env = envelope(body)
    raw = encode(env)
    start = time.perf_counter()
    recorder.frame("in", env, t_ms, raw)
    return (time.perf_counter() - start) * 1e6


def _frame_costs(recorder: Recorder, count: int) -> list[float]:
    return [
        _frame_cost(recorder, pb.SpeechChunk(speech_id=1, text=_REPLY), 0) for _ in range(count)
    ]


def sessions_table(figures: dict[str, object]) -> str:
    """The figures as lines, each beside its target."""
    lines = [f"session store, a {figures['minutes']:g}-minute call ({figures['moments']} moments)"]
    lines += target_lines(figures, SESSIONS_MODE.bounds())
    lines.append(
        f"  {'frame_record_us':<24} {figures['frame_record_us']} "
        f"(unrecorded: {figures['frame_record_unrecorded_us']})"
    )
    return "\n".join(lines)
