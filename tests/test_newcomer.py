"""A newcomer's walk, as the docs tell it (issue 30): install the checkout into a fresh
virtual environment, the README's quick start (``sandbox run``), a brain written from the
guide (docs/writing-a-brain.md) and served by ``sandbox brain``, a call to it, the sessions
list, one session shown, exported and replayed, and one demo scene; a brain deployed with the
SDK alone (``sdk/``, docs/production.md), which the sandbox's call reaches; the LLM example
served as docs/llm-brain.md says, its caller scripts passing. Every command's output (and
every screen) is free of tracebacks and of "please report".

The environment is fresh, but not a full ``pip install .``: that fetches and builds Whisper,
Piper, livekit and the rest (here it ran over four minutes before it was stopped, more than
the walk itself), which tests pip more than the sandbox. The environment sees the
dependencies already installed (this interpreter's site-packages on its path) and the
checkout is installed into it with ``pip install --no-deps --no-build-isolation .``: the
package itself as a user's pip builds and installs it (its entry point, its package data:
scenes, the page template, the voices). What is installed is a copy of the checkout's files
(those git tracks or would), as a clone has them, so the build leaves nothing in the
checkout, and the walk runs the installed copy, not the checkout.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
from contextlib import AbstractContextManager
from pathlib import Path

import pytest
from checkout import copy_checkout
from doc_examples import examples
from fake_llm import REPLIES, FakeLlm
from readme import code_block
from ui_tmux import Terminal, sandbox_in_tmux

from sandbox.load.echo_process import LISTEN_WAIT_S, free_port, wait_listening
from sandbox.paths import HOME_ENV

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text("utf-8")
#: What no output a user sees may hold.
ALARMS = ("Traceback", "please report")
CALLER = 'ms_per_word = 30\n[[step]]\nsay = "What are your opening hours?"\n[[step]]\nend = true\n'

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")


def calm(output: str, what: str) -> str:
    """``output`` once it is known to hold no traceback and no plea to report a bug."""
    for alarm in ALARMS:
        assert alarm not in output, f"{what} printed {alarm!r}:\n{output}"
    return output


def flat(screen: str) -> str:
    """The screen's words, however they wrapped."""
    return " ".join(screen.split())


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the checkout installed as pip installs it."""
    assert "pip install . && sandbox run" in README  # the quick start this walk follows
    root = tmp_path_factory.mktemp("newcomer")
    source = copy_checkout(root / "clone")
    env = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    # The dependencies from this interpreter's site-packages, as plain path entries: not as
    # --system-site-packages, whose .pth files would run, the checkout's editable install
    # among them, and `import sandbox` would find the checkout instead of the install.
    (site_dir,) = (env / "lib").glob("python3*/site-packages")
    (site_dir / "dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    # This interpreter's pip installs into the new one (hatchling is among the dependencies),
    # the app and the SDK it depends on (sdk/).
    pip = [sys.executable, "-m", "pip", "--python", str(env / "bin" / "python")]
    installed = subprocess.run(
        [*pip, "install", "--no-deps", "--no-build-isolation", "-q", ".", "./sdk"],
        cwd=source, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr
    where = [str(env / "bin" / "python"), "-c", "import sandbox; print(sandbox.__file__)"]
    found = subprocess.run(where, cwd=root, capture_output=True, text=True, check=True)
    assert found.stdout.startswith(str(env)), found.stdout  # the install, not the checkout
    return env


def _env(home: Path) -> dict[str, str]:
    # No sound server: the quick start's app opens typed mode, as on a machine with no devices.
    return {**os.environ, HOME_ENV: str(home), "PULSE_SERVER": "unix:/nonexistent"}


def _sandbox(venv: Path, home: Path, *args: str, cwd: Path | None = None) -> str:
    done = subprocess.run(
        [venv / "bin" / "sandbox", *args],
        capture_output=True, text=True, env=_env(home), cwd=cwd, timeout=120,
    )  # fmt: skip
    output = calm(done.stdout + done.stderr, f"sandbox {' '.join(args)}")
    assert done.returncode == 0, output
    return done.stdout


def _in_tmux(venv: Path, home: Path, *args: str) -> AbstractContextManager[Terminal]:
    env = {HOME_ENV: str(home), "PULSE_SERVER": "unix:/nonexistent"}
    return sandbox_in_tmux(list(args), env, program=[str(venv / "bin" / "sandbox")])


def _exited(term: Terminal, what: str) -> str:
    screen = term.wait_for(lambda s: "EXIT=" in s, f"{what} to exit", 30)
    calm(screen, what)
    assert "EXIT=0" in screen, screen
    return screen


def _answered(
    venv: Path, home: Path, folder: Path, serve: list[Path | str], env: dict[str, str], port: int
) -> str:
    """Serve a brain with ``serve`` from ``folder`` on ``port``; one call to it, placed as the
    docs place one, is answered. What the brain's process printed."""
    brain = subprocess.Popen(
        serve, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        assert wait_listening(brain, port, LISTEN_WAIT_S), f"{serve} did not listen"
        (folder / "call.toml").write_text(CALLER)
        url = f"ws://127.0.0.1:{port}/brain"
        called = _sandbox(venv, home, "call", "--brain", url, "--script", "call.toml", cwd=folder)
        assert "You said: What are your opening hours?" in called
    finally:
        brain.terminate()
        served, _ = brain.communicate(timeout=10)
    return served


def _guide_brain() -> str:
    """The guide's brain, as a newcomer copies it from "Writing a brain"."""
    return code_block("Writing a brain", "python")


def test_a_newcomer_walks_the_readme(venv: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"

    # The quick start: `sandbox run`, typed mode here (no sound device), one turn, ctrl+q.
    with _in_tmux(venv, home, "run") as term:
        term.wait_for(lambda s: "greeting · played" in s, "the greeting", 60)
        term.keys("What are your opening hours?", "Enter")
        term.wait_for(lambda s: "turn 2" in s, "the answer to turn 2", 30)
        term.keys("C-q")
        _exited(term, "sandbox run")

    # A brain from the guide, served as the guide says, and one call to it.
    (tmp_path / "mymodule.py").write_text(_guide_brain())
    port = free_port()
    serve: list[Path | str] = [venv / "bin" / "sandbox", "brain", "mymodule:Greeter"]
    serve += ["--port", str(port)]
    served = _answered(venv, home, tmp_path, serve, _env(home), port)
    calm(served, "sandbox brain")
    url = f"ws://127.0.0.1:{port}/brain"

    listed = _sandbox(venv, home, "sessions", "list")
    assert url in listed
    listed_json = _sandbox(venv, home, "sessions", "list", "--json")
    rows = [json.loads(line) for line in listed_json.splitlines()]
    called_id = next(row["id"] for row in rows if row["brain_url"] == url)[:8]
    _sandbox(venv, home, "sessions", "show", called_id)
    page = tmp_path / "call.html"
    _sandbox(venv, home, "export", called_id, "--html", str(page), "--md", "-")
    assert page.stat().st_size > 0

    # The call again, in the replay app: played to its end, then left.
    with _in_tmux(venv, home, "replay", called_id) as term:
        term.wait_for(lambda s: "paused" in s, "the replay", 30)
        term.keys("space")
        term.wait_for(lambda s: "You said" in s, "the replay to play the answer", 30)
        term.keys("C-q")
        _exited(term, "sandbox replay")

    # One demo scene, with no sound, going on by itself.
    with _in_tmux(venv, home, "demo", "--scene", "barge_in", "--silent", "--auto") as term:
        screen = flat(term.wait_for(lambda s: "Call ended" in s, "the scene's call to end", 60))
        calm(screen, "sandbox demo")
        term.keys("q")
        _exited(term, "sandbox demo")


#: Distributions of the speech stack and the app's screen: none comes with the SDK.
HEAVY = frozenset(
    {"numpy", "faster-whisper", "ctranslate2", "onnxruntime", "piper-tts", "sounddevice",
     "textual", "livekit", "voqalize-sandbox"}
)  # fmt: skip
#: The issue's bound on the SDK installed with its dependencies.
SDK_LIMIT_MB = 40


def _folder_mb(folder: Path) -> float:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file()) / 1e6


def test_a_brain_deploys_with_the_sdk_alone(venv: Path, tmp_path: Path) -> None:
    """docs/production.md's deployment: ``pip install ./sdk`` into an environment that sees
    nothing else (its dependencies from the package index), the README's brain served by the
    page's script with the sandbox's public key in a file, and the sandbox's call reaching it."""
    clone = venv.parent / "clone"
    alone = tmp_path / "sdk-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(alone)], check=True)
    pip = [sys.executable, "-m", "pip", "--python", str(alone / "bin" / "python")]
    installed = subprocess.run(
        [*pip, "install", "-q", "./sdk"], cwd=clone, capture_output=True, text=True, timeout=600
    )
    assert installed.returncode == 0, installed.stderr
    listed = subprocess.run([*pip, "list", "--format", "json"], capture_output=True, text=True)
    names = {row["name"].lower() for row in json.loads(listed.stdout)}
    assert "voqalize-sdk" in names and not names & HEAVY, names
    (site_dir,) = (alone / "lib").glob("python3*/site-packages")
    assert _folder_mb(site_dir) <= SDK_LIMIT_MB

    home, brain_home = tmp_path / "home", tmp_path / "brain-home"
    key = tmp_path / "voqalize.pem"
    key.write_text(_sandbox(venv, home, "keys"))
    port = free_port()
    (tmp_path / "mybrain.py").write_text(code_block("A one-minute tour", "python"))
    script = code_block("Deploying with the SDK alone", "python")
    assert 'host="0.0.0.0", port=8765' in script
    (tmp_path / "serve_brain.py").write_text(
        script.replace('host="0.0.0.0", port=8765', f'host="127.0.0.1", port={port}')
    )
    # Its own data folder: the key comes from the file, as on a server of its own.
    env = {"PATH": os.environ["PATH"], HOME_ENV: str(brain_home),
           "VOQALIZE_PUBLIC_KEY_FILE": str(key)}  # fmt: skip
    served = _answered(
        venv, home, tmp_path, [alone / "bin" / "python", "serve_brain.py"], env, port
    )
    assert "Traceback" not in served, served

    # The test driver is the sandbox's: asked for here, it says what to install.
    asked = subprocess.run(
        [alone / "bin" / "python", "-c", "from sandbox.sdk import VoqalizeDriver"],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert asked.returncode != 0 and "install voqalize-sandbox" in asked.stderr


def test_a_newcomer_serves_the_llm_example_and_its_scripts_pass(venv: Path, tmp_path: Path) -> None:
    """docs/llm-brain.md's walk, the local model server being the example's scripted one:
    ``sandbox brain llm_brain:LlmBrain`` in the example's folder, configured by LLM_BASE_URL
    and LLM_MODEL, and ``sandbox test`` runs the folder's caller scripts against it."""
    folder = tmp_path / "llm-brain"
    shutil.copytree(venv.parent / "clone" / "examples" / "llm-brain", folder)
    home = tmp_path / "home"
    llm = FakeLlm(REPLIES, gap_s=0.02).start()
    port = free_port()
    env = {**_env(home), "LLM_BASE_URL": llm.url, "LLM_MODEL": "fake"}
    brain = subprocess.Popen(
        [venv / "bin" / "sandbox", "brain", "llm_brain:LlmBrain", "--port", str(port)],
        cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        assert wait_listening(brain, port, LISTEN_WAIT_S), "sandbox brain did not serve"
        url = f"ws://127.0.0.1:{port}/brain"
        tested = _sandbox(venv, home, "test", ".", "--brain", url, cwd=folder)
        assert "4 passed, 0 failed, 0 broken" in tested
    finally:
        brain.terminate()
        served, _ = brain.communicate(timeout=10)
        llm.stop()
    calm(served, "sandbox brain")
    assert len(llm.requests) >= 4  # each script's turns went to the model


def test_a_newcomer_asks_how_often_their_brain_passes(venv: Path, tmp_path: Path) -> None:
    """docs/caller-scripts.md's ``--repeat``: the example brain's folder, its brain served by
    ``sandbox brain`` and its scripts run three times each, every run passing; the JSON says
    so for each script."""
    folder = tmp_path / "brain"
    shutil.copytree(venv.parent / "clone" / "examples" / "brain", folder)
    home = tmp_path / "home"
    port = free_port()
    brain = subprocess.Popen(
        [venv / "bin" / "sandbox", "brain", "mymodule:Greeter", "--port", str(port)],
        cwd=folder, env=_env(home), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        assert wait_listening(brain, port, LISTEN_WAIT_S), "sandbox brain did not serve"
        url = f"ws://127.0.0.1:{port}/brain"
        args = ["test", ".", "--brain", url, "--repeat", "3", "--json", "results.json"]
        tested = _sandbox(venv, home, *args, cwd=folder)
    finally:
        brain.terminate()
        served, _ = brain.communicate(timeout=10)
    calm(served, "sandbox brain")
    lines = tested.splitlines()
    assert sum(line.startswith("PASS ") and line.endswith(" s") for line in lines) == 6
    assert "2 passed, 0 flaky, 0 failed, 0 broken" in lines[-1]
    scripts = json.loads((folder / "results.json").read_text())["scripts"]
    assert [(s["status"], s["runs_passed"], s["runs_total"]) for s in scripts] == [
        ("passed", 3, 3)
    ] * 2


def test_the_sdk_readme_brain_serves_with_the_sdk_alone(venv: Path, tmp_path: Path) -> None:
    """sdk/README.md as a deployer meets it: ``pip install ./sdk`` into a fresh venv, its
    example saved as ``echo_brain.py`` and run with ``python echo_brain.py``, and the
    sandbox's call answered by it (issue 57, item 1: it once exited at once, never served)."""
    alone = tmp_path / "sdk-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(alone)], check=True)
    pip = [sys.executable, "-m", "pip", "--python", str(alone / "bin" / "python")]
    installed = subprocess.run(
        [*pip, "install", "-q", "./sdk"], cwd=venv.parent / "clone",
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr
    (example,) = [e for e in examples() if e.page == "sdk/README.md" and e.language == "python"]
    assert "port=8765" in example.text
    port = free_port()
    (tmp_path / "echo_brain.py").write_text(example.text.replace("8765", str(port)))
    home = tmp_path / "home"  # the brain finds the sandbox's public key in the same data folder
    env = {"PATH": os.environ["PATH"], HOME_ENV: str(home)}
    serve: list[Path | str] = [alone / "bin" / "python", "echo_brain.py"]
    served = _answered(venv, home, tmp_path, serve, env, port)
    calm(served, "python echo_brain.py")
