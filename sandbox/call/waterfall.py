"""A caller turn's latency waterfall: the moments from the caller's voice ending to the
reply's first audio, each on the call's one clock (milliseconds since the call's start).

The core keeps one timeline per caller turn in its ledger (stage name -> ms), marking each
stage the first time it happens: the listener's moments come in with the committed turn
(:class:`HeardTiming`), the wire's as the core sends and receives, and the playout's as the
playout reports them (:class:`~sandbox.call.played.AudioMark`). A stage that did not happen,
or that this kind of call cannot see (a typed turn has no voice end, a simulated playout no
synthesis, a speaker whose delay is not measured), stays absent.

On a phone line the waterfall gains the network's two stages (:func:`on_the_line`): the
caller's voice ended at their mouth one line delay before the VAD heard it end, and the
reply's first audio reached their ear one line delay after it left at the speaker. The call
core is told the line's delay (``CallCore.line_ms``); a wideband call has neither stage.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

CALLER_VOICE_END = "caller_voice_end"
VOICE_END = "voice_end"
WINDOW_CLOSED = "window_closed"
COMMITTED = "committed"
USER_MESSAGE = "user_message"
FIRST_CHUNK = "first_chunk"
FIRST_CLAUSE = "first_clause"
FIRST_SAMPLE = "first_sample"
FIRST_SPEAKER = "first_speaker"
FIRST_AT_EAR = "first_at_ear"

#: Every stage, in the order a turn goes through them, with how each reads.
STAGES: Mapping[str, str] = {
    CALLER_VOICE_END: "voice end at the mouth",
    VOICE_END: "caller voice end (VAD)",
    WINDOW_CLOSED: "window closed",
    COMMITTED: "turn committed",
    USER_MESSAGE: "UserMessage sent",
    FIRST_CHUNK: "first SpeechChunk received",
    FIRST_CLAUSE: "first clause synthesized",
    FIRST_SAMPLE: "first sample released",
    FIRST_SPEAKER: "first audio at the speaker",
    FIRST_AT_EAR: "first audio at the ear",
}

#: The network's stages, which only a call on a phone line has: each is a moment of the
#: runtime's side moved by the line's delay, earlier (-1) or later (+1).
NETWORK_STAGES: Mapping[str, tuple[str, int]] = {
    CALLER_VOICE_END: (VOICE_END, -1),
    FIRST_AT_EAR: (FIRST_SPEAKER, +1),
}

#: The stages a playout reports (see :class:`~sandbox.call.played.AudioMark`).
PLAYOUT_STAGES = (FIRST_CLAUSE, FIRST_SAMPLE, FIRST_SPEAKER)


@dataclass(frozen=True)
class HeardTiming:
    """When the listener heard a spoken turn end: the caller's voice stopped (VAD), the
    endpointer's window closed on it, and its transcript was committed."""

    voice_end_ms: int
    window_closed_ms: int
    committed_ms: int

    def marks(self) -> dict[str, int]:
        """The three as timeline stages."""
        return {
            VOICE_END: self.voice_end_ms,
            WINDOW_CLOSED: self.window_closed_ms,
            COMMITTED: self.committed_ms,
        }


def on_the_line(marks: Mapping[str, int], line_ms: int) -> dict[str, int]:
    """``marks`` with the network's stages each of them makes on a line ``line_ms`` one
    way (the profile's path delay, :data:`NETWORK_STAGES`); unchanged with no line (0)."""
    out = dict(marks)
    if line_ms:
        for stage, (runtime_stage, way) in NETWORK_STAGES.items():
            if runtime_stage in marks:
                out[stage] = marks[runtime_stage] + way * line_ms
    return out


def stages_named(on_line: bool) -> dict[str, str]:
    """The stages a waterfall names (:data:`STAGES`), the network's only on a line."""
    return {s: words for s, words in STAGES.items() if on_line or s not in NETWORK_STAGES}


def in_order(timeline: Mapping[str, int]) -> dict[str, int]:
    """The timeline's stages in :data:`STAGES` order (unknown names are left out)."""
    return {stage: timeline[stage] for stage in STAGES if stage in timeline}


def from_start(timeline: Mapping[str, int]) -> dict[str, int]:
    """Each stage's ms after the turn's first one: its voice end, or (a typed or simulated
    turn, which has none) the first stage it has."""
    ordered = in_order(timeline)
    if not ordered:
        return {}
    start = next(iter(ordered.values()))
    return {stage: at - start for stage, at in ordered.items()}


#: The stages a turn's one-line summary names beside its total.
_SUMMARY_STAGES = (COMMITTED, FIRST_CHUNK)


def summary(turn_id: int, timeline: Mapping[str, int]) -> str:
    """The turn's waterfall in one line, for a status bar, in the figures its full waterfall
    shows (:func:`from_start`): ``turn 2 · first audio 1400 ms after voice end (committed
    470, first chunk 610) · slowest: first clause synthesized +650``; the caller's ear on a
    line, else the speaker's stage when measured, else the first sample; and the stage it
    waited longest for (:func:`slowest_stage`)."""
    marks = from_start(timeline)
    start = "voice end" if VOICE_END in marks else "its first stage (typed)"
    if CALLER_VOICE_END in marks:
        start = STAGES[CALLER_VOICE_END]
    known = ", ".join(f"{_words(s)} {marks[s]}" for s in _SUMMARY_STAGES if s in marks)
    detail = f" ({known})" if known else ""
    # As the caller met it: at their ear on a line, else at the speaker, else released.
    heard = marks.get(FIRST_AT_EAR, marks.get(FIRST_SPEAKER, marks.get(FIRST_SAMPLE)))
    if heard is None:
        return f"turn {turn_id} · no audio yet · ms after {start}{detail}"
    slowest = slowest_stage(timeline)
    spent = "" if slowest is None else f" · slowest: {STAGES[slowest[0]]} +{slowest[1]}"
    return f"turn {turn_id} · first audio {heard} ms after {start}{detail}{spent}"


def slowest_stage(timeline: Mapping[str, int]) -> tuple[str, int] | None:
    """The stage the turn waited longest for, and how long (ms since the stage before it),
    so a slow turn says where its time went; None with fewer than two stages."""
    ordered = list(in_order(timeline).items())
    steps = [(stage, at - ordered[i][1]) for i, (stage, at) in enumerate(ordered[1:])]
    return max(steps, key=lambda step: step[1], default=None)


def _words(stage: str) -> str:
    return stage.replace("_", " ")


def turn_at(
    timelines: Mapping[int, Mapping[str, int]], t_ms: int
) -> tuple[int | None, dict[str, int]]:
    """The waterfall as it stood at ``t_ms`` (a replay's playhead): the latest caller turn
    whose first stage had happened, with only its stages up to then; (None, {}) before the
    first turn."""
    found: tuple[int | None, dict[str, int]] = (None, {})
    for turn_id, timeline in sorted(timelines.items()):
        so_far = {stage: at for stage, at in in_order(timeline).items() if at <= t_ms}
        if so_far:
            found = (turn_id, so_far)
    return found
