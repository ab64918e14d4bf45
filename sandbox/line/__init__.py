"""Phone lines: the codec, loss, jitter and network delay between the caller and the call."""
