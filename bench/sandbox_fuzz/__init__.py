"""Fuzzing the parts that read what others send: the wire codec and relay framing, brain
tokens, caller scripts, the session store and the call core.

Each target is one function of bytes (:mod:`sandbox_fuzz.targets`) that raises only when
an input escapes: an unhandled exception, a hang, or a broken invariant. The benchmark
run drives them with atheris (``python -m sandbox_fuzz``); the test suite drives the same
functions with hypothesis.
"""
