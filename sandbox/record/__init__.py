"""What a call leaves behind: every frame both ways, the units' heard truth, the outcome,
and the call record, which stores the verdicts of :mod:`sandbox.judges`."""
