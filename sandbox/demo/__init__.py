"""``sandbox demo``: narrated scenes of interruption and heard truth, for a room."""
