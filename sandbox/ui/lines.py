"""Conversation lines as styled text: caller turns, bot units with their heard truth, notices.

A bot unit shows the heard prefix in bold and the rest dimmed — struck through once the
unit was cut, since the caller will never hear it — with "✂ N of M words heard", and a ✂ in
the text where the cut fell, so it reads without colour too (NO_COLOR, a monochrome terminal).

Every line is a rich ``Text`` built from plain strings, never from markup, and what the brain
or the caller said goes in :func:`visible`: "[/x]" shows as written, and an ESC cannot reach
the terminal.
"""

from __future__ import annotations

from typing import assert_never

from rich.text import Text

from sandbox.call.effects import (
    AppFrameRefused,
    BrainError,
    BrainStalled,
    CallEnded,
    CallerIdle,
    CallerShown,
    ConfigApplied,
    ConfigRejected,
    DeadAir,
    DeadAirEnded,
    EndedBy,
    FrameDropped,
    Notice,
    ProtocolViolation,
    StepForUnknownTurn,
)
from sandbox.call.settings import Settings
from sandbox.call.units import Fate, ShownUnit
from sandbox.record.plain_text import visible
from sandbox.record.reload_notice import RELOAD_MARK, ReloadNotice
from sandbox.record.transcript import CRASHED_WORDS, dead_air_words, stall_words
from sandbox.wire import pb
from sandbox.wire.catalog import language_name, voice_name

#: Fates whose unheard remainder was cut off rather than merely not played yet.
_CUT = frozenset(
    {Fate.BARGED, Fate.CANCELLED, Fate.DEAD_ON_ARRIVAL, Fate.ABANDONED, Fate.UNSPOKEN, Fate.CRASHED}
)
_FATE_WORDS = {
    Fate.PLAYED: "played",
    Fate.BARGED: "cut by a barge-in",
    Fate.CANCELLED: "cancelled by the brain",
    Fate.DEAD_ON_ARRIVAL: "never played: its turn was already interrupted",
    Fate.SILENT: "silent: no text",
    Fate.ABANDONED: "cut: the call ended",
    Fate.UNSPOKEN: "never spoken: its voice could not be loaded",
    Fate.CRASHED: CRASHED_WORDS,
}
_CALLER_LABELS = {
    "spoken": "you said",
    "typed": "you typed",
    "backchannel": "you (backchannel, not a turn)",
}
#: The most of a unit's heard text (its end) and of its unheard rest (its start) the
#: conversation shows: drawing costs what it shows, so a unit a brain floods with text
#: redraws as fast as a sentence (the report and the store keep it whole).
SHOWN_CHARS = 600
_NOTICE_STYLES = {"info": ("·", "dim"), "warning": ("⚠", "yellow"), "error": ("✖", "bold red")}


def unit_state(unit: ShownUnit) -> str:
    """Where a unit stands, in words."""
    if unit.fate is not None:
        return _FATE_WORDS[unit.fate]
    return "speaking" if unit.has_text else "opened, no text yet"


def cut_mark(unit: ShownUnit) -> str | None:
    """``✂ N of M words heard`` for a unit that was cut with something in it, else None."""
    if unit.fate not in _CUT or not unit.generated.strip():
        return None
    return f"✂ {unit.words_heard} of {len(unit.generated.split())} words heard"


def unit_text(unit: ShownUnit) -> Text:
    """A bot unit: header, heard prefix (bold), a ✂ where it was cut, unheard remainder (dim,
    struck when cut)."""
    cut = unit.fate in _CUT
    head = Text("bot", style="bold green")
    head.append(f" · unit {unit.speech_id} · turn {unit.turn_id}", style="green")
    if unit.turn_id == 1:
        head.append(" · greeting", style="green")
    head.append(f" · {unit_state(unit)}", style="italic")
    mark = cut_mark(unit)
    if mark:
        head.append(f"  {mark}", style="bold magenta")
    body = Text("\n  ")
    heard = unit.heard
    body.append(_tail(heard), style="bold")
    rest = unit.relayed[len(heard) : len(heard) + SHOWN_CHARS + 1]
    discarded = "".join(unit.discarded[:SHOWN_CHARS])
    if mark:
        body.append(_cut_sign(heard, rest or discarded), style="bold magenta")
    rest_style = "dim strike" if cut else "dim"
    body.append(_head(rest), style=rest_style)
    body.append(_head(discarded), style=f"{rest_style} italic")
    return head + body


def _tail(text: str) -> str:
    """The end of a long text, as a unit's entry shows it (see SHOWN_CHARS)."""
    return visible(text if len(text) <= SHOWN_CHARS else f"…{text[-SHOWN_CHARS:]}")


def _head(text: str) -> str:
    """The start of a long text, as a unit's entry shows it (see SHOWN_CHARS)."""
    return visible(text if len(text) <= SHOWN_CHARS else f"{text[:SHOWN_CHARS]}…")


def _cut_sign(heard: str, unheard: str) -> str:
    """The ✂ between the heard and the unheard words, spaced from a word on either side."""
    before = " " if heard and not heard[-1].isspace() else ""
    after = " " if unheard and not unheard[0].isspace() else ""
    return f"{before}✂{after}"


def caller_text(shown: CallerShown) -> Text:
    """A caller-side line: a spoken or typed turn, a backchannel, an idle nudge."""
    label = _CALLER_LABELS.get(shown.kind, shown.kind)
    if shown.resumed:
        label = "you (backchannel: the bot paused, then went on)"
    line = Text(label, style="bold cyan")
    if shown.turn_id is not None:
        line.append(f" · turn {shown.turn_id}", style="cyan")
    line.append("\n  ")
    line.append(visible(shown.text), style="dim italic" if shown.kind == "backchannel" else "")
    return line


