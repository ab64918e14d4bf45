"""The fuzz targets by name: one function of bytes each, shared by the benchmark run
(atheris) and the test suite (hypothesis)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sandbox_fuzz.core_target import fuzz_core
from sandbox_fuzz.printers import PRINTERS
from sandbox_fuzz.script_target import fuzz_script
from sandbox_fuzz.store_target import fuzz_store
from sandbox_fuzz.token_target import fuzz_tokens
from sandbox_fuzz.wire_targets import fuzz_codec, fuzz_relay


@dataclass(frozen=True)
class Target:
    """One fuzz target: ``run`` raises only when an input escapes."""

    name: str
    run: Callable[[bytes], None]
    what: str


TARGETS: dict[str, Target] = {
    t.name: t
    for t in (
        Target("codec", fuzz_codec, "one WebSocket message through the envelope codec"),
        Target("relay", fuzz_relay, "relay-leg framing and session ids"),
        Target("tokens", fuzz_tokens, "crafted JWTs against the RS256 verifier"),
        Target("script", fuzz_script, "the caller-script TOML loader"),
        Target("store", fuzz_store, "a session store whose rows say anything, read back"),
        Target("core", fuzz_core, "the call core fed arbitrary envelopes at arbitrary times"),
        *(Target(name, run, what) for name, (run, what) in PRINTERS.items()),
    )
}
