"""``sandbox sessions``: the calls the session store kept — list, show, export, rm, prune.

A session is named by its id or any unique prefix of it, as git names commits.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path
from typing import Any

from sandbox.call.outcome import Outcome
from sandbox.commands.written import FORCE_HELP, clear_the_way, write_text
from sandbox.errors import UserError
from sandbox.option_values import checked, name, path
from sandbox.record.latency_text import latency_lines
from sandbox.record.markdown import session_markdown
from sandbox.record.plain_text import json_text, visible
from sandbox.record.session_text import local_time, session_text
from sandbox.record.session_words import recorded_brain
from sandbox.record.store import TEST_ORIGIN, Removed, SessionRow, SessionStore, short_id
from sandbox.record.store_repair import repair_store
from sandbox.record.store_text import damaged_lines, repaired_lines
from sandbox.record.stored_call import StoredCall
from sandbox.replay.caller_script import caller_steps, script_toml, speaking_rate
from sandbox.replay.heard_expects import HeardExpects

HELP = "list, show, export or remove the calls the session store kept"

#: What ``--outcome`` picks: a call's outcome, or ``unfinished`` for one that never ended.
OUTCOMES = (
    Outcome.COMPLETED,
    Outcome.NOT_A_CONVERSATION,
    Outcome.NO_ANSWER,
    Outcome.NOT_REACHED,
    Outcome.UNFINISHED,
)
#: ``--outcome``'s help, for every command that filters saved sessions.
OUTCOME_HELP = f"only sessions with this outcome ({', '.join(OUTCOMES)})"

_SPAN = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd])\s*$")
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
#: The longest span: a century (longer reaches before any session, or past a float).
MAX_SPAN_S = 36_500 * 86400


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Sub-verbs of ``sandbox sessions``."""
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    listing = _verb(verbs, "list", "sessions, newest first")
    listing.add_argument("--brain", type=name, help="only sessions whose brain URL contains this")
    listing.add_argument("--outcome", choices=OUTCOMES, metavar="OUTCOME", help=OUTCOME_HELP)
    listing.add_argument(
        "--since", type=SPAN, metavar="SPAN", help="only the last SPAN (30m, 12h, 7d)"
    )
    listing.add_argument("--json", action="store_true", help="one JSON object per session")
    runs = listing.add_mutually_exclusive_group()
    runs.add_argument(
        "--all",
        action="store_true",
        help="also the sessions test runs recorded (sandbox test, the pytest plugin), marked "
        "test; left out by default",
    )
    runs.add_argument("--tests", action="store_true", help="only the sessions test runs recorded")
    show = _verb(verbs, "show", "one session: its index, transcript and errors")
    show.add_argument("id", type=name, help="a session id or a unique prefix of one")
    show.add_argument("--json", action="store_true", help="print the session's report JSON")
    show.add_argument(
        "--latency",
        action="store_true",
        help="print each caller turn's latency waterfall as a table, with p50/p90 per stage",
    )
    export_arguments(_verb(verbs, "export", EXPORT_HELP))
    script = _verb(verbs, "script", "print the session's caller side as a caller script (TOML)")
    script.add_argument("id", type=name, help="a session id or a unique prefix of one")
    script.add_argument(
        "--expect",
        action="store_true",
        help="give each turn an expect drawn from what the caller heard: its sentences, a "
        "reply within the time it took plus a margin, whether an error crossed",
    )
    remove = _verb(verbs, "rm", "remove one session")
    remove.add_argument("id", type=name, help="a session id or a unique prefix of one")
    prune = _verb(verbs, "prune", "remove sessions older than a span")
    prune.add_argument(
        "--older-than", type=SPAN, required=True, metavar="SPAN", help="e.g. 30d, 12h"
    )
    _verb(verbs, "repair", REPAIR_HELP)


