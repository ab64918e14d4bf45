"""Heard-truth history, the way every shipped brain keeps it.

History holds what the caller actually heard, never what was generated. A unit is
enrolled on the very line that yields its SpeechStart, so the brain's queue and the
wire cannot disagree, and it is opened lazily — on the first non-empty piece — so a
hop that only calls a tool opens nothing and is owed no Finalize. Finalizes then pair
by order: the n-th belongs to the n-th unit opened, and one with nothing awaiting it
is the greeting.
"""

from __future__ import annotations

from collections import deque

from sandbox.sdk import Chunk, Finalize, Speech, SpeechEnd, SpeechStart

#: One history entry: ``{"role": "user" | "assistant" | "tool", "text": ...}``.
Entry = dict[str, str]


class HeardHistory:
    """The conversation as the caller knows it."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        # Units opened, oldest first. One Finalize is coming for each.
        self._awaiting: deque[Entry] = deque()

    @property
    def awaiting(self) -> int:
        """Units opened whose Finalize has not arrived yet."""
        return len(self._awaiting)

    def user(self, text: str) -> None:
        """The caller's committed turn, verbatim."""
        self.entries.append({"role": "user", "text": text})

    def tool(self, text: str) -> None:
        """What a tool hop did: part of the model's context, never something said."""
        self.entries.append({"role": "tool", "text": text})

    def reply(self) -> Reply:
        """A reply that opens its unit on its first non-empty piece."""
        return Reply(self)

    def enrol(self) -> Entry:
        """A new assistant entry, awaiting its Finalize (call where SpeechStart is yielded)."""
        unit: Entry = {"role": "assistant", "text": ""}
        self.entries.append(unit)
        self._awaiting.append(unit)
        return unit

    def on_finalize(self, fin: Finalize) -> None:
        """Replace a unit's text with what was heard; drop it if nothing was."""
        if not self._awaiting:
            if fin.heard:  # the greeting, already heard-truth
                self.entries.append({"role": "assistant", "text": fin.heard})
            return
        unit = self._awaiting.popleft()
        if fin.heard:
            unit["text"] = fin.heard
        else:  # nobody heard it, so it is not a turn
            self.entries = [e for e in self.entries if e is not unit]


class Reply:
    """One unit of a reply, opened lazily: ``say`` and ``end`` return what to yield."""

    def __init__(self, history: HeardHistory) -> None:
        self._history = history
        self._unit: Entry | None = None
        self._ended = False
        #: The SpeechStart yielded for this unit (its speech_id is set once the SDK took it).
        self.start: SpeechStart | None = None

    @property
    def text(self) -> str:
        """What this reply has said so far."""
        return self._unit["text"] if self._unit is not None else ""

    def say(self, piece: str) -> list[Speech]:
        """The speech for one piece; the first non-empty one opens (and enrols) the unit."""
        if not piece:  # never sent, so it opens nothing
            return []
        out: list[Speech] = []
        if self._unit is None:
            self._unit = self._history.enrol()
            self.start = SpeechStart()
            out.append(self.start)
        self._unit["text"] += piece
        out.append(Chunk(piece))
        return out

    def end(self) -> list[Speech]:
        """Close the unit if one was opened (once)."""
        if self._unit is None or self._ended:
            return []
        self._ended = True
        return [SpeechEnd()]
