"""The README's own brain has no idle handler, as the SDK allows ("yield a nudge, or
nothing"): it answers every idle turn with nothing, and that is not a stall. Through the
CLI as a newcomer meets it: ``sandbox brain ./mymodule.py`` and ``sandbox call`` with a
short idle timeout and a caller who stays silent past the 10 s stall notice."""

from __future__ import annotations

from pathlib import Path

from brain_process import reported_call, serving
from readme import code_block

from sandbox.call.core import DEFAULT_STALL_MS

IDLE_MS = 1_000
#: Long enough for the first idle turn and then the whole stall wait after it.
SILENCE_MS = IDLE_MS + DEFAULT_STALL_MS + 1_000
SCRIPT = f"""
ms_per_word = 20
[[step]]
say = "hello there"
[[step]]
silence_ms = {SILENCE_MS}
[[step]]
end = "now"
"""


def test_a_brain_without_an_idle_handler_is_not_reported_stalled(tmp_path: Path) -> None:
    folder, home = tmp_path / "author", tmp_path / "home"
    folder.mkdir()
    (folder / "mymodule.py").write_text(code_block("Writing a brain", "python"))
    assert "on_user_idle" not in (folder / "mymodule.py").read_text()
    with serving(folder, home, "./mymodule.py") as (url, _proc):
        done, report = reported_call(
            folder, home, SCRIPT, "--brain", url, "--idle-ms", str(IDLE_MS)
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "has not answered" not in done.stdout, done.stdout
    assert report["stalls"] == []
    idle = [f for f in report["frames"] if f["type"] == "user_idle"]
    assert len(idle) >= SILENCE_MS // IDLE_MS - 1, done.stdout  # a level each timeout
    assert [f["turn_id"] for f in report["frames"] if f["type"] == "speech_start"] == [1, 2]
