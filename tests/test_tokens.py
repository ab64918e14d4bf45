"""Brain-connection tokens with real RSA keys: what verifies, and what is refused and why."""

from __future__ import annotations

import base64
import json
import stat
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import jwt
import platformdirs
import pytest

from sandbox.cli import main
from sandbox.errors import UserError
from sandbox.paths import data_dir
from sandbox.wire.tokens import (
    AUDIENCE,
    ISSUER,
    RELAY_SUBJECT,
    KeyPair,
    TokenError,
    key_paths,
    load_or_create_keys,
    mint_token,
    token_from_request,
    verify_token,
)

SESSION = "0b7e4a52-3f1d-4c3a-9a53-6a1f2e9d8c10"
NOW = 1_800_000_000.0


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> KeyPair:
    return load_or_create_keys(tmp_path_factory.mktemp("keys"))


@pytest.fixture(scope="module")
def other_keys(tmp_path_factory: pytest.TempPathFactory) -> KeyPair:
    return load_or_create_keys(tmp_path_factory.mktemp("other"))


def _signed(keys: KeyPair, **overrides: Any) -> str:
    """A token signed by ``keys`` with the standard claims, changed by ``overrides``
    (a value of None removes that claim)."""
    claims: dict[str, Any] = {
        "iss": ISSUER,
        "aud": AUDIENCE,
        "sub": SESSION,
        "iat": int(NOW),
        "exp": int(NOW) + 300,
    }
    claims.update(overrides)
    claims = {k: v for k, v in claims.items() if v is not None}
    return jwt.encode(claims, keys.private_pem, algorithm="RS256")


def test_valid_token_verifies_bare_and_as_bearer(keys: KeyPair) -> None:
    token = mint_token(keys, SESSION, agent_id="concierge", tenant_id="acme", now=NOW)
    for presented in (token, f"Bearer {token}", f"bearer  {token} "):
        claims = verify_token(presented, keys.public_pem, SESSION, now=NOW + 1)
        assert claims["sub"] == SESSION
        assert (claims["iss"], claims["aud"]) == ("pygato", "brain")
        assert (claims["agent_id"], claims["tenant_id"]) == ("concierge", "acme")
        assert claims["exp"] == int(NOW) + 300


def test_relay_token_names_the_relay_subject(keys: KeyPair) -> None:
    token = mint_token(keys, RELAY_SUBJECT, now=NOW)
    assert verify_token(token, keys.public_pem, RELAY_SUBJECT, now=NOW)["sub"] == "relay"
    with pytest.raises(TokenError, match="sub is 'relay'"):
        verify_token(token, keys.public_pem, SESSION, now=NOW)


def test_expired_token_is_refused(keys: KeyPair) -> None:
    token = mint_token(keys, SESSION, ttl_s=60, now=NOW)
    verify_token(token, keys.public_pem, SESSION, now=NOW + 59)
    with pytest.raises(TokenError, match="expired"):
        verify_token(token, keys.public_pem, SESSION, now=NOW + 60)


def test_default_clock_is_the_real_one(keys: KeyPair) -> None:
    verify_token(mint_token(keys, SESSION), keys.public_pem, SESSION)
    stale = mint_token(keys, SESSION, ttl_s=5, now=time.time() - 10)
    with pytest.raises(TokenError, match=r"expired \d+ s ago"):
        verify_token(stale, keys.public_pem, SESSION)


@pytest.mark.parametrize(
    ("overrides", "check"),
    [
        ({"aud": "cortex"}, "aud is 'cortex'"),
        ({"aud": None}, "aud is None"),
        ({"iss": "someone"}, "iss is 'someone'"),
        ({"iss": None}, "iss is None"),
        ({"sub": "another-session"}, "sub is 'another-session'"),
        ({"sub": None}, "sub is None"),
        ({"exp": None}, "no exp claim"),
        ({"exp": "tomorrow"}, "exp is 'tomorrow', not a number"),
        ({"nbf": int(NOW) + 100}, "not valid for another 100 s"),
    ],
)
def test_claim_checks_say_which_failed(
    keys: KeyPair, overrides: dict[str, Any], check: str
) -> None:
    with pytest.raises(TokenError, match=check):
        verify_token(_signed(keys, **overrides), keys.public_pem, SESSION, now=NOW)


def test_audience_list_containing_brain_is_accepted(keys: KeyPair) -> None:
    token = _signed(keys, aud=["brain", "other"])
    assert verify_token(token, keys.public_pem, SESSION, now=NOW)["aud"] == ["brain", "other"]


def test_token_signed_by_another_key_is_refused(keys: KeyPair, other_keys: KeyPair) -> None:
    token = mint_token(other_keys, SESSION, now=NOW)
    with pytest.raises(TokenError, match="signature does not verify"):
        verify_token(token, keys.public_pem, SESSION, now=NOW)


