"""Where a caller's turn ends: a sans-I/O state machine fed one VAD decision per frame.

No clock, no threads, no audio: the host feeds ``(voiced, t_ms)`` for every 30 ms frame, in
order, and acts on the events returned.

How a turn ends: the voice's fall or rise, the words, the audio turn model
--------------------------------------------------------------------------
After ``speculate_ms`` of silence the endpointer emits :class:`PauseStarted`. The host
measures at once whether the voice *fell* as it stopped (:func:`sandbox.audio.prosody.\
final_fall`, final lowering: a statement's end drops to the bottom of the speaker's range, a
caller stopping to think holds it level) and whether it *rose* on its last syllable
(:func:`sandbox.audio.prosody.final_rise`, a yes/no question's final rise), and hands them
over as :meth:`Endpointer.hint_fall` and :meth:`Endpointer.hint_rise`. Then it starts a
*speculative* transcription of the turn so far: at once when the voice fell or rose,
otherwise once the silence reaches ``level_guess_ms`` (:attr:`Endpointer.guess_due`), so the
short pauses inside a sentence ("my order, please") do not each hold Whisper's one worker when
the end comes. The guess comes back as :meth:`Endpointer.hint_text` (its :func:`text_shape`,
and whether it can be a whole question, :func:`asks_question`); only when its words leave
the verdict open (no punctuation to go by) does the host ask the
audio turn model (:mod:`sandbox.audio.turn_model`, Smart Turn), whose probability comes back
as :meth:`Endpointer.hint_turn`. The turn is *finished* when

* the transcript does not end on a word that cannot end a sentence (``"fragment"``: a
  trailing "and", "the", "to", a filler, an auxiliary and its subject still waiting for the
  verb, "How long will it", or Whisper's "..."; a question may end on its preposition, "Which
  platform does the train leave from?", and is no fragment when it is punctuated as one or
  opens with a question word; a last "a" or "I" after a spelled code is its last letter,
  "my reference is the 7Q4 I"), and
* the transcript reads like a finished thought on its own (``"finished"``: terminal
  punctuation, or a wh-question punctuated with "?" though it ends on its preposition),
  or the model's probability reaches the patience's ``threshold``, or the voice fell as it
  stopped, or it rose or lifted (see below) on words that are a question.

A turn whose voice fell on words that are no fragment (punctuated or not: "Yes", "It's 3 8 1
7 7 2"), or rose on a question's words (punctuated with "?" or opening with a question word
or an auxiliary: "Can I pay by bank transfer?", "is the shop open on Sunday"), closes as
``"final"`` once the silence reaches ``final_ms``; any other finished turn (a level voice on
finished words) closes as ``"confident"`` once it reaches ``confident_ms``; anything else
(no verdict yet, a fragment, a level voice on an unpunctuated guess the model doubts) closes
as ``"silence"`` when the silence reaches ``silence_ms``, the maximum wait: the
silence-forced close. So "I would like to check the status of my order, please." said with a
falling voice is answered ~300 ms after it ends, and so is "Do you take credit cards?" said
with a rising one; so is a question said level whose last syllable *lifts*
(:data:`LIFT_SEMITONES`, short of a rise) with its end well above the turn's median pitch,
the question's high end ("Could you spell that for me?" on an unstressed "me"); a complete
question whose voice stays level otherwise closes at the confident window, punctuated or
not (the model decides an unpunctuated one); a statement Whisper garbles past punctuation
("My flight lens at her best eyes") closes at the final window when the voice fell; and a
caller's "I'd like to book the" waits whatever any signal says.

A word (see below) during the pause emits :class:`Resumed`: the verdicts are stale, the
silence counter restarts, and the next pause makes new ones.

The patience scale (stt.patience, 0..10, default 7) sets the windows and the threshold
--------------------------------------------------------------------------------------
0 answers as soon as the recognizer can; 10 lets a caller finish a sentence they are still
assembling; 7 is the calibration the deployment runs when patience is unset. Up to 7 each step
waits ~28% longer for a confident close (perceived patience is roughly logarithmic in time),
above it less, so 10 keeps 1.4 s; the silence-forced close (the maximum wait) grows ~20% a
step. Windows are rounded up to whole 30 ms frames. The turn model is asked for more
certainty above 7 and less below 5 (Smart Turn's own cut is 0.5):

===========  ===  ===  ===  ===  ===  ===  ====  ====  ====  ====  ====
patience       0    1    2    3    4    5     6     7     8     9    10
===========  ===  ===  ===  ===  ===  ===  ====  ====  ====  ====  ====
final        150  150  180  180  210  240   270   300   540   780  1410
confident    150  210  270  330  420  540   690   900  1080  1260  1410
silence      450  540  660  780  960 1140  1350  1620  1950  2340  2790
level guess   90  150  150  150  150  150   240   300   300   300   300
threshold    .25  .30  .35  .40  .45  .50   .50   .50   .60   .70   .80
===========  ===  ===  ===  ===  ===  ===  ====  ====  ====  ====  ====

Where 7's windows come from: callers pause 400-900 ms mid-sentence to think ("I'd like to
book … a table for four"), and on the held-apart pause set (``sandbox bench --pauses``)
neither the words nor Smart Turn tell such a pause from an end: Whisper punctuates the first
half ("I'd like to book.") and Smart Turn, trained on human voices, scores synthetic voices'
pauses as high as their ends (AUC ~0.6 on espeak-ng and on Piper). On the words alone, the
confident window is what keeps callers from being cut off: 720 ms cut off 21% of the set,
840 ms 4%, 870 ms 2%, 900 ms none. The voice's fall does tell them apart: 1 of the set's 48
first halves falls by :data:`FALL_SEMITONES`, against 24 of its 44 complete utterances and
the peer's caller line, so a finished turn that also fell needs no thinking-pause margin, and
its window (300 ms) is set well below the shortest pause the set holds (400 ms), and no
shorter than Whisper needs for the turn's guess, started at the first 90 ms of quiet (the
final windows of the lowest patiences share a step where Whisper, not the window, is the
limit). Its cost is a caller who
ends a clause with a full statement's fall and then adds to it ("I want to cancel." … "my
membership"): answered after the clause, as a person listening would.

A question's voice often does not fall: a yes/no question rises on its last syllable, and a
caller pausing inside a question holds the pitch level. On the set (its 24 paused questions
and the complete ones), the rise over the last syllable (:func:`~sandbox.audio.prosody.\
final_rise`) of any first half whose words read finished is at most 1.2 semitones, and at
least 1.9 for the complete questions that rose, so a rise of :data:`RISE_SEMITONES` on a
question's words needs no margin either. A rise on any other words is no verdict: a voice
lifts a clause that goes on, as espeak-ng does before ", please" ("Put me down for the early
shift ↗ … please": with the rise on words that read finished, 2 of the caller set's 336
lines were answered before their "please"). (The larger continuation rises once read on
"I'd like to book …", 6.8 semitones, were the pitch track's octave errors:
:func:`~sandbox.audio.prosody.mend_octaves`.) With both cues, the confident window now
waits only for turns whose voice stayed level, and it is 900 ms, the longest pause in the
set (870 ms cut off two of its 72 paused utterances).

A question said level still has a last movement: espeak-ng ends "Can my sister collect the
parcel for me?" on an unstressed "me" that lifts 0.7-1.0 semitones and ends 1.0-1.2 above the
turn's median, where the first halves of the set's paused questions ("Could you tell me?",
"What time does the last train leave?") lift less or end lower, most below their median. A
lift of :data:`LIFT_SEMITONES` that ends :data:`HIGH_END_SEMITONES` above the median, on a
question's words, closes at the final window too (not on a narrowband line, whose noise is
larger). Neither
the turn model (it scores the set's paused questions' first halves as high as the finished
ones) nor the speaker's own pitch movement elsewhere in the turn (a per-caller scale for the
lift: it did not part the two any better) is part of the rule.
10 keeps every window at 1.4 s: no fall or rise hurries it.

``speculate_ms`` is 90 ms: the pause is measured for a fall and a rise as soon as three
silent frames make one (a measurement costs a few milliseconds; the gaps inside fluent speech
seldom fall or rise, so they start few Whisper runs), and a falling or rising end's guess
starts at once, so at patience
7 it is ready when the final window ends (90 ms + Whisper's time). A level pause waits for
``level_guess_ms`` before its guess, so a guess started inside a sentence's short gaps is not
holding Whisper when the sentence ends.
A change of patience applies at once, including to a pause already running: the next frame
is judged against the new windows.

What counts as speech
---------------------
A *word* is at least ``ONSET_VOICED`` voiced frames among the last ``ONSET_WINDOW`` (90 ms of
voicing in 120 ms). It starts a turn, extends one across a short VAD dropout, or resumes a
paused one. An isolated voiced frame (a click, a breath, VAD flicker) does not reset the
silence counter, but nothing is decided on a voiced frame: the 60 ms it takes to confirm a word
never counts towards a pause.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Literal

from sandbox.audio.sentence_marks import CLAUSE_MARKS, FULL_STOPS, QUESTION_MARKS
from sandbox.audio.vad import FRAME_MS
from sandbox.call.caller_events import Reason, TurnClose
from sandbox.wire.patience import patience_error

#: What a transcript's wording says about the turn (see :func:`text_shape`).
TextShape = Literal["finished", "fragment", "open"]

ONSET_VOICED = 3
ONSET_WINDOW = 4
SPECULATE_MS = 90
PATIENCE_DEFAULT = 7


@dataclass(frozen=True)
class Windows:
    """Silence, in ms, after which each thing happens, and the turn model's probability at
    which a turn counts as finished."""

    speculate_ms: int
    #: A pause whose voice did not fall is transcribed only this late (a fall, at once).
    level_guess_ms: int
    #: A finished turn whose voice fell as it stopped (final lowering) closes here.
    final_ms: int
    confident_ms: int
    silence_ms: int
    threshold: float


#: The voice's last 50 ms this many semitones or more below the turn's median pitch is a
#: fall (see :mod:`sandbox.audio.prosody`).
FALL_SEMITONES = 2.2
#: The voice's last 30 ms this many semitones or more above its pitch 150 ms earlier is a
#: question's final rise (:func:`sandbox.audio.prosody.final_rise`).
RISE_SEMITONES = 1.5
#: The same on a narrowband line (nothing above 4 kHz: G.711, AMR-NB). Without the
#: harmonics above the band the pitch track reads a level syllable's pitch less surely:
#: through the ``pstn`` uplink, the pause set's first halves rose by up to 1.8-2.4
#: semitones, against 1.2 at most on the laptop's path, and its complete questions by
#: -2.8 to 4.5 (1.0 to 4.6 on the laptop's). A rise must clear that noise to count.
NARROWBAND_RISE_SEMITONES = 2.0
#: A question's last syllable rising this many semitones or more, short of a full rise, with
#: its end :data:`HIGH_END_SEMITONES` or more above the turn's median pitch, is a *lifted*
#: end: the high end of a question said level (espeak-ng's "Can my sister collect the parcel
#: for me?": 0.7-1.0 semitones over the syllable, its end 1.0-1.2 above the median). The
#: pitch track reads a syllable's movement 0.3-0.5 semitones apart as the audio's start
#: moves by a few milliseconds, so both must hold: over 15 such offsets no first half of the
#: pause set's 76 lifts with its end that high (its questions' first halves lift by 0.81 at
#: most, "What time does the last train leave …", ending 0.55-0.67 above their median; the
#: ones that end 0.8 above lift by 0.3 at most). Not read on a narrowband line, whose pitch
#: track's noise on a level syllable is larger than the lift.
LIFT_SEMITONES = 0.7
HIGH_END_SEMITONES = 0.8

_LEVEL_GUESS_MS = (90, 150, 150, 150, 150, 150, 240, 300, 300, 300, 300)
_FINAL_MS = (150, 150, 180, 180, 210, 240, 270, 300, 540, 780, 1410)
_CONFIDENT_MS = (150, 210, 270, 330, 420, 540, 690, 900, 1080, 1260, 1410)
_SILENCE_MS = (450, 540, 660, 780, 960, 1140, 1350, 1620, 1950, 2340, 2790)
_THRESHOLD = (0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.5, 0.5, 0.6, 0.7, 0.8)


def windows_for(patience: int) -> Windows:
    """The endpointing windows for one step of the patience scale."""
    problem = patience_error(patience)
    if problem:
        raise ValueError(problem)
    return Windows(
        SPECULATE_MS,
        _LEVEL_GUESS_MS[patience],
        _FINAL_MS[patience],
        _CONFIDENT_MS[patience],
        _SILENCE_MS[patience],
        _THRESHOLD[patience],
    )


@dataclass(frozen=True)
class SpeechStarted:
    """A turn began; ``t`` is the start of its first voiced frame."""

    t: int


@dataclass(frozen=True)
class PauseStarted:
    """The caller paused: transcribe the turn so far now. ``t`` is when this was decided."""

    t: int
    speech_end: int  # end of the last voiced frame: where the silence began


@dataclass(frozen=True)
class Resumed:
    """The caller spoke again inside the pause: discard the guess. ``t`` is the new onset."""

    t: int


@dataclass(frozen=True)
class TurnEnded:
    """The turn is over. ``t`` is when this was decided."""

    t: int
    reason: Reason
    speech_end: int


EndpointEvent = SpeechStarted | PauseStarted | Resumed | TurnEnded

#: Words an object follows, unless a question left them at its end ("…leave from?").
_PREPOSITIONS = frozenset(["to", "for", "of", "with", "at", "in", "on", "from"])
#: Words a question opens with when its preposition may come last ("Who do I talk to").
_QUESTION_WORDS = frozenset(["what", "which", "where", "who", "whom", "whose", "how"])
_TRAILING_FRAGMENT = _PREPOSITIONS | frozenset(
    word
    for group in (
        "and but or so because then if that which who whose when where",  # a clause follows
        "the a an my your our their his her its",  # a noun follows
        "um uh er erm hmm like well just also",  # fillers
        "i is are was were",  # a subject or verb waiting for the rest
    )
    for word in group.split()
)
#: Auxiliaries whose subject waits for a main verb ("How long will it …"), unlike "is" and
#: "are", which need none ("How much is it").
_AUXILIARIES = frozenset(
    word
    for group in ("will would can could shall should may might must", "do does did have has had")
    for word in group.split()
)
_SUBJECTS = frozenset(["i", "you", "he", "she", "it", "we", "they"])
#: Words after which an auxiliary and its subject end a sentence ("so does it").
_ELLIPSIS_OPENERS = frozenset(["so", "neither", "nor", "as", "than"])
#: Verbs that end an embedded question ("Could you tell me where my order is?").
_ENDS_A_QUESTION = frozenset({"is", "are", "was", "were"})


#: One-letter words that are also letters of the alphabet.
_LETTER_WORDS = frozenset({"a", "i"})
#: How many words before a last "a" or "i" are searched for the spelled item it ends.
_SPELLED_REACH = 3


def _spelled(word: str) -> bool:
    """A token of a spelled item as Whisper writes one: a lone letter or digit ("k", "7"),
    letters joined by hyphens ("K-O-W"), or a token holding a digit ("7Q4", "SW1A")."""
    return all(len(part) == 1 and part.isalnum() for part in word.split("-")) or any(
        c.isdigit() for c in word
    )


def _ends_on_fragment(text: str) -> bool:
    """Whisper's trailing-off mark, or a last word that cannot end a sentence."""
    stripped = text.strip()
    if stripped.endswith(("...", "…")):
        return True
    tokens = stripped.rstrip(FULL_STOPS + CLAUSE_MARKS).split()
    words = [w.strip(",;:\"'").lower() for w in tokens]
    if not words or not words[-1]:
        return False
    last = words[-1]
    if stripped.endswith("?") and last in _ENDS_A_QUESTION:
        return False
    if last in _LETTER_WORDS and _ends_a_spelling(words):
        return False
    return last in _TRAILING_FRAGMENT or _awaits_its_verb(tokens, words)


