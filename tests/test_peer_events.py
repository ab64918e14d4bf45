"""The peer's event log as ``peer_live.py`` writes it: when each turn reached its fixed
"LLM", and the caller's words it was asked to answer (its Whisper's, for the word error rate
on the same turns)."""

from __future__ import annotations

import json
from pathlib import Path

from sandbox_bench.peer_process import PeerEvents


def _log(path: Path, events: list[dict[str, object]]) -> PeerEvents:
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    return PeerEvents(path)


def test_a_turn_at_the_peers_llm_carries_the_last_user_message_it_was_asked(
    tmp_path: Path,
) -> None:
    greeting = {"role": "assistant", "content": "Hello."}
    events = _log(
        tmp_path / "events.jsonl",
        [
            {"t": 1.0, "event": "ready"},
            {"t": 2.0, "event": "LLMContextIn", "src": "llm", "n_messages": 1,
             "messages": [greeting]},
            {"t": 5.0, "event": "LLMContextIn", "src": "llm", "n_messages": 3,
             "messages": [greeting, {"role": "user", "content": "How much is it?"},
                          {"role": "assistant", "content": "Ten."}]},
            {"t": 9.0, "event": "LLMContextIn", "src": "llm", "n_messages": 5,
             "messages": [greeting, {"role": "user", "content": [
                 {"type": "text", "text": "Can I pay"}, {"type": "text", "text": "by card?"}]}]},
            {"t": 12.0, "event": "LLMContextIn", "src": "llm"},
        ],
    )  # fmt: skip
    assert events.ready
    assert events.turn_after(1.5) == (2.0, None)  # the greeting's context: no caller words
    assert events.turn_after(4.0) == (5.0, "How much is it?")
    assert events.turn_after(6.0) == (9.0, "Can I pay by card?")
    assert events.turn_after(10.0) == (12.0, None)  # an older peer logs no messages
    assert events.turn_after(12.0) is None
