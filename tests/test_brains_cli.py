"""``sandbox brain``: the registry, and a real server process stopped with Ctrl-C."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from test_sdk_harness import Voqalize

from sandbox.brains import BRAINS, Concierge, Echo, Guardrail, make_brain, resolve
from sandbox.brains.echo import GREETING
from sandbox.brains.fixed import FixedReply
from sandbox.errors import UserError
from sandbox.paths import HOME_ENV
from sandbox.wire import decode, encode, pb
from sandbox.wire.dial import dial
from sandbox.wire.tokens import load_or_create_keys, mint_token

SESSION = "5c4b3a29-1807-4f6e-8d5c-4b3a29180716"


def test_names_and_module_paths_resolve() -> None:
    assert {"echo": Echo, "concierge": Concierge, "guardrail": Guardrail, "fixed": FixedReply} == (
        BRAINS
    )
    assert resolve("guardrail") is Guardrail
    assert resolve("sandbox.brains.echo:Echo") is Echo
    made = make_brain("concierge")
    assert isinstance(made(), Concierge) and made() is not made()  # one brain per session


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("parrot", "use one of echo, concierge, guardrail, fixed, module:Class or path/to/file.py"),
        ("no_such_module_here:Brain", "cannot find the module 'no_such_module_here'"),
        ("sandbox.brains.echo:Parrot", "has no 'Parrot'"),
        ("sandbox.brains.echo:GREETING", "is not a Brain subclass"),
    ],
)
def test_bad_specs_are_user_errors(spec: str, words: str) -> None:
    with pytest.raises(UserError, match=re.escape(words)):
        resolve(spec)


async def test_echo_says_back_and_nudges() -> None:
    v = Voqalize(Echo())
    await v.start()
    await v.say("the rain in Spain")
    await v.until("speech_end", 2)
    await v.idle()
    await v.until("speech_end", 3)
    assert v.text_of(1) == GREETING
    assert v.text_of(2) == "You said: the rain in Spain"
    assert v.text_of(3).startswith("I'm still here")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
async def test_sandbox_brain_serves_until_stopped(tmp_path: Path, stop: signal.Signals) -> None:
    port = _free_port()
    env = {**os.environ, HOME_ENV: str(tmp_path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "sandbox.cli", "brain", "echo", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        banner = await asyncio.to_thread(proc.stdout.readline)
        assert "Serving the echo brain" in banner
        url = (await asyncio.to_thread(proc.stdout.readline)).split()[0]
        assert url == f"ws://127.0.0.1:{port}/brain"
        keys = load_or_create_keys(tmp_path / "keys")  # the key pair the server created
        async with await dial(url, SESSION, mint_token(keys, SESSION)) as ws:
            await ws.send(encode(pb.SessionStart(turn_id=1, session_id=SESSION, wire_version=3)))
            first = decode(await asyncio.wait_for(ws.recv(), 5))
            assert first.speech_start.turn_id == 1
            proc.send_signal(stop)
            out, err = await asyncio.to_thread(proc.communicate, timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "stopped." in out
    assert "Traceback" not in err


def test_a_busy_port_is_a_clear_error(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "sandbox.cli", "brain", "echo", "--port", str(port)],
            capture_output=True,
            text=True,
            env={**os.environ, HOME_ENV: str(tmp_path)},
            timeout=30,
        )
    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "Traceback" not in result.stderr