def _awaits_its_verb(tokens: list[str], words: list[str]) -> bool:
    """Whether the words end on an auxiliary and its subject, inverted as a question inverts
    them, with the main verb still to come ("How long will it …", "What time does it …").
    Not a fragment: the whole question ("Will it?"), a tag after a comma ("Close it, will
    you"), or an ellipsis that needs no verb ("so does it", "neither can we")."""
    if len(words) < 3 or words[-1] not in _SUBJECTS or words[-2] not in _AUXILIARIES:
        return False
    return not tokens[-3].endswith(",") and words[-3] not in _ELLIPSIS_OPENERS


def _ends_a_spelling(words: list[str]) -> bool:
    """Whether a last "a" or "i" is the last letter of a spelled item ("my reference is the
    7Q4 I", "k double u my lsk i": a caller spelling a code or a name, as Whisper hears it),
    not an article or a subject waiting for the rest: a spelled token comes shortly before
    it, and the word just before it is not one that starts a phrase ("… and I")."""
    before = words[-1 - _SPELLED_REACH : -1]
    return (
        bool(before)
        and before[-1] not in _TRAILING_FRAGMENT - _LETTER_WORDS
        and any(_spelled(w) and w not in _LETTER_WORDS for w in before)
    )


def text_shape(text: str) -> TextShape:
    """What a transcript's wording says: ``"finished"`` (:func:`looks_complete`, or a
    wh-question Whisper punctuated as one though it ends on its preposition: "Who should I
    send the contract to?"), ``"fragment"`` (it trails off, or ends on a word that cannot end
    a sentence, punctuated or not; nothing heard is a fragment too) or ``"open"`` (no
    punctuation to go by, or a yes/no question or an unpunctuated one that ends on its
    preposition: the turn model decides)."""
    if looks_complete(text) or _asked_whole(text):
        return "finished"
    if not text.strip() or (_ends_on_fragment(text) and not _stranded(text)):
        return "fragment"
    return "open"


