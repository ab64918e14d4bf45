"""Hostile text through real Piper: the synthesizer, then the speech-out thread of a call.

Texts are drawn from what a brain may send and espeak-ng or Piper may choke on: runs of
punctuation, ellipses, emoji, bidi and zero-width marks, combining characters, CJK and other
scripts, digits, URLs, words too long to say, empty and whitespace-only clauses. Each text is
spoken as one unit, streamed in chunks so clause splitting is exercised too, through a real
:class:`SpeechOut` (its synthesis thread and real Piper, the playout clock on a fast clock
into no sink). Every clause the synthesizer was handed is checked (:func:`check_spoken`:
audio or nothing to say, words in the text's order and a prefix of it), and so is what the
unit played. A unit that never plays out with the thread gone is a dead thread: counted,
not assumed, and a new thread takes over. ``tests/test_tts_fuzz.py`` runs the same draw
through hypothesis.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sandbox.audio.playout import PlayoutClock
from sandbox.audio.sinks import NullSink
from sandbox.audio.speech_out import SpeechOut
from sandbox.audio.tts import MAX_WORD_CHARS, Clip, Synthesizer, Trouble, TroubleSink
from sandbox.audio.voices import VoiceEntry
from sandbox.audio.wordalign import is_sound, split_words
from sandbox.call.played import ClauseUnsaid, Played, UnitPlayed, UnitUnspoken, WordPlayed
from sandbox.wire import pb

if TYPE_CHECKING:
    from piper import PiperVoice

#: The draw is the same every run: a figure that changes means the code did.
SEED = 28
#: How much faster than real time the fuzz's playout clock runs.
PLAYOUT_SPEED = 50.0
#: A unit whose playout makes no progress for this long (seconds) is looked at: a dead
#: synthesis thread, or a stuck one.
STALL_S = 60.0

_WORDS = (
    "well", "let", "me", "see", "okay", "so", "Dr", "Mr", "St", "e.g", "i.e", "etc", "I'm",
    "can't", "O'Brien", "naïve", "café", "Zoë", "über", "rock'n'roll", "co-op", "A", "I",
)  # fmt: skip
_PUNCTUATION = ".,;:!?…—\u2013-'\"()[]{}*/\\&%#@~^_|<>`"
_ELLIPSES = ("..", "...", "....", "…", "……", ". . .", "..?", "?!", "!!", "?..", ".,", ",,")
_EMOJI = ("😀", "👍🏽", "🇺🇸", "❤️", "👨‍👩‍👧", "🎉🎉", "™", "©", "☃", "🤖")
_MARKS = ("\u200e", "\u200f", "\u202e", "\u202a", "\u2066", "\u2069", "\u200b", "\u200d")
_MARKS_TOO = ("\ufeff", "\u00ad", "\u2028", "\u0007", "\u001b[2J")
_SCRIPTS = (
    (0x4E00, 0x4E80),  # CJK ideographs
    (0x3040, 0x30FF),  # kana
    (0xAC00, 0xAC80),  # Hangul
    (0x0600, 0x06FF),  # Arabic
    (0x05D0, 0x05EA),  # Hebrew
    (0x0900, 0x097F),  # Devanagari
    (0x0400, 0x04FF),  # Cyrillic
    (0x1D400, 0x1D433),  # mathematical bold letters
)
_URLS = (
    "https://example.com/a/b?c=1&d=2",
    "www.voqalize.dev",
    "http://127.0.0.1:8080/",
    "user@example.org",
    "ftp://x.y/z.tar.gz",
)
_SPACES = (" ", " ", " ", "  ", "\n", "\t", "\u00a0", "\u3000", " \n ")


def _number(rng: random.Random) -> str:
    # Long digit strings are said digit group by digit group: seconds of audio each, which
    # the draw can spend on kinds of text instead.
    digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 6)))
    shape = rng.choice(("{}", "${}", "{}%", "{}.", "{},000", "{}.5", "+1 {}", "{}th", "{}:30"))
    return shape.format(digits)


def _token(rng: random.Random) -> str:
    """One whitespace-free stretch of hostile text."""
    kind = rng.choices(
        ("word", "punct", "ellipsis", "emoji", "mark", "combining", "script", "number",
         "url", "long", "glued"),
        weights=(30, 6, 8, 4, 4, 4, 5, 6, 3, 2, 8),
    )[0]  # fmt: skip
    match kind:
        case "word":
            return rng.choice(_WORDS)
        case "punct":
            return "".join(rng.choice(_PUNCTUATION) for _ in range(rng.randint(1, 6)))
        case "ellipsis":
            return rng.choice(_WORDS) + rng.choice(_ELLIPSES)
        case "emoji":
            return rng.choice(_EMOJI)
        case "mark":
            return rng.choice(_MARKS + _MARKS_TOO).join(("", rng.choice(_WORDS)))
        case "combining":
            marks = "".join(chr(rng.randint(0x300, 0x36F)) for _ in range(rng.randint(1, 4)))
            return rng.choice(_WORDS) + marks
        case "script":
            low, high = rng.choice(_SCRIPTS)
            return "".join(chr(rng.randint(low, high)) for _ in range(rng.randint(1, 6)))
        case "number":
            return _number(rng)
        case "url":
            return rng.choice(_URLS)
        case "long":
            # Said at most, one past it (not said), far past it; the first is slow to say.
            said, unsaid = MAX_WORD_CHARS, MAX_WORD_CHARS + 1
            size = rng.choice((24, 48, 48, 48, unsaid, unsaid, 3 * said, said))
            return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(size))
        case _:  # glued: two tokens and punctuation with no space between
            return _token(rng) + rng.choice(_ELLIPSES + tuple(_PUNCTUATION)) + _token(rng)


def hostile_text(rng: random.Random) -> str:
    """A clause or a few, as a brain might send them (sometimes empty or only whitespace)."""
    count = rng.choices((0, 1, 2, 3, 5), weights=(2, 5, 5, 4, 2))[0]
    parts = [_token(rng) for _ in range(count)]
    lead = rng.choice(("", "", "", *_SPACES))
    return lead + "".join(p + rng.choice(_SPACES) for p in parts[:-1]) + "".join(parts[-1:])


def has_sound(synthesizer: Synthesizer, word: str) -> bool:
    """Whether espeak says anything for ``word`` on its own (what makes a token a word)."""
    return any(is_sound(p) for sentence in synthesizer.phonemize(word) for p in sentence)


def check_spoken(
    synthesizer: Synthesizer, text: str, clips: Sequence[Clip], troubles: Sequence[Trouble]
) -> list[str]:
    """What is wrong with what :meth:`Synthesizer.synthesize` made of ``text``, in words:
    nothing, when the clips are slices of the text in order, their words its sounding tokens
    in order (all of them up to any unsaid rest, when nothing was repaired), each word's
    span inside its clip and after the one before, and any unsaid rest the text's tail."""
    problems: list[str] = []
    unsaid = [t for t in troubles if not t.repaired]
    if len(unsaid) > 1 or (unsaid and troubles[-1] is not unsaid[0]):
        problems.append(f"unsaid more than once, or went on after: {troubles}")
    cut = len(text)
    if unsaid:
        if not text.endswith(unsaid[0].text):
            problems.append(f"the unsaid {unsaid[0].text!r} is not the text's tail")
        cut = len(text) - len(unsaid[0].text)
    position = 0
    for clip in clips:
        found = text.find(clip.text, position)
        if found < 0:
            problems.append(f"clip text {clip.text!r} is not the next slice of the text")
        position = max(position, found) + len(clip.text)
        edge = 0
        for word in clip.words:
            if not edge <= word.start <= word.end <= len(clip.samples):
                problems.append(f"word {word.text!r} at {word.start}..{word.end} out of order")
            edge = word.end
    words = [w.text for c in clips for w in c.words]
    tokens = [t for t in split_words(text) if t.start < cut]
    remaining = iter(t.text for t in tokens)
    if not all(any(w == t for t in remaining) for w in words):
        problems.append(f"words {words} are not the text's tokens in order")
    if not troubles:
        sounding = [t.text for t in tokens if has_sound(synthesizer, t.text)]
        if words != sounding:
            problems.append(f"words {words} are not the sounding tokens {sounding}")
    return problems


