"""The app's pure parts: latency waterfall, frame formatting and filter, conversation lines,
meter, status line, the settings and app-frame forms' logic, the typed-mode banner."""

from __future__ import annotations

import json

from sandbox.call.effects import (
    BrainError,
    BrainStalled,
    CallEnded,
    CallerIdle,
    CallerShown,
    EndedBy,
    ProtocolViolation,
)
from sandbox.call.outcome import Outcome
from sandbox.call.settings import Settings
from sandbox.call.units import Bracket, Fate, Unit
from sandbox.call.waterfall import (
    COMMITTED,
    FIRST_CHUNK,
    FIRST_CLAUSE,
    FIRST_SAMPLE,
    FIRST_SPEAKER,
    USER_MESSAGE,
    VOICE_END,
    from_start,
    slowest_stage,
    summary,
)
from sandbox.record.recorder import FrameRecord
from sandbox.ui.frame_text import (
    frame_detail,
    frame_speech,
    frame_summary,
    frame_turn,
    matches,
    parse_filter,
)
from sandbox.ui.lines import (
    caller_text,
    cut_mark,
    ended_words,
    idle_text,
    notice_text,
    notice_words,
    unit_text,
)
from sandbox.ui.meter import meter
from sandbox.ui.screens.help import help_markdown
from sandbox.ui.screens.rtvi import APP_TYPES, AppFrame, app_frame
from sandbox.ui.screens.settings import config_delta
from sandbox.ui.typed_audio import TypedAudio, typed_banner
from sandbox.ui.widgets.app_pane import app_line
from sandbox.ui.widgets.status import StatusInfo, capability_names, status_text
from sandbox.wire import pb


def rec(t: int, direction: str, kind: str, **fields: object) -> FrameRecord:
    return FrameRecord.of(t, direction, kind, dict(fields))


# ------------------------------------------------------------------ latency


def test_the_status_lines_latency_is_the_timelines_own_figures() -> None:
    typed = {USER_MESSAGE: 1000, FIRST_CHUNK: 1100, FIRST_SAMPLE: 1250}
    assert summary(2, typed) == (
        "turn 2 · first audio 250 ms after its first stage (typed) (first chunk 100)"
        " · slowest: first sample released +150"
    )
    spoken = {**typed, VOICE_END: 530, COMMITTED: 990, FIRST_SPEAKER: 1270}
    # The speaker's stage when the device's delay is known: f7's last bar, the same figure.
    assert summary(3, spoken) == (
        "turn 3 · first audio 740 ms after voice end (committed 460, first chunk 570)"
        " · slowest: turn committed +460"
    )
    # A turn whose first clause took the time says so, whatever came before it.
    slow = {**spoken, FIRST_CLAUSE: 2900, FIRST_SAMPLE: 2910, FIRST_SPEAKER: 2930}
    assert slowest_stage(slow) == (FIRST_CLAUSE, 1800)
    assert summary(3, slow).endswith(" · slowest: first clause synthesized +1800")
    assert slowest_stage({VOICE_END: 0}) is None
    assert from_start(spoken)[FIRST_SPEAKER] == 740
    assert summary(4, {VOICE_END: 0, COMMITTED: 400}) == (
        "turn 4 · no audio yet · ms after voice end (committed 400)"
    )


# ------------------------------------------------------------------- frames


def test_frame_columns_name_turn_and_unit() -> None:
    turns = {7: 3}
    assert frame_turn(rec(0, "out", "user_message", turn_id=3, text="x"), turns) == "3"
    assert frame_turn(rec(0, "out", "interruption", through_turn=2), turns) == "≤2"
    assert frame_turn(rec(0, "in", "speech_chunk", speech_id=7, text="x"), turns) == "3"
    assert frame_turn(rec(0, "in", "speech_chunk", speech_id=8, text="x"), turns) == ""
    assert frame_speech(rec(0, "out", "finalize", speech_id=7)) == "7"
    assert frame_speech(rec(0, "out", "end")) == ""


def test_frame_summary_shows_the_other_fields_and_shortens() -> None:
    record = rec(0, "in", "rtvi", type="RTVI_TYPE_UI_COMMAND", data='{"a": 1}', turn_id=2)
    assert frame_summary(record) == 'type="RTVI_TYPE_UI_COMMAND" data="{\\"a\\": 1}"'
    step = rec(0, "in", "turn_step", counts={"tokens": 3}, fatal=False, caps=[1, 3])
    assert frame_summary(step) == "counts={tokens: 3} fatal=false caps=[1, 3]"
    long = rec(0, "in", "speech_chunk", speech_id=1, text="word " * 100)
    summary = frame_summary(long, limit=40)
    assert len(summary) == 40 and summary.endswith("…")


def test_frame_detail_is_the_whole_frame_as_json() -> None:
    record = rec(12, "out", "finalize", speech_id=3, heard_text="Hi")
    assert json.loads(frame_detail(record)) == {
        "t_ms": 12,
        "dir": "out",
        "type": "finalize",
        "speech_id": 3,
        "heard_text": "Hi",
    }


