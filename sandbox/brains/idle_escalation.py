"""How the built-in brains let an absent caller go: UserIdle's ``level`` counts the nudges
in a row with no speech between (docs/wire.md), so a brain can escalate on it. They nudge at
the first levels and say goodbye at the next one; once the goodbye's Finalize says it was
heard whole, the brain ends the call (``session.end()``). A caller who cuts into the goodbye
is back, and the call goes on."""

from __future__ import annotations

from sandbox.sdk import Finalize, Session

#: Idle levels answered with a nudge; the level after the last one says goodbye.
NUDGE_LEVELS = 2


def says_goodbye(level: int) -> bool:
    """The idle turn of ``level`` says goodbye, after which the brain ends the call."""
    return level > NUDGE_LEVELS


class LettingGo:
    """One session's goodbye: said at an idle turn, ended on at its Finalize."""

    def __init__(self) -> None:
        self._saying = False

    def idle(self, level: int) -> bool:
        """An idle turn of ``level`` arrived: whether its line is the goodbye."""
        self._saying = says_goodbye(level)
        return self._saying

    def finalized(self, session: Session, fin: Finalize) -> None:
        """A unit's Finalize: the goodbye's, while one is said (an idle turn is minted only
        when nothing plays, so its unit is the only one out), ends the call if heard whole."""
        if self._saying:
            self._saying = False
            if not fin.interrupted:
                session.end()