class _Watched(Synthesizer):
    """The real synthesizer, keeping each call's text, clips and troubles to be checked."""

    def __init__(self, voice: VoiceEntry, piper_voice: PiperVoice) -> None:
        super().__init__(voice, piper_voice)
        self.calls: list[tuple[str, list[Clip], list[Trouble]]] = []

    def synthesize(
        self, text: str, trouble: TroubleSink | None = None, *, language: int | None = None
    ) -> Iterator[Clip]:
        clips: list[Clip] = []
        troubles: list[Trouble] = []
        self.calls.append((text, clips, troubles))

        def note(found: Trouble) -> None:
            troubles.append(found)
            if trouble is not None:
                trouble(found)

        for clip in super().synthesize(text, note, language=language):
            clips.append(clip)
            yield clip


@dataclass
class _Tally:
    examples: int = 0
    clauses: int = 0
    repaired: int = 0
    skipped: int = 0
    broken: int = 0  # clauses or units that broke a rule
    dead_threads: int = 0
    stalls: int = 0
    failures: list[str] = field(default_factory=list)

    def fail(self, text: str, problems: list[str]) -> None:
        self.broken += 1
        if len(self.failures) < 20:
            self.failures.append(f"{text[:80]!r}: {'; '.join(problems)}")


def _chunks(rng: random.Random, text: str) -> list[str]:
    """``text`` cut at random places, as a brain streams it."""
    cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(0, 3))))
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


