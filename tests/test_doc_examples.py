"""Every example runs as written (issue 57, item 1): each ``python`` and ``sh`` block of
README.md, sdk/README.md and docs/ (see tests/doc_examples.py for how a block says how it
runs), run in a folder holding the files the docs save, with a data folder of its own.

A python block runs with ``python``, and each Brain class it defines is served by ``sandbox
brain FILE:Class`` and called; a block that serves a brain itself is started and called; a
test file is run by pytest. A shell block runs with bash, ``sandbox`` being this checkout's;
one that serves a brain on its first line is started, and its other lines run against it,
but for ``sandbox run --brain URL``, the app, which a ``sandbox call`` to the same URL stands
for (tests/test_newcomer.py walks the app itself). "Called" is a real call over the wire,
``sandbox call`` with a caller script, and a reply must come back. The SDK's page runs where
only the SDK is installed: a fresh venv, built once per session by the page's own install
line. The docs' port (8765) is a free one in each run, so runs go side by side.
"""

from __future__ import annotations

import ast
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from brain_process import reported_call, sandbox_env, serving
from checkout import copy_checkout
from doc_examples import DOCS_PORT, Example, examples, files

from sandbox.load.echo_process import LISTEN_WAIT_S, free_port, wait_listening

#: What the caller says to a brain an example serves; the brain must answer it.
CALLER = 'ms_per_word = 20\n[[step]]\nsay = "What are your opening hours?"\n[[step]]\nend = true\n'
#: ``sandbox`` in a shell example: this checkout's command line, as brain_process runs it.
PRELUDE = 'set -euo pipefail\nsandbox() { "$EXAMPLE_PYTHON" -P -m sandbox.cli "$@"; }\n'
#: The app: a shell example's line that opens it is checked by a call to its URL instead.
APP = re.compile(r"^sandbox run --brain (ws://\S+)$")
#: How the docs name a stored session in a command.
SESSION_NAMES = re.compile(r"\b(ID|3f2a)\b")
RUN_S = 120

EXAMPLES = [e for e in examples() if e.language != "toml"]


def _param(example: Example) -> object:
    marks = [pytest.mark.slow] if "slow" in example.words else []
    if example.not_run is not None:
        marks.append(pytest.mark.skip(reason=f"not run: {example.not_run}"))
    return pytest.param(example, id=example.id, marks=marks)


def test_every_example_is_marked_in_words_the_runner_knows() -> None:
    """The marks read (a wrong word fails in examples() itself), each page has examples,
    and the SDK's page is run where only the SDK is installed."""
    by_page = {e.page for e in EXAMPLES}
    assert {"README.md", "sdk/README.md", "docs/writing-a-brain.md"} <= by_page
    (sdk_example,) = [e for e in EXAMPLES if e.page == "sdk/README.md" and e.language == "python"]
    assert {"serves", "sdk"} <= sdk_example.words
    assert {"mybrain.py", "mymodule.py", "call.toml"} <= set(files())


def _sdk_install() -> Example:
    """sdk/README.md's install line."""
    (install,) = [e for e in EXAMPLES if e.page == "sdk/README.md" and e.language == "sh"]
    return install


