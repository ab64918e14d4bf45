"""The words a session's index row is made of: which leg the brain was dialed on and what
the call carried. String enums: the value is the stored word, so the store's rows and the
JSON are the words they always were, and a row holding another is damaged, said in words."""

from __future__ import annotations

import enum


class Leg(enum.StrEnum):
    """How the brain was reached (001's two legs)."""

    DIRECT = "direct"  # its own inbound server, one socket per call
    RELAY = "relay"  # through the relay's one socket, each frame prefixed with the session


class CallMode(enum.StrEnum):
    """What a recorded call carried."""

    SIM = "sim"  # caller lines given whole, playout on a simulated clock
    TYPED = "typed"  # the app's typed turns, playout on a simulated clock
    AUDIO = "audio"  # a microphone and a speaker (its audio legs are recorded)
