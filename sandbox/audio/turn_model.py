"""The semantic end of turn: Smart Turn v3.2, an audio turn model on onnxruntime.

Smart Turn (BSD-2, by Daily) reads the last 8 s of a caller's voice and says how likely it is
that they have finished their turn: prosody, a falling or rising end, a word left hanging. It
hears what Whisper's punctuation cannot: "is the studio open on public holidays" with no
question mark still *sounds* finished, and "I'd like to book" with a full stop still sounds
like more is coming. The endpointer (:mod:`sandbox.audio.endpointer`) weighs its verdict first
and the transcript's shape second.

The model
---------
``smart-turn-v3.2-cpu.onnx`` (8.7 MB, int8) ships in this package (``sandbox/audio/models/``,
with its BSD-2 licence and a provenance note); it is never downloaded at run time. It is taken
unchanged from the ``pipecat-ai`` 1.14.0 wheel (:data:`SOURCE_WHEEL`, :data:`PATH_IN_WHEEL`,
checked against :data:`MODEL_SHA256`; ``tools/vendor-turn-model`` extracts it again): no other
package on PyPI ships it (the Smart Turn plugins for LiveKit, Vision Agents and Vox fetch it
from a model hub at run time), and ``pipecat-ai`` cannot be a dependency (it pins
``protobuf<7``; the wire needs 7). onnxruntime comes with faster-whisper and Piper already.

Input: ``input_features``, float32 ``(batch, 80, 800)``: Whisper's log-mel features of exactly
8 s of 16 kHz audio, the voice at the end and zeros in front when shorter. Output: ``logits``,
``(batch, 1)``, already a probability (the graph ends in a sigmoid).

The features (:func:`log_mel`) are Whisper's (``WhisperFeatureExtractor(chunk_length=8)``),
written here in numpy so no ``transformers`` or ``torch`` is pulled in: the waveform is
normalized to zero mean and unit variance, framed with a periodic Hann window of 400 samples
every 160 (centred, reflect-padded), its power spectrum projected onto 80 Slaney mel bands
from 0 to 8 kHz, then ``log10`` floored at 1e-10, clamped to 8 decades below the loudest band
and scaled as ``(x + 4) / 4``. The last frame is dropped, leaving 800.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from sandbox.audio.resample import Float32
from sandbox.audio.stt import SAMPLE_RATE
from sandbox.errors import UserError

#: The model hears the last this-many seconds of the turn.
WINDOW_S = 8
WINDOW_SAMPLES = WINDOW_S * SAMPLE_RATE
N_FFT = 400
HOP = 160
N_MELS = 80
#: Feature frames the model takes: one per hop over the window.
FRAMES = WINDOW_SAMPLES // HOP
MODEL_FILE = "smart-turn-v3.2-cpu.onnx"
#: The shipped model file.
MODEL_PATH = Path(__file__).parent / "models" / MODEL_FILE
#: Where the shipped file was taken from: the wheel, and the file's path inside it.
SOURCE_WHEEL = "pipecat_ai-1.14.0-py3-none-any.whl"
PATH_IN_WHEEL = f"pipecat/audio/turn/smart_turn/data/{MODEL_FILE}"
#: The shipped file's sha256 (equal to the file inside :data:`SOURCE_WHEEL`).
MODEL_SHA256 = "2bb026316b14a660486a75b1733cd3fbab8c2fd0314dc9af7be49f8cca967e4f"
#: The 23 languages Smart Turn v3.2 was trained and benchmarked on (its model card's list),
#: as ISO codes. In a call heard in another (Tamil, Telugu, Swedish, ...) its verdict is
#: not asked for: the end of turn goes by the silence and the transcript's punctuation.
TRAINED_LANGUAGES = frozenset(
    {
        "ar", "bn", "da", "de", "en", "fi", "fr", "hi", "id", "it", "ja", "ko", "mr", "nl",
        "no", "pl", "pt", "ru", "es", "tr", "uk", "vi", "zh",
    }
)  # fmt: skip
_NORMALIZE_EPS = 1e-7
_MEL_FLOOR = 1e-10
_DYNAMIC_RANGE = 8.0


def _hz_to_mel(hz: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Slaney's mel scale: linear below 1 kHz (3 mels per 200 Hz), logarithmic above."""
    linear = 3.0 * hz / 200.0
    log = 15.0 + np.log(np.maximum(hz, 1e-9) / 1000.0) * 27.0 / np.log(6.4)
    return np.where(hz >= 1000.0, log, linear)