def _stranded(text: str) -> bool:
    """A question that ends on its preposition ("Which platform does the train leave
    from?"), punctuated as one or opening with a question word: complete, or a caller who
    stopped after "What time does the train leave from", so neither finished nor a
    fragment: the other signals decide."""
    stripped = text.strip()
    words = [w.strip(",;:\"'").lower() for w in stripped.rstrip(FULL_STOPS).split()]
    if not words or words[-1] not in _PREPOSITIONS:
        return False
    return stripped.endswith("?") or words[0] in _QUESTION_WORDS


def _asked_whole(text: str) -> bool:
    """A wh-question punctuated with "?" that ends on its preposition ("Where do I pick the
    parcel up from?"): Whisper heard a whole question, as it does when it punctuates any
    other one, so it waits only the confident window (a thinking pause's margin), not the
    maximum wait. A yes/no question does not leave its preposition ("Can I pay for?")."""
    stripped = text.strip()
    opener = stripped.split()[0].strip(",;:\"'").lower() if stripped else ""
    return stripped.endswith("?") and _stranded(stripped) and opener in _QUESTION_WORDS


#: Words a question opens with: a question word, or the auxiliary of a yes/no question.
_QUESTION_OPENERS = _QUESTION_WORDS | frozenset(
    word
    for group in (
        "when why",
        "is are was were am do does did have has",
        "can could will would shall should may might",
    )
    for word in group.split()
)


