"""Simulated callers: a script's steps (typed or spoken by espeak-ng), a WAV file, or a saved
call's own caller audio, driven against a running call host (:mod:`sandbox.host`, the layer
below)."""
