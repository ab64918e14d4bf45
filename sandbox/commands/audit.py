"""``sandbox audit``: a real-audio session's heard text checked against its speaker leg.

Exit status: 0 when every unit agrees with the audio, or is one word off; 1 when a unit is
more than one word off, or the session has no speaker leg to audit.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict

from sandbox.audio.recognizers import Recognizers
from sandbox.audio.stt import Transcriber
from sandbox.option_values import name
from sandbox.record.plain_text import json_text, quoted, visible
from sandbox.record.store import SessionStore
from sandbox.replay.audit import audit_session, keep_audit, refusal

HELP = "check a real-audio session's heard text against what its speaker leg says (Whisper)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The session, and ``--json``."""
    parser.add_argument("id", type=name, help="a session id or a unique prefix of one")
    parser.add_argument("--json", action="store_true", help="print the audit as JSON")


def run(args: argparse.Namespace) -> int:
    """Audit the session, keep the result with it, print it."""

    def progress(words: str) -> None:
        print(words, file=sys.stderr, flush=True)

    with SessionStore() as store:
        row = store.find(args.id)
        reason = refusal(row)
        if reason is not None:
            print(f"sandbox audit: {reason}", file=sys.stderr)
            return 1
        heard = Recognizers(Transcriber.load(progress=progress), progress)
        audit = audit_session(store, row, heard, progress)
        keep_audit(store, row, audit)
    if args.json:
        units = [
            {k: v for k, v in asdict(u).items() if k not in ("start_ms", "end_ms")}
            for u in audit.units
        ]
        out = {"session_id": row.id, "units": units, **audit.totals(), "passed": audit.passed}
        print(json_text(out, indent=2))
    else:
        for unit in audit.units:
            print(f"unit {unit.speech_id}: {unit.verdict}")
            if unit.words_off:
                print(f"  heard:       {quoted(unit.heard)}")
                print(f"  transcribed: {quoted(unit.transcribed)}")
        totals = audit.totals()
        print(
            visible(
                f"{totals['audit_units']} units, exact fraction {totals['audit_exact_fraction']}"
                f", words off at most {totals['audit_max_words_off']}"
            )
        )
    return 0 if audit.passed else 1
