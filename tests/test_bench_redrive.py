"""``sandbox bench --redrive``, reduced: one long call's re-drive speed, then the false
alarms over sessions of every kind but real audio (typed in the app, simulated with
barge-ins, the tool-waits brain, the guardrail, a demo scene), each re-driven against its
own brain; not one may say "changed"."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from sandbox.call.units import Fate
from sandbox.paths import HOME_ENV
from sandbox.replay.diff import Diff, TurnDiff, UnitSide
from sandbox.replay.redrive import Redrive
from sandbox_bench.redrive import Recorded, Verdicts


def test_the_reduced_false_alarm_bench_finds_none(tmp_path: Path) -> None:
    home = tmp_path / "home"
    argv = ["bench", "--redrive", "--quick", "--minutes", "0.5", "--json"]
    result = subprocess.run(
        [sys.executable, "-m", "sandbox.cli", *argv],
        capture_output=True,
        text=True,
        env={**os.environ, HOME_ENV: str(home)},
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["redrive_exit"] == 0  # the long call's re-drive: the same brain heard the same
    assert figures["call_s"] >= 20 and figures["turns"] >= 3
    assert 0 < figures["brain_s"] < figures["redrive_s"]
    assert figures["targets"]["speedup"] == {"bound": "min", "value": 20}
    assert "re-drove in" in result.stderr
    assert figures["redrive_false_changes"] == 0, figures["redrive_changes"]
    assert set(figures["redrive_by_kind"]) == {"typed", "sim", "tool_waits", "guardrail", "scene"}
    assert figures["redrive_sessions"] == 5 and figures["redrive_runs"] == 15
    assert figures["redrive_speed_x"] > 1
    assert figures["targets"]["redrive_false_changes"] == {"bound": "max", "value": 0}
    # No real audio in the reduced set: nothing to audit against a speaker leg.
    assert figures["audit_sessions"] == 0 and figures["audit_units"] == 0
    assert figures["audit_max_words_off"] is None
    assert "run 3: 0 false changes so far" in result.stderr
    assert not (home / "sessions.db").exists()  # measured in stores of its own


def _diff(before: str, after: str) -> Diff:
    turn = TurnDiff("hi", [UnitSide("Hello there", "Hello there", False, Fate.PLAYED)])
    turn.after = [UnitSide("Hello there", "Hello there", False, Fate.PLAYED)]
    history_before = [("user", before), ("assistant", "Hello there")]
    history_after = [("user", after), ("assistant", "Hello there")]
    return Diff([turn], history_before, history_after, [])


def test_a_real_audio_redrive_that_heard_other_words_is_apart_from_the_false_changes() -> None:
    tally = Verdicts()
    audio = Recorded("a" * 36, "audio", audio=True)
    tally.count(audio, Redrive(audio.session_id, "b", _diff("what are your hours", "what hours")))
    assert (tally.stt_differences, tally.false_changes) == (1, [])
    sim = Recorded("c" * 36, "sim")
    tally.count(sim, Redrive(sim.session_id, "d", _diff("what are your hours", "what hours")))
    assert tally.false_changes and tally.kinds["sim"]["false"] == 1
