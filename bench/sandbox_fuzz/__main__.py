"""``python -m sandbox_fuzz [TARGET ...] [--runs N] [--json] [--out DIR]``: the benchmark run.

Each target runs in its own process under atheris for ``--runs`` inputs (default
100,000); the report gives inputs run and escapes per target. Escaping inputs are kept
in ``--out`` (default: a fresh temporary folder) to add to ``tests/fuzz_cases/``. Exit 0
when nothing escaped, 1 when something did, 2 when atheris is not installed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from sandbox_fuzz.targets import TARGETS

DEFAULT_RUNS = 100_000


def main(argv: list[str] | None = None) -> int:
    """Run the named targets (all by default) and report."""
    parser = argparse.ArgumentParser(prog="python -m sandbox_fuzz", description=__doc__)
    parser.add_argument("targets", nargs="*", metavar="TARGET", help=", ".join(TARGETS))
    parser.add_argument("--runs", type=int, default=DEFAULT_RUNS, help="inputs per target")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--out", type=Path, help="where escaping inputs and corpora go")
    args = parser.parse_args(argv)
    unknown = [name for name in args.targets if name not in TARGETS]
    if unknown:
        parser.error(f"no target {', '.join(unknown)}; the targets are {', '.join(TARGETS)}")
    if importlib.util.find_spec("atheris") is None:
        print(
            "atheris is not installed, so there is no coverage-guided fuzzing here: "
            "pip install 'voqalize-sandbox[fuzz]' (or pip install atheris), then run this "
            "again. The test suite runs the same targets with hypothesis without it.",
            file=sys.stderr,
        )
        return 2
    out = args.out or Path(tempfile.mkdtemp(prefix="sandbox-fuzz-"))
    out.mkdir(parents=True, exist_ok=True)
    results = [_run(name, args.runs, out) for name in args.targets or TARGETS]
    if args.json:
        print(json.dumps({"runs": args.runs, "out": str(out), "targets": results}, indent=2))
    else:
        for result in results:
            print(_line(result))
        if any(r["escapes"] for r in results):
            print(f"escaping inputs are kept in {out}/escapes: add them to tests/fuzz_cases/")
    return 1 if any(r["escapes"] for r in results) else 0


def _run(name: str, runs: int, out: Path) -> dict[str, Any]:
    stats = out / f"{name}.json"
    log = out / f"{name}.log"
    command = [sys.executable, "-m", "sandbox_fuzz.libfuzzer", name, str(runs), str(stats)]
    command += [str(out / "escapes"), str(out / "corpus" / name)]
    with log.open("w") as sink:
        done = subprocess.run(command, stdout=sink, stderr=subprocess.STDOUT, check=False)
    if done.returncode == 0 and stats.exists():
        result: dict[str, Any] = json.loads(stats.read_text())
        return result
    # The process itself died (a crash in C, or memory): that is an escape too.
    tail = log.read_text(errors="replace").strip().splitlines()[-3:]
    detail = f"the fuzzing process exited with {done.returncode}: " + " / ".join(tail)
    return {"target": name, "inputs": None, "escapes": 1, "kinds": {"died": {"message": detail}}}


def _line(result: dict[str, Any]) -> str:
    inputs = "?" if result["inputs"] is None else f"{result['inputs']:,}"
    line = f"{result['target']:<7} {inputs:>9} inputs  {result['escapes']} escapes"
    if "seconds" in result:
        line += f"  ({result['seconds']} s)"
    for signature, kind in result["kinds"].items():
        line += f"\n  {signature}: {kind['message']}"
    return line


if __name__ == "__main__":
    sys.exit(main())
