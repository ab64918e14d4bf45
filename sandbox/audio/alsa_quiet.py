"""Keep ALSA's own error lines ("underrun occurred", probing messages) off the terminal.

alsa-lib prints through a process-wide handler straight to file descriptor 2, which is
where the terminal app draws; a late underrun would scribble over the screen. The handler
is replaced with one that drops the lines; underruns are still counted by the sinks.
"""

from __future__ import annotations

import ctypes
import ctypes.util

# (file, line, function, err, fmt, ...): variadic in C; a no-op need not read the rest.
_HANDLER = ctypes.CFUNCTYPE(
    None, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p
)
_installed: list[object] = []  # keeps the callback alive as long as ALSA may call it


def quiet_alsa() -> None:
    """Install the silent handler once; a system without alsa-lib needs nothing."""
    if _installed:
        return
    name = ctypes.util.find_library("asound")
    if name is None:
        return
    try:
        library = ctypes.CDLL(name)
    except OSError:
        return
    handler = _HANDLER(lambda *_args: None)
    library.snd_lib_error_set_handler(handler)
    _installed.append(handler)
