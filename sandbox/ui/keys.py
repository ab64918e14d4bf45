"""The app's keys: one table read by the footer, the help screen and the command palette."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Key:
    """A key, the app action it runs, its footer label, palette title, and what it does."""

    key: str
    action: str
    label: str
    title: str
    does: str


KEYS = (
    Key("f1", "help", "help", "Help", "this help: keys and panes explained"),
    Key(
        "f2", "barge_in", "barge in", "Barge in",
        "cut the bot as a caller talking over it would; text in the box is what you say",
    ),
    Key("f3", "mute", "mute", "Mute microphone", "mute or unmute the microphone"),
    Key(
        "f4", "settings", "settings", "Change voice, patience or idle",
        "change the call's settings mid-call, landing as a brain's Config would",
    ),
    Key(
        "f5", "app_frame", "app frame", "Send an app RTVI frame",
        "send an RTVI message from the app to the brain (ui-event, client-message, ...)",
    ),
    Key("f6", "filter_wire", "filter", "Filter the wire", "filter the wire pane by frame type"),
    Key("f10", "end_call", "end call", "End the call", "hang up; the report is written"),
    Key("ctrl+q", "quit", "quit", "Quit", "end the call if it is live, then quit"),
)  # fmt: skip

#: The help screen's rows: the keys above and the ones Textual and the message box give.
HELP_ROWS = (
    ("enter", "send what you typed as the caller's turn (RTVI send-text)"),
    *((k.key, k.does) for k in KEYS),
    ("ctrl+p", "command palette: every action by name"),
    ("tab", "move between the message box, conversation, wire filter and table"),
)
