"""The audit of every real-audio session a bench stage made: each unit's recorded heard text
against Whisper's transcript of the speaker leg (see :mod:`sandbox.replay.audit`)."""

from __future__ import annotations

from sandbox.audio.stt import Transcriber
from sandbox.bench.figures import Progress
from sandbox.record.store import SessionStore
from sandbox.replay.audit import UnitAudit, audit_session, audit_totals, keep_audit, refusal


def audit_stored_sessions(progress: Progress) -> dict[str, int | float | None]:
    """Audit every real-audio session in the data directory (the stage's own, see
    :func:`~sandbox.bench.own_home.own_home`): ``audit_units``, ``audit_exact_fraction``,
    ``audit_max_words_off`` over all their units, and ``audit_sessions``."""
    with SessionStore() as store:
        rows = [row for row in store.sessions() if refusal(row) is None]
        units: list[UnitAudit] = []
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
    return {"audit_sessions": len(rows), **audit_totals(units)}
