"""One caller turn's latency waterfall drawn as text: a row per stage it reached, each a bar
from the stage before it to this one on one time axis (ms after the turn's caller voice end),
so the slow stretch of a slow turn is the long bar. The app's ``f7``, replay's ``w`` and
``sandbox sessions show --latency`` draw it alike."""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text

from sandbox.call.waterfall import NETWORK_STAGES, STAGES, from_start, stages_named

#: Columns the time axis takes.
AXIS = 48
#: Columns each stage's name takes.
LABEL = max(len(words) for words in STAGES.values())


def waterfall_text(turn_id: int, timeline: Mapping[str, int], axis: int = AXIS) -> Text:
    """The waterfall of caller turn ``turn_id`` as styled text, one line per stage."""
    marks = from_start(timeline)
    voiced = "voice_end" in marks
    head = f"turn {turn_id} · ms after the caller's voice end"
    if not voiced:
        head = f"turn {turn_id} · no voice end (typed or simulated): ms after its first stage"
    text = Text(head, style="bold")
    if not marks:
        return text.append("\nno stage reached yet", style="dim")
    span = max(max(marks.values()), 1)
    previous = 0
    for stage, at in marks.items():
        start = round(previous * axis / span)
        end = max(round(at * axis / span), start + 1)  # a stage that took no time still shows
        text.append(f"\n{STAGES[stage]:<{LABEL}} ")
        text.append(" " * start)
        caller = stage in ("voice_end", "caller_voice_end")
        text.append("█" * (end - start), style="cyan" if caller else "bold magenta")
        text.append(" " * (axis - end))
        text.append(f" {at:>6} ms", style="bold")
        step = at - previous
        if step:
            text.append(f"  +{step}", style="dim")
        previous = at
    right = f"{span} ms"
    text.append(f"\n{'':<{LABEL}} 0{right:>{axis - 1}}", style="dim")
    on_line = any(stage in marks for stage in NETWORK_STAGES)
    missing = [words for stage, words in stages_named(on_line).items() if stage not in marks]
    if missing:
        text.append(f"\nnot reached or not measured: {', '.join(missing)}", style="dim")
    return text
