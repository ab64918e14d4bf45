"""Brain-connection tokens: short-lived RS256 JWTs Voqalize presents when it dials a brain.

The sandbox holds one RSA key pair on disk. It signs a token per connection; a brain
verifies it against the public key (``sandbox keys`` prints it). Required claims:
``iss="pygato"``, ``aud="brain"``, ``sub == session_id`` and ``exp``; ``agent_id`` and
``tenant_id`` are informational. A relay-leg socket carries many sessions, so its
token names :data:`RELAY_SUBJECT` where an inbound one names the session.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from sandbox.errors import UserError
from sandbox.paths import HOME_ENV, data_dir
from sandbox.private_files import PRIVATE_MODE, NewFile, private_folder, write_file

ISSUER = "pygato"
AUDIENCE = "brain"
#: The ``sub`` of a relay-leg token, which serves many sessions rather than one.
RELAY_SUBJECT = "relay"

PRIVATE_KEY_FILE = "token_private.pem"
PUBLIC_KEY_FILE = "token_public.pem"

_ALGORITHM = "RS256"
_KEY_BITS = 2048
_BEARER = "bearer"


class TokenError(Exception):
    """A presented token was refused; the message names the check that failed."""


@dataclass(frozen=True)
class KeyPair:
    """The token signing key and the public key brains verify against, both PEM."""

    private_pem: bytes
    public_pem: bytes


def key_paths(directory: Path | None = None) -> tuple[Path, Path]:
    """``(private, public)`` key file paths in ``directory`` (default: ``data_dir() / "keys"``)."""
    folder = directory if directory is not None else data_dir() / "keys"
    return folder / PRIVATE_KEY_FILE, folder / PUBLIC_KEY_FILE


def load_or_create_keys(directory: Path | None = None) -> KeyPair:
    """The sandbox's key pair, created (RSA 2048) on first use.

    The private key file is created with mode 0600 from the start and published
    atomically, so no other user ever sees it readable and no process ever reads
    half of it. The public key file beside it is rewritten from the private key
    whenever it is missing or stale. Raises UserError if the files cannot be made
    or read.
    """
    private_path, public_path = key_paths(directory)
    try:
        private_folder(private_path.parent)
        if not private_path.exists():
            _publish_new_private_key(private_path)
        private_pem = private_path.read_bytes()
        public_pem = _public_pem_of(private_pem, private_path)
        if not public_path.exists() or public_path.read_bytes() != public_pem:
            write_file(public_path, public_pem, mode=0o644)
    except OSError as exc:
        raise UserError(
            f"cannot set up the token signing key in {private_path.parent}: "
            f"{exc.strerror or exc}. Set {HOME_ENV} to a writable directory."
        ) from None
    return KeyPair(private_pem=private_pem, public_pem=public_pem)


def _publish_new_private_key(path: Path) -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=_KEY_BITS)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    key_file = NewFile(path, mode=PRIVATE_MODE)
    key_file.file.write(pem)
    key_file.publish(replace=False)  # never replaces a key another process published first


@functools.lru_cache(maxsize=4)
def _private_key(private_pem: bytes) -> rsa.RSAPrivateKey | None:
    """The parsed key, or None if it is not an RSA private key. Parsing checks the key's
    consistency (tens of ms); cached, so a load test dialing hundreds of calls pays it once."""
    try:
        key = serialization.load_pem_private_key(private_pem, password=None)
    except (ValueError, TypeError):
        return None
    return key if isinstance(key, rsa.RSAPrivateKey) else None


def _public_pem_of(private_pem: bytes, path: Path) -> bytes:
    key = _private_key(private_pem)
    if key is None:
        raise UserError(
            f"{path} is not an unencrypted PEM RSA private key. Move it aside and run "
            "`sandbox keys` to create a new pair, then give brains the new public key."
        )
    return key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def mint_token(
    keys: KeyPair,
    session_id: str,
    *,
    agent_id: str = "sandbox",
    tenant_id: str = "local",
    ttl_s: int = 300,
    now: float | None = None,
) -> str:
    """Sign a brain-connection token for one session (or :data:`RELAY_SUBJECT`)."""
    if ttl_s <= 0:
        raise ValueError(f"ttl_s must be positive, got {ttl_s}")
    issued = int(time.time() if now is None else now)
    claims = {
        "iss": ISSUER,
        "aud": AUDIENCE,
        "sub": session_id,
        "iat": issued,
        "exp": issued + ttl_s,
        "agent_id": agent_id,
        "tenant_id": tenant_id,
    }
    key = _private_key(keys.private_pem)
    return jwt.encode(claims, key if key is not None else keys.private_pem, algorithm=_ALGORITHM)


def verify_token(
    presented: str, public_pem: bytes, session_id: str, *, now: float | None = None
) -> dict[str, Any]:
    """Check a presented token and return its claims; raise TokenError naming the failed check.

    ``presented`` is a bare JWT or an Authorization header value ``"Bearer <jwt>"``.
    Required: an RS256 signature by the holder of ``public_pem``, ``iss == "pygato"``,
    ``aud == "brain"``, ``sub == session_id``, and an ``exp`` that has not passed
    (and an ``nbf``, if present, that has).
    """
    token = _strip_bearer(presented)
    if not token:
        raise TokenError("token refused: no token presented")
    claims = _verified_claims(token, _load_public_key(public_pem))
    iss = claims.get("iss")
    if iss != ISSUER:
        raise TokenError(f"token refused: iss is {iss!r}, expected {ISSUER!r}")
    aud = claims.get("aud")
    if not (aud == AUDIENCE or (isinstance(aud, list) and AUDIENCE in aud)):
        raise TokenError(f"token refused: aud is {aud!r}, expected {AUDIENCE!r}")
    sub = claims.get("sub")
    if sub != session_id:
        raise TokenError(f"token refused: sub is {sub!r}, expected the session id {session_id!r}")
    at = time.time() if now is None else now
    exp = _numeric_claim(claims, "exp")
    if exp is None:
        raise TokenError("token refused: it has no exp claim")
    if at >= exp:
        raise TokenError(f"token refused: it expired {at - exp:.0f} s ago")
    nbf = _numeric_claim(claims, "nbf")
    if nbf is not None and at < nbf:
        raise TokenError(f"token refused: not valid for another {nbf - at:.0f} s (nbf)")
    return claims


def _strip_bearer(presented: str) -> str:
    scheme, _, rest = presented.strip().partition(" ")
    if scheme.lower() == _BEARER:
        return rest.strip()
    return presented.strip()


def _load_public_key(public_pem: bytes) -> rsa.RSAPublicKey:
    try:
        key = serialization.load_pem_public_key(public_pem)
    except (ValueError, TypeError):
        key = None
    if not isinstance(key, rsa.RSAPublicKey):
        raise TokenError("cannot verify tokens: the public key is not a PEM RSA public key")
    return key


def _verified_claims(token: str, key: rsa.RSAPublicKey) -> dict[str, Any]:
    # PyJWT checks the signature; every claim is checked here, against our own
    # clock, so each refusal says exactly which rule failed.
    options: jwt.types.Options = {
        "verify_signature": True,
        "verify_exp": False,
        "verify_nbf": False,
        "verify_iat": False,
        "verify_aud": False,
        "verify_iss": False,
        "verify_sub": False,
        "verify_jti": False,
    }
    try:
        claims: dict[str, Any] = jwt.decode(token, key, algorithms=[_ALGORITHM], options=options)
    except jwt.InvalidSignatureError:
        raise TokenError(
            "token refused: its signature does not verify against this public key "
            "(signed by another key?)"
        ) from None
    except jwt.InvalidAlgorithmError:
        raise TokenError(f"token refused: it is not signed with {_ALGORITHM}") from None
    except jwt.DecodeError as exc:
        raise TokenError(f"token refused: not a well-formed JWT ({exc})") from None
    except jwt.InvalidTokenError as exc:
        raise TokenError(f"token refused: {exc}") from None
    return claims


def _numeric_claim(claims: Mapping[str, Any], name: str) -> float | None:
    value = claims.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TokenError(f"token refused: {name} is {value!r}, not a number")
    return float(value)


def token_from_request(headers: Mapping[str, str], query: Mapping[str, str]) -> str | None:
    """Where a brain server finds the presented token, as a bare JWT.

    The ``Authorization`` header (``Bearer <jwt>``, or a bare JWT) comes first; else
    a ``token`` query parameter. None when neither carries one.
    """
    header = next((v for k, v in headers.items() if k.lower() == "authorization"), "")
    scheme, _, rest = header.strip().partition(" ")
    if scheme.lower() == _BEARER:
        if rest.strip():
            return rest.strip()
    elif scheme and not rest:
        return scheme  # a bare JWT in the header
    return query.get("token") or None
