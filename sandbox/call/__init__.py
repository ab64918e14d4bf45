"""The call core: Voqalize's side of the wire as one sans-I/O state machine per session."""