def test_filter_keeps_and_hides_types() -> None:
    chunk = rec(0, "in", "speech_chunk", speech_id=1, text="x")
    step = rec(0, "in", "turn_step", turn_id=1)
    fin = rec(0, "out", "finalize", speech_id=1)
    assert parse_filter(" Speech, finalize  ") == ("speech", "finalize")
    assert all(matches(r, ()) for r in (chunk, step, fin))
    assert [matches(r, ("speech", "finalize")) for r in (chunk, step, fin)] == [True, False, True]
    assert [matches(r, ("-turn_step",)) for r in (chunk, step, fin)] == [True, False, True]
    assert [matches(r, ("speech", "-chunk")) for r in (chunk, step, fin)] == [False] * 3
    assert matches(step, ("-",))  # a bare minus hides nothing


# -------------------------------------------------------------------- lines


def make_unit(text: str, heard_words: int, fate: Fate | None, turn: int = 2) -> Unit:
    unit = Unit(speech_id=4, turn_id=turn, voice=pb.VOICE_JOE, language=pb.LANGUAGE_EN)
    unit.cursor.extend(text)
    for word in text.split()[:heard_words]:
        unit.cursor.played(word)
    unit.fate = fate
    return unit


def test_a_cut_unit_shows_heard_bold_and_the_rest_struck_with_the_count() -> None:
    unit = make_unit("One two three four five.", 2, Fate.BARGED)
    text = unit_text(unit)
    assert text.plain == (
        "bot · unit 4 · turn 2 · cut by a barge-in  ✂ 2 of 5 words heard\n"
        "  One two ✂ three four five."
    )
    heard_at = text.plain.index("One two")
    rest_at = text.plain.index(" three")
    styles = {str(span.style) for span in text.spans if span.start == heard_at}
    assert "bold" in styles
    assert any(span.start == rest_at and "strike" in str(span.style) for span in text.spans)


def test_a_speaking_unit_dims_the_rest_without_striking_it() -> None:
    unit = make_unit("One two three.", 1, None, turn=1)
    text = unit_text(unit)
    assert text.plain.startswith("bot · unit 4 · turn 1 · greeting · speaking\n")
    assert cut_mark(unit) is None
    assert not any("strike" in str(span.style) for span in text.spans)


def test_cut_marks_count_discarded_text_and_skip_played_and_empty_units() -> None:
    assert cut_mark(make_unit("All of it.", 3, Fate.PLAYED)) is None
    assert cut_mark(make_unit("", 0, Fate.SILENT)) is None
    dead = make_unit("", 0, Fate.DEAD_ON_ARRIVAL)
    dead.discarded.append("Never said at all.")
    assert cut_mark(dead) == "✂ 0 of 4 words heard"
    assert "never played: its turn was already interrupted" in unit_text(dead).plain
    assert unit_text(dead).plain.endswith("\n  ✂ Never said at all.")
    cancelled = make_unit("Your card is 4 4 1 2", 4, Fate.CANCELLED)
    cancelled.bracket = Bracket.CANCELLED
    cancelled.discarded.append(" 5 5")
    assert cut_mark(cancelled) == "✂ 4 of 9 words heard"
    assert "cancelled by the brain" in unit_text(cancelled).plain
    assert unit_text(cancelled).plain.endswith("\n  Your card is 4 ✂ 4 1 2 5 5")


def test_caller_lines_notices_and_endings_read_as_words() -> None:
    assert (
        caller_text(CallerShown("spoken", "Hi there", 2)).plain == "you said · turn 2\n  Hi there"
    )
    assert caller_text(CallerShown("typed", "Hi", 3)).plain == "you typed · turn 3\n  Hi"
    assert caller_text(CallerShown("backchannel", "mm-hmm", None)).plain == (
        "you (backchannel, not a turn)\n  mm-hmm"
    )
    assert caller_text(CallerShown("backchannel", "okay", None, resumed=True)).plain == (
        "you (backchannel: the bot paused, then went on)\n  okay"
    )
    assert idle_text(CallerIdle(turn_id=4, level=1, idle_ms=8000)).plain == (
        "idle · turn 4\n  silent for 8.0 s"
    )
    assert notice_text("warning", "slow").plain == "⚠ slow"
    assert notice_text("error", "bad").plain == "✖ bad"
    assert notice_words(BrainStalled(turn_id=2, waited_ms=10_000)) == (
        "warning",
        "the brain has not answered turn 2 after 10 s; the call goes on",
    )
    assert notice_words(ProtocolViolation("PROTOCOL", "second SpeechEnd for speech_id 3")) == (
        "warning",
        "brain broke the wire (PROTOCOL): second SpeechEnd for speech_id 3",
    )
    assert notice_words(BrainError("INTERNAL", "model down", fatal=True))[0] == "error"
    assert ended_words(CallEnded(Outcome.COMPLETED, EndedBy.CALLER, "")) == "you ended the call"
    assert ended_words(CallEnded(Outcome.COMPLETED, EndedBy.BRAIN, "")) == "the brain hung up"
    closed = CallEnded(Outcome.COMPLETED, EndedBy.BRAIN_CLOSED, "it closed (code 1011)")
    assert ended_words(closed) == ("it closed (code 1011)")
    assert ended_words(CallEnded(Outcome.COMPLETED, EndedBy.BRAIN_CANCEL, "")) == (
        "the brain cancelled the call: no reason given"
    )
    unreached = CallEnded(Outcome.NOT_REACHED, EndedBy.DIAL_FAILED, "connection refused")
    assert ended_words(unreached) == "the brain could not be reached: connection refused"


