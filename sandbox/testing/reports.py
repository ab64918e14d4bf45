"""A run of caller scripts as files for CI: JUnit XML (what GitHub and GitLab CI show as
test results) and JSON. Every text in them goes through the one rule set for its file
(:func:`visible`, :func:`json_text`): a brain's words control nothing, and no character
they hold (U+FFFF, a lone surrogate, a C0 control) makes the XML one a CI cannot parse;
in the XML they are data to its writer, never markup."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import asdict
from pathlib import Path
from typing import Any

from sandbox.private_files import write_file
from sandbox.record.plain_text import json_text, visible
from sandbox.testing.script_results import (
    BROKEN,
    FAILED,
    FLAKY,
    PASSED,
    Run,
    ScriptResult,
    ScriptRuns,
)

#: The suite's name in a CI's test view.
SUITE = "voqalize caller scripts"


def junit_xml(run: Run, root: Path) -> bytes:
    """The run as a JUnit ``testsuites`` document, one test case a script; scripts are named
    by their path from ``root`` (the folder as the class, the file's stem as the test). A
    flaky script is a failure of type ``flaky``; each case's properties carry its pass rate
    and reply-time percentiles."""
    scripts = run.scripts
    suites = ET.Element("testsuites")
    suite = ET.SubElement(
        suites,
        "testsuite",
        name=SUITE,
        tests=str(len(scripts)),
        failures=str(sum(s.status in (FAILED, FLAKY) for s in scripts)),
        errors=str(sum(s.status == BROKEN for s in scripts)),
        time=f"{sum(s.seconds for s in scripts):.3f}",
    )
    for script in scripts:
        name = shown_path(script.path, root)
        case = ET.SubElement(
            suite,
            "testcase",
            classname=str(Path(name).parent).replace("/", "."),
            name=Path(name).stem,
            file=name,
            time=f"{script.seconds:.3f}",
        )
        properties = ET.SubElement(case, "properties")
        for key, value in _figures(script).items():
            if value is not None:  # a script none of whose turns was answered has no times
                ET.SubElement(properties, "property", name=key, value=str(value))
        if script.status == PASSED:
            continue
        # One line a problem: a line feed in one is spelt out, not a line of its own.
        lines = [visible(line) for line in _problem_lines(script)]
        kind = "error" if script.status == BROKEN else "failure"
        element = ET.SubElement(case, kind, message=lines[0], type=script.status)
        element.text = "\n".join(lines)
    document: bytes = ET.tostring(suites, encoding="utf-8", xml_declaration=True)
    return document


def run_json(run: Run, root: Path) -> dict[str, Any]:
    """The run as one JSON object: the exit status, how many times each script ran, and each
    script's status, figures and runs."""
    return {
        "exit_status": run.exit_status,
        "repeat": run.repeat,
        "scripts": [
            {
                "path": shown_path(s.path, root),
                "status": s.status,
                "seconds": round(s.seconds, 3),
                **_figures(s),
                "runs": [_run_json(number, r) for number, r in enumerate(s.runs, start=1)],
            }
            for s in run.scripts
        ],
    }


def _run_json(number: int, result: ScriptResult) -> dict[str, Any]:
    return {
        "run": number,
        "status": result.status,
        "seconds": round(result.seconds, 3),
        "session_id": result.session_id,
        "unreachable": result.unreachable,
        "rule_breaks": list(result.rule_breaks),
        "failures": [
            {"where": f.where, "expected": f.expected, "got": f.got} for f in result.failures
        ],
        "answers": [{"step": step, **asdict(got)} for step, got in result.answers],
    }


def _figures(script: ScriptRuns) -> dict[str, Any]:
    """A script's pass rate and its turns' reply-time percentiles (ms; None: no reply)."""
    return {
        "runs_passed": script.passed,
        "runs_total": len(script.runs),
        "pass_rate": round(script.pass_rate, 3),
        **{f"reply_ms_{name}": ms for name, ms in script.reply_percentiles().items()},
    }


def _problem_lines(script: ScriptRuns) -> list[str]:
    """Every reason a script did not pass: a lone run's problems, or, for repeated runs,
    how many passed and each run's that did not, numbered."""
    if len(script.runs) == 1:
        (result,) = script.runs
        return [*result.problems, *_session(result)]
    lines = [f"{script.status}: passed {script.passed} of {len(script.runs)} runs"]
    for number, result in enumerate(script.runs, start=1):
        if result.status != PASSED:  # a passed run's session is not a problem's
            lines += [f"run {number}: {line}" for line in (*result.problems, *_session(result))]
    return lines


def write_reports(run: Run, root: Path, junit: Path | None, json_path: Path | None) -> None:
    """Write the JUnit and JSON files asked for, each whole or not at all."""
    if junit is not None:
        junit.parent.mkdir(parents=True, exist_ok=True)
        write_file(junit, junit_xml(run, root))
    if json_path is not None:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        write_file(json_path, json_text(run_json(run, root), indent=2) + "\n")


def shown_path(path: Path, root: Path) -> str:
    """``path`` from ``root`` when it is under it, as printable text."""
    resolved, base = path.resolve(), root.resolve()
    shown = resolved.relative_to(base) if resolved.is_relative_to(base) else path
    return visible(shown.as_posix())


def _session(result: ScriptResult) -> list[str]:
    if result.session_id is None:
        return []
    return [f"session {result.session_id}: sandbox sessions show {result.session_id}"]
