"""A raw-wire brain whose words are hostile text, served on loopback from a thread, for the
printer tests: terminal escapes, Rich/Textual markup, ``<!--<script>``, bidi overrides and
forged Markdown lines in its greeting and its Error messages.

It greets (the greeting carries markup), reports three non-fatal Errors whose messages are
markup and terminal escapes, echoes the caller's first line (whatever it holds), then ends
the session with a fatal ``Error{message: "[/x]"}``, the message that once crashed the app.
"""

from __future__ import annotations

import asyncio
from contextlib import AbstractContextManager

from fixtures_bad_brains import WireBrain, served_in_thread

from sandbox.wire import pb

#: Every kind of hostile text at once: markup, ESC and OSC (clear screen, window title, an
#: OSC 8 link), an 8-bit CSI, a bidi override, a forged Markdown item and heading, and what
#: would end or comment out the page's data block.
HOSTILE = (
    "[bold red]x[/] [@click=app.quit]q[/] \x1b[2J\x1b]0;owned\x07 "
    "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\ \x9b31m \u202eevil\u202c "
    "\r- forged item\n# forged heading <!--<script> </script>"
)
GREETING = "Hello [bold red]x[/] and [@click=app.quit]q[/] from a hostile brain."
#: The non-fatal Errors' messages, in the order they are sent.
ERRORS = ("[bold red]x[/]", "[@click=app.quit]q[/]", HOSTILE)
FATAL = "[/x]"


class SaysHostileText(WireBrain):
    """See the module doc."""

    greeting = GREETING
    fatal = FATAL

    async def on_start(self) -> None:
        await self.say(1, self.greeting)
        for message in ERRORS:
            await self.send(pb.Error(code=pb.ERROR_CODE_INTERNAL, message=message))

    async def on_message(self, turn: int, text: str) -> None:
        await self.say(turn, f"You said {text}")
        await asyncio.sleep(0.5)  # the echo plays before the session ends
        await self.send(pb.Error(code=pb.ERROR_CODE_INTERNAL, message=self.fatal, fatal=True))


def hostile_text_brain(
    brain: type[SaysHostileText] = SaysHostileText,
) -> AbstractContextManager[str]:
    """Serve ``brain`` from a thread of its own; yields its URL."""
    return served_in_thread(brain)
