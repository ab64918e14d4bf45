"""The page itself: the template (``page.html``, CSS and script inline) filled with the
session's data and, for a real-audio call, its sound as an embedded ``data:`` URI. The file
makes no network request: it opens offline in any browser."""

from __future__ import annotations

import html
import json
from importlib import resources

from sandbox.record.page.audio import mixed_legs, opus_data_uri
from sandbox.record.page.data import page_data
from sandbox.record.store import SessionRow, SessionStore


def session_page(store: SessionStore, row: SessionRow) -> str:
    """The session ``row`` as one self-contained HTML document."""
    data = page_data(store, row)
    audio = ""
    if row.mode == "audio":
        uri = opus_data_uri(mixed_legs(row.id, int(data["session"]["duration_ms"])))
        audio = f'<audio id="audio" controls preload="auto" src="{uri}"></audio>'
    template = resources.files("sandbox.record.page").joinpath("page.html").read_text("utf-8")
    # Inside <script>, only "</" can end the element early: escape it in the JSON.
    payload = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
    title = html.escape(f"Voqalize Sandbox · call {row.id[:12]} · {row.status}")
    return (
        template.replace("{{TITLE}}", title)
        .replace("{{AUDIO}}", audio)
        .replace("{{DATA}}", payload)
    )
