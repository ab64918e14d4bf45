"""The value types every option goes through (``sandbox/option_values.py``): each right
value parsed as it means, each wrong one refused in words that quote it short and escaped."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sandbox.errors import UserError
from sandbox.option_values import checked, name, number, path, port, whole


def _refusal(parse: Callable[[str], Any], text: str) -> str:
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        parse(text)
    words = str(refused.value)
    assert words.isprintable() and len(words) < 200, words
    return words


def test_a_whole_number_in_its_range() -> None:
    rate = whole(1, 10_000, "ms")
    assert rate("1") == 1 and rate(" 10000 ") == 10_000
    assert _refusal(rate, "0") == "must be a whole number of ms from 1 to 10,000 (got 0)"
    assert _refusal(rate, "1.5") == "must be a whole number of ms from 1 to 10,000, not '1.5'"
    assert "'99999999" in _refusal(rate, "9" * 4000)  # quoted short, not 4,000 digits long
    assert "not '\\x1b[2J'" in _refusal(rate, "\x1b[2J")


def test_a_finite_number_in_its_range() -> None:
    ramp = number(0, 3600, "seconds")
    assert ramp("0") == 0.0 and ramp("2.5") == 2.5
    for text, got in (("inf", "inf"), ("nan", "nan"), ("-1", "-1"), ("1e308", "1e+308")):
        assert _refusal(ramp, text) == f"must be a number of seconds from 0 to 3,600 (got {got})"


def test_a_port_and_where_0_is_any_free_one() -> None:
    assert port(any_free=True)("0") == 0 and port(any_free=False)("65535") == 65_535
    assert _refusal(port(any_free=False), "0") == "must be a whole number from 1 to 65,535 (got 0)"
    assert _refusal(port(any_free=True), "65536") == (
        "must be a whole number from 0 to 65,535 (0: any free port) (got 65,536)"
    )


def test_a_name_is_printable_text_not_empty_not_long() -> None:
    assert name("[b]x[/b]") == "[b]x[/b]"  # markup is text here: nothing renders it
    assert _refusal(name, "") == "must not be empty"
    assert _refusal(name, "a\nb") == "must have no control characters (got 'a\\nb')"
    assert _refusal(name, "x" * 1001) == "must be at most 1,000 characters (got 1,001)"


def test_a_file_name_the_system_could_open() -> None:
    assert path("reports/call.json") == Path("reports/call.json") and path(".") == Path()
    assert _refusal(path, "a\x00b") == "a file name must have no control characters (got 'a\\x00b')"
    assert _refusal(path, "x" * 256) == "a file name's parts are at most 255 characters (got 256)"
    assert _refusal(path, "a/" * 2049) == "a file name must be at most 4,096 characters (got 4,098)"


def test_a_checks_words_become_the_refusal() -> None:
    def even(text: str) -> int:
        if int(text) % 2:
            raise UserError(f"{text} is odd")
        return int(text)

    assert checked(even)("4") == 4
    assert _refusal(checked(even), "3") == "3 is odd"
    assert _refusal(checked(even), "") == "must not be empty"  # a name first
    assert "invalid literal" in _refusal(checked(even, named=False), "")  # its own words