def _verb(
    verbs: argparse._SubParsersAction[argparse.ArgumentParser], name: str, words: str
) -> argparse.ArgumentParser:
    """A sub-verb whose ``--help`` opens with what it does, as ``sandbox sessions`` lists it."""
    return verbs.add_parser(name, help=words, description=words)


#: What ``sandbox sessions repair`` does.
REPAIR_HELP = (
    "copy what a damaged store still holds into a fresh one, and move the damaged one aside"
)
#: What ``sandbox sessions export`` (and ``sandbox export``) writes.
EXPORT_HELP = (
    "write a saved session as one HTML page, a Markdown summary, its report JSON or its audio"
)


def export_arguments(parser: argparse.ArgumentParser) -> None:
    """The session to export and what to write."""
    parser.add_argument("id", type=name, help="a session id or a unique prefix of one")
    parser.add_argument(
        "--html",
        type=path,
        metavar="FILE",
        help="one self-contained page: audio, waveforms, heard words lit as it plays, frames",
    )
    parser.add_argument(
        "--md", type=path, metavar="FILE", help="a short Markdown summary ('-': print it)"
    )
    parser.add_argument("--json", type=path, metavar="FILE", help="the report JSON")
    parser.add_argument(
        "--wav", type=path, metavar="DIR", help="mic.wav, speaker.wav and mix.wav in DIR"
    )
    parser.add_argument("--force", action="store_true", help=FORCE_HELP)


def run(args: argparse.Namespace) -> int:
    """Carry out the verb."""
    if args.verb == "repair":  # a damaged store may not even open
        print("\n".join(repaired_lines(repair_store())))
        return 0
    with SessionStore() as store:
        if args.verb == "list":
            return _list(store, args)
        if args.verb == "prune":
            removed = store.prune(args.older_than)
            count = len(removed.ids)
            print(f"removed {count} session{'s' if count != 1 else ''}{_freed(removed)}")
            for session_id in removed.in_progress:
                print(f"kept {visible(session_id)}: its call is still in progress")
            return 0
        row = store.find(args.id)
        if args.verb == "rm":
            print(f"removed session {visible(row.id)}{_freed(store.delete(row.id))}")
            return 0
        call = StoredCall.load(store, row)  # read once, for every view of it below
    if args.verb == "show":
        if args.json:
            print(json_text(call.report_json, indent=2))
        elif args.latency:
            print("\n".join(latency_lines(call.report)))
        else:
            print(session_text(row, call.report))
    elif args.verb == "export":
        export_session(call, args)
    elif args.verb == "script":
        heard = HeardExpects(call.records, call.report) if args.expect else None
        steps = caller_steps(call.frames, call.records, heard)
        if not steps:
            raise UserError(f"session {visible(short_id(row.id))} has no caller side to script")
        rate = speaking_rate(call.events) if row.mode != "audio" else None
        print(script_toml(steps, rate, row.id), end="")
    return 0


def export_session(call: StoredCall, args: argparse.Namespace) -> None:
    """Write what ``args`` asks for (see :func:`export_arguments`), from the stored call read
    once: its report is built once for every format."""
    row = call.row
    if all(getattr(args, name) is None for name in ("html", "md", "json", "wav")):
        raise UserError("say what to export: --html FILE, --md FILE, --json FILE or --wav DIR")
    if args.wav is not None and row.mode != "audio":
        raise UserError(
            f"session {short_id(row.id)} was a {row.mode} call: it has no audio legs to export"
        )
    clear_the_way(_destinations(args), force=args.force)
    if args.json is not None:
        _write(args.json, json_text(call.report_json, indent=2))
    # The audio library (numpy, soundfile) loads only for what writes audio.
    if args.wav is not None:
        from sandbox.record.legs import export_legs

        for path in export_legs(row.id, args.wav):
            print(f"wrote {path}")
    if args.html is not None:
        from sandbox.record.page.build import session_page

        _write(args.html, session_page(call))
    if args.md is not None:
        summary = session_markdown(row, call.report)
        if str(args.md) == "-":
            print(summary, end="")
        else:
            _write(args.md, summary)


