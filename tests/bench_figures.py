"""Stage figures and device runs built by hand, for the bench's report, targets and schema."""

from __future__ import annotations

from sandbox_bench.backchannels import BackchannelFigures, BackchannelTrial
from sandbox_bench.bargein import BargeInFigures, BargeInRun
from sandbox_bench.echo import EchoFigures
from sandbox_bench.first_audio import FirstAudioFigures
from sandbox_bench.greeting import GreetingFigures, GreetingTrial
from sandbox_bench.heard import Cut, HeardFigures
from sandbox_bench.models import MemoryFigures
from sandbox_bench.outside import DeviceRun, DeviceTurn
from sandbox_bench.report import Figures
from sandbox_bench.rtf import RtfFigures
from sandbox_bench.turns import TurnFigures, TurnRun


def stage_figures(*, decision_ms: float, self_interruptions: int) -> Figures:
    """Every in-process stage's figures: one run each, all within their targets but
    ``decision_ms`` and ``self_interruptions``."""
    turn = TurnRun("a", "a", "confident", 850.0, 1000.0, 120.0, 840.0)
    return Figures(
        turns=TurnFigures((turn,), 7, {"confident": 720, "silence": 1620}),
        first_audio=FirstAudioFigures((("Hi, there", 150.0),)),
        barge_in=BargeInFigures((BargeInRun(3, 100.0, decision_ms, 720.0, 130.0, 700.0),), 1),
        backchannels=BackchannelFigures(
            (
                BackchannelTrial(
                    "Okay.",
                    "en-us+m3",
                    1.0,
                    True,
                    True,
                    False,
                    True,
                    640.0,
                    "resumed (backchannel) 900 ms after onset",
                ),
            )
        ),
        greeting=GreetingFigures((GreetingTrial(500.0, True, 120.0),)),
        heard=HeardFigures((Cut("r", True, 1.0, "a b", "a b", "a b", "a b"),)),
        echo=EchoFigures(20, self_interruptions, 0, 0, 0, 0, 0, 120.0, 90.0),
        rtf=RtfFigures(0.3, 0.1, {"1.1s": 580.0}),
        memory=MemoryFigures(after_load_mb=290.0, after_warm_up_mb=350.0, peak_mb=550.0),
    )


def device_run(
    who: str,
    patience: int | None,
    values: list[float],
    brain: float,
    kinds: list[str] | None = None,
    closes: list[str | None] | None = None,
    strategy: str | None = None,
    missed: tuple[str, ...] = (),
    peak: float | None = None,
) -> DeviceRun:
    """A run at the devices: one turn per value (ms), each reaching the brain at ``brain``."""
    kinds = kinds or ["statement"] * len(values)
    closes = closes or [None] * len(values)
    turns = tuple(
        DeviceTurn(v, brain, kind, f"line {n}", "espeak en-us+m3 150", how)
        for n, (v, kind, how) in enumerate(zip(values, kinds, closes, strict=True))
    )
    return DeviceRun(who, patience, turns, missed, strategy, peak)
