"""The core is fed data: a call's inputs, kept in the order the host fed them and fed through
a fresh core, make the same call, effect for effect (issue 53: the input stream can be
stored and fed again, so a stored call can be read by running the core)."""

from __future__ import annotations

import asyncio
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from checkout import REPO, package_files

from sandbox.brains import Concierge, Guardrail
from sandbox.call.core import CallCore
from sandbox.call.effects import Effect, ToApp, UnitChanged, WireEffect
from sandbox.call.inputs import CoreInput, NotPlaced
from sandbox.call.outcome import Outcome
from sandbox.call.sim_playout import SimPlayout
from sandbox.host.launch import CallNotPlaced, CallOptions, open_call
from sandbox.host.session import CallHost
from sandbox.record.markdown import session_markdown
from sandbox.record.page.data import page_data
from sandbox.record.report import report_json
from sandbox.record.session_kinds import CallMode
from sandbox.record.store import SessionStore
from sandbox.record.stored_call import StoredCall
from sandbox.replay.timeline import Replayer
from sandbox.sdk import Brain, serve
from sandbox.wire import pb
from sandbox.wire.tokens import load_or_create_keys


def _fresh_like(core: CallCore) -> CallCore:
    """A core set up as ``core`` was before its call began (its settings as they started)."""
    return CallCore(
        core.session_id,
        caps=core.caps,
        init=core.init,
        settings=core.settings,
        capabilities=core.capabilities,
        stall_ms=core.stall_ms,
        line_ms=core.line_ms,
    )


def _stored(effect: Effect) -> bool:
    """Whether the host stores ``effect`` as an event: not a frame (the frames keep it), not a
    redraw, not an RTVI message past the call's cap (it is counted)."""
    if isinstance(effect, ToApp):
        return effect.recorded
    return not isinstance(effect, WireEffect | UnitChanged)


def _units(core: CallCore) -> list[tuple[Any, ...]]:
    return [(u.speech_id, u.turn_id, u.fate, u.heard, u.generated, u.finalized) for u in core.units]


async def _a_call(
    brain: type[Brain], effects: list[Effect], recording: CallMode | None = None
) -> tuple[CallHost, CallCore, list[tuple[int, CoreInput]]]:
    """A call over a real WebSocket to ``brain``: a greeting barged into, a turn answered,
    a settings change, a second turn talked over, a message from the app, a hang-up. Its
    host, a core as it began, and every input the host fed, with when; ``effects`` gets
    every effect carried out. ``recording``: the call is stored as a call of that mode."""
    server = await serve(
        brain, host="127.0.0.1", port=0, public_key_pem=load_or_create_keys().public_pem
    )
    try:
        options = CallOptions(brain_url=server.url(), recording=recording)
        host = await open_call(options, server.url(), SimPlayout(ms_per_word=60))
        began = _fresh_like(host.core)
        fed: list[tuple[int, CoreInput]] = []
        host.on_effect.append(effects.append)
        host.on_input.append(lambda now, one: fed.append((now, one)))
        running = asyncio.create_task(host.run())
        assert await host.wait_for(lambda: host.words_played >= 2, 10)
        host.barge_in()
        host.caller_turn("What are your opening hours?")
        assert await host.wait_for(lambda: host.words_played >= 6, 10)
        assert await host.configure(pb.Config(stt=pb.SttConfig(patience=3))) is None
        host.caller_turn("Can I book a table for two on Friday?", typed=True)
        assert await host.wait_for(lambda: host.words_played >= 9, 10)
        host.backchannel("mhm")
        host.barge_in()
        host.caller_turn("Where can I park?")
        host.from_app("client-message", '{"t": "note"}', "m1")
        await asyncio.sleep(0.3)
        host.hang_up()
        await asyncio.wait_for(running, 10)
    finally:
        await server.close()
    return host, began, fed


