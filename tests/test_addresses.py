"""Ports and brain URLs at every door (issue 56): the wire's rule for each, the SDK's
server refusing a port before it binds, and ``sandbox brain --port 0`` on a free port."""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

import pytest
from brain_process import sandbox_command, sandbox_env

from sandbox.errors import UsageError
from sandbox.harness.builtin import brain_choice
from sandbox.sdk import Brain, ConfigError, serve
from sandbox.wire.addresses import port_problem, url_problem, ws_url


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("ws://[::1", "its IPv6 address is not closed or not valid"),
        ("ws://127.0.0.1:99999/brain", "its port is not from 1 to 65,535"),
        ("ws://127.0.0.1:0/brain", "a port is a whole number from 1 to 65,535, not 0"),
        ("ws://127.0.0.1:-1/brain", "its port is not a whole number"),
        ("ws://::1:8765/brain", "an IPv6 address goes in brackets"),
        ("ws://:8765/brain", "it names no host"),
        ("http://127.0.0.1:8765/brain", "its scheme must be ws:// or wss://, not http://"),
        ("127.0.0.1:8765", "it is not a URL"),
        ("localhost:8765", "its scheme must be ws:// or wss://, not localhost://"),
        ("brain", "it is not a URL"),
        ("ws://host\x1b[31m/brain", "no spaces or control characters"),
        ("ws://host name/brain", "no spaces or control characters"),
    ],
)
def test_a_url_that_is_not_a_brains_is_refused_in_words(url: str, words: str) -> None:
    problem = url_problem(url)
    assert problem is not None and words in problem
    assert problem.isprintable()


@pytest.mark.parametrize(
    "url",
    [
        "ws://127.0.0.1:8765/brain",
        "wss://brain.example.com/agent?x=1",
        "ws://[::1]:8765/brain",
        "ws://localhost/brain",
        "WS://127.0.0.1:1/brain",
        "ws://127.0.0.1:65535/brain",
    ],
)
def test_a_brains_url_passes(url: str) -> None:
    assert url_problem(url) is None


def test_a_port_is_1_to_65535_and_0_only_where_any_free_port_is_meant() -> None:
    assert port_problem(1) is None and port_problem(65_535) is None
    assert port_problem(0) == "a port is a whole number from 1 to 65,535, not 0"
    assert port_problem(0, any_free=True) is None
    assert port_problem(65_536, any_free=True) == (
        "a port is a whole number from 0 to 65,535 (0: any free port), not 65,536"
    )
    assert port_problem(-1) is not None


def test_brain_choice_refuses_a_bad_url_as_a_usage_error() -> None:
    with pytest.raises(UsageError, match=r"^--brain: 'ws://\[::1' is neither a built-in brain"):
        brain_choice("ws://[::1")
    assert brain_choice("ws://[::1]:8765/brain") == ("ws://[::1]:8765/brain", "concierge")


def test_a_server_url_brackets_an_ipv6_host() -> None:
    assert ws_url("::1", 8765, "/brain") == "ws://[::1]:8765/brain"
    assert ws_url("127.0.0.1", 8765, "/agent") == "ws://127.0.0.1:8765/agent"
    assert url_problem(ws_url("::1", 8765, "/brain")) is None


@pytest.mark.parametrize("port", [-1, 65_536, 99_999])
async def test_the_sdk_server_refuses_a_bad_port_before_binding(port: int) -> None:
    with pytest.raises(ConfigError, match=rf"serve\(port={port}\): a port is a whole number"):
        await serve(Brain, port=port)


async def test_the_sdk_server_on_port_0_listens_on_a_free_port_it_names() -> None:
    server = await serve(Brain, port=0)
    try:
        assert server.port > 0 and server.url().endswith(f":{server.port}/brain")
        with socket.create_connection(("127.0.0.1", server.port), timeout=5):
            pass  # a real listener took the connection
    finally:
        await server.close()


def test_sandbox_brain_on_port_0_serves_on_the_port_it_prints(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        sandbox_command("brain", "echo", "--port", "0"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=sandbox_env(tmp_path),
    )
    try:
        assert proc.stdout is not None
        lines = iter(proc.stdout.readline, "")
        url = next(line.split()[0] for line in lines if line.strip().startswith("ws://"))
        port = int(url.split("/")[2].rpartition(":")[2])
        assert port > 0 and url_problem(url) is None
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass
    finally:
        proc.terminate()
        proc.wait(10)
