"""ALSA's own error lines never reach the terminal the app draws on."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import ctypes, ctypes.util, sys
{quiet}
lib = ctypes.CDLL(ctypes.util.find_library("asound"))
pcm = ctypes.c_void_p()
lib.snd_pcm_open(ctypes.byref(pcm), b"no_such_pcm_device", 0, 0)
"""


def _stderr(quiet: bool) -> str:
    line = "from sandbox.audio.alsa_quiet import quiet_alsa; quiet_alsa()" if quiet else ""
    result = subprocess.run(
        [sys.executable, "-c", PROBE.format(quiet=line)], capture_output=True, text=True
    )
    return result.stderr


def test_alsa_errors_print_without_the_quiet_handler_and_not_with_it() -> None:
    assert "ALSA lib" in _stderr(quiet=False)  # the probe really makes alsa-lib complain
    assert _stderr(quiet=True) == ""