@pytest.mark.parametrize("brain", [Concierge, Guardrail])
async def test_a_calls_inputs_fed_again_make_the_same_call(brain: type[Brain]) -> None:
    live_effects: list[Effect] = []
    host, again, fed = await _a_call(brain, live_effects)
    kinds = {type(one).__name__ for _, one in fed}
    assert {"Start", "FromBrain", "WordPlayed", "OverBot", "BargeIn", "LineGiven"} <= kinds
    assert {"Configure", "Backchannel", "HangUp"} <= kinds

    effects: list[Effect] = []
    for now, one in fed:
        effects += again.handle(one, now)

    live = host.core
    assert effects == live_effects
    assert _units(again) == _units(live) and _units(live)
    assert any(u.interrupted for u in live.units)
    assert again.ledger.caller_lines == live.ledger.caller_lines
    assert again.ledger.timelines == live.ledger.timelines
    assert list(again.ledger.errors) == list(live.ledger.errors)
    assert (again.turn, again.watermark, again.ended) == (live.turn, live.watermark, live.ended)
    assert again.settings == live.settings == replace(live.settings, patience=3)
    assert again.verdict() == live.verdict()


@pytest.mark.parametrize("brain", [Concierge, Guardrail])
async def test_a_stored_calls_inputs_fed_again_report_it_field_for_field(
    brain: type[Brain], home: Path
) -> None:
    """The store keeps every input as the host fed it; fed through a fresh core, they make
    the report the live call wrote, every field of it, by the same builder."""
    host, _, fed = await _a_call(brain, [], recording=CallMode.SIM)
    live = report_json(host.recorder.finish(host.core, host.now()))
    with SessionStore(home / "sessions.db") as store:
        call = StoredCall.load(store, store.find(host.core.session_id))
        again = call.fed_again
        assert not isinstance(again, str), again
        assert call.inputs == fed  # what was stored is what was fed, in order, at its time
        # The core's records the store kept as the call ran (what the replay, the page and
        # the re-drive's warp read) are the ones feeding its inputs again makes, each at the
        # same moment: stored = fed again, record for record.
        kept = [(e.t_ms, e.value) for e in call.events if isinstance(e.value, Effect)]
        assert kept == [(t, one) for t, one in again.effects if _stored(one)]
        assert len(kept) > 50
        assert report_json(call.rebuilt) == live
        # Every view of it reads the same whether the report is the one the call wrote or
        # the one its inputs make again: the page, the Markdown, the replay at its end.
        again_only = replace(call, stored_report=None)
        assert page_data(again_only) == page_data(call)
        assert session_markdown(call.row, again_only.report) == session_markdown(
            call.row, call.report
        )
        replay = Replayer.of(again_only)
        replay.seek(replay.duration_ms)
        seen = [(u.speech_id, u.fate, u.heard, u.interrupted) for u in replay.view.units.values()]
        assert seen == [(u.speech_id, u.fate, u.heard, u.interrupted) for u in host.core.units]
    assert live["units"] and live["turns"] and live["conversation"] and live["errors"] == []


async def test_a_call_never_placed_is_stored_as_fed_too(home: Path) -> None:
    """A dial that fails ends the call before its host exists: its one input is stored all
    the same, and fed again it makes the report the call wrote."""
    options = CallOptions(brain_url="ws://127.0.0.1:9/brain", recording=CallMode.SIM)
    with pytest.raises(CallNotPlaced) as placed:
        await open_call(options, options.brain_url or "", SimPlayout(ms_per_word=60))
    written = placed.value.recorder.final_report
    assert written is not None and written.outcome is Outcome.NOT_REACHED
    with SessionStore(home / "sessions.db") as store:
        call = StoredCall.load(store, store.find(written.session_id))
    inputs = call.inputs
    assert not isinstance(inputs, str), inputs
    assert [type(one) for _, one in inputs] == [NotPlaced]
    assert report_json(call.rebuilt) == report_json(written)


def test_nothing_outside_the_core_reaches_past_handle() -> None:
    """``handle`` is the one way in: no module outside ``sandbox/call/`` (and no test) calls
    or reads a core's private member, so no input can skip the stream."""
    reaching = re.compile(r"\bcore\._[a-z]")
    tests = sorted((f"tests/{p.name}", p) for p in (REPO / "tests").rglob("*.py"))
    found = [
        f"{path.relative_to(REPO)}:{number}"
        for name, path in package_files() + tests
        if not name.startswith("call/") and path != Path(__file__).resolve()
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if reaching.search(line)
    ]
    assert found == []
