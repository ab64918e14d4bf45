"""Replaying saved sessions: the timeline rebuilt from a session's frames and events, its
audio legs played back in step, its caller side as a caller script, and the re-drive of a
saved call against a brain (:mod:`sandbox.replay.redrive`).

A middle layer, not a face: it reads :mod:`sandbox.record` and drives calls through the
harness and the host; ``sandbox replay``, ``sandbox sessions`` and the app show what it
rebuilds (see docs/architecture.md)."""
