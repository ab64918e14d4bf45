"""Actions for ``session.dispatch``: RTVI ``ui-command`` messages, ``{command, payload}``.

An action is either

* a dataclass instance: the command is the class's ``command`` class attribute
  (a ``ClassVar[str]``, not a field) if it has one, else its name in snake_case
  (``ShowSection`` → ``"show_section"``), and the payload is its fields
  (``dataclasses.asdict``); or
* a ``(command, payload)`` pair, e.g. ``("show_section", {"section": "pricing"})``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any

#: What ``session.dispatch`` takes; see the module doc.
Action = Any

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def ui_command(action: Action) -> dict[str, Any]:
    """The ``ui-command`` data for one action; TypeError says what an action may be."""
    if dataclasses.is_dataclass(action) and not isinstance(action, type):
        fields = {f.name for f in dataclasses.fields(action)}
        command = None if "command" in fields else getattr(type(action), "command", None)
        if not isinstance(command, str):
            command = _CAMEL_BOUNDARY.sub("_", type(action).__name__).lower()
        return {"command": command, "payload": dataclasses.asdict(action)}
    if isinstance(action, tuple) and len(action) == 2:
        command, payload = action
        if isinstance(command, str) and command and isinstance(payload, Mapping):
            return {"command": command, "payload": dict(payload)}
    raise TypeError(
        f"cannot dispatch {action!r}: an action is a dataclass instance or a "
        "(command, payload) pair such as ('show_section', {'section': 'pricing'})"
    )
