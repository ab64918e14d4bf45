"""Who has the floor when the caller speaks over the bot: pause, then decide. Sans-I/O.

Fed one VAD decision per 30 ms frame (after echo cancellation) with whether the bot holds the
floor, and the speculative transcript of a burst when one was asked for. Times are the
frames' own (ms), so it runs the same on a fake clock.

1. **Pause.** ``onset_frames`` voiced frames among the last ``onset_window`` while the bot
   speaks: :class:`OverBot`. Where the microphone hears no echo of the bot (``echo_free``:
   headphones, a virtual device; see :mod:`sandbox.audio.doubletalk`), ``clear_onset_frames``
   voiced frames in a row are enough: the longer rule is there so that an echo's residue
   flickering through the canceller does not pause the bot, and with no echo there is none
   (a knock or a cough pauses the bot under either rule). The host fades playout out and
   holds it, so the caller hears the bot stop ~0.1 s after they start and no word counts as
   heard that they did not hear.
   From here on the microphone hears the caller alone (the bot is quiet), so voicing is a
   clean measure of them.
2. **Decide**, cheapest evidence first:

   * ``sentence_ms`` of voicing in the burst: likely a sentence ("mm-hmm" voices ~0.2-0.55
     s, but a slow "yeah, yeah" or a drawn-out "mm-hmm" can run longer). Its transcript so
     far is asked for: nothing but acknowledgement or a noise lets the bot go on, as do a
     few unclear words from a voice that has already gone quiet (a sentence would still be
     going); an empty one while the voice goes on is asked again; anything else,
     ``certain_ms`` of voicing, or no transcript within :data:`LONG_ASK_MS`, takes the
     floor (:class:`BargeIn`).
   * The burst ends (``gap_ms`` of silence) having voiced under ``noise_ms``: a click, a
     knock: :class:`BotResumes` at once.
   * Otherwise the burst ended short. ``ask_gap_ms`` into its quiet a quick read is asked
     for (:attr:`FloorJudge.brief`: a short window, a few words): a bid for the floor
     ("stop", "wait", "no") takes the floor on it, and acknowledgement ("mm-hmm", "okay")
     resumes the bot at once. Unclear words or a noise resume it once the voice has been
     quiet ``gap_ms`` (a caller between "Sorry," and the rest is not talked over), since a
     full read could only find a floor word the quick one missed. That full read
     (:attr:`FloorJudge.wants`) is asked for as the bot goes on, and a floor word in it
     cuts the bot then (a *late* cut): the caller whose "Wait" was misread hears the bot go
     on for a moment, while every caller whose "uh-huh" was misread hears no long silence.
     A doubtful floor word (Whisper thought it probably no speech) keeps the bot paused for
     the full read, which decides once the voice has been quiet ``gap_ms``: a bid for the
     floor takes it, anything else resumes the bot. A voice that comes back
     within ``gap_ms`` of a quick resume ("Okay, so...") pauses the bot again and is the
     same burst, judged afresh; a new burst makes a late read stale.
   * Still undecided ``decide_within_ms`` after the pause (Whisper busy, a hesitant start):
     the bot goes on, so the caller never waits in a long silence. Should the voice go on
     to ``sentence_ms`` after all, it still takes the floor (the bot is cut as it speaks);
     a burst the bot went on from as acknowledgement or noise needs ``certain_ms`` (a slow
     "yeah... yeah" can run past ``sentence_ms``).

A voice that resumes before its transcript arrives makes that transcript stale; the burst is
judged afresh when it ends again.
"""

from __future__ import annotations

import enum
from collections import deque

from sandbox.audio.backchannels import MAX_TOKENS, Burst, classify, tokens
from sandbox.audio.vad import FRAME_MS
from sandbox.call.caller_events import BargeIn, BotResumes, FloorEvent, OverBot

#: Longest a long burst waits for its transcript before it is taken for a sentence.
LONG_ASK_MS = 800


