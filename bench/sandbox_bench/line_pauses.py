"""Paused callers on each phone line: the false cut-offs of ``sandbox bench --lines``.

The held-apart set's paused utterances (:mod:`sandbox_bench.pause_set`) go through the
pauses stage's listening path (:mod:`sandbox_bench.pauses`: VAD, endpointer, the audio turn
model, Whisper tiny.en, in process), each first through a line's uplink, the path the engine
puts the caller's audio through (:class:`~sandbox.audio.line_path.LinePath`), at the default
patience. Only the paused utterances: a false cut-off is a turn committed inside one's pause,
and the stage's other sets, through four lines, would add minutes to a run that already
takes a quarter of an hour. One uplink per line carries the whole set, one utterance after
another, as one caller's call would: its losses fall at different places in each.
"""

from __future__ import annotations

from dataclasses import replace

from sandbox.audio.line_path import UPLINK_SEED, LinePath
from sandbox.audio.resample import as_float32, as_int16
from sandbox.audio.stt import SAMPLE_RATE, Transcriber
from sandbox.audio.turn_model import TurnModel
from sandbox.call.settings import DEFAULT_PATIENCE
from sandbox.line.profile import LineProfile
from sandbox_bench.figures import Progress
from sandbox_bench.pause_set import Utterance, paused_set
from sandbox_bench.pauses import QUICK_ITEMS, InlineModels, cut_offs, fraction


def through_uplink(paused: list[Utterance], profile: LineProfile) -> list[Utterance]:
    """``paused`` as the listener hears them at the far end of ``profile``'s uplink: the
    audio through the line, each moment (the pause, the voice's end) the line's delay later.
    Every utterance's tail of silence is longer than the delay, so none of its voice is left
    in the line when the next one goes in."""
    if not profile.is_line:
        return paused
    uplink = LinePath(profile, SAMPLE_RATE, UPLINK_SEED)
    later = uplink.delay_ms
    heard = []
    for u in paused:
        assert u.pause is not None  # the paused set's utterances all have one
        heard.append(
            replace(
                u,
                audio=as_float32(uplink.process(as_int16(u.audio))),
                end_ms=u.end_ms + later,
                pause=(u.pause[0] + later, u.pause[1] + later),
            )
        )
    return heard


def line_cutoffs(
    transcriber: Transcriber,
    profiles: list[LineProfile],
    progress: Progress,
    *,
    quick: bool = False,
) -> dict[str, float | None]:
    """Each profile's false cut-off fraction at the default patience, by its name (module
    doc); ``quick``: the pauses stage's few of each kind."""
    paused = paused_set(QUICK_ITEMS if quick else None)
    model = TurnModel.load()
    out: dict[str, float | None] = {}
    for profile in profiles:
        memo = InlineModels(transcriber, model)  # each line's audio is its own
        heard = through_uplink(paused, profile)
        causes = cut_offs(memo, heard, DEFAULT_PATIENCE, narrowband=profile.narrowband)
        cut = [c is not None for c in causes]
        out[profile.name] = fraction(cut)
        progress(f"  paused callers on {profile.name}: {sum(cut)}/{len(cut)} cut off")
    return out
