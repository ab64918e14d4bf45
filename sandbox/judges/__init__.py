"""Judges of what the bot said: the values it spoke (dates, times, amounts), the names it
pronounced, the promises it made and the read-backs it gave. Pure functions of text; the
record (:mod:`sandbox.record`) stores their verdicts."""
