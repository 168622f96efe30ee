"""The voice: announcements said through espeak-ng, one after the other, never holding up the table.

:class:`Speaker` queues :class:`Utterance` s and says them on its own thread through a backend:
:class:`~.espeak.Espeak` (espeak-ng into ALSA with :class:`~.espeak.AlsaSink`, or into WAV files
with :class:`~.espeak.WavFolder`) or :class:`~.fake.FakeVoice` in tests.

The names are loaded when first used, so that importing :mod:`drivers.voice.speaker` (the
service does, the voice off or not) loads neither the espeak-ng backend nor the test double.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .espeak import AlsaSink, Espeak, WavFolder
    from .fake import FakeVoice
    from .speaker import Backend, Speaker, Utterance, VoiceError

__all__ = ["AlsaSink", "Backend", "Espeak", "FakeVoice", "Speaker", "Utterance", "VoiceError", "WavFolder"]

_HOME = {
    "AlsaSink": "espeak", "Espeak": "espeak", "WavFolder": "espeak", "FakeVoice": "fake",
    "Backend": "speaker", "Speaker": "speaker", "Utterance": "speaker", "VoiceError": "speaker",
}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_HOME[name]}", __name__), name)
