"""The audio engine: devices, listening (VAD, endpointing, STT, echo) and speaking (TTS, playout).

Submodules are imported on their own so that a typed-mode session never loads PortAudio or a model.
"""
