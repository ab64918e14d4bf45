"""The control leg: one Response per Request, whole-or-nothing Config, and when changes land."""

from __future__ import annotations

from call_rig import Rig

from sandbox.call.caller_events import CallerSpeaking
from sandbox.call.effects import ListenWith, OpenUnit, config_answer
from sandbox.call.inputs import Configure
from sandbox.call.settings import Settings
from sandbox.wire import pb


def started(**kw: object) -> Rig:
    rig = Rig(**kw)  # type: ignore[arg-type]
    rig.start()
    return rig


def request(rid: int, **sections: object) -> pb.Request:
    return pb.Request(request_id=rid, configure=pb.Config(**sections))  # type: ignore[arg-type]


def test_exactly_one_response_per_request_matching_id() -> None:
    rig = started()
    rig.brain(request(1, idle=pb.IdleConfig(timeout_ms=3000)))
    rig.brain(request(2, stt=pb.SttConfig(patience=99)))
    rig.brain(pb.Request(request_id=3))  # no op at all
    responses = rig.responses()
    assert [(r.request_id, r.status) for r in responses] == [
        (1, pb.STATUS_ACCEPTED),
        (2, pb.STATUS_REJECTED),
        (3, pb.STATUS_REJECTED),
    ]
    assert responses[0].detail == ""


def test_patience_off_the_scale_is_rejected_naming_the_range_and_nothing_applies() -> None:
    rig = started()
    rig.brain(request(1, stt=pb.SttConfig(patience=11), idle=pb.IdleConfig(timeout_ms=1)))
    assert "between 0 and 10" in rig.responses()[0].detail
    assert rig.core.settings == Settings(idle_ms=0)  # the idle section did not apply either


def test_idle_timeout_below_the_floor_is_rejected_and_the_call_keeps_its_idle() -> None:
    rig = started()
    before = rig.core.settings
    rig.brain(request(1, idle=pb.IdleConfig(timeout_ms=1)))
    response = rig.responses()[0]
    assert response.status == pb.STATUS_REJECTED
    assert response.detail == "idle.timeout_ms must be 0 (off) or at least 250 ms (got 1)"
    assert rig.core.settings == before
    rig.brain(request(2, idle=pb.IdleConfig(timeout_ms=0)))  # off is still served
    assert rig.responses()[1].status == pb.STATUS_ACCEPTED
    assert rig.core.settings.idle_ms == 0


def test_tts_language_the_voice_does_not_speak_is_rejected_naming_what_it_speaks() -> None:
    rig = started()
    tts = pb.TtsConfig(language=pb.LANGUAGE_HI)
    rig.brain(request(1, tts=tts, stt=pb.SttConfig(language=pb.LANGUAGE_OR)))
    detail = rig.responses()[0].detail
    assert rig.responses()[0].status == pb.STATUS_REJECTED
    assert "does not speak hi" in detail and "it speaks: en" in detail


def test_language_on_one_leg_only_is_rejected() -> None:
    rig = started()
    rig.brain(request(1, stt=pb.SttConfig(language=pb.LANGUAGE_EN)))
    assert "name a language on both legs" in rig.responses()[0].detail


def test_legs_may_differ_odia_heard_hindi_spoken() -> None:
    rig = started()
    tts = pb.TtsConfig(voice=pb.VOICE_PRATHAM, language=pb.LANGUAGE_HI)
    rig.brain(request(1, tts=tts, stt=pb.SttConfig(language=pb.LANGUAGE_OR)))
    assert rig.responses()[0].status == pb.STATUS_ACCEPTED
    assert rig.core.settings.stt_language == pb.LANGUAGE_OR
    assert rig.core.settings.tts_language == pb.LANGUAGE_HI


def test_tts_lands_on_the_next_unit() -> None:
    rig = started()
    rig.open(1, 1)
    rig.chunk(1, "in joe's voice")
    rig.brain(request(1, tts=pb.TtsConfig(voice=pb.VOICE_AMY)))
    rig.chunk(1, " still joe")
    rig.end(1)
    rig.say(2, 1, "now amy")
    opened = {e.speech_id: e.voice for e in rig.of(OpenUnit)}
    assert opened == {1: pb.VOICE_JOE, 2: pb.VOICE_AMY}