class _State(enum.Enum):
    IDLE = "idle"  # the bot speaks, nobody over it
    PAUSED = "paused"  # undecided: playout is held
    BARGED = "barged"  # the caller has the floor until the bot stops
    KEPT = "kept"  # the bot went on; waiting for the burst to end
    QUICK = "quick"  # the bot went on on a quick read, the burst only just quiet


class FloorJudge:
    """Pause, then decide; see the module docstring."""

    def __init__(
        self,
        *,
        onset_frames: int = 3,
        onset_window: int = 4,
        clear_onset_frames: int = 2,
        sentence_ms: int = 720,
        certain_ms: int = 1500,
        noise_ms: int = 120,
        ask_gap_ms: int = 60,
        gap_ms: int = 210,
        decide_within_ms: int = 1050,
        frame_ms: int = FRAME_MS,
    ) -> None:
        if not 0 < onset_frames <= onset_window:
            raise ValueError("need 0 < onset_frames <= onset_window")
        if not 0 < clear_onset_frames <= onset_window:
            raise ValueError("need 0 < clear_onset_frames <= onset_window")
        if not 0 < ask_gap_ms <= gap_ms:
            raise ValueError("need 0 < ask_gap_ms <= gap_ms")
        self.onset_frames = onset_frames
        self.clear_onset_frames = clear_onset_frames
        self.sentence_ms = sentence_ms
        self.certain_ms = certain_ms
        self.noise_ms = noise_ms
        self.ask_gap_ms = ask_gap_ms
        self.gap_ms = gap_ms
        self.decide_within_ms = decide_within_ms
        self._frame_ms = frame_ms
        self._recent: deque[tuple[int, bool]] = deque(maxlen=onset_window)
        self._state = _State.IDLE
        self._onset = 0
        self._paused_at = 0
        self._voiced_ms = 0
        self._last_voiced_end = 0
        #: A transcript of the burst is wanted: the time it was asked for, until :meth:`heard`
        #: answers it or the voice resumes. The listener transcribes and calls :meth:`heard`.
        self.wants: int | None = None
        #: What is wanted is a quick read (a short window, a few words), not a full one.
        self.brief = False
        self._asked = False  # the ask was handed out (see take_request)
        self._quick_read = False  # this quiet's quick read came back, and did not decide
        #: A verdict that lets the bot go on once the voice has been quiet gap_ms: why, the
        #: text, and whether a late read follows (see :meth:`_resume_late`).
        self._held: tuple[str, str, bool] | None = None
        self._long_ask: int | None = None  # when a long burst's transcript was asked for
        self._acknowledged = False  # the bot went on because the burst was heard as such
        self._late = False  # the full read wanted was asked for as the bot went on
        #: The caller's language (stt.language, an ISO code): whose backchannels and floor
        #: words a burst is judged by.
        self.language = "en"

    @property
    def paused(self) -> bool:
        """Whether playout is held, undecided."""
        return self._state is _State.PAUSED

    def take_request(self) -> bool:
        """True once for each transcript asked for: the listener should start one now."""
        if self.wants is None or self._asked:
            return False
        self._asked = True
        return True

    def feed(
        self, voiced: bool, t_ms: int, bot_speaking: bool, *, echo_free: bool = False
    ) -> list[FloorEvent]:
        """One frame (``t_ms`` = its start); ``echo_free``: the microphone hears no echo of
        the bot, so a shorter onset pauses it (see the module docstring)."""
        end = t_ms + self._frame_ms
        if not bot_speaking:
            self._reset()
            return []
        if voiced:
            self._voiced_ms += self._frame_ms
            self._last_voiced_end = end
        quiet_ms = end - self._last_voiced_end
        match self._state:
            case _State.IDLE:
                return self._idle(voiced, t_ms, end, echo_free)
            case _State.PAUSED:
                return self._paused(voiced, end, quiet_ms)
            case _State.QUICK:
                return self._quick(voiced, t_ms, end, quiet_ms, echo_free)
            case _State.KEPT:
                # A burst heard as acknowledgement ("yeah... yeah") is a sentence only once
                # it runs to certain_ms; one the bot went on from undecided, at sentence_ms.
                if self._voiced_ms >= (self.certain_ms if self._acknowledged else self.sentence_ms):
                    self._state = _State.BARGED
                    return [BargeIn(self._onset, end, "the voice went on: a sentence")]
                if quiet_ms >= self.gap_ms:
                    self._reset()
            case _State.BARGED:
                pass
        return []

    def heard(self, text: str, t_ms: int, *, sure: bool = True) -> list[FloorEvent]:
        """The transcript asked for (``wants``) arrived at ``t_ms``; ``sure``: Whisper did
        not think it probably no speech (only a quick read keeps such text)."""
        if self.wants is None:
            return []  # decided meanwhile, or stale: the voice went on after the ask
        burst = classify(text, self.language)
        if self._late:
            self.wants, self._late = None, False
            if burst is Burst.FLOOR and sure:
                return self._barge(t_ms, f"a floor word, read as the bot went on: {text.strip()!r}")
            return []
        if self._state is not _State.PAUSED:
            return []
        self.wants = None
        if self.brief:
            self.brief = False
            if burst is Burst.FLOOR:
                if sure:
                    return self._barge(t_ms, f"a floor word: {text.strip()!r}")
                # Never stop the bot on a doubtful read, nor let a likely bid go on: the
                # full one, asked for now, decides once the voice has been quiet gap_ms.
                self._quick_read = True
                self.wants, self._asked = t_ms, False
                return []
            if burst is Burst.BACKCHANNEL:
                return self._resume(t_ms, burst.value, text.strip(), quick=True)
            # Unclear words or a noise: the full read could only add a floor word, so the
            # bot goes on once the voice has been quiet gap_ms (a caller between "Sorry,"
            # and the rest is not talked over) and the full read follows it.
            if t_ms - self._last_voiced_end < self.gap_ms:
                self._held = (burst.value, text.strip(), True)
                return []
            return self._resume_late(t_ms, burst.value, text.strip())
        if self._long_ask is not None:  # long enough for a sentence: only acknowledgement
            ended = t_ms - self._last_voiced_end >= self.gap_ms
            if burst is Burst.NOISE and not ended:
                # tiny.en reads nothing at all in some sentences' first second ("Sorry, do
                # you" -> ""): a voice still going is asked about again with more of it,
                # under the same deadline (LONG_ASK_MS, certain_ms).
                self.wants, self._asked = t_ms, False
                return []
            if burst in (Burst.BACKCHANNEL, Burst.NOISE):  # or a noise lets the bot go on
                return self._resume(t_ms, burst.value, text.strip())
            if burst is Burst.UNCLEAR and ended and len(tokens(text)) <= MAX_TOKENS:
                # A few unclear words from a voice already gone quiet: tiny.en writes a
                # loud "mm-hmm" as "And then, then." A sentence would still be going.
                return self._resume(t_ms, burst.value, text.strip())
            return self._barge(t_ms, f"a sentence: {text.strip()!r}")
        if burst is Burst.FLOOR:
            return self._barge(t_ms, f"a floor word: {text.strip()!r}")
        if t_ms - self._last_voiced_end < self.gap_ms:
            self._held = (burst.value, text.strip(), False)  # goes on once the voice is quiet
            return []
        return self._resume(t_ms, burst.value, text.strip())

    def _barge(self, t_ms: int, why: str) -> list[FloorEvent]:
        self._state = _State.BARGED
        self.wants = self._long_ask = None
        return [BargeIn(self._onset, t_ms, why)]

    def _voice_begins(self, echo_free: bool) -> bool:
        """Whether the frames just fed are a voice's onset (see the module docstring)."""
        if echo_free:
            run = list(self._recent)[-self.clear_onset_frames :]
            if len(run) == self.clear_onset_frames and all(v for _t, v in run):
                return True
        return sum(v for _t, v in self._recent) >= self.onset_frames

    def _idle(self, voiced: bool, t_ms: int, end: int, echo_free: bool) -> list[FloorEvent]:
        self._recent.append((t_ms, voiced))
        if not voiced:
            if not any(v for _t, v in self._recent):
                self._voiced_ms = 0  # only a burst's own frames count
            return []
        if not self._voice_begins(echo_free):
            return []
        self._onset = next(t for t, v in self._recent if v)
        self._voiced_ms = sum(v for _t, v in self._recent) * self._frame_ms
        self._drop_late()  # a new burst: the last one's late read is stale
        self._state = _State.PAUSED
        self._paused_at = end
        return [OverBot(self._onset, end)]

    def _paused(self, voiced: bool, end: int, quiet_ms: int) -> list[FloorEvent]:
        if self._long_ask is not None:
            # A long burst's transcript is awaited: more voice does not make it stale, but
            # a voice that goes on and on, or a Whisper that does not answer, is a sentence.
            if self._voiced_ms >= self.certain_ms:
                return self._barge(end, "a long voice")
            if end - self._long_ask >= LONG_ASK_MS:
                return self._barge(end, "a sentence, not transcribed in time")
            return []
        if self._voiced_ms >= self.sentence_ms:
            self._long_ask = self.wants = end
            self.brief = self._asked = False  # a sentence's length gets the full read
            return []
        if voiced:
            self.wants = self._held = None  # the burst goes on: what was read is stale
            self.brief = self._asked = self._quick_read = False
        elif self._held is not None:
            if quiet_ms >= self.gap_ms:
                why, text, late = self._held
                return self._resume_late(end, why, text) if late else self._resume(end, why, text)
        elif quiet_ms >= self.gap_ms and self.wants is None:
            if self._voiced_ms < self.noise_ms:
                return self._resume(end, Burst.NOISE.value, "")
            self.wants = end
            self._asked = False
        elif (
            quiet_ms >= self.ask_gap_ms
            and self.wants is None
            and not self._quick_read
            and self._voiced_ms >= self.noise_ms
        ):
            self.wants, self.brief, self._asked = end, True, False
        if end - self._paused_at >= self.decide_within_ms:
            return self._resume(end, "undecided", "")
        return []

    def _resume(self, t_ms: int, why: str, text: str, *, quick: bool = False) -> list[FloorEvent]:
        event = BotResumes(self._onset, t_ms, why, text)
        self.wants = self._long_ask = self._held = None
        self.brief = self._quick_read = False
        self._acknowledged = why in (Burst.BACKCHANNEL.value, Burst.NOISE.value)
        if t_ms - self._last_voiced_end >= self.gap_ms:
            self._reset()
        elif quick:
            self._state = _State.QUICK
            self._recent.clear()
        else:
            self._state = _State.KEPT
        return [event]

    def _resume_late(self, t_ms: int, why: str, text: str) -> list[FloorEvent]:
        """The bot goes on, and the full read of the burst is asked for as it does: a floor
        word in it cuts the bot then (see :meth:`heard`)."""
        events = self._resume(t_ms, why, text)
        self.wants, self._asked, self._late = t_ms, False, True
        return events

    def _quick(
        self, voiced: bool, t_ms: int, end: int, quiet_ms: int, echo_free: bool
    ) -> list[FloorEvent]:
        """The bot went on on a quick read: the voice coming back ("Okay, so...") before
        ``gap_ms`` of quiet is the same burst going on, so the bot pauses again."""
        self._recent.append((t_ms, voiced))
        if voiced and self._voice_begins(echo_free):
            self._drop_late()  # the burst goes on: it is judged afresh
            self._state = _State.PAUSED
            self._paused_at = end
            return [OverBot(self._onset, end)]
        if quiet_ms >= self.gap_ms:
            self._reset(keep_late=True)
        return []

    def _drop_late(self) -> None:
        if self._late:
            self.wants, self._asked, self._late = None, False, False

    def _reset(self, *, keep_late: bool = False) -> None:
        """Back to idle; ``keep_late``: a late read still out may cut the bot when it lands."""
        self._state = _State.IDLE
        self._recent.clear()
        self._voiced_ms = 0
        self._long_ask = self._held = None
        self.brief = self._quick_read = self._acknowledged = False
        if not (keep_late and self._late):
            self.wants, self._asked, self._late = None, False, False
