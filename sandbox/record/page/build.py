"""The page itself: the template (``page.html``, CSS and script inline) filled with the
session's data and, for a real-audio call, its sound as an embedded ``data:`` URI. The file
makes no network request: it opens offline in any browser."""

from __future__ import annotations

import html
from importlib import resources
from string import Template
from typing import Any

from sandbox.record.page.data import page_data
from sandbox.record.page.opus_mix import mixed_legs, opus_data_uri
from sandbox.record.plain_text import json_text
from sandbox.record.session_kinds import CallMode
from sandbox.record.store import short_id
from sandbox.record.stored_call import StoredCall

#: The element the page's data sits in, as the template writes it.
DATA_OPEN = '<script type="application/json" id="call-data">'


def session_page(call: StoredCall) -> str:
    """The stored call as one self-contained HTML document."""
    row = call.row
    data = page_data(call)
    audio = ""
    if row.mode is CallMode.AUDIO:
        uri = opus_data_uri(mixed_legs(row.id, int(data["session"]["duration_ms"])))
        # No controls of its own: the page's play button is the one way to play it.
        audio = f'<audio id="audio" preload="auto" src="{uri}"></audio>'
    scene = data["scene"]
    what = f"{scene['title']} · call {short_id(row.id)}" if scene else f"call {short_id(row.id)}"
    return page_html(data, f"Voqalize Sandbox · {what} · {row.status}", audio)


def page_html(data: dict[str, Any], title: str, audio: str = "") -> str:
    """The template filled: ``title`` as text, ``audio`` as the element it is, ``data`` as
    the JSON the page's script reads."""
    page = resources.files("sandbox.record.page").joinpath("page.html").read_text("utf-8")
    # No text may end the data's <script> element ("</script>") or open a comment in it
    # ("<!--" then "<script>" swallows the page's own script): json_text writes every "<"
    # as "\u003c", so none of these can be spelt in the embedded JSON.
    payload = json_text(data, html=True)
    # One pass: what fills a placeholder is never read again, so no text (a scene's title, a
    # brain's words in the data) can spell another placeholder and be filled in turn.
    return Template(page).substitute(TITLE=html.escape(title), AUDIO=audio, DATA=payload)