def test_stt_language_lands_once_the_open_caller_turn_commits() -> None:
    rig = started()
    rig.feed(CallerSpeaking(rig.now))
    before = len(rig.of(ListenWith))
    tts = pb.TtsConfig(voice=pb.VOICE_PRATHAM, language=pb.LANGUAGE_HI)
    rig.brain(request(1, tts=tts, stt=pb.SttConfig(language=pb.LANGUAGE_HI)))
    assert len(rig.of(ListenWith)) == before  # the turn being spoken transcribes as spoken
    assert rig.core.settings.stt_language == pb.LANGUAGE_EN
    rig.caller("namaste")
    assert rig.of(ListenWith)[-1] == ListenWith("hi", 7)
    assert rig.core.settings.stt_language == pb.LANGUAGE_HI


def test_stt_language_lands_at_once_when_nobody_is_speaking() -> None:
    rig = started()
    tts = pb.TtsConfig(voice=pb.VOICE_PRATHAM, language=pb.LANGUAGE_HI)
    rig.brain(request(1, tts=tts, stt=pb.SttConfig(language=pb.LANGUAGE_HI)))
    assert rig.of(ListenWith)[-1] == ListenWith("hi", 7)


def test_patience_lands_immediately_even_mid_pause() -> None:
    rig = started()
    rig.feed(CallerSpeaking(rig.now))
    rig.brain(request(1, stt=pb.SttConfig(patience=2)))
    assert rig.of(ListenWith)[-1] == ListenWith("en", 2)


def test_unset_patience_is_the_default_calibration_seven() -> None:
    rig = started()
    assert rig.of(ListenWith)[0] == ListenWith("en", 7)
    assert rig.core.settings.patience is None


def test_recognizer_language_it_cannot_serve_is_rejected() -> None:
    from call_rig import make_caps

    from sandbox.call.settings import Capabilities

    caps = Capabilities(make_caps().voices, stt_languages={pb.LANGUAGE_EN})
    rig = started(caps=caps)
    tts = pb.TtsConfig(voice=pb.VOICE_PRATHAM, language=pb.LANGUAGE_HI)
    rig.brain(request(1, tts=tts, stt=pb.SttConfig(language=pb.LANGUAGE_HI)))
    assert "cannot transcribe hi" in rig.responses()[0].detail


def test_changing_only_the_voice_touches_no_language() -> None:
    """The wire contract: "Changing only the voice touches no language field and is
    unaffected by either rule." The languages in force stay; the new voice reads what it is
    given."""
    rig = started()
    rig.brain(request(1, tts=pb.TtsConfig(voice=pb.VOICE_PRATHAM)))
    assert rig.responses()[0].status == pb.STATUS_ACCEPTED
    settings = rig.core.settings
    assert (settings.voice, settings.tts_language, settings.stt_language) == (
        pb.VOICE_PRATHAM,
        pb.LANGUAGE_EN,
        pb.LANGUAGE_EN,
    )
    rig.open(1, 1)
    assert OpenUnit(1, pb.VOICE_PRATHAM, pb.LANGUAGE_EN) in rig.effects
    rig.brain(request(2, tts=pb.TtsConfig(voice=pb.VOICE_ALAN)))  # not installed here
    assert "not installed" in rig.responses()[1].detail


def test_an_explicitly_unspecified_value_leaves_the_setting_alone() -> None:
    rig = started()
    unspecified = pb.TtsConfig(voice=pb.VOICE_UNSPECIFIED, language=pb.LANGUAGE_UNSPECIFIED)
    rig.brain(request(1, tts=unspecified, stt=pb.SttConfig(language=pb.LANGUAGE_UNSPECIFIED)))
    assert rig.responses()[0].status == pb.STATUS_ACCEPTED
    assert rig.core.settings.voice == pb.VOICE_JOE
    assert rig.core.settings.tts_language == pb.LANGUAGE_EN
    # Naming a language on one leg only is still refused: unspecified names nothing.
    half = pb.TtsConfig(language=pb.LANGUAGE_UNSPECIFIED)
    rig.brain(request(2, tts=half, stt=pb.SttConfig(language=pb.LANGUAGE_HI)))
    assert "stt.language is set but tts.language is not" in rig.responses()[1].detail


def test_user_configure_uses_the_same_rules_without_a_response() -> None:
    rig = started()
    problem = config_answer(rig.feed(Configure(pb.Config(stt=pb.SttConfig(patience=12)))))
    assert problem is not None and "between 0 and 10" in problem
    problem = config_answer(rig.feed(Configure(pb.Config(stt=pb.SttConfig(patience=3)))))
    assert problem is None and rig.responses() == []
    assert rig.core.settings.effective_patience == 3
