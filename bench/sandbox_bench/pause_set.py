"""A held-apart set of caller utterances for the end of turn: paused ones and complete ones.

*Paused* utterances are a sentence with a 400-900 ms silence put in mid-sentence ("I'd like
to book … a table for four"), or a question ("Can I book a table for … four on Saturday
night?", said with a question's intonation): the caller has not finished, and a turn
committed in that silence cuts them off. The silence is inserted at a word's start in
espeak-ng's rendering of the whole sentence (:func:`sandbox_bench.espeak_align.\
espeak_reference` reports where each word starts), so the words before it keep the
intonation of a sentence still going, as a caller's do when they stop to think; rendering the
fragment alone would end it with a sentence's fall. *Complete* utterances are whole requests
and questions, some written with no punctuation, so espeak says them flat, the way Whisper's
unpunctuated questions sound.

*Afterthoughts* are the paused utterances' words said as two utterances, the first ended as
a statement of its own: no signal the endpointer has (falling voice, punctuation, the turn
model) tells those from a finished turn, so they measure what answering a falling statement
at once costs, and are reported, not bounded.

The texts appear nowhere else in the bench; the endpointer's windows and the fall's
threshold were calibrated against them (see :mod:`sandbox.audio.endpointer`). Voices, rates,
pause lengths and pause places vary by item, deterministically: the same set every run.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from sandbox.audio.resample import Float32, as_float32, resample
from sandbox.audio.stt import SAMPLE_RATE
from sandbox_bench.espeak_align import espeak_reference

#: espeak-ng voices (with variants) and rates the set cycles through.
VOICES = ("en-us", "en", "en-us+f3", "en-gb-x-rp", "en-us+m3", "en-029", "en+f4")
RATES = (140, 155, 170, 185, 200)
PAUSE_MIN_MS = 400
PAUSE_MAX_MS = 900
#: Silence before each utterance, and after it (longer than the longest patience's wait).
LEAD_MS = 400
TAIL_MS = 3300

#: Sentences a caller may pause inside, with the words after which they pause (0-based index
#: of the last word before the pause): two places each, so 2 x 24 paused utterances.
PAUSABLE: tuple[tuple[str, tuple[int, int]], ...] = (
    ("I'd like to book a table for four on Friday evening", (3, 6)),
    ("Could you tell me whether the gym has a swimming pool", (3, 6)),
    ("My daughter wants to join the beginners class next month", (2, 6)),
    ("I was wondering if I could change my appointment to Tuesday", (3, 7)),
    ("We need a room for twelve people with a projector", (2, 6)),
    ("The parcel was supposed to arrive yesterday but it never came", (3, 6)),
    ("Can I pay for the whole year in one go", (4, 6)),
    ("I have been trying to reach somebody in accounts all week", (4, 7)),
    ("Is there any way to get a refund for the cancelled lesson", (2, 5)),
    ("My address changed last month so the letters went to the old one", (2, 6)),
    ("I would prefer a seat by the window if there is one", (3, 6)),
    ("Do you know when the new timetable starts for the summer", (2, 6)),
    ("Our car broke down on the motorway near the second exit", (3, 7)),
    ("I want to cancel my membership because I am moving abroad", (3, 6)),
    ("Can somebody call me back after six this evening", (2, 5)),
    ("The heating in our flat has not worked since Sunday morning", (3, 7)),
    ("I booked two tickets for the concert but only one arrived", (2, 6)),
    ("Would it be possible to bring my dog to the appointment", (4, 7)),
    ("Please put me through to the person who handles complaints", (3, 7)),
    ("I need to know the price of the large package with delivery", (3, 6)),
    ("My son left his jacket in the changing room on Monday", (3, 6)),
    ("Could we move the meeting to the afternoon instead of the morning", (3, 6)),
    ("I am calling about the invoice you sent me last week", (3, 6)),
    ("We are looking for a quiet place to stay near the station", (3, 7)),
)

#: Questions a caller may pause inside, written as questions so espeak-ng says them with a
#: question's intonation, and the words after which they pause: two places each, so 2 x 14
#: paused questions ("Can I book a table for … four on Saturday night?"). A faster end of
#: turn for questions is charged for every one it cuts off.
PAUSABLE_QUESTIONS: tuple[tuple[str, tuple[int, int]], ...] = (
    ("Can I book a table for four on Saturday night?", (2, 5)),
    ("What time does the last train leave for Manchester?", (3, 6)),
    ("Do you have any rooms with a view of the sea?", (3, 6)),
    ("Could you tell me how much the annual membership costs?", (2, 5)),
    ("Is it possible to change the delivery address on my order?", (3, 6)),
    ("Where can I find the form for the parking permit?", (3, 6)),
    ("Would you be able to send someone to fix the boiler today?", (4, 7)),
    ("How long will it take for the replacement card to arrive?", (3, 7)),
    ("Are there any seats left for the matinee on Sunday?", (3, 6)),
    ("Which documents should I bring to the first appointment?", (2, 5)),
    ("Can you check whether my payment went through last night?", (2, 5)),
    ("Why was I charged twice for the same delivery?", (3, 6)),
    # Questions espeak-ng ends level, on an unstressed "me" (a lift of ~0.5-1.6 semitones,
    # no full rise), paused where the words before already make a whole question ("Could
    # you post the form … to me?"): what a rule for level questions may cut off.
    ("Could you post the form to me?", (2, 4)),
    ("Can you send the invoice to me?", (1, 4)),
)

#: Complete utterances: requests and questions, about half with no punctuation at all.
COMPLETE = (
    "is the studio open on public holidays",
    "Do you have any tables free tonight?",
    "I need to cancel my booking for tomorrow.",
    "what time does the last class finish",
    "Can I bring a friend to the trial session?",
    "my card was charged twice this month",
    "How far is the hotel from the airport?",
    "I would like to speak to the manager please.",
    "are there any parking spaces left",
    "That sounds perfect, thank you.",
    "do you deliver to the city centre",
    "Where should I leave the keys?",
    "I forgot my password again.",
    "can I change the date of my appointment",
    "Is breakfast included in the price?",
    "thanks that is all I needed",
    "Which platform does the train leave from?",
    "please send me the receipt by email",
    "Yes, Friday at ten works for me.",
    "how much is a monthly pass",
    "Could you spell the street name for me?",
    "the lights in the hallway are broken",
    "No, I think that covers everything.",
    "will the pool be closed next week",
    "Can I pay by bank transfer?",
    "I am running about ten minutes late",
    "What documents do I need to bring?",
    "is it too late to sign up for the course",
    "Great, see you on Saturday.",
    "who do I talk to about a refund",
    "My flight lands at half past nine.",
    "do you have anything vegetarian on the menu",
    "Is the museum suitable for small children?",
    "I would like a table by the window",
    "Can you hold the room until noon?",
    "when does the sale end",
    "The order number is on the email you sent.",
    "could you book me a taxi for eight",
    "Are dogs allowed inside the cafe?",
    "I want to upgrade to the premium plan",
    "How long does the repair usually take?",
    "is there a discount for students",
    "Okay, I will call again tomorrow.",
    "what is the wifi password",
    # Finished questions said level (espeak-ng ends a "?" question without a rise) or left
    # unpunctuated, beside the ones above: what a rule for level questions is judged on.
    "Have you got my new address on file?",
    "Which day is the bin collection?",
    "Does the room have a balcony?",
    "can someone call me back this evening",
    "where is the nearest cash machine",
    "has my prescription been sent to the pharmacy",
    "Would you read the address back to me?",
    "can my brother pick up the keys for me",
)


@dataclass(frozen=True)
class Utterance:
    """One item of the set: 16 kHz audio and where its voice is."""

    text: str
    voice: str
    wpm: int
    audio: Float32
    #: Where the voice ends, ms from the start of ``audio``.
    end_ms: int
    #: For a paused utterance: where the pause begins and where the voice comes back (ms).
    pause: tuple[int, int] | None = None
    #: Said as a question (written with "?"): the paused questions.
    asked: bool = False


def _voice(index: int) -> tuple[str, int]:
    return VOICES[index % len(VOICES)], RATES[(index * 2) % len(RATES)]


def _pause_ms(index: int) -> int:
    """Spread over 400-900 ms, in an order unrelated to the voice's."""
    span = PAUSE_MAX_MS - PAUSE_MIN_MS
    return PAUSE_MIN_MS + (index * 137) % (span + 1)


