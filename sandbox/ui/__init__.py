"""The terminal app (``sandbox run``): talk to a brain, watch the wire and the heard truth.

Small widgets that talk through messages: :class:`~sandbox.ui.runner.CallRunner` runs the
call beside the UI and posts what happens (effects, frames, progress) as Textual messages;
the app routes them to the conversation, wire, app and status panes.
"""
