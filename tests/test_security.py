"""Security (issue #16, part 5): loopback unless told, tokens pinned to RS256, private
files, no secret in logs, reports or exports, bounded --init and RTVI data, and exports
that never overwrite or write through a link unless told to."""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import json
import logging
import re
import stat
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from brain_process import sandbox_command, sandbox_env, serving
from call_rig import Rig
from session_rig import fixed_session, recorded_call
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from sandbox.brains.echo import Echo
from sandbox.call.effects import AppFrameRefused, ProtocolViolation, SendFrame, ToApp
from sandbox.call.inputs import AppFrame
from sandbox.commands.sessions import export_session
from sandbox.errors import UserError
from sandbox.harness.builtin import brain_url_for
from sandbox.host import launch
from sandbox.host.launch import INIT_LIMIT, CallOptions, check_init
from sandbox.logs import Redacted, log_path, logging_to_file
from sandbox.record.leg_files import leg_path
from sandbox.record.legs import MIC, AudioLeg
from sandbox.record.recorder import default_report_path
from sandbox.record.store import SessionStore
from sandbox.record.stored_call import StoredCall
from sandbox.sdk import serve
from sandbox.sdk.server import is_loopback
from sandbox.wire import pb
from sandbox.wire.catalog import RTVI_DATA_LIMIT
from sandbox.wire.tokens import (
    AUDIENCE,
    ISSUER,
    KeyPair,
    TokenError,
    key_paths,
    load_or_create_keys,
    mint_token,
    verify_token,
)

SESSION = "11111111-2222-3333-4444-555555555555"
_JWT = re.compile(rb"eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+")


@pytest.fixture
def logged(home: Path) -> Iterator[Path]:
    """The app's log file, as `sandbox` sets it up, at its most talkative."""
    with logging_to_file(logging.DEBUG):
        yield log_path()


# ------------------------------------------------------------------ loopback


