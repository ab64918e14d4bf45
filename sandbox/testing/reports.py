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
from sandbox.testing.script_tests import BROKEN, FAILED, Run, ScriptResult

#: The suite's name in a CI's test view.
SUITE = "voqalize caller scripts"


def junit_xml(run: Run, root: Path) -> bytes:
    """The run as a JUnit ``testsuites`` document; scripts are named by their path from
    ``root`` (the folder as the class, the file's stem as the test)."""
    results = run.results
    suites = ET.Element("testsuites")
    suite = ET.SubElement(
        suites,
        "testsuite",
        name=SUITE,
        tests=str(len(results)),
        failures=str(sum(r.status == FAILED for r in results)),
        errors=str(sum(r.status == BROKEN for r in results)),
        time=f"{sum(r.seconds for r in results):.3f}",
    )
    for result in results:
        name = shown_path(result.path, root)
        case = ET.SubElement(
            suite,
            "testcase",
            classname=str(Path(name).parent).replace("/", "."),
            name=Path(name).stem,
            file=name,
            time=f"{result.seconds:.3f}",
        )
        if result.status == "passed":
            continue
        # One line a problem: a line feed in one is spelt out, not a line of its own.
        lines = [visible(line) for line in (*result.problems, *_session(result))]
        kind = "error" if result.status == BROKEN else "failure"
        element = ET.SubElement(case, kind, message=lines[0], type=result.status)
        element.text = "\n".join(lines)
    document: bytes = ET.tostring(suites, encoding="utf-8", xml_declaration=True)
    return document


def run_json(run: Run, root: Path) -> dict[str, Any]:
    """The run as one JSON object: the exit status and each script's result."""
    return {
        "exit_status": run.exit_status,
        "scripts": [
            {
                "path": shown_path(r.path, root),
                "status": r.status,
                "seconds": round(r.seconds, 3),
                "session_id": r.session_id,
                "unreachable": r.unreachable,
                "rule_breaks": list(r.rule_breaks),
                "failures": [
                    {"where": f.where, "expected": f.expected, "got": f.got} for f in r.failures
                ],
                "answers": [{"step": step, **asdict(got)} for step, got in r.answers],
            }
            for r in run.results
        ],
    }


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
