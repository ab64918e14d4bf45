"""The record's name and read-back judges end to end: ``sandbox call`` with simulated audio
against the built-in echo brain (which says every caller line back, so each value the caller
says is read back), the record read from the report and from the stored session.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from brain_process import reported_call, run


def _recorded(tmp_path: Path, script: str) -> dict[str, Any]:
    """The call ``script`` makes against ``--brain echo``: its record, after checking the
    stored session keeps the same one."""
    home = tmp_path / "home"
    done, report = reported_call(tmp_path, home, script, "--brain", "echo", "--idle-ms", "0")
    assert done.returncode == 0, done.stdout + done.stderr
    record: dict[str, Any] = report["record"]
    shown = run(tmp_path, home, "sessions", "show", report["session_id"][:8], "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["record"] == record
    return record


def _script(*lines: str) -> str:
    steps = "".join(f"[[step]]\nsay = {json.dumps(line)}\n" for line in lines)
    return f"ms_per_word = 30\n{steps}[[step]]\nend = true\n"


@pytest.mark.parametrize(
    ("first", "name"),
    [("Hi, it's Mum here.", None), ("Hi, it's Priya here.", "Priya")],
    ids=["mum", "priya"],
)
def test_a_form_of_address_is_never_stored_as_a_name(
    first: str, name: str | None, tmp_path: Path
) -> None:
    """The seed's rule: "A form of address is never stored as a name." A caller who opens
    with "Hi, it's Mum here." and talks on leaves ``caller_name`` empty; the same opening
    with a name keeps it, so the empty one is the judge refusing "Mum", not the call losing
    the line."""
    record = _recorded(
        tmp_path,
        _script(first, "I wanted to check on the order for Saturday", "Thanks, that's all"),
    )
    assert record["outcome"] == "completed"
    assert record["caller_name"] == name


@pytest.mark.parametrize(
    ("answer", "status"),
    [("What time do you open on Saturday?", "unconfirmed"), ("No, Thursday.", "corrected")],
    ids=["new-question", "correction"],
)
def test_a_new_question_about_another_day_does_not_correct_a_read_back(
    answer: str, status: str, tmp_path: Path
) -> None:
    """The seed's rule: a read-back is recorded "{confirmed} when the other party agrees
    with it", and (issue 39) ``corrected`` only when the caller's answer corrects the value
    read back. The caller books Friday, the echo brain reads "Friday" back, and the caller
    asks "What time do you open on Saturday?": that corrects nothing, so the read-back stays
    unconfirmed and no read-back in the call is ``corrected``. Answering "No, Thursday."
    instead still corrects it."""
    record = _recorded(tmp_path, _script("Can I book a table for Friday?", answer))
    friday = [r for r in record["readbacks"] if r["value"] == "friday"]
    assert [(r["kind"], r["status"]) for r in friday] == [("date", status)], record["readbacks"]
    assert friday[0]["speech_id"] is not None  # the echo brain's read-back was heard
    corrected = [r["value"] for r in record["readbacks"] if r["status"] == "corrected"]
    assert corrected == (["friday"] if status == "corrected" else [])