def asks_question(text: str) -> bool:
    """Whether a transcript can be a whole question, for a final rise to end: punctuated
    with a question mark of its script or opening as a question ("is the shop open on
    Sunday", "is breakfast included in the price." - Whisper's words for a question it did
    not punctuate as one), and no fragment ("Can I pay for the?")."""
    stripped = text.strip()
    words = stripped.split()
    if not words:
        return False
    opens = words[0].strip(",;:\"'").lower() in _QUESTION_OPENERS
    return (stripped.endswith(tuple(QUESTION_MARKS)) or opens) and text_shape(
        stripped
    ) != "fragment"


def looks_complete(text: str) -> bool:
    """Whether a transcript reads like a finished thought (the endpointer's confidence cue).

    True for text ending in a full stop of its script (``.``, ``?``, ``!``, the danda, Urdu's
    full stop and question mark: :mod:`sandbox.audio.sentence_marks`) whose last word is not a
    conjunction, article, preposition, filler or other word that cannot end a sentence.
    Whisper marks an utterance it hears trailing off with ``...`` or no punctuation, which
    reads as unfinished.
    """
    stripped = text.strip()
    return bool(stripped) and stripped[-1] in FULL_STOPS and not _ends_on_fragment(stripped)


class Endpointer:
    """Decides where a caller's turn ends. See the module docstring for the rules."""

    def __init__(
        self,
        patience: int = PATIENCE_DEFAULT,
        *,
        frame_ms: int = FRAME_MS,
        narrowband: bool = False,
    ) -> None:
        """``narrowband``: the caller is heard through a narrowband line, where a rise must be
        :data:`NARROWBAND_RISE_SEMITONES` to count."""
        self._frame_ms = frame_ms
        self._rise_semitones = NARROWBAND_RISE_SEMITONES if narrowband else RISE_SEMITONES
        self._narrowband = narrowband
        self._windows = windows_for(patience)
        self._recent: deque[tuple[bool, int]] = deque(maxlen=ONSET_WINDOW)
        self._state: Literal["idle", "speaking", "paused"] = "idle"
        self._speech_end = 0
        self._shape: TextShape | None = None
        self._probability: float | None = None
        self._fell = False
        self._rose = False
        self._lifted = False
        self._fall: float | None = None
        self._question = False
        self._silent_ms = 0

    @property
    def windows(self) -> Windows:
        """The windows in force now."""
        return self._windows

    def set_patience(self, patience: int) -> None:
        """Change patience now; a running pause is judged against the new windows next frame."""
        self._windows = windows_for(patience)

    def hint_text(self, shape: TextShape, *, question: bool = False) -> None:
        """The speculative transcript's :func:`text_shape` for the current pause (ignored
        outside one), and whether it is a finished question (:func:`asks_question`). The
        host must not pass a verdict on a guess made before a :class:`Resumed`."""
        if self._state == "paused":
            self._shape = shape
            self._question = question

    def hint_turn(self, probability: float) -> None:
        """The audio turn model's probability that the caller has finished, for the current
        pause (ignored outside one; same rule as :meth:`hint_text` for stale verdicts)."""
        if self._state == "paused":
            self._probability = probability

    def close_now(self) -> list[EndpointEvent]:
        """Whether the verdicts handed over since the last frame close the turn at the
        silence already counted: a guess that comes back after its window has passed closes
        the turn as it lands, not at the next frame. Outside a pause, nothing."""
        if self._state != "paused":
            return []
        return self._silence(self._speech_end + self._silent_ms)

    def hint_fall(self, semitones: float | None) -> None:
        """:func:`sandbox.audio.prosody.final_fall` of the turn at the current pause: how far
        the voice fell as it stopped (None: too little voicing to say). Same rule as
        :meth:`hint_text` for stale verdicts."""
        if self._state == "paused":
            self._fall = semitones
            self._fell = semitones is not None and semitones <= -FALL_SEMITONES

    def hint_rise(self, semitones: float | None) -> None:
        """:func:`sandbox.audio.prosody.final_rise` of the turn at the current pause: how far
        the voice rose on its last syllable (None: too little voicing to say). Same rule as
        :meth:`hint_text` for stale verdicts. It counts from :data:`RISE_SEMITONES` (on a
        narrowband line, :data:`NARROWBAND_RISE_SEMITONES`); a lift of
        :data:`LIFT_SEMITONES`, with the end :meth:`hint_fall` gave :data:`HIGH_END_SEMITONES`
        above the median, counts for a question's words as a rise does (not on a narrowband
        line). Hand the fall over first."""
        if self._state == "paused":
            self._rose = semitones is not None and semitones >= self._rise_semitones
            ends_high = self._fall is not None and self._fall >= HIGH_END_SEMITONES
            self._lifted = (
                not self._narrowband
                and ends_high
                and semitones is not None
                and semitones >= LIFT_SEMITONES
            )

    @property
    def guess_due(self) -> bool:
        """Whether the pause in progress should be transcribed now: at once when the voice
        fell or rose as it stopped (the turn may close at the final window), else once the
        silence reaches ``level_guess_ms``, so the short pauses inside a sentence ("my
        order, please") do not each hold Whisper when the end comes."""
        if self._state != "paused":
            return False
        rose = self._rose or self._lifted
        return self._fell or rose or self._silent_ms >= self._windows.level_guess_ms

    @property
    def finished(self) -> bool:
        """Whether the verdicts so far say the turn is finished (see the module docstring)."""
        return self._agreed or (self._fell and self._shape == "open") or self._asked

    @property
    def _agreed(self) -> bool:
        """The words say finished, or the model does on words that leave it open."""
        if self._shape != "open":
            return self._shape == "finished"
        return self._probability is not None and self._probability >= self._windows.threshold

    def feed(self, voiced: bool, t_ms: int) -> list[EndpointEvent]:
        """One frame's VAD decision; ``t_ms`` is the frame's start. Returns what happened."""
        self._recent.append((voiced, t_ms))
        end = t_ms + self._frame_ms
        word = self._word_onset()
        if word is not None and (self._state == "idle" or word[1] > self._speech_end):
            return self._speech(word)
        if self._state == "idle" or voiced:
            return []  # a voiced frame may be the start of a word: judge silence on silence
        return self._silence(end)

    def _word_onset(self) -> tuple[int, int] | None:
        """(first voiced start, last voiced end) of the recent frames, if they make a word."""
        voiced = [t for v, t in self._recent if v]
        if len(voiced) < ONSET_VOICED:
            return None
        return voiced[0], voiced[-1] + self._frame_ms

    def _speech(self, word: tuple[int, int]) -> list[EndpointEvent]:
        onset, voiced_end = word
        events: list[EndpointEvent] = []
        if self._state == "idle":
            events.append(SpeechStarted(onset))
        elif self._state == "paused":
            events.append(Resumed(onset))
        self._state = "speaking"
        self._speech_end = max(self._speech_end, voiced_end)
        self._forget_verdicts()
        return events

    def _silence(self, end: int) -> list[EndpointEvent]:
        silent_ms = self._silent_ms = end - self._speech_end
        events: list[EndpointEvent] = []
        if self._state == "speaking" and silent_ms >= self._windows.speculate_ms:
            self._state = "paused"
            events.append(PauseStarted(end, self._speech_end))
        if self._state == "paused":
            reason: Reason | None = None
            if self.finished and silent_ms >= self._window():
                reason = TurnClose.FINAL if self._hurried else TurnClose.CONFIDENT
            elif silent_ms >= self._windows.silence_ms:
                reason = TurnClose.SILENCE
            if reason is not None:
                events.append(TurnEnded(end, reason, self._speech_end))
                self._state = "idle"
                self._forget_verdicts()
        return events

    @property
    def _hurried(self) -> bool:
        """Whether the voice ended the turn: it fell on words that are no fragment, or rose on
        words that are a question (a rise on anything else, "I'd like to book", "The heating
        has not worked", is a continuation rise as often as not)."""
        fell = self._fell and self._shape in ("finished", "open")
        return fell or self._asked

    @property
    def _asked(self) -> bool:
        """The words are a question and the voice rose, or lifted, on its end."""
        return (self._rose or self._lifted) and self._question

    def _window(self) -> int:
        """The window in force: the final one when the voice ended the turn, else the
        confident one (a level voice waits out a thinking pause)."""
        return self._windows.final_ms if self._hurried else self._windows.confident_ms

    def _forget_verdicts(self) -> None:
        self._shape = None
        self._probability = None
        self._fell = False
        self._rose = False
        self._lifted = False
        self._fall = None
        self._question = False
