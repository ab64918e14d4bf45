"""The audit of every real-audio session a bench stage made: each unit's recorded heard text
against Whisper's transcript of the speaker leg (see :mod:`sandbox.replay.audit`)."""

from __future__ import annotations

from sandbox.audio.stt import Transcriber
from sandbox.judges.heard_truth import doubted
from sandbox.record.plain_text import quoted
from sandbox.record.store import SessionStore
from sandbox.record.stored_events import UnitAudit
from sandbox.replay.audit import audit_session, audit_totals, keep_audit, refusal
from sandbox_bench.figures import Progress


def audit_stored_sessions(progress: Progress) -> dict[str, object]:
    """Audit every real-audio session in the data directory (the stage's own, see
    :func:`~sandbox_bench.own_home.own_home`): ``audit_units``, ``audit_exact_fraction``,
    ``audit_max_words_off`` over all their units, ``audit_sessions``, and
    ``audit_doubted``: each unit further off than tolerated, its recorded heard text beside
    what Whisper heard in its clip, so a reader can tell a misheard clip from a wrong record."""
    with SessionStore() as store:
        rows = [row for row in store.sessions() if refusal(row) is None]
        units: list[UnitAudit] = []
        off: list[dict[str, object]] = []
        if rows:
            transcriber = Transcriber.load()
            for index, row in enumerate(rows, 1):
                audit = audit_session(store, row, transcriber)
                keep_audit(store, row, audit)
                units += audit.units
                worst = audit.totals()["audit_max_words_off"]
                progress(
                    f"  audit: session {index} of {len(rows)}: {len(audit.units)} units, "
                    f"at most {worst} words off"
                )
                for unit in audit.units:
                    if doubted(unit.words_off):
                        progress(
                            f"    unit {unit.speech_id}: recorded {quoted(unit.heard)}, "
                            f"Whisper heard {quoted(unit.transcribed)}"
                        )
                        off.append(
                            {"heard": unit.heard, "transcribed": unit.transcribed,
                             "words_off": unit.words_off}
                        )  # fmt: skip
    return {"audit_sessions": len(rows), **audit_totals(units), "audit_doubted": off}
