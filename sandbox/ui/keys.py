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
    Key(
        "f7", "waterfall", "waterfall", "Last turn's latency waterfall",
        "draw the last caller turn's stages, voice end to first audio, on one time axis",
    ),
    Key("f10", "end_call", "end call", "End the call", "hang up; the report is written"),
    Key("ctrl+q", "quit", "quit", "Quit", "end the call if it is live, then quit"),
)  # fmt: skip

#: The replay's keys (``sandbox replay``).
REPLAY_KEYS = (
    Key("space", "toggle_play", "play/pause", "Play or pause", "play or pause the replay"),
    Key("left", "seek(-5000)", "-5 s", "Back 5 s", "move the playhead back 5 seconds"),
    Key("right", "seek(5000)", "+5 s", "Forward 5 s", "move the playhead on 5 seconds"),
    Key("p", "previous_stop", "prev", "Previous turn or cut", "jump to the previous turn or cut"),
    Key("n", "next_stop", "next", "Next turn or cut", "jump to the next caller turn or cut"),
    Key("minus", "speed(-1)", "slower", "Slower", "step the speed down (to 0.5x)"),
    Key("plus", "speed(1)", "faster", "Faster", "step the speed up (to 4x)"),
    Key("m", "toggle_leg('mic')", "mic", "Caller's leg", "mute or unmute the caller's leg"),
    Key("s", "toggle_leg('speaker')", "bot", "Bot's leg", "mute or unmute the bot's leg"),
    Key(
        "w", "waterfall", "waterfall", "This turn's latency waterfall",
        "draw the latency waterfall of the caller turn at the playhead",
    ),
    Key("ctrl+q", "quit", "quit", "Quit", "leave the replay"),
)  # fmt: skip

#: The help screen's rows: the keys above and the ones Textual and the message box give.
HELP_ROWS = (
    ("enter", "send what you typed as the caller's turn (RTVI send-text)"),
    *((k.key, k.does) for k in KEYS),
    ("ctrl+p", "command palette: every action by name"),
    ("tab", "move between the message box, conversation, wire filter and table"),
)