def _mel_to_hz(mel: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """The inverse of :func:`_hz_to_mel`."""
    linear = 200.0 * mel / 3.0
    log = 1000.0 * np.exp((mel - 15.0) * np.log(6.4) / 27.0)
    return np.where(mel >= 15.0, log, linear)


def mel_filters() -> npt.NDArray[np.float64]:
    """``(N_MELS, N_FFT // 2 + 1)``: triangular Slaney-normalized bands over 0..8 kHz."""
    edges = _mel_to_hz(np.linspace(0.0, float(_hz_to_mel(np.array(SAMPLE_RATE / 2.0))), N_MELS + 2))
    bins = np.linspace(0.0, SAMPLE_RATE // 2, N_FFT // 2 + 1)
    lower, centre, upper = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    rising = (bins[None, :] - lower) / (centre - lower)
    falling = (upper - bins[None, :]) / (upper - centre)
    triangles = np.maximum(0.0, np.minimum(rising, falling))
    return triangles * (2.0 / (upper - lower))


_FILTERS = mel_filters()
_WINDOW = np.hanning(N_FFT + 1)[:-1]  # periodic


def fit_window(pcm16k: Float32) -> Float32:
    """The last :data:`WINDOW_S` seconds of ``pcm16k``, zeros in front when shorter."""
    audio = np.asarray(pcm16k, dtype=np.float32)[-WINDOW_SAMPLES:]
    return np.concatenate([np.zeros(WINDOW_SAMPLES - len(audio), dtype=np.float32), audio])


def log_mel(window: Float32) -> Float32:
    """Whisper's log-mel features of one 8 s window (see the module docstring):
    float32 ``(N_MELS, FRAMES)``."""
    if window.shape != (WINDOW_SAMPLES,):
        raise ValueError(f"expected {WINDOW_SAMPLES} samples, got shape {window.shape}")
    x = np.asarray(window, dtype=np.float32)
    x = (x - x.mean()) / np.sqrt(x.var() + _NORMALIZE_EPS)
    padded = np.pad(x.astype(np.float64), N_FFT // 2, mode="reflect")
    frames = np.lib.stride_tricks.sliding_window_view(padded, N_FFT)[::HOP]
    power = np.abs(np.fft.rfft(frames * _WINDOW, axis=-1)) ** 2
    mel = np.log10(np.maximum(_MEL_FLOOR, _FILTERS @ power.T))[:, :-1]
    mel = np.maximum(mel, mel.max() - _DYNAMIC_RANGE)
    scaled: Float32 = ((mel + 4.0) / 4.0).astype(np.float32)
    return scaled


class TurnModel:
    """A loaded Smart Turn model. Use :meth:`load`; one call at a time per instance."""

    def __init__(self, session: Any) -> None:
        self._session = session
        #: How long the last :meth:`probability` took, ms (features and inference).
        self.last_ms = 0.0

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> TurnModel:
        """Load the model (the shipped one by default) on one CPU thread: it shares the
        machine with Whisper."""
        import onnxruntime as ort  # heavy import: only when a model is loaded

        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        try:
            session = ort.InferenceSession(
                str(path), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise UserError(f"Could not load the turn model from {path}: {exc}") from None
        return cls(session)

    def probability(self, pcm16k: Float32) -> float:
        """How likely the caller has finished, from the turn's audio so far (16 kHz float;
        only the last 8 s are heard)."""
        started = time.perf_counter()
        features = log_mel(fit_window(pcm16k))[None, :, :]
        (logits,) = self._session.run(["logits"], {"input_features": features})
        self.last_ms = (time.perf_counter() - started) * 1000
        return float(np.asarray(logits).reshape(-1)[0])


def turn_model_hears(language: str) -> bool:
    """Whether Smart Turn was trained on ``language`` (an ISO code), so its verdict on a
    pause is worth weighing there (:data:`TRAINED_LANGUAGES`)."""
    return language in TRAINED_LANGUAGES