def _speech_out(synthesizer: Synthesizer) -> SpeechOut:
    """A real speech-out thread, its playout clock running PLAYOUT_SPEED times fast."""
    start = time.monotonic()

    def fast() -> float:
        return start + (time.monotonic() - start) * PLAYOUT_SPEED

    def clock(**callbacks: Callable[..., None]) -> PlayoutClock:
        sink = NullSink(synthesizer.sample_rate)
        return PlayoutClock(sink, clock=fast, **callbacks)  # type: ignore[arg-type]

    out = SpeechOut(lambda _voice: synthesizer, clock)
    out.start()
    return out


def _play(
    synthesizer: Synthesizer, out: SpeechOut, sid: int, tally: _Tally
) -> tuple[SpeechOut, list[Played]]:
    """Wait for unit ``sid`` to play out; a dead synthesis thread is counted and replaced."""
    events: list[Played] = []
    seen = time.monotonic()
    while not any(isinstance(e, UnitPlayed) and e.speech_id == sid for e in events):
        if not out.synthesizing:
            tally.dead_threads += 1  # the call would have gone silent here
            out.stop()
            return _speech_out(synthesizer), events
        if time.monotonic() - seen > STALL_S:
            tally.stalls += 1
            out.cut()
            break
        more = out.advance(0)
        if more:
            events += more
            seen = time.monotonic()
        time.sleep(0.002)
    return out, events


def tts_fuzz(examples: int = 2000, progress: Callable[[str], None] | None = None) -> dict[str, int]:
    """Speak ``examples`` hostile texts, one unit each streamed in chunks, through a real
    speech-out thread and real Piper, and count: ``tts_examples``, ``tts_dead_threads``
    (must be 0), ``tts_repaired`` (clauses said normalized), ``tts_skipped`` (clauses whose
    rest was left unsaid), ``tts_clauses`` (calls to the synthesizer), ``tts_broken`` (a
    clause's clips or a unit's played words that broke a rule of :func:`check_spoken`, or
    a unit with words that played none and was not reported) and ``tts_stalls`` (a unit
    whose playout stopped moving for STALL_S)."""
    say = progress or (lambda _message: None)
    synthesizer = _Watched.load(progress=say)
    rng = random.Random(SEED)
    tally = _Tally()
    out = _speech_out(synthesizer)
    try:
        for sid in range(1, examples + 1):
            text = hostile_text(rng)
            out.open_unit(sid, pb.VOICE_JOE, pb.LANGUAGE_EN, 0)
            for chunk in _chunks(rng, text) if text else []:
                out.speak(sid, chunk, 0)
            out.close_unit(sid, 0)
            out, events = _play(synthesizer, out, sid, tally)
            tally.examples += 1
            _check_unit(synthesizer, text, events, tally)
            if sid % 250 == 0:
                say(f"tts fuzz: {sid} of {examples} texts spoken")
    finally:
        out.stop()
    for failure in tally.failures:
        say(f"tts fuzz: {failure}")
    return {
        "tts_examples": tally.examples,
        "tts_dead_threads": tally.dead_threads,
        "tts_repaired": tally.repaired,
        "tts_skipped": tally.skipped,
        "tts_clauses": tally.clauses,
        "tts_broken": tally.broken,
        "tts_stalls": tally.stalls,
    }


def _check_unit(synthesizer: _Watched, text: str, events: list[Played], tally: _Tally) -> None:
    """Check each synthesis of the unit's clauses, then what the unit played (the synthesis
    thread is idle: the unit has played out)."""
    for clause, clips, troubles in synthesizer.calls:
        tally.clauses += 1
        tally.repaired += sum(t.repaired for t in troubles)
        tally.skipped += sum(not t.repaired for t in troubles)
        problems = check_spoken(synthesizer, clause, clips, troubles)
        if problems:
            tally.fail(clause, problems)
    synthesizer.calls.clear()
    played = [e.word for e in events if isinstance(e, WordPlayed)]
    remaining = iter(t.text for t in split_words(text))
    if not all(any(w == t for t in remaining) for w in played):
        tally.fail(text, [f"played {played}: not the unit's words in order"])
    reported = any(isinstance(e, ClauseUnsaid | UnitUnspoken) for e in events)
    if (
        not played
        and not reported
        and any(has_sound(synthesizer, t.text) for t in split_words(text))
    ):
        tally.fail(text, ["a unit with words played none and nothing said why"])


if __name__ == "__main__":
    import json
    import sys

    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    print(json.dumps(tts_fuzz(count, lambda m: print(m, file=sys.stderr)), indent=2))
