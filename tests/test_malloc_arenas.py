"""The arena cap is taken by glibc (this machine's C library) before any thread starts."""

from __future__ import annotations

import platform

import pytest

from sandbox.malloc_arenas import limit_malloc_arenas


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's mallopt")
def test_glibc_takes_the_cap() -> None:
    assert limit_malloc_arenas() is True
