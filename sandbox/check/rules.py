"""The contract's own words for every rule the conformance suite checks.

Each rule quotes the specification verbatim and names where it says so: the page of the
docs that holds it (``_DOCS``) and the section, one of that page's own headings.
A finding prints the rule it breaks, so a brain author reads the sentence they are held to.
"""

# The specification's curly apostrophes are quoted verbatim.
# ruff: noqa: RUF001

from __future__ import annotations

from dataclasses import dataclass

_DOCS = {"wire": "the wire contract (docs/wire.md)"}


@dataclass(frozen=True)
class Rule:
    """One sentence of the contract: which page, which section, the words."""

    doc: str
    section: str
    words: str

    def cite(self) -> str:
        """Where it is written: the page and the section."""
        return f'{_DOCS[self.doc]}, section "{self.section}"'


BRACKETS_BALANCE = Rule(
    "wire",
    "Invariants",
    "Brackets balance. Every SpeechStart is closed by a SpeechEnd or a SpeechCancel; "
    "a SpeechChunk outside an open unit is an error.",
)
ONE_SPEECH_ID = Rule(
    "wire",
    "Invariants",
    "One speech_id per unit, on every frame of that unit, brain-minted and never reused.",
)
SPEECH_NAMES_TURN = Rule(
    "wire",
    "Invariants",
    "Speech names its turn. Every SpeechStart carries the turn_id of the stimulus it "
    "answers, and only Voqalize mints one.",
)
ONE_RESPONSE = Rule(
    "wire", "Invariants", "Exactly one Response per Request, matching on request_id."
)
ONE_FINALIZE = Rule(
    "wire",
    "Invariants",
    "Exactly one Finalize per bracket the brain opened, in that order — including for a "
    "unit that turned out silent, which reports nothing heard, and for a unit the brain "
    "cancelled, which reports what played before the cut.",
)
HEARD_IS_PREFIX = Rule(
    "wire",
    "Invariants",
    "heard_text is the delivered prefix, per unit, never a concatenation, and a verbatim "
    "prefix of that unit’s own text.",
)
OWES_THE_INVARIANTS = Rule(
    "wire",
    "Invariants",
    "Both ends rely on these, and a brain that implements the wire directly owes them",
)
FLOOR_IS_VOQALIZES = Rule(
    "wire",
    "The shape of a session",
    "Voqalize owns the floor. It decides when the brain may speak by minting a turn — a "
    "SessionStart, a UserMessage or a UserIdle — and the brain answers with speech that "
    "names that turn. There is no message a brain can send to ask for the floor, and none "
    "that interrupts the human.",
)
BINARY_ONLY = Rule(
    "wire", "Framing", "Binary WebSocket messages only — a text message is an error."
)
DEAD_TURN_STOPS = Rule(
    "wire",
    "Barge-in",
    "Voqalize sends Interruption(through_turn), and that is a watermark: everything up to "
    "and including that turn is dead, and the brain stops generating for it.",
)
NEXT_TURN_IS_LIVE = Rule(
    "wire",
    "Barge-in",
    "the next UserMessage mints a higher turn, and speech on that turn is live by construction.",
)
CANCEL_IS_NOT_BARGE_IN = Rule(
    "wire",
    "Taking speech back",
    "The answer is the unit’s Finalize, and nothing else. [...] It is not a barge-in. No "
    "Interruption is sent, the watermark does not move, and the turn stays open",
)
CANCEL_NAMES_A_UNIT = Rule(
    "wire",
    "Taking speech back",
    "Naming 0 or a unit this session never opened — A non-fatal PROTOCOL Error; the call continues",
)
REQUEST_IDS_RISE = Rule(
    "wire",
    "The control leg",
    "request_id is brain-minted and session-monotonic; its whole job is to name the Response.",
)
RTVI_NOT_FORGED = Rule(
    "wire",
    "The RTVI plane",
    "bot-* and llm-* are Voqalize’s own assertions about the media and the model, and a "
    "brain must not be able to forge them",
)
RTVI_WHITELIST = Rule(
    "wire", "The RTVI plane", "A type absent from the list does not cross in either direction."
)
RTVI_SIZE = Rule(
    "wire",
    "The RTVI plane",
    "data is the RTVI payload, opaque and bounded by the client’s 64 KiB message limit.",
)
