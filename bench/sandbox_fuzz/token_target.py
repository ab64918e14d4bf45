"""Fuzz target for brain-connection tokens: crafted JWTs against the real verifier.

Each input builds one token — properly signed with the sandbox's RS256 key, unsigned
(``alg: none``), HMAC-signed with the public key (the algorithm-confusion attack), one
character changed, or arbitrary text — with claims that are each right or wrong in a
known way, and presents it bare or as ``Bearer``. The verifier must accept exactly the
properly signed ones whose claims are all right, and refuse the rest in words.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import json
import tempfile
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.api_jws import PyJWS
from jwt.utils import base64url_decode

from sandbox.wire.tokens import (
    AUDIENCE,
    ISSUER,
    RELAY_SUBJECT,
    KeyPair,
    TokenError,
    load_or_create_keys,
    token_from_request,
    verify_token,
)
from sandbox_fuzz.draw import Draw
from sandbox_fuzz.guard import InvariantBroken

SESSION = "11111111-2222-3333-4444-555555555555"
NOW = 1_800_000_000
_MISSING = object()
# Each claim's candidates: (value, whether a token carrying it may be accepted).
_ISS = ((ISSUER, True), ("someone-else", False), (_MISSING, False), (5, False))
_AUD = (
    (AUDIENCE, True),
    ([AUDIENCE, "other"], True),
    ("other", False),
    (["other"], False),
    (_MISSING, False),
)
_EXP = (
    (NOW + 300, True),
    (NOW + 0.5, True),
    (NOW, False),
    (NOW - 1, False),
    (_MISSING, False),
    ("soon", False),
    (True, False),
    (None, False),
)
_NBF = ((_MISSING, True), (NOW - 10, True), (NOW + 100, False), ("later", False))
_HMAC = {"HS256": hashlib.sha256, "HS384": hashlib.sha384, "HS512": hashlib.sha512}


@functools.cache
def keys() -> KeyPair:
    """One key pair per process, made by the sandbox's own key code in a scratch folder."""
    with tempfile.TemporaryDirectory() as folder:
        return load_or_create_keys(Path(folder))


@functools.cache
def _signing_key() -> rsa.RSAPrivateKey:
    # Parsed once: loading a PEM private key checks it, some 50 ms a time.
    key = serialization.load_pem_private_key(keys().private_pem, password=None)
    assert isinstance(key, rsa.RSAPrivateKey)  # the sandbox's own key code made it
    return key


def fuzz_tokens(data: bytes) -> None:
    """See the module doc."""
    draw = Draw(data)
    pair = keys()
    subject = draw.pick((SESSION, RELAY_SUBJECT, "other-session", ""))
    claims, claims_ok = _claims(draw, subject)
    kind = draw.pick(("signed", "none", "public_hmac", "mutated", "text"))
    if kind == "signed":
        token = _signed(claims, _extra(draw))
    elif kind == "none":
        token = _unsigned(draw.pick(("none", "None", "NONE", "")), claims)
    elif kind == "public_hmac":
        token = _public_hmac(draw.pick(tuple(_HMAC)), claims, pair.public_pem)
    elif kind == "mutated":
        signed = _signed(claims, {})
        token = _mutated(signed, draw)
        kind = "signed" if _same_signed(token, signed) else kind
    else:
        token = draw.text(300)
    presented = draw.pick(("", "Bearer ", "bearer  ", " ")) + token
    try:
        verify_token(presented, pair.public_pem, SESSION, now=NOW)
        accepted = True
    except TokenError:
        accepted = False
    if accepted != (kind == "signed" and claims_ok and subject == SESSION):
        verdict = "accepted" if accepted else "refused"
        raise InvariantBroken("token verification", f"{verdict} a {kind} token {claims!r}")
    _check_request(draw, token)


def _claims(draw: Draw, subject: str) -> tuple[dict[str, Any], bool]:
    claims: dict[str, Any] = {"sub": subject} if draw.number(0, 7) else {}
    ok = "sub" in claims
    for name, options in (("iss", _ISS), ("aud", _AUD), ("exp", _EXP), ("nbf", _NBF)):
        value, fine = draw.pick(options)
        if value is not _MISSING:
            claims[name] = value
        ok = ok and fine
    if draw.flip():
        claims[draw.text(12)] = draw.text(20)  # informational claims may say anything
    return claims, ok


def _signed(claims: dict[str, Any], headers: dict[str, Any]) -> str:
    """Signed with the sandbox's key as any RS256 signer would, whatever the claims say
    (PyJWT's own encoder refuses some wrong claims before signing)."""
    payload = json.dumps(claims).encode()
    return PyJWS().encode(payload, _signing_key(), algorithm="RS256", headers=headers)


def _extra(draw: Draw) -> dict[str, Any]:
    return {"kid": draw.text(10)} if draw.flip() else {}


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _part(value: dict[str, Any]) -> str:
    return _b64(json.dumps(value).encode())


def _unsigned(alg: str, claims: dict[str, Any]) -> str:
    return f"{_part({'alg': alg, 'typ': 'JWT'})}.{_part(claims)}."


def _public_hmac(alg: str, claims: dict[str, Any], public_pem: bytes) -> str:
    """The algorithm-confusion forgery: HMAC keyed with the (public) verification key."""
    signing_input = f"{_part({'alg': alg, 'typ': 'JWT'})}.{_part(claims)}"
    mac = hmac.new(public_pem, signing_input.encode(), _HMAC[alg]).digest()
    return f"{signing_input}.{_b64(mac)}"


def _mutated(token: str, draw: Draw) -> str:
    at = draw.number(0, len(token) - 1)
    return token[:at] + draw.pick(("A", "_", ".", "", "==", "a")) + token[at + 1 :]


def _same_signed(token: str, signed: str) -> bool:
    """The same signed content: base64 ignores a last character's spare bits, so a change
    there leaves the very signature the key made."""
    if token == signed:
        return True
    head, _, signature = token.rpartition(".")
    signed_head, _, signed_signature = signed.rpartition(".")
    try:
        same = base64url_decode(signature) == base64url_decode(signed_signature)
    except ValueError:
        return False
    return head == signed_head and same


def _check_request(draw: Draw, token: str) -> None:
    """Where a server finds the token: never raises, and finds a token or none."""
    header = draw.pick(("Authorization", "authorization", "X-Other"))
    value = draw.pick(("Bearer ", "", "Basic ", "Bearer")) + draw.pick((token, "", " a b "))
    query = {"token": token} if draw.flip() else {}
    found = token_from_request({header: value}, query)
    if found is not None and not found:
        raise InvariantBroken("token lookup", f"found {found!r} in {value!r}")
