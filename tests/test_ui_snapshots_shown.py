"""The app is shown frozen snapshots of the call, never the live core: its thread draws while
the call's loop changes the core (sandbox/call/snapshot.py, sandbox/ui/runner.py)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from ui_rig import SIZE, greeted, host_of, make_app, say, use_home, wait_until

from sandbox.call.effects import StateChanged, UnitChanged
from sandbox.call.units import Fate, UnitView
from sandbox.call.waterfall import summary
from sandbox.ui.lines import unit_text
from sandbox.ui.messages import CallEffect

ROOT = Path(__file__).resolve().parent.parent
#: A call's core read or handed on: ``host.core``, ``failed.core``, ``message.host.core``.
_CORE = re.compile(r"\.core\b")
#: The runner's two lines that hand the finished call's core to its recorder to write the
#: report: on the call's thread, once the call is over (or was never placed).
_WRITES_THE_REPORT = {
    "self.report = self._write(failed.core, failed.recorder)",
    "path = self._write(host.core, host.recorder, host.now())",
}


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_home(monkeypatch, tmp_path)


def test_nothing_in_the_ui_reads_a_core() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sorted((ROOT / "sandbox" / "ui").rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if _CORE.search(line)
        and not line.lstrip().startswith(("from ", "import "))  # the module sandbox.call.core
        and line.strip() not in _WRITES_THE_REPORT
    ]
    assert found == []


async def test_the_app_shows_the_snapshots_it_is_handed() -> None:
    app = make_app(ms_per_word=20)
    async with app.run_test(size=SIZE) as pilot:
        await greeted(pilot)
        await say(pilot, "what are your prices")
        await wait_until(pilot, lambda: len(host_of(app).core.units) >= 2, "the reply")
        host = host_of(app)
        await wait_until(
            pilot, lambda: (u := host.core.unit(2)) is not None and u.fate is Fate.PLAYED, "played"
        )
        await pilot.pause()
        latest = host.latest
        # The host's latest snapshot is the call as it stands, frozen, and the screen shows it.
        assert latest.state is host.core.state and latest.watermark == host.core.watermark
        assert latest.latest_timeline is not None
        assert app.status.info.latency == summary(*latest.latest_timeline)
        assert app.status.info.config == latest.settings.describe()
        assert app.sub_title.startswith(f"session {latest.session_id} ")
        with pytest.raises(dataclasses.FrozenInstanceError):
            latest.watermark = 9  # type: ignore[misc]
        view = host.unit_view(2)
        assert isinstance(view, UnitView) and view.fate is Fate.PLAYED
        line = app.conversation.unit_line(2)
        assert line is not None and line.text.plain == unit_text(view).plain

        # What the app is handed is what it shows, whatever the core holds meanwhile.
        made_up = dataclasses.replace(latest, watermark=41)
        cut = dataclasses.replace(view, fate=Fate.BARGED, heard="", words_heard=0)
        app.post_message(CallEffect(StateChanged(latest.state), host.now(), made_up))
        await wait_until(pilot, lambda: app.status.info.watermark == 41, "the watermark handed")
        assert host.core.watermark != 41
        app.post_message(CallEffect(UnitChanged(2), host.now(), made_up, cut))
        await wait_until(
            pilot,
            lambda: (
                (shown := app.conversation.unit_line(2)) is not None
                and shown.text.plain == unit_text(cut).plain
            ),
            "the unit handed",
        )
