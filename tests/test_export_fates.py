"""A stored call's report rebuilt from its frames (``sandbox export``) and its replay timeline
give each unit the fate the live call sealed, in the core's words."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from cli_rig import sandbox_cli

from sandbox.call.units import Fate
from sandbox.record.store import SessionStore
from sandbox.record.stored_call import StoredCall
from sandbox.replay.timeline import Replayer

# The guardrail brain takes its card answer back (cancelled); the caller talks over the
# balance answer (barged); the rest plays out.
SCRIPT = """\
ms_per_word = 20
[[step]]
say = "What is my card number?"
[[step]]
say = "And my balance?"
[[step]]
barge_in = "Stop there"
after_words = 2
"""


def test_an_export_rebuilt_from_frames_gives_each_unit_the_fate_the_live_call_sealed(
    tmp_path: Path,
) -> None:
    """Issue 39: "The rebuilt report of a stored call gives units `fate "finalized"`, a value
    the core never gives. A reader uses the core's vocabulary only." A real call is stored,
    then read back as a process killed after its last Finalize leaves it (no end, no
    report): ``sandbox export --json`` rebuilds it, and every unit's fate is a ``Fate`` and
    the one the live report gave."""
    home = tmp_path / "home"
    script = tmp_path / "call.toml"
    script.write_text(SCRIPT)
    live_path = tmp_path / "live.json"
    call = sandbox_cli(
        home, "call", "--brain", "guardrail", "--script", str(script), "--idle-ms", "0",
        "--report", str(live_path),
    )  # fmt: skip
    assert call.returncode == 0, call.stdout + call.stderr
    live = json.loads(live_path.read_text())
    sealed = {u["speech_id"]: u["fate"] for u in live["units"]}
    assert {"played", "cancelled", "barged"} <= set(sealed.values()), sealed

    db = sqlite3.connect(home / "sessions.db")
    try:
        with db:
            sid = live["session_id"]
            last = "SELECT MAX(seq) FROM events WHERE session_id = ? AND kind = 'finalize_sent'"
            (died,) = db.execute(
                f"SELECT t_ms FROM events WHERE session_id = ? AND seq = ({last})", (sid, sid)
            ).fetchone()
            db.execute(f"DELETE FROM events WHERE session_id = ? AND seq > ({last})", (sid, sid))
            db.execute("DELETE FROM frames WHERE session_id = ? AND t_ms > ?", (sid, died))
            db.execute("UPDATE sessions SET report = NULL, outcome = NULL WHERE id = ?", (sid,))
    finally:
        db.close()
    out = tmp_path / "rebuilt.json"
    export = sandbox_cli(home, "export", live["session_id"][:8], "--json", str(out))
    assert export.returncode == 0, export.stderr
    rebuilt = json.loads(out.read_text())
    assert rebuilt["outcome"] == "unfinished"  # rebuilt from what was stored, not the report
    assert all(u["fate"] in {f.value for f in Fate} for u in rebuilt["units"]), rebuilt["units"]
    assert {u["speech_id"]: u["fate"] for u in rebuilt["units"]} == sealed

    # The replay's timeline reads fates the same way, from the same frames.
    with SessionStore(home / "sessions.db") as store:
        replayer = Replayer.of(StoredCall.load(store, store.find(live["session_id"])))
    replayer.seek(replayer.duration_ms)
    units = replayer.view.units.values()
    assert {u.speech_id: u.fate.value if u.fate else None for u in units} == sealed