# -------------------------------------------------------------- status, meter


def test_meter_shows_level_or_why_not() -> None:
    assert meter(None, real=False, muted=False) == "mic: typed mode"
    assert meter(0.5, real=True, muted=True) == "mic: muted"
    assert meter(None, real=True, muted=False) == "mic: —"
    assert meter(0.5, real=True, muted=False, width=4) == "mic ██░░"
    assert meter(7.0, real=True, muted=False, width=4) == "mic ████"
    assert meter(-1.0, real=True, muted=False, width=4) == "mic ░░░░"


def test_status_text_has_state_facts_config_and_latency() -> None:
    info = StatusInfo(
        state="speaking",
        meter="mic: typed mode",
        watermark=3,
        capabilities=capability_names([pb.CAPABILITY_SPEECH_CANCEL, 99]),
        config=Settings().describe(),
        latency="turn 2 (typed): …",
    )
    assert status_text(info).plain == (
        "● speaking   mic: typed mode   watermark 3   capabilities speech_cancel, 99\n"
        "config  voice joe · speak en · hear en · patience 7 · idle 8000 ms\n"
        "latency turn 2 (typed): …"
    )
    assert capability_names([]) == "none"
    assert status_text(StatusInfo()).plain.endswith("latency no caller turn yet")


# -------------------------------------------------------------------- forms


def test_config_delta_names_only_what_changed() -> None:
    current = Settings(idle_ms=8000)
    assert config_delta(current, pb.VOICE_JOE, "7", "8000") == pb.Config()
    delta = config_delta(current, pb.VOICE_AMY, "3", "0")
    assert isinstance(delta, pb.Config)
    assert delta.tts.voice == pb.VOICE_AMY and delta.stt.patience == 3
    assert delta.idle.HasField("timeout_ms") and delta.idle.timeout_ms == 0
    assert not delta.tts.HasField("language") and not delta.stt.HasField("language")
    off_scale = config_delta(current, pb.VOICE_JOE, "42", "")
    assert isinstance(off_scale, pb.Config) and off_scale.stt.patience == 42  # the call refuses
    assert config_delta(current, pb.VOICE_JOE, "-1", "") == (
        "patience must be a whole number, 0 or more"
    )
    assert config_delta(current, pb.VOICE_JOE, "", "soon") == (
        "idle must be a whole number, 0 or more"
    )


def test_app_frame_form_checks_json_and_blank_id() -> None:
    assert APP_TYPES == ("client-message", "ui-cancel-job-group", "ui-event", "ui-snapshot")
    assert app_frame("ui-event", '{"a": 1}', "  ") == AppFrame("ui-event", '{"a": 1}', None)
    assert app_frame("ui-event", "{}", "7") == AppFrame("ui-event", "{}", "7")
    problem = app_frame("ui-event", "{oops", "")
    assert isinstance(problem, str) and problem.startswith("data is not valid JSON")


def test_app_pane_lines_and_help_text() -> None:
    assert app_line("brain", "ui-command", '{"command":  "x"}', None) == (
        'brain → app ui-command {"command": "x"}'
    )
    assert app_line("app", "ui-event", "not json", "e1") == "app → brain ui-event id=e1 not json"
    assert app_line("app", "ui-event", "", None) == "app → brain ui-event"
    text = help_markdown([("f2", "barge in")])
    assert "| `f2` | barge in |" in text and "✂" in text


# --------------------------------------------------------------- typed mode


def test_typed_audio_is_the_simulated_clock_and_explains_itself() -> None:
    audio = TypedAudio(250, typed_banner("no microphone found", 250, "Plug one in."))
    assert not audio.real and audio.mic_level() is None and not audio.muted
    assert audio.capabilities() is None
    assert audio.set_muted(True) == "typed mode has no microphone to mute"
    assert audio.banner == (
        "Typed mode, no sound: no microphone found. Type what the caller says below; the "
        "bot's replies play on a simulated clock at 250 ms a word (sandbox run --ms-per-word "
        "MS changes it), so heard text and cuts are real. Plug one in."
    )


def test_every_key_runs_an_action_of_the_app_and_is_in_the_help() -> None:
    from sandbox.ui.app import SandboxApp
    from sandbox.ui.keys import HELP_ROWS, KEYS

    assert all(callable(getattr(SandboxApp, f"action_{k.action}", None)) for k in KEYS)
    assert {k.key for k in KEYS} <= {key for key, _ in HELP_ROWS}
    assert len({k.key for k in KEYS}) == len(KEYS)