def _b64(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def test_unsigned_token_is_refused(keys: KeyPair) -> None:
    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": SESSION, "exp": int(NOW) + 300}
    unsigned = f"{_b64({'alg': 'none', 'typ': 'JWT'})}.{_b64(claims)}."
    with pytest.raises(TokenError, match="not signed with RS256"):
        verify_token(unsigned, keys.public_pem, SESSION, now=NOW)


@pytest.mark.parametrize("garbage", ["garbage", "a.b.c", "Bearer ", "", "Bearer x.y"])
def test_garbage_is_refused(keys: KeyPair, garbage: str) -> None:
    with pytest.raises(TokenError, match="token refused"):
        verify_token(garbage, keys.public_pem, SESSION, now=NOW)


def test_bad_public_key_is_said_plainly(keys: KeyPair) -> None:
    token = mint_token(keys, SESSION, now=NOW)
    with pytest.raises(TokenError, match="not a PEM RSA public key"):
        verify_token(token, b"not a key", SESSION, now=NOW)


def test_mint_refuses_a_non_positive_ttl(keys: KeyPair) -> None:
    with pytest.raises(ValueError, match="ttl_s"):
        mint_token(keys, SESSION, ttl_s=0)


def test_private_key_file_is_0600_with_public_key_beside(tmp_path: Path) -> None:
    keys = load_or_create_keys(tmp_path)
    private_path, public_path = key_paths(tmp_path)
    assert private_path.parent == public_path.parent == tmp_path
    assert stat.S_IMODE(private_path.stat().st_mode) == 0o600
    assert private_path.read_bytes() == keys.private_pem
    assert public_path.read_bytes() == keys.public_pem
    assert keys.public_pem.startswith(b"-----BEGIN PUBLIC KEY-----")
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_second_load_returns_the_same_keys(tmp_path: Path) -> None:
    first = load_or_create_keys(tmp_path)
    assert load_or_create_keys(tmp_path) == first


def test_missing_public_key_is_rewritten_from_the_private_key(tmp_path: Path) -> None:
    first = load_or_create_keys(tmp_path)
    _, public_path = key_paths(tmp_path)
    public_path.unlink()
    assert load_or_create_keys(tmp_path) == first
    assert public_path.read_bytes() == first.public_pem


def test_concurrent_first_use_agrees_on_one_pair(tmp_path: Path) -> None:
    with ThreadPoolExecutor(max_workers=4) as pool:
        pairs = list(pool.map(lambda _: load_or_create_keys(tmp_path), range(4)))
    assert all(pair == pairs[0] for pair in pairs)
    assert key_paths(tmp_path)[0].read_bytes() == pairs[0].private_pem


def test_corrupt_private_key_is_a_user_error(tmp_path: Path) -> None:
    private_path, _ = key_paths(tmp_path)
    private_path.write_bytes(b"-----BEGIN PRIVATE KEY-----\nnope\n")
    with pytest.raises(UserError, match="not an unencrypted PEM RSA private key"):
        load_or_create_keys(tmp_path)


def test_unusable_directory_is_a_user_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the key directory should be")
    with pytest.raises(UserError, match="VOQALIZE_SANDBOX_HOME"):
        load_or_create_keys(blocker / "keys")


def test_data_dir_honours_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VOQALIZE_SANDBOX_HOME", str(tmp_path))
    assert data_dir() == tmp_path
    assert key_paths()[0] == tmp_path / "keys" / "token_private.pem"
    monkeypatch.delenv("VOQALIZE_SANDBOX_HOME")
    assert data_dir() == Path(platformdirs.user_data_dir("voqalize-sandbox", appauthor=False))


@pytest.mark.parametrize(
    ("headers", "query", "found"),
    [
        ({"Authorization": "Bearer abc.def.ghi"}, {}, "abc.def.ghi"),
        ({"authorization": "bearer abc.def.ghi"}, {"token": "q"}, "abc.def.ghi"),
        ({"AUTHORIZATION": "abc.def.ghi"}, {}, "abc.def.ghi"),
        ({}, {"token": "abc.def.ghi"}, "abc.def.ghi"),
        ({"Authorization": "Basic dXNlcjpwdw=="}, {"token": "q"}, "q"),
        ({"Authorization": "Bearer"}, {}, None),
        ({"Host": "brain"}, {"session_id": SESSION}, None),
        ({}, {"token": ""}, None),
    ],
)
def test_token_from_request(
    headers: dict[str, str], query: dict[str, str], found: str | None
) -> None:
    assert token_from_request(headers, query) == found


def test_sandbox_keys_prints_the_public_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("VOQALIZE_SANDBOX_HOME", str(tmp_path))
    assert main(["keys"]) == 0
    out, err = capsys.readouterr()
    private_path, public_path = key_paths()
    assert private_path.parent == tmp_path / "keys"
    assert out == public_path.read_text()
    assert out.startswith("-----BEGIN PUBLIC KEY-----")
    assert str(public_path) in err and str(private_path) in err
    assert stat.S_IMODE(private_path.stat().st_mode) == 0o600
    # A token the sandbox mints verifies against exactly what was printed.
    token = mint_token(load_or_create_keys(), SESSION)
    assert verify_token(token, out.encode(), SESSION)["sub"] == SESSION

    assert main(["keys"]) == 0  # the second run prints the same pair, not a new one
    assert capsys.readouterr().out == out

    assert main(["keys", "--path"]) == 0
    assert capsys.readouterr().out == f"{public_path}\n"


def test_sandbox_keys_reports_an_unusable_home_in_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("VOQALIZE_SANDBOX_HOME", str(blocker))
    assert main(["keys"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("sandbox keys: cannot set up the token signing key")
    assert "Traceback" not in err
