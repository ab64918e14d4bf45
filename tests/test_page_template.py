"""The exported page's template is filled in one pass (string.Template): a title or a brain's
words that spell a placeholder stay text, and nothing can close the data's script element."""

from __future__ import annotations

import html
import json
import re

import pytest

from sandbox.record.page.build import page_html

#: Every spelling of a placeholder, old and new, that text might carry.
PLACEHOLDERS = ["{{TITLE}}", "{{AUDIO}}", "{{DATA}}", "$TITLE", "${AUDIO}", "$DATA", "$$", "$"]


def embedded(page: str) -> object:
    """The JSON the page's script reads."""
    match = re.search(r'<script type="application/json" id="call-data">(.*?)</script>', page, re.S)
    assert match is not None
    return json.loads(match.group(1))


@pytest.mark.parametrize("spelt", PLACEHOLDERS)
def test_a_placeholder_in_the_title_or_the_data_stays_text(spelt: str) -> None:
    data = {"said": f"a brain says {spelt} </script><!-- <script>", "n": 1}
    audio = '<audio id="audio" preload="auto" src="data:audio/ogg;base64,AAAA"></audio>'
    page = page_html(data, f"call · {spelt} <b>", audio)
    assert f"<title>{html.escape(f'call · {spelt} <b>')}</title>" in page
    assert page.count(audio) == 1
    assert embedded(page) == data
    assert page.count("</script>") == page.count("<script")  # the data closed nothing early


def test_every_placeholder_is_filled() -> None:
    page = page_html({"k": "v"}, "t", "<audio></audio>")
    assert "{{" not in page and "${" not in page and "$TITLE" not in page and "$DATA" not in page
