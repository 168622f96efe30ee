"""The voice: announcements said through espeak-ng, one after the other, never holding up the table.

:class:`Speaker` queues :class:`Utterance` s and says them on its own thread through a backend:
:class:`~.espeak.Espeak` (espeak-ng into ALSA with :class:`~.espeak.AlsaSink`, or into WAV files
with :class:`~.espeak.WavFolder`) or :class:`~.fake.FakeVoice` in tests.
"""

from .espeak import AlsaSink, Espeak, WavFolder
from .fake import FakeVoice
from .speaker import Backend, Speaker, Utterance, VoiceError

__all__ = ["AlsaSink", "Backend", "Espeak", "FakeVoice", "Speaker", "Utterance", "VoiceError", "WavFolder"]
