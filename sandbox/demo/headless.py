"""A scene played without the terminal app: on the simulated clock, recorded as a session.
What ``--silent`` plays under the app, and what the tests check a scene's claims against."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from sandbox.call.settings import Settings
from sandbox.call.sim_playout import SimPlayout
from sandbox.demo.director import Director
from sandbox.demo.scene import Scene
from sandbox.harness.builtin import brain_url_for
from sandbox.host.launch import CallOptions, open_call
from sandbox.host.session import CallHost
from sandbox.host.warp import WarpClock
from sandbox.record.session_kinds import CallMode


@dataclass(frozen=True)
class Played:
    """A scene's call, ended and recorded, and the captions it showed."""

    host: CallHost
    captions: list[str]


def scene_options(scene: Scene, brain_url: str | None, recording: CallMode) -> CallOptions:
    """The call a scene places: its built-in brain (unless a URL is given), its idle wait."""
    return CallOptions(
        brain_url=brain_url,
        builtin=scene.brain,
        settings=Settings(idle_ms=scene.idle_ms),
        recording=recording,
    )


async def play_scene(
    scene: Scene,
    brain_url: str | None = None,
    *,
    warp: bool = True,
    show: Callable[[str], None] = lambda _text: None,
) -> Played:
    """Play ``scene`` as a recorded sim call (on the warp clock unless ``warp`` is False)."""
    options = scene_options(scene, brain_url, CallMode.SIM)
    async with brain_url_for(options) as url:
        playout = SimPlayout(ms_per_word=scene.ms_per_word)
        host = await open_call(options, url, playout, warp=WarpClock() if warp else None)
        director = Director(host, scene, show)
        directing = asyncio.create_task(director.run())
        try:
            await host.run()
            captions = await directing
        finally:
            directing.cancel()
            host.recorder.finish(host.core, host.now())
    return Played(host, captions)