def _destinations(args: argparse.Namespace) -> list[Path]:
    """Every file an export would write."""
    files = [path for path in (args.json, args.html) if path is not None]
    if args.md is not None and str(args.md) != "-":
        files.append(args.md)
    if args.wav is not None:
        from sandbox.record.legs import EXPORTED_LEGS

        files += [args.wav / f"{leg}.wav" for leg in EXPORTED_LEGS]
    return files


def _write(path: Path, text: str) -> None:
    write_text(path, text)
    print(f"wrote {path} ({len(text.encode()) / 2**20:.1f} MB)")


def _freed(removed: Removed) -> str:
    """What removing freed, in words: the audio legs' bytes left the disk; the frames' and
    events' stay in the store's file, free for its next calls."""
    if not removed.ids:
        return ""
    audio = f"{removed.audio_bytes:,} bytes of audio freed" if removed.audio_bytes else "no audio"
    return f": {audio}; {removed.stored_bytes:,} bytes of frames and events freed in the store"


def span_seconds(text: str) -> float:
    """``30d``, ``12h``, ``45m``, ``90s`` as seconds, up to a century; a UserError otherwise."""
    match = _SPAN.match(text)
    if match is None:
        raise UserError(f"{text!r} is not a span; write a number and s, m, h or d (30d)")
    seconds = float(match.group(1)) * _SECONDS[match.group(2)]
    if seconds > MAX_SPAN_S:
        raise UserError(f"{text!r} is longer than a century (36500d)")
    return seconds


#: ``type=`` of every option that takes a span (``--since``, ``--older-than``).
SPAN = checked(span_seconds)


def _list(store: SessionStore, args: argparse.Namespace) -> int:
    since = time.time() - args.since if args.since is not None else None
    tests = None if args.all else bool(args.tests)

    def chosen(tests: bool | None) -> list[SessionRow]:
        return store.sessions(brain=args.brain, outcome=args.outcome, since=since, tests=tests)

    rows = chosen(tests)
    damaged = store.damaged_rows()
    hidden = len(chosen(True)) if tests is False else 0
    if args.json:
        for row in rows:
            print(json_text(_row_json(row)))
    elif rows or damaged:
        _list_rows(store, rows)
    elif not hidden:
        print("no sessions yet: `sandbox run` or `sandbox call` records every call")
    if hidden and not args.json:
        print(f"({hidden:,} recorded by test runs not shown: --all or --tests shows them)")
    if not damaged:
        return 0
    print("\n".join(damaged_lines(damaged)), file=sys.stderr)
    return 1


def _list_rows(store: SessionStore, rows: list[SessionRow]) -> None:
    print(f"{'id':<12}  {'started':<16}  {'length':>7}  {'outcome':<18}  {'mode':<5}  "
          f"{'turns':>5}  {'units':>5}  {'cuts':>4}  {'errors':>6}  brain")  # fmt: skip
    for row in rows:
        started = local_time(row.started_at, "%Y-%m-%d %H:%M")
        length = f"{row.duration_ms / 1000:.1f}s" if row.duration_ms is not None else "-"
        print(
            f"{visible(short_id(row.id)):<12}  {started:<16}  {length:>7}  {row.status:<18}  "
            f"{'test' if row.origin == TEST_ORIGIN else row.mode:<5}  "
            f"{_count(row.caller_turns):>5}  {_count(row.units):>5}  {_count(row.cuts):>4}  "
            f"{_count(row.errors):>6}  {visible(recorded_brain(store, row))}"
        )
        if row.outcome == "not_reached" and row.end_detail:
            print(f"{'':<12}  why: {visible(row.end_detail)}")


def _count(value: int | None) -> str:
    return "-" if value is None else str(value)


def _row_json(row: SessionRow) -> dict[str, Any]:
    out = {name: getattr(row, name) for name in SessionRow.__dataclass_fields__}
    out["outcome"] = row.status
    return out