@pytest.fixture(scope="session")
def sdk_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a fresh venv holding only the SDK, installed by sdk/README.md's own
    install line, run in a clone of the checkout with the venv's pip first on the path."""
    root = tmp_path_factory.mktemp("sdk-alone")
    clone = copy_checkout(root / "clone")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=RUN_S)
    install = _sdk_install()
    env = {**os.environ, "PATH": f"{venv / 'bin'}:{os.environ['PATH']}"}
    env.pop("PYTHONPATH", None)  # nothing of this checkout but what pip installs
    done = subprocess.run(
        ["bash", "-c", PRELUDE + install.text], cwd=clone, env=env,
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return venv / "bin" / "python"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """The reader's folder: every file the docs save, and a folder for the caller's script."""
    for name, text in files().items():
        (tmp_path / name).write_text(text)
    (tmp_path / "caller").mkdir()
    return tmp_path


def _answered(folder: Path, home: Path, url: str) -> None:
    """A real call to the brain at ``url``: it must come back with a reply."""
    done, report = reported_call(folder / "caller", home, CALLER, "--brain", url)
    assert done.returncode == 0, done.stdout + done.stderr
    replies = [u["heard"] for u in report["units"] if u["turn_id"] >= 2]
    assert any(replies), f"no reply from {url}:\n{done.stdout}"


def _calm(output: str, what: str) -> None:
    assert "Traceback" not in output, f"{what}:\n{output}"


@contextmanager
def _started(command: list[str], folder: Path, env: dict[str, str], port: int) -> Iterator[None]:
    """``command`` started in ``folder``, once it listens on ``port``; stopped after, and
    what it printed free of tracebacks."""
    proc = subprocess.Popen(
        command, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, start_new_session=True,
    )  # fmt: skip
    try:
        assert wait_listening(proc, port, LISTEN_WAIT_S), f"{command} did not listen"
        yield
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # its own group: bash and the server it started
        printed, _ = proc.communicate(timeout=10)
        _calm(printed, f"{command} printed")


def _env(home: Path, python: Path) -> dict[str, str]:
    env = {**sandbox_env(home), "EXAMPLE_PYTHON": str(python)}
    if python != Path(sys.executable):
        env.pop("PYTHONPATH", None)  # the SDK's venv sees only what it installed
    return env


def _command(text: str) -> str:
    """A shell line without its comment."""
    return text.split("#")[0].strip()


def _bash(text: str, folder: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        ["bash", "-c", PRELUDE + text], cwd=folder, env=env,
        capture_output=True, text=True, timeout=RUN_S,
    )  # fmt: skip
    output = done.stdout + done.stderr
    _calm(output, text)
    assert done.returncode == 0, f"{text}\nexited {done.returncode}:\n{output}"
    return output


def _brains(source: str) -> list[str]:
    """The classes ``source`` defines on ``Brain``."""
    tree = ast.parse(source)
    return [
        node.name
        for node in tree.body
        if isinstance(node, ast.ClassDef)
        and any(isinstance(base, ast.Name) and base.id == "Brain" for base in node.bases)
    ]


def _run_python(example: Example, folder: Path, home: Path, python: Path) -> None:
    port = free_port()
    name = example.file or ("test_example.py" if "pytest" in example.words else "example.py")
    (folder / name).write_text(example.text.replace(DOCS_PORT, str(port)))
    env = _env(home, python)
    if "serves" in example.words:
        with _started([str(python), name], folder, env, port):
            _answered(folder, home, f"ws://127.0.0.1:{port}/brain")
        return
    if "pytest" in example.words:
        command = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", name]
        done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
        assert done.returncode == 0 and " passed" in done.stdout, done.stdout + done.stderr
        return
    done = subprocess.run(
        [str(python), name], cwd=folder, env=env, capture_output=True, text=True, timeout=RUN_S
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for brain in _brains(example.text):
        with serving(folder, home, f"{name}:{brain}") as (url, _):
            _answered(folder, home, url)


def _run_sh(example: Example, folder: Path, home: Path) -> None:
    env = _env(home, Path(sys.executable))
    text = example.text
    if "session" in example.words:
        _, report = reported_call(folder / "caller", home, CALLER)
        text = SESSION_NAMES.sub(report["session_id"][:8], text)
    if "brain" in example.words:
        with serving(folder, home, "concierge") as (url, _):
            _bash(text.replace(DOCS_PORT, url.rsplit(":")[-1].removesuffix("/brain")), folder, env)
        return
    port = free_port()
    text = text.replace(DOCS_PORT, str(port))
    if "serves" not in example.words:
        _bash(text, folder, env)
        return
    first, *rest = text.strip().splitlines()
    server = _command(first).removesuffix("&").strip()
    with _started(["bash", "-c", f"{PRELUDE}{server}"], folder, env, port):
        for line in rest:
            command = _command(line)
            app = APP.match(command)
            if app is not None:
                assert app.group(1) == f"ws://127.0.0.1:{port}/brain", line
                _answered(folder, home, app.group(1))
            elif command:
                _bash(command, folder, env)


@pytest.mark.parametrize("example", [_param(e) for e in EXAMPLES])
def test_the_example_runs_as_written(
    example: Example, folder: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    home = tmp_path / "home"
    if example.language == "sh":
        if "sdk" in example.words:  # the install line the SDK's venv is built by
            assert _command(example.text) == _command(_sdk_install().text), example.text
            request.getfixturevalue("sdk_python")
            return
        _run_sh(example, folder, home)
        return
    sdk = "sdk" in example.words
    python = request.getfixturevalue("sdk_python") if sdk else Path(sys.executable)
    _run_python(example, folder, home, python)