def _listening_on(port: int) -> set[str]:
    """The addresses a TCP socket on ``port`` listens on, as the kernel lists them."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                found.add(address)
    return found


_LOOPBACK_V4 = "0100007F"  # 127.0.0.1, as /proc/net/tcp spells it
_ANY_V4 = "00000000"


def _brain_banner(folder: Path, home: Path, *args: str) -> tuple[str, set[str]]:
    """``sandbox brain echo ARGS…``: its banner and where it listens, then stopped."""
    with serving(folder, home, "echo", *args) as (url, proc):
        where = _listening_on(int(url.split(":")[2].split("/")[0]))
    assert proc.stdout is not None
    return proc.stdout.read(), where


def test_sandbox_brain_listens_on_loopback_unless_told(home: Path, tmp_path: Path) -> None:
    out, where = _brain_banner(tmp_path, home)
    assert where == {_LOOPBACK_V4}, out
    assert "not loopback" not in out


def test_sandbox_brain_says_so_when_it_listens_beyond_loopback(home: Path, tmp_path: Path) -> None:
    out, where = _brain_banner(tmp_path, home, "--host", "0.0.0.0")
    assert where == {_ANY_V4}, out
    assert "Listening on 0.0.0.0: not loopback, so other machines can reach it" in out


async def test_the_built_in_brain_listens_on_loopback(home: Path) -> None:
    async with brain_url_for(CallOptions()) as url:
        port = int(url.split(":")[2].split("/")[0])
        assert url.startswith("ws://127.0.0.1:")
        assert _listening_on(port) == {_LOOPBACK_V4}


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("127.8.0.1", True), ("::1", True), ("localhost", True),
     ("0.0.0.0", False), ("", False), ("::", False), ("192.168.1.4", False),
     ("example.com", False)],
)  # fmt: skip
def test_what_counts_as_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


# -------------------------------------------------------------------- tokens


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _claims() -> dict[str, Any]:
    return {"iss": ISSUER, "aud": AUDIENCE, "sub": SESSION, "exp": int(time.time()) + 300}


def _alg_none() -> str:
    header, body = {"alg": "none", "typ": "JWT"}, _claims()
    return f"{_b64(json.dumps(header).encode())}.{_b64(json.dumps(body).encode())}."


def _hs256_with_public_key(public_pem: bytes) -> str:
    """The algorithm-confusion forgery: HMAC keyed with the brain's (public) key."""
    header = _b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    signing_input = f"{header}.{_b64(json.dumps(_claims()).encode())}"
    mac = hmac.new(public_pem, signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{_b64(mac)}"


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> KeyPair:
    return load_or_create_keys(tmp_path_factory.mktemp("keys"))


def test_a_token_with_alg_none_is_refused(keys: KeyPair) -> None:
    with pytest.raises(TokenError, match="not signed with RS256"):
        verify_token(_alg_none(), keys.public_pem, SESSION)


def test_an_hs256_token_signed_with_the_public_key_is_refused(keys: KeyPair) -> None:
    with pytest.raises(TokenError, match="not signed with RS256"):
        verify_token(_hs256_with_public_key(keys.public_pem), keys.public_pem, SESSION)


async def test_a_brain_server_refuses_both_forgeries_at_the_handshake(keys: KeyPair) -> None:
    async with await serve(Echo, public_key_pem=keys.public_pem) as server:
        url = f"{server.url()}?session_id={SESSION}"
        for forged in (_alg_none(), _hs256_with_public_key(keys.public_pem)):
            with pytest.raises(InvalidStatus) as refused:
                await connect(url, additional_headers={"Authorization": f"Bearer {forged}"})
            assert refused.value.response.status_code == 401
            assert b"not signed with RS256" in refused.value.response.body


def test_tokens_are_short_lived(keys: KeyPair) -> None:
    claims = verify_token(mint_token(keys, SESSION), keys.public_pem, SESSION)
    assert 0 < claims["exp"] - claims["iat"] <= 300


# ------------------------------------------------------------- private files


def _modes(folder: Path) -> dict[str, int]:
    return {
        str(path.relative_to(folder.parent)): stat.S_IMODE(path.stat().st_mode)
        for path in [folder, *folder.rglob("*")]
    }


async def test_every_file_of_a_call_is_private_to_the_user(home: Path, logged: Path) -> None:
    host = await recorded_call()
    host.recorder.write(default_report_path(host.core.session_id), host.core)
    leg = AudioLeg(leg_path(host.core.session_id, MIC), 16_000)
    leg.close()
    modes = _modes(home)
    public = "home/keys/token_public.pem"
    assert modes.pop(public) == 0o644  # the one file meant to be shared
    assert {name for name in modes} >= {
        "home",
        "home/keys/token_private.pem",
        "home/sessions.db",
        "home/logs/sandbox.log",
        f"home/audio/{host.core.session_id}/mic.wav",
        "home/sessions",
    }
    loose = {
        name: oct(mode)
        for name, mode in modes.items()
        if mode != (0o700 if (home.parent / name).is_dir() else 0o600)
    }
    assert not loose


# ----------------------------------------------------------- nothing secret


async def test_no_token_or_key_reaches_logs_reports_or_exports(
    home: Path, logged: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    minted: list[str] = []

    def mint(*args: Any, **kwargs: Any) -> str:
        token: str = real_mint(*args, **kwargs)
        minted.append(token)
        return token

    real_mint = mint_token
    monkeypatch.setattr(launch, "mint_token", mint)
    host = await recorded_call()
    report = host.recorder.write(tmp_path / "report.json", host.core)
    out = tmp_path / "export"
    with SessionStore() as store:
        row = store.find(host.core.session_id)
        wanted = {"html": out / "call.html", "md": out / "call.md", "json": out / "call.json"}
        export_session(
            StoredCall.load(store, row), argparse.Namespace(wav=None, force=False, **wanted)
        )
    assert len(minted) == 1  # the call dialed with a real token, which must appear nowhere
    private_pem = key_paths()[0].read_bytes()
    secrets = [minted[0].encode(), *minted[0].encode().split(b"."), b"PRIVATE KEY"]
    secrets += [line for line in private_pem.splitlines() if len(line) > 40]
    written = [logged, report, *wanted.values(), *home.glob("sessions.db*")]
    for path in written:
        data = path.read_bytes()
        assert not _JWT.search(data), path
        assert not [secret for secret in secrets if secret in data], path
    assert logged.stat().st_size > 0  # the log was written, and is clean


# -------------------------------------------------------------------- bounds


def test_init_json_is_bounded() -> None:
    at_limit = json.dumps({"note": "x" * (INIT_LIMIT - 12)})
    assert len(at_limit) == INIT_LIMIT
    assert check_init(at_limit) == at_limit
    with pytest.raises(UserError, match=r"the init data is 65537 bytes; the limit is 65536"):
        check_init(json.dumps({"note": "x" * (INIT_LIMIT - 11)}))


def test_rtvi_data_is_bounded_both_ways() -> None:
    rig = Rig()
    rig.start()
    big = "x" * (RTVI_DATA_LIMIT + 1)
    refused = rig.feed(AppFrame("client-message", big, None))
    assert [type(e) for e in refused] == [AppFrameRefused]
    answered = rig.brain(pb.RTVIFrame(type=pb.RTVI_TYPE_SERVER_MESSAGE, data=big))
    assert not [e for e in answered if isinstance(e, ToApp)]
    assert [e for e in answered if isinstance(e, ProtocolViolation)]
    fits = rig.feed(AppFrame("client-message", big[1:], None))
    assert [type(e) for e in fits] == [SendFrame]


# -------------------------------------------------------------------- export


def _export(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        sandbox_command("export", *args),
        capture_output=True,
        text=True,
        env=sandbox_env(home),
        timeout=60,
    )


def test_export_refuses_to_overwrite_without_force(home: Path, tmp_path: Path) -> None:
    session = fixed_session()
    target = tmp_path / "call.md"
    target.write_text("mine")
    refused = _export(home, session[:8], "--md", str(target))
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert "already there: pass --force to overwrite" in refused.stderr
    assert target.read_text() == "mine"
    forced = _export(home, session[:8], "--md", str(target), "--force")
    assert forced.returncode == 0, forced.stderr
    assert target.read_text() != "mine"


def test_export_never_writes_through_a_link(home: Path, tmp_path: Path) -> None:
    session = fixed_session()
    elsewhere = tmp_path / "precious.txt"
    elsewhere.write_text("keep me")
    link = tmp_path / "call.json"
    link.symlink_to(elsewhere)
    refused = _export(home, session[:8], "--json", str(link))
    assert "already there" in refused.stderr
    forced = _export(home, session[:8], "--json", str(link), "--force")
    assert forced.returncode == 0, forced.stderr
    assert elsewhere.read_text() == "keep me"  # the link was replaced, its target untouched
    assert not link.is_symlink() and json.loads(link.read_text()) == {"frames": []}


def test_export_to_a_folder_says_so(home: Path, tmp_path: Path) -> None:
    session = fixed_session()
    refused = _export(home, session[:8], "--json", str(tmp_path))
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert "is a folder: name the file to write" in refused.stderr


@pytest.mark.parametrize("verb", ["load", "replay"])
def test_load_and_redrive_json_refuse_to_overwrite_before_any_work(
    home: Path, tmp_path: Path, verb: str
) -> None:
    """The refusal comes before the run: a load or a re-drive is minutes of work."""
    session = fixed_session()
    script = tmp_path / "call.toml"
    script.write_text("[[step]]\nsay = 'hi'\n")
    target = tmp_path / "out.json"
    target.write_text("mine")
    base = (
        ("load", "--brain", "ws://127.0.0.1:9/brain", "--script", str(script), "--calls", "1")
        if verb == "load"
        else ("replay", session[:8], "--brain", "builtin")
    )
    refused = subprocess.run(
        sandbox_command(*base, "--json", str(target)),
        capture_output=True, text=True, env=sandbox_env(home), timeout=60,
    )  # fmt: skip
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert "already there: pass --force to overwrite" in refused.stderr
    assert refused.stdout == ""  # nothing ran
    assert target.read_text() == "mine"


def test_redrive_json_names_one_session_and_a_brain(home: Path, tmp_path: Path) -> None:
    session = fixed_session()
    for args in ((session[:8],), ("--all", "--brain", "builtin")):
        refused = subprocess.run(
            sandbox_command("replay", *args, "--json", str(tmp_path / "d.json")),
            capture_output=True, text=True, env=sandbox_env(home), timeout=60,
        )  # fmt: skip
        assert refused.returncode == 1 and "Traceback" not in refused.stderr
        assert "--json writes one re-drive's diff" in refused.stderr


def test_log_lines_lose_their_tokens_and_a_malformed_one_is_left_to_logging() -> None:
    line = logging.LogRecord("x", logging.INFO, "f.py", 1, "Bearer %s", (_alg_none(),), None)
    assert Redacted().filter(line) and line.getMessage() == "Bearer <token>"
    bad = logging.LogRecord("x", logging.INFO, "f.py", 1, "%d tokens", ("many",), None)
    assert Redacted().filter(bad)  # never raises: the handler reports it as it always has
