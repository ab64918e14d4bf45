"""The recognizer seam and the recognizer for each language: ``--stt-model module:Class``,
its one-line refusals, and which recognizer a language is heard with (recognizers written
here, no model loaded)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from sandbox.audio import multilingual_model
from sandbox.audio.recognizer import Recognizer, load_recognizer
from sandbox.audio.recognizers import Recognizers, base_languages
from sandbox.audio.stt import Transcript
from sandbox.call.settings import Capabilities, Settings, validate
from sandbox.errors import UserError
from sandbox.wire import pb


class Parrot:
    """A recognizer of the test's own: it hears English and Welsh, and writes what it was
    built to, with the clip's length."""

    name = "parrot"
    languages = frozenset({"en", "cy"})

    def __init__(self) -> None:
        self.heard: list[str] = []

    def transcribe(
        self,
        pcm16k: npt.NDArray[np.float32],
        *,
        language: str = "en",
        word_timestamps: bool = False,
        brief: bool = False,
    ) -> Transcript:
        self.heard.append(language)
        return Transcript(f"{language} {len(pcm16k)}")


class NotOne:
    """Has a name and nothing else."""

    name = "not one"


class Refuses:
    def __init__(self) -> None:
        raise RuntimeError("no licence key\x1b[2J in the environment")


def test_a_recognizer_class_is_named_as_module_colon_class() -> None:
    recognizer = load_recognizer(f"{__name__}:Parrot")
    assert isinstance(recognizer, Parrot) and isinstance(recognizer, Recognizer)
    assert recognizer.transcribe(np.zeros(160, np.float32), language="cy").text == "cy 160"


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("no_such_module_here:Parrot", "does not import: ModuleNotFoundError"),
        (f"{__name__}:NoSuchClass", "does not import: AttributeError"),
        (f"{__name__}:NotOne", "is not a recognizer: it needs a name (str), languages"),
        (f"{__name__}:Refuses", "could not be built: RuntimeError: no licence key\\x1b[2J"),
        (":Parrot", "expected a model folder or module:Class"),
    ],
)
def test_a_recognizer_that_does_not_import_or_implement_is_refused_in_one_line(
    spec: str, words: str
) -> None:
    with pytest.raises(UserError) as refused:
        load_recognizer(spec)
    said = str(refused.value)
    assert words in said and "\n" not in said and "\x1b" not in said


def test_a_folder_without_a_model_is_still_said_as_such(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="No speech recognition model at"):
        load_recognizer(str(tmp_path))


def test_english_stays_with_the_first_recognizer_and_only_it_is_loaded() -> None:
    parrot = Parrot()
    heard = Recognizers(parrot, extra=True)
    assert heard.transcribe(np.zeros(16, np.float32), language="en").text == "en 16"
    assert heard.for_language("cy") is parrot and heard.name == "parrot"


def test_without_the_extra_only_the_first_recognizers_languages_are_claimed() -> None:
    heard = Recognizers(Parrot(), extra=False)
    assert heard.languages == frozenset({"en", "cy"})
    assert multilingual_model.INSTALL in heard.missing
    with pytest.raises(UserError, match="no recognizer here hears 'de'; they hear: cy, en"):
        heard.for_language("de")


def test_a_refused_language_says_how_to_install_the_recognizer_that_hears_it() -> None:
    heard = Recognizers(Parrot(), extra=False)
    caps = Capabilities({pb.VOICE_JOE: [pb.LANGUAGE_EN]}, {pb.LANGUAGE_EN}, heard.missing)
    config = pb.Config()
    config.tts.language = pb.LANGUAGE_EN
    config.stt.language = pb.LANGUAGE_DE
    problem = validate(config, Settings(), caps)
    assert problem == (
        "the recognizer cannot transcribe de; it serves: en; Whisper base (multilingual) "
        f"hears most of the others: {multilingual_model.INSTALL}"
    )


def test_whisper_base_hears_the_catalogs_languages_but_seven() -> None:
    heard = Recognizers(Parrot(), extra=True).languages
    assert {"de", "hi", "ta", "bn", "fr", "ur", "ne"} <= heard
    # Odia and six more have no language token in Whisper: refused, never guessed at.
    for unheard in ("or", "bho", "mai", "kok", "sat", "doi", "mni"):
        assert unheard not in heard and unheard not in base_languages()
