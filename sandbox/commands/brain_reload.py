"""``sandbox brain --reload``: the author edits their brain's file and talks again.

The file's folder is watched (watchfiles: inotify on Linux, FSEvents on macOS, a poll where
neither works), so an editor that saves by renaming a new file onto the old is seen too. When
the file changes it is loaded anew; new sessions get the new class, and every brain already in a
call is moved onto it (its ``__class__`` swapped, its state kept), so the next turn of the
call in progress runs the edited code without anyone redialling. Each call in progress is
told, with the sandbox's reload notice (:mod:`sandbox.record.reload_notice`), so its record
marks the moment. An edit that does not load is shown as the author's error and the
previous class goes on serving.
"""

from __future__ import annotations

import gc
import os
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from watchfiles import Change, awatch

from sandbox.brains.authored import Authored, BrainSource, reload
from sandbox.errors import UserError
from sandbox.record.reload_notice import RTVI_TYPE, ReloadNotice
from sandbox.sdk import Brain, BrainConnection


@dataclass
class Reloader:
    """Makes the author's brains (``make`` is the factory ``serve`` takes) and, on
    :meth:`check`, loads their file again if it changed."""

    source: BrainSource
    current: Authored
    _live: weakref.WeakSet[Brain] = field(default_factory=weakref.WeakSet)
    _stamp: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        self._stamp = _stamp(self.current.file)

    def make(self) -> Brain:
        """A fresh brain of the current class, remembered so a reload can move it on."""
        brain = self.current.cls()
        self._live.add(brain)
        return brain

    def check(self) -> str | None:
        """Load the file again if it changed since the last look; what to tell the author
        (None: unchanged)."""
        stamp = _stamp(self.current.file)
        if stamp is None or stamp == self._stamp:
            return None  # unchanged, or gone for a moment while an editor saves it
        self._stamp = stamp
        old = self.current.cls.__name__
        try:
            self.current = reload(self.source, self.current.file)
        except UserError as exc:
            return f"{exc}\nStill serving the previous {old}: fix the file and save it again."
        moved = kept = 0
        gc.collect()  # a brain whose call ended lingers in reference cycles: count live ones
        for brain in list(self._live):
            try:
                brain.__class__ = self.current.cls
                moved += 1
            except TypeError:  # an incompatible layout (__slots__): that call keeps the old
                kept += 1
        words = f"Reloaded {self.current.file.name}: serving {self.current.cls.__name__}"
        if moved:
            words += f"; {moved} call(s) in progress go on with the new code"
        if kept:
            words += f"; {kept} call(s) keep the old {old} (its layout changed)"
        return words + "."

    def tell(self, calls: Iterable[BrainConnection]) -> None:
        """Send each call in progress the reload notice: the file, the class now serving, and
        whether that call's brain was moved onto it or keeps the old one."""
        for call in calls:
            session = call.session
            if session is None or session.closed:
                continue  # not started (it starts on the new class), or over
            moved = type(call.brain) is self.current.cls  # check() swapped it, layout allowing
            notice = ReloadNotice(self.current.file.name, self.current.cls.__name__, moved)
            session.send_rtvi(RTVI_TYPE, notice.data())

    async def watch(
        self, say: Callable[[str], None], calls: Callable[[], Iterable[BrainConnection]]
    ) -> None:
        """Check the file each time something changes it, until cancelled, telling ``say`` of
        each reload and each of the ``calls`` in progress it reloaded (:meth:`tell`)."""
        file = self.current.file

        def concerns(_change: Change, path: str) -> bool:
            return Path(path).name == file.name

        async for _changes in awatch(file.parent, watch_filter=concerns, recursive=False):
            serving = self.current
            words = self.check()  # the stamp decides: a touch that changed nothing is no edit
            if words is not None:
                say(words)
            if self.current is not serving:  # loaded anew, not a broken edit
                self.tell(calls())


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size