def idle_text(idle: CallerIdle) -> Text:
    """The idle nudge: how long the caller has been silent."""
    line = Text("idle", style="bold cyan")
    line.append(f" · turn {idle.turn_id}", style="cyan")
    line.append(f"\n  silent for {idle.idle_ms / 1000:.1f} s", style="dim italic")
    return line


def notice_words(notice: Notice) -> tuple[str, str]:
    """What the core's notice means to the user: its level (info, warning, error), and words."""
    match notice:
        case ProtocolViolation(code=code, detail=detail):
            return "warning", f"brain broke the wire ({code}): {detail}"
        case FrameDropped(reason=reason):
            return "error", f"{reason}; frame dropped"
        case BrainError(code=code, message=message, fatal=fatal):
            return ("error" if fatal else "warning"), f"brain error {code}: {message}"
        case BrainStalled(turn_id=turn, waited_ms=waited):
            return "warning", stall_words(turn, waited)
        case DeadAir(turn_id=turn, speech_id=sid, silent_ms=silent):
            # Noticed once; the status line counts it on while it lasts.
            return "warning", dead_air_words(turn, sid, silent, lasting=True)
        case DeadAirEnded(turn_id=turn, speech_id=sid, silent_ms=silent):
            return "warning", dead_air_words(turn, sid, silent, lasting=False)
        case StepForUnknownTurn(turn_id=turn, kind=kind, name=name):
            return "warning", (
                f"TurnStep {kind} {name!r} names turn {turn}, which was never minted "
                "(recorded and flagged; a TurnStep is never answered)"
            )
        case ConfigApplied(settings=settings):
            return "info", f"config: {settings.describe()}"
        case ConfigRejected(problem=problem):
            return "warning", f"config rejected: {problem}"
        case AppFrameRefused(problem=problem):
            return "error", f"{problem}; not sent"


def notice_text(level: str, words: str) -> Text:
    """Something the user should know, marked by its level (``words`` :func:`visible`)."""
    mark, style = _NOTICE_STYLES.get(level, ("•", ""))
    return Text(f"{mark} {visible(words)}", style=style)


def shown_text(shown: CallerShown | CallerIdle | Notice | CallEnded) -> tuple[Text, str | None]:
    """A conversation line for a caller line, an idle nudge, a notice or the end; and, for an
    error notice, its words for a notification."""
    if isinstance(shown, CallerShown):
        return caller_text(shown), None
    if isinstance(shown, CallerIdle):
        return idle_text(shown), None
    if isinstance(shown, CallEnded):
        return ended_text(shown), None
    level, words = notice_words(shown)
    return notice_text(level, words), words if level == "error" else None


def ended_words(ended: CallEnded) -> str:
    """Who ended the call and why, in words."""
    detail = ended.detail
    match ended.ended_by:
        case EndedBy.CALLER:
            return detail or "you ended the call"
        case EndedBy.BRAIN:
            return "the brain hung up"
        case EndedBy.BRAIN_CLOSED:
            return detail or "the brain's connection closed"
        case EndedBy.BRAIN_ERROR:
            return f"the brain ended the session with a fatal error: {detail}"
        case EndedBy.BRAIN_CANCEL:
            return f"the brain cancelled the call: {detail or 'no reason given'}"
        case EndedBy.DIAL_FAILED:
            return f"the brain could not be reached: {detail}".rstrip(": ")
        case EndedBy.UNFINISHED:
            return "the call has not ended"
        case unknown:
            assert_never(unknown)


def ended_text(ended: CallEnded) -> Text:
    """The last line of a call."""
    words = visible(ended_words(ended))
    return Text(f"■ Call ended: {words}. Outcome: {ended.outcome}.", style="bold")


def reload_text(notice: ReloadNotice) -> Text:
    """The brain's file loaded again mid-call (``sandbox brain --reload``), where it was."""
    return Text(f"{RELOAD_MARK} {visible(notice.words)}", style="bold blue")


def record_card(lines: list[str]) -> Text:
    """The call record as a card: its findings in words, one a line."""
    card = Text("┌ The call record\n", style="bold")
    for line in lines:
        card.append("│ ", style="bold")
        card.append(f"{visible(line)}\n", style=_record_style(line))
    card.append("└", style="bold")
    return card


def record_note(words: str) -> Text:
    """One finding of the call record, at the moment it was decided (replay)."""
    return Text(f"≡ {visible(words)}", style=_record_style(words))


#: Marks of a record line worth a second look.
_FLAGGED = ("[not_heard]", "[corrected]", "[unconfirmed]", "below the floor", "name_", "promised_")


def _record_style(line: str) -> str:
    if any(mark in line for mark in _FLAGGED) or "called_the_caller" in line:
        return "yellow"
    return "green" if "[confirmed]" in line else ""


def legs_banner(settings: Settings) -> str:
    """The banner's word on a call a leg of which starts in another language than English:
    each leg's language and the voice (empty for an English call, which the status line
    names as every call's settings)."""
    speak, hear = settings.tts_language, settings.stt_language
    if speak == hear == pb.LANGUAGE_EN:
        return ""
    voice = voice_name(settings.voice)
    return (
        f"this call starts spoken in {language_name(speak)} (voice {voice}) and heard in "
        f"{language_name(hear)}; the brain may move either leg with a Config"
    )
