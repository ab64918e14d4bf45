"""Config builders: names and enum values in, pb.Config out, refusals before sending."""

from __future__ import annotations

import pytest

from sandbox.sdk import Config, ConfigError, IdleConfig, SttConfig, TtsConfig
from sandbox.wire import pb


def test_names_and_enum_values_are_the_same_thing() -> None:
    assert TtsConfig(voice="joe") == TtsConfig(voice=pb.VOICE_JOE) == TtsConfig(voice="VOICE_JOE")
    assert SttConfig(language="en") == SttConfig(language=pb.LANGUAGE_EN)
    assert SttConfig(language="LANGUAGE_BHO").language == pb.LANGUAGE_BHO
    assert SttConfig(language="bho").language == pb.LANGUAGE_BHO


def test_unset_fields_stay_unset_on_the_wire() -> None:
    msg = Config(tts=TtsConfig(voice="amy")).to_pb()
    assert msg.HasField("tts") and msg.tts.voice == pb.VOICE_AMY
    assert not msg.tts.HasField("language")
    assert not msg.HasField("stt") and not msg.HasField("idle")


def test_zero_is_a_value_not_unset() -> None:
    msg = Config(stt=SttConfig(patience=0), idle=IdleConfig(timeout_ms=0)).to_pb()
    assert msg.stt.HasField("patience") and msg.stt.patience == 0
    assert msg.idle.HasField("timeout_ms") and msg.idle.timeout_ms == 0


def test_legs_may_differ_when_both_are_stated() -> None:
    msg = Config(tts=TtsConfig(language="hi"), stt=SttConfig(language="or")).to_pb()
    assert (msg.tts.language, msg.stt.language) == (pb.LANGUAGE_HI, pb.LANGUAGE_OR)


@pytest.mark.parametrize(
    ("tts", "stt", "named"),
    [
        (TtsConfig(language="hi"), None, "tts"),
        (TtsConfig(language="hi"), SttConfig(patience=5), "tts"),
        (TtsConfig(voice="joe"), SttConfig(language="or"), "stt"),
        (None, SttConfig(language="de"), "stt"),
    ],
)
def test_a_language_named_on_one_leg_only_is_refused(
    tts: TtsConfig | None, stt: SttConfig | None, named: str
) -> None:
    with pytest.raises(ConfigError, match=f"the {named} leg names language"):
        Config(tts=tts, stt=stt)


@pytest.mark.parametrize("patience", [-1, 11, 7.5, True])
def test_patience_off_the_scale_is_refused(patience: int) -> None:
    with pytest.raises(ConfigError, match=r"stt\.patience must be between 0 and 10"):
        SttConfig(patience=patience)


@pytest.mark.parametrize("patience", [0, 7, 10])
def test_patience_on_the_scale(patience: int) -> None:
    assert SttConfig(patience=patience).patience == patience


def test_unknown_names_say_what_is_known() -> None:
    with pytest.raises(ConfigError, match="choose one of: joe"):
        TtsConfig(voice="bob")
    with pytest.raises(ConfigError, match="unknown language 'klingon'"):
        SttConfig(language="klingon")
    with pytest.raises(ConfigError):
        TtsConfig(voice=pb.VOICE_UNSPECIFIED)
    with pytest.raises(ConfigError):
        SttConfig(language=999)
    with pytest.raises(ConfigError, match="timeout_ms"):
        IdleConfig(timeout_ms=-5)
