"""One file mode for a call's record (issue 56): every file a command writes from a call —
its report, its exports, a test run's JUnit and JSON, a re-drive's diff — is 0600 whatever
the umask, as ``call --report`` always was, since each holds what the caller said (the
public key, the one file meant to be shared, is ``tests/test_security.py``'s)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np

from sandbox.audio.sinks import WavSink
from sandbox.paths import HOME_ENV
from sandbox.private_files import PRIVATE_MODE, write_file
from sandbox.record.leg_files import leg_path
from sandbox.record.legs import EXPORTED_LEGS, MIC, SPEAKER, AudioLeg, export_legs

CALLER = 'ms_per_word = 20\n[[step]]\nsay = "my card number is four two"\n[[step]]\nend = true\n'


def _sandbox(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``sandbox ARGS`` under the most open umask a user may have, so a mode it leaves is
    the one the file was created with."""
    return subprocess.run(
        [sys.executable, "-m", "sandbox.cli", *args],
        env={**os.environ, HOME_ENV: str(home)},
        capture_output=True,
        text=True,
        timeout=180,
        preexec_fn=lambda: os.umask(0),
    )


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_every_file_written_from_a_call_is_private(home: Path, tmp_path: Path) -> None:
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / "test_card.toml").write_text(CALLER)
    report = tmp_path / "report.json"
    called = _sandbox(
        home, "call", "--script", str(scripts / "test_card.toml"), "--report", str(report)
    )
    assert called.returncode == 0, called.stderr
    listed = _sandbox(home, "sessions", "list", "--json")
    session = json.loads(listed.stdout.splitlines()[0])["id"]
    exports = {kind: tmp_path / f"call.{kind}" for kind in ("json", "md", "html")}
    exports["json"].write_text("{}")  # a file already there, as loose as can be
    exports["json"].chmod(0o666)
    flags = [word for kind, target in exports.items() for word in (f"--{kind}", str(target))]
    exported = _sandbox(home, "export", session, *flags, "--force")
    assert exported.returncode == 0, exported.stderr
    junit, results = tmp_path / "junit.xml", tmp_path / "results.json"
    tested = _sandbox(home, "test", str(scripts), "--junit", str(junit), "--json", str(results))
    assert tested.returncode in (0, 1), tested.stderr
    diff = tmp_path / "diff.json"
    redriven = _sandbox(home, "replay", session, "--brain", "builtin", "--json", str(diff))
    assert redriven.returncode in (0, 1), redriven.stderr
    written = [report, *exports.values(), junit, results, diff]
    assert "four two" in "".join(path.read_text() for path in written[:4])  # what was said
    assert {path.name: _mode(path) for path in written} == {
        path.name: PRIVATE_MODE for path in written
    }


def test_a_calls_audio_is_written_private(home: Path, tmp_path: Path) -> None:
    """``export --wav``'s three files and a ``--speaker FILE.wav``, under an open umask."""
    session = "0a0b0c0d-0000-4000-8000-000000000000"
    for leg in (MIC, SPEAKER):
        recording = AudioLeg(leg_path(session, leg), 16_000)
        recording.add(np.full(1600, 1000, dtype=np.int16), 0)
        recording.close()
    before = os.umask(0)
    try:
        exported = export_legs(session, tmp_path / "wav")
        sink = WavSink(tmp_path / "bot.wav", 16_000)
        sink.write(np.zeros(1600, dtype=np.float32))
        sink.close()
    finally:
        os.umask(before)
    assert sorted(path.stem for path in exported) == sorted(EXPORTED_LEGS)
    for path in [*exported, tmp_path / "bot.wav"]:
        assert path.stat().st_size > 44 and _mode(path) == PRIVATE_MODE, path


def test_a_file_is_written_private_unless_its_writer_says_otherwise(tmp_path: Path) -> None:
    before = os.umask(0)
    try:
        write_file(tmp_path / "transcript.md", "what the caller said")
        write_file(tmp_path / "shared.txt", "meant for others", mode=0o644)
    finally:
        os.umask(before)
    assert _mode(tmp_path / "transcript.md") == PRIVATE_MODE
    assert _mode(tmp_path / "shared.txt") == 0o644
