"""Exceptions the SDK raises into brain code."""

from __future__ import annotations


class SdkError(Exception):
    """Base of every exception the SDK raises on purpose."""


class ConfigError(SdkError, ValueError):
    """A Config that must not be built: refused in your process, before anything is sent."""


class RequestRejected(SdkError):
    """Voqalize answered a Request with REJECTED; ``detail`` says why, written to be shown."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail or "Voqalize rejected the request and gave no reason")
        self.detail = detail


class CapabilityMissing(SdkError):
    """The call needs a capability this Voqalize did not list in SessionStart."""


class SessionClosed(SdkError):
    """The session is over: nothing more can be sent or answered on it."""