def _ms(samples: int) -> int:
    return samples * 1000 // SAMPLE_RATE


def _silence(ms: int) -> Float32:
    return np.zeros(SAMPLE_RATE * ms // 1000, dtype=np.float32)


def _rendered(text: str, voice: str, wpm: int) -> tuple[Float32, list[int | None]]:
    """espeak's rendering at 16 kHz and each word's start sample (16 kHz)."""
    ref = espeak_reference(text, voice, wpm)
    audio = resample(as_float32(ref.samples), ref.sample_rate, SAMPLE_RATE)
    scale = SAMPLE_RATE / ref.sample_rate
    return audio, [None if s is None else round(s * scale) for s in ref.starts]


def _trimmed(audio: Float32) -> Float32:
    """The audio from its first to its last sample above a quiet floor."""
    loud = np.flatnonzero(np.abs(audio) > 0.01)
    return audio[loud[0] : loud[-1] + 1] if len(loud) else audio


def complete_utterance(index: int) -> Utterance:
    """The ``index``-th complete utterance."""
    text = COMPLETE[index]
    voice, wpm = _voice(index)
    speech = _trimmed(_rendered(text, voice, wpm)[0])
    audio = np.concatenate([_silence(LEAD_MS), speech, _silence(TAIL_MS)])
    return Utterance(text, voice, wpm, audio, LEAD_MS + _ms(len(speech)))


def paused_utterance(index: int) -> Utterance:
    """The ``index``-th paused utterance: two per sentence of :data:`PAUSABLE`, then two per
    question of :data:`PAUSABLE_QUESTIONS`."""
    sentences = PAUSABLE + PAUSABLE_QUESTIONS
    text, places = sentences[index // 2]
    voice, wpm = _voice(index + 1)  # not in step with the complete set's
    paused = pause_inside(text, places[index % 2], _pause_ms(index), voice, wpm)
    return replace(paused, asked=index >= 2 * len(PAUSABLE))


def pause_inside(text: str, after: int, pause: int, voice: str, wpm: int) -> Utterance:
    """``text`` said whole by espeak-ng with ``pause`` ms of silence put in after its
    ``after``-th word (0-based), the words before it keeping the sentence's intonation."""
    rendered, starts = _rendered(text, voice, wpm)
    # espeak says some pairs as one word ("of the"): pause before the next word it starts.
    resume_word, cut = next((i, s) for i, s in enumerate(starts) if i > after and s is not None)
    head = _trimmed(rendered[:cut])
    tail = _trimmed(rendered[cut:])
    audio = np.concatenate([_silence(LEAD_MS), head, _silence(pause), tail, _silence(TAIL_MS)])
    pause_start = LEAD_MS + _ms(len(head))
    resume = pause_start + pause
    words = text.split()
    said = " ".join(words[:resume_word]) + " … " + " ".join(words[resume_word:])
    return Utterance(said, voice, wpm, audio, resume + _ms(len(tail)), (pause_start, resume))


def afterthought_utterance(index: int) -> Utterance:
    """The ``index``-th paused utterance's words said as two utterances: the words before the
    pause as a statement of their own (espeak ends it with a sentence's fall), the pause, then
    the rest. A caller who finishes a clause as a statement and then adds to it ("I want to
    cancel." … "my membership because I am moving abroad")."""
    text, places = PAUSABLE[index // 2]
    voice, wpm = _voice(index + 1)
    words = text.split()
    after = places[index % 2]
    head = _trimmed(_rendered(" ".join(words[: after + 1]), voice, wpm)[0])
    tail = _trimmed(_rendered(" ".join(words[after + 1 :]), voice, wpm)[0])
    pause = _pause_ms(index)
    audio = np.concatenate([_silence(LEAD_MS), head, _silence(pause), tail, _silence(TAIL_MS)])
    pause_start = LEAD_MS + _ms(len(head))
    resume = pause_start + pause
    said = " ".join(words[: after + 1]) + ". … " + " ".join(words[after + 1 :])
    return Utterance(said, voice, wpm, audio, resume + _ms(len(tail)), (pause_start, resume))


def afterthought_set(limit: int | None = None) -> list[Utterance]:
    """The afterthoughts (all 48, or the first ``limit``)."""
    count = 2 * len(PAUSABLE) if limit is None else min(limit, 2 * len(PAUSABLE))
    return [afterthought_utterance(i) for i in range(count)]


def paused_set(limit: int | None = None) -> list[Utterance]:
    """The paused utterances: all 76 (48 sentences said as still going, then 28 questions),
    or the first ``limit`` of each kind."""
    sentences, questions = 2 * len(PAUSABLE), 2 * len(PAUSABLE_QUESTIONS)
    if limit is None:
        return [paused_utterance(i) for i in range(sentences + questions)]
    picked = [*range(min(limit, sentences)), *range(sentences, sentences + min(limit, questions))]
    return [paused_utterance(i) for i in picked]


def complete_set(limit: int | None = None) -> list[Utterance]:
    """The complete utterances (all 52, or the first ``limit``)."""
    count = len(COMPLETE) if limit is None else min(limit, len(COMPLETE))
    return [complete_utterance(i) for i in range(count)]
