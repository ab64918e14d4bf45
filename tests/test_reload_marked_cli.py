"""A reload mid-call, marked in the call's record, through the real parts: ``sandbox brain
file.py --reload`` and ``sandbox call`` in their own processes, the brain's file saved anew
while the call is silent between two turns; then ``sessions show``, ``export --md`` and
``export --html`` of that call show the reload between the turn that ran the old code and the
one that ran the new."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from brain_process import run, sandbox_command, sandbox_env, serving

from sandbox.record.page.build import DATA_OPEN

BRAIN = """
from sandbox.sdk import Brain, SpeechChunk, SpeechEnd, SpeechStart

class Greeter(Brain):
    async def on_user_message(self, session, msg):
        yield SpeechStart()
        yield SpeechChunk(f"You said: {msg.text}")
        yield SpeechEnd()
"""
#: Room to save the file mid-call: the reload is seen in well under a second, and the
#: watcher's own debounce is under two (idle is off, so the silence mints no turn).
SCRIPT = """
ms_per_word = 20
[[step]]
say = "one"
[[step]]
silence_ms = 6000
[[step]]
say = "two"
"""
MARK = "⟳ brain reloaded: greeter.py, serving Greeter"


def _between(lines: list[str], old: str, mark: str, new: str) -> None:
    """``mark`` is a line of its own after the line holding ``old`` and before ``new``'s."""

    def at(part: str) -> int:
        found = [i for i, line in enumerate(lines) if part in line]
        assert len(found) == 1, f"{part!r} in {lines}"
        return found[0]

    assert at(old) < at(mark) < at(new), lines


def test_a_reload_mid_call_is_marked_between_the_old_code_and_the_new(tmp_path: Path) -> None:
    folder, home = tmp_path / "author", tmp_path / "home"
    folder.mkdir()
    brain = folder / "greeter.py"
    brain.write_text(BRAIN)
    (folder / "call.toml").write_text(SCRIPT)
    with serving(folder, home, "greeter.py", "--reload") as (url, proc):
        call = subprocess.Popen(
            sandbox_command("call", "--brain", url, "--script", "call.toml", "--idle-ms", "0"),
            cwd=folder,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=sandbox_env(home),
        )
        assert call.stdout is not None
        printed = []
        for line in call.stdout:  # printed as the call goes: the old code's answer, then save
            printed.append(line.rstrip("\n"))
            if "You said: one" in line:
                brain.write_text(BRAIN.replace("You said:", "I heard:"))
                break
        rest, err = call.communicate(timeout=60)
        proc.terminate()
        brain_out = proc.communicate(timeout=10)[0]
    assert call.returncode == 0, err
    assert "Reloaded greeter.py: serving Greeter; 1 call(s) in progress go on" in brain_out
    printed += rest.splitlines()
    _between(printed, "'You said: one'", f"  {MARK}", "'I heard: two'")
    session = re.search(r"session ([0-9a-f-]{36})", rest)
    assert session is not None, rest
    sid = session.group(1)[:8]

    shown = run(folder, home, "sessions", "show", sid)
    assert shown.returncode == 0, shown.stderr
    _between(shown.stdout.splitlines(), "'You said: one'", f"  {MARK}", "'I heard: two'")

    markdown = run(folder, home, "export", sid, "--md", "-")
    assert markdown.returncode == 0, markdown.stderr
    _between(markdown.stdout.splitlines(), "You said: one", f"- *{MARK}*", "I heard: two")

    exported = run(folder, home, "export", sid, "--html", "call.html")
    assert exported.returncode == 0, exported.stderr
    page = (folder / "call.html").read_text()
    data = json.loads(page.split(DATA_OPEN, 1)[1].split("</script>", 1)[0])
    entries = [(e["kind"], e.get("text") or " ".join(e.get("words", []))) for e in data["entries"]]
    assert entries == [
        ("caller", "one"),
        ("bot", "You said: one"),
        ("reload", MARK),
        ("caller", "two"),
        ("bot", "I heard: two"),
    ]
