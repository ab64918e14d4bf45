"""Replaying saved sessions: the timeline rebuilt from a session's frames and events, and its
audio legs played back in step."""
