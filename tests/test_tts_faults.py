"""No text a brain sends stops speech for the call (issue 28, item 1).

A clause the synthesizer cannot say is said normalized, or not said from there on; the
synthesis thread survives anything one clause does; the unit stops where its text could not
be said, its Finalize is what played, the brain gets a non-fatal INTERNAL Error naming the
unit, the call record a ``speech_unsaid`` finding, and later units play.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from brain_process import reported_call, serving
from call_rig import Rig

from sandbox.audio.playout import PlayoutClock
from sandbox.audio.sinks import MemorySink
from sandbox.audio.speech_out import SpeechOut
from sandbox.audio.tts import MAX_WORD_CHARS, Clip, Synthesizer, Trouble
from sandbox.call.inputs import HangUp
from sandbox.call.played import ClauseUnsaid, Played, UnitPlayed, WordPlayed
from sandbox.call.units import Fate
from sandbox.paths import HOME_ENV
from sandbox.record.call_record import build, heard_from
from sandbox.record.report import SpeechUnsaid, finding_kind, record_json
from sandbox.record.store import SessionStore
from sandbox.record.stored_call import StoredCall
from sandbox.replay.timeline import RecordNote, Replayer
from sandbox.wire import pb

SPEECH_UNSAID = finding_kind(SpeechUnsaid)
#: The text that killed the synthesis thread: a clause ending in two full stops.
WELL = "Well.. let me see."
#: A "word" no caller could follow: the text before it is said, the rest is not.
BLOB = "k" * (MAX_WORD_CHARS + 50)


def said(clips: list[Clip]) -> list[str]:
    return [w.text for c in clips for w in c.words]


# ------------------------------------------------------------------ the synthesizer


def test_two_full_stops_are_said_in_full_and_leave_nothing_for_the_next_text(
    synthesizer: Synthesizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """espeak-ng kept the second stop of "Well.." and read it into the next text ("dot
    let me see"), so the audio no longer matched the phonemes the words were placed on."""
    voiced: list[list[str]] = []
    to_ids = synthesizer._piper.phonemes_to_ids

    def spy(phonemes: list[str]) -> list[int]:
        voiced.append(phonemes)
        return to_ids(phonemes)

    monkeypatch.setattr(synthesizer._piper, "phonemes_to_ids", spy)
    troubles: list[Trouble] = []
    first = list(synthesizer.synthesize("Well.. ", troubles.append))
    after = list(synthesizer.synthesize("let me see.", troubles.append))
    fresh = list(synthesizer.synthesize("let me see.", troubles.append))
    assert troubles == []
    assert said(first) == ["Well.."] and said(after) == said(fresh) == ["let", "me", "see."]
    assert voiced[1] == voiced[2]  # "let me see." voiced alike after "Well.." and after itself
    assert list(synthesizer.synthesize(WELL)) and said(list(synthesizer.synthesize(WELL))) == [
        "Well..",
        "let",
        "me",
        "see.",
    ]


def test_a_word_too_long_to_say_stops_the_text_there(synthesizer: Synthesizer) -> None:
    troubles: list[Trouble] = []
    text = f"Here it is: {BLOB} and more."
    clips = list(synthesizer.synthesize(text, troubles.append))
    assert said(clips) == ["Here", "it", "is:"]
    (trouble,) = troubles
    assert not trouble.repaired and trouble.text == f"{BLOB} and more."
    assert f"{len(BLOB)} characters" in trouble.reason


def test_text_that_fails_as_written_is_said_normalized_under_its_own_words(
    synthesizer: Synthesizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    phonemize = synthesizer.phonemize

    def fails_on_runs(text: str) -> list[list[str]]:
        if ".." in text:
            raise RuntimeError("espeak choked")
        return phonemize(text)

    monkeypatch.setattr(synthesizer, "phonemize", fails_on_runs)
    troubles: list[Trouble] = []
    clips = list(synthesizer.synthesize(WELL, troubles.append))
    assert said(clips) == ["Well..", "let", "me", "see."]  # named as written
    assert "".join(c.text for c in clips) == WELL
    (trouble,) = troubles
    assert trouble.repaired and trouble.text == WELL and "espeak choked" in trouble.reason


def test_text_that_fails_even_normalized_is_not_said_nor_what_follows(
    synthesizer: Synthesizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = synthesizer._piper.phoneme_ids_to_audio
    runs: list[None] = []

    def only_once(*args: Any, **kwargs: Any) -> Any:
        runs.append(None)
        if len(runs) > 1:
            raise MemoryError("onnxruntime gave up")
        return run(*args, **kwargs)

    monkeypatch.setattr(synthesizer._piper, "phoneme_ids_to_audio", only_once)
    for rest in ("Second one. Third.", "Then " + "and on " * 80 + "past a piece of its own."):
        runs.clear()
        troubles: list[Trouble] = []
        clips = list(synthesizer.synthesize(f"First one. {rest}", troubles.append))
        assert said(clips) == ["First", "one."]
        (trouble,) = troubles
        assert not trouble.repaired and trouble.text == rest  # all of it, to the end
        assert "onnxruntime gave up" in trouble.reason


# ------------------------------------------------------------------------ speech out


def collect(out: SpeechOut, speech_id: int, timeout: float = 60.0) -> list[Played]:
    """What playout reported until unit ``speech_id`` played out."""
    seen: list[Played] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        seen += out.advance(0)
        if any(isinstance(e, UnitPlayed) and e.speech_id == speech_id for e in seen):
            return seen
        time.sleep(0.01)
    raise AssertionError(f"unit {speech_id} never played out: {seen}")


@pytest.fixture
def speech_out(synthesizer: Synthesizer) -> Iterator[SpeechOut]:
    sink = MemorySink(synthesizer.sample_rate)
    out = SpeechOut(lambda _voice: synthesizer, lambda **cb: PlayoutClock(sink, **cb))
    out.start()
    yield out
    out.stop()


def speak_units(out: SpeechOut, *texts: str) -> None:
    for sid, text in enumerate(texts, start=1):
        out.open_unit(sid, pb.VOICE_JOE, pb.LANGUAGE_EN, 0)
        out.speak(sid, text, 0)
        out.close_unit(sid, 0)


def words_of(events: list[Played], speech_id: int) -> list[str]:
    return [e.word for e in events if isinstance(e, WordPlayed) and e.speech_id == speech_id]


def test_the_unit_that_silenced_the_call_plays_in_full_and_so_does_the_next(
    speech_out: SpeechOut,
) -> None:
    """The report's case: its first clause, "Well.. ", went to Piper on its own."""
    speak_units(speech_out, WELL, "Later unit.")
    events = collect(speech_out, 2)
    assert not [e for e in events if isinstance(e, ClauseUnsaid)]
    assert words_of(events, 1) == ["Well..", "let", "me", "see."]
    assert words_of(events, 2) == ["Later", "unit."]


def test_a_clause_that_cannot_be_said_stops_its_unit_and_the_next_unit_plays(
    speech_out: SpeechOut,
) -> None:
    speak_units(speech_out, f"{WELL} Here: {BLOB} and the rest.", "Later unit.")
    events = collect(speech_out, 2)
    (unsaid,) = [e for e in events if isinstance(e, ClauseUnsaid)]
    assert unsaid.speech_id == 1 and BLOB.startswith(unsaid.text)
    assert "too long to say" in unsaid.reason
    assert words_of(events, 1) == ["Well..", "let", "me", "see.", "Here:"]
    assert UnitPlayed(1) in events  # what was queued before the clause played out
    assert words_of(events, 2) == ["Later", "unit."]
    assert speech_out.synthesizing


def test_the_synthesis_thread_survives_any_exception_one_clause_raises(
    speech_out: SpeechOut, synthesizer: Synthesizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug the synthesizer's own guard does not catch (here: it raises outright)."""
    synthesize = synthesizer.synthesize

    def buggy(text: str, trouble: Any = None, *, language: int | None = None) -> Iterator[Clip]:
        if "boom" in text:
            raise RuntimeError("a bug met by one clause")
        return synthesize(text, trouble, language=language)

    monkeypatch.setattr(synthesizer, "synthesize", buggy)
    speak_units(speech_out, "Fine, boom goes this one.", "Later unit.")
    events = collect(speech_out, 2)
    (unsaid,) = [e for e in events if isinstance(e, ClauseUnsaid)]
    assert unsaid == ClauseUnsaid(1, "boom goes this one.", "RuntimeError: a bug met by one clause")
    assert words_of(events, 1) == ["Fine,"]
    assert words_of(events, 2) == ["Later", "unit."]
    assert speech_out.synthesizing


# ------------------------------------------------------------------------- the core


def test_the_core_tells_the_brain_and_finalizes_what_played() -> None:
    rig = Rig()
    rig.start()
    rig.say(7, 1, f"{WELL} ", "Then the rest.")
    rig.say(8, 1, "Later unit.")
    core = rig.core
    errors = rig.feed(ClauseUnsaid(7, "Then the rest.", "espeak choked"))
    assert rig.feed(ClauseUnsaid(7, "Then the rest.", "again")) == []  # told once
    (error,) = rig.errors()
    assert error.code == pb.ERROR_CODE_INTERNAL and not error.fatal
    assert "speech_id 7 (turn 1)" in error.message and "'Then the rest.'" in error.message
    assert errors and core.ended is None
    for word in ("Well..", "let", "me", "see."):
        rig.feed(WordPlayed(7, word))
    rig.feed(UnitPlayed(7))
    assert rig.finalizes() == [(7, WELL)]  # a verbatim prefix: what played, not all it sent
    assert core.unit(7) is not None and core.unit(7).fate is Fate.UNSPOKEN  # type: ignore[union-attr]
    rig.feed(WordPlayed(8, "Later"))
    rig.feed(WordPlayed(8, "unit."))
    rig.feed(UnitPlayed(8))
    assert rig.finalizes() == [(7, WELL), (8, "Later unit.")]
    findings = record_json(build(heard_from(core)))["findings"]
    assert [f for f in findings if f["kind"] == SPEECH_UNSAID] == [
        {
            "kind": SPEECH_UNSAID,
            "speech_id": 7,
            "turn": 1,
            "detail": "could not say 'Then the rest.': espeak choked",
        }
    ]


def test_a_greeting_none_of_which_could_be_said_is_a_silent_failure() -> None:
    rig = Rig()
    rig.start()
    rig.say(1, 1, BLOB)
    rig.feed(ClauseUnsaid(1, BLOB[:80], "too long to say"))
    rig.feed(UnitPlayed(1))
    assert rig.finalizes() == [(1, "")]
    rig.feed(HangUp())
    assert rig.core.outcome() == "not_reached"
    assert heard_from(rig.core).reason.startswith(
        "the greeting could not be spoken: a silent failure; could not say 'kkkk"
    )


def test_a_unit_cut_before_its_clause_failed_is_not_reported() -> None:
    rig = Rig()
    rig.start()
    rig.say(7, 1, "Hello there.")
    rig.feed(HangUp())
    assert rig.feed(ClauseUnsaid(7, "Hello", "late")) == []
    assert rig.errors() == []


# ------------------------------------------------------------------- end to end

SAYS_WELL = f'''
import json
from pathlib import Path

from sandbox.sdk import Brain, SpeechChunk, SpeechEnd, SpeechStart


class SaysWell(Brain):
    """Answers with a unit that cannot all be said, then one that can; notes what it hears."""

    async def on_user_message(self, session, msg):
        yield SpeechStart()
        yield SpeechChunk("{WELL} ")
        yield SpeechChunk("Here it is: {BLOB} and the rest.")
        yield SpeechEnd()
        yield SpeechStart()
        yield SpeechChunk("Is there anything else?")
        yield SpeechEnd()

    async def on_error(self, session, err):
        self._note({{"error": err.code, "origin": err.origin, "message": err.message,
                     "fatal": err.fatal}})

    async def on_finalize(self, session, fin):
        self._note({{"speech_id": fin.speech_id, "heard": fin.heard}})

    def _note(self, what):
        with Path("heard.jsonl").open("a") as notes:
            notes.write(json.dumps(what) + "\\n")
'''

TYPED = "[[step]]\ntype = 'hello'\n[[step]]\nend = true\n"


@pytest.mark.audio
def test_a_real_call_goes_on_past_a_clause_it_cannot_say(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``sandbox call --audio real`` through real Piper against a brain in its own process:
    "Well.. let me see." is said, the blob after it is not, the brain hears why and what
    was heard, the record keeps the finding, and the next unit plays."""
    home = tmp_path / "home"
    (tmp_path / "says_well.py").write_text(SAYS_WELL)
    with serving(tmp_path, home, "./says_well.py:SaysWell") as (url, _proc):
        done, report = reported_call(
            tmp_path, home, TYPED, "--brain", url, "--audio", "real", "--speaker", "none"
        )
        deadline = time.monotonic() + 10  # the brain notes the last Finalize as it lands
        notes = tmp_path / "heard.jsonl"
        while time.monotonic() < deadline and notes.read_text().count("speech_id") < 2:
            time.sleep(0.05)
    assert done.returncode == 0, done.stdout + done.stderr
    first, later = report["units"]
    assert first["fate"] == "unspoken" and first["heard"] == f"{WELL} Here it is:"
    assert later["fate"] == "played" and later["heard"] == "Is there anything else?"
    heard = [json.loads(line) for line in notes.read_text().splitlines()]
    (error,) = [n for n in heard if "error" in n]
    assert error["error"] == "INTERNAL" and error["fatal"] is False
    assert error["origin"] == "voqalize"  # an Error frame, not the SDK's own
    assert f"speech_id {first['speech_id']} " in error["message"]
    finalized = [n for n in heard if "speech_id" in n]
    assert finalized == [
        {"speech_id": first["speech_id"], "heard": f"{WELL} Here it is:"},
        {"speech_id": later["speech_id"], "heard": "Is there anything else?"},
    ]
    (finding,) = [f for f in report["record"]["findings"] if f["kind"] == SPEECH_UNSAID]
    assert finding["speech_id"] == first["speech_id"] and "too long to say" in finding["detail"]
    # The replay of the stored session says it too: the unit unspoken, and why, in place.
    monkeypatch.setenv(HOME_ENV, str(home))
    with SessionStore() as store:
        sid = report["session_id"]
        replayer = Replayer.of(StoredCall.load(store, store.find(sid)))
    replayer.seek(replayer.duration_ms)
    assert replayer.view.units[first["speech_id"]].fate is Fate.UNSPOKEN
    notes_shown = [e.words for e in replayer.view.entries if isinstance(e, RecordNote)]
    assert any(n.startswith(f"{SPEECH_UNSAID}: unit {first['speech_id']} ") for n in notes_shown)
