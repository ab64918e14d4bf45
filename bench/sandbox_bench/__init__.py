"""``sandbox bench``: latency, accuracy, echo and memory figures of the real audio path.

Every figure is measured on the real parts (Whisper, Piper, the playout clock, the listener,
the echo canceller, the call core over a real socket), each a median over repeated runs.
:func:`sandbox_bench.runner.run_bench` runs them all; one module per measurement family.
"""
