"""A fake voice backend: records what it was given to say, and can be slow, hang or fail."""

from __future__ import annotations

import threading
import time

from .speaker import Utterance, VoiceError

__all__ = ["FakeVoice"]


class FakeVoice:
    """Says nothing, keeps every utterance in :attr:`said`.

    ``delay_s``: each takes this long (a slow espeak-ng); :meth:`hang` makes the next ones wait
    until :meth:`release` or :meth:`cancel` (a hung one); ``fail``: each raises
    :class:`VoiceError` (a dead audio device).
    """

    def __init__(self, delay_s: float = 0.0, fail: bool = False) -> None:
        self.delay_s = delay_s
        self.fail = fail
        self.said: list[Utterance] = []
        self.started = threading.Event()  # set when an utterance is being said
        self._go = threading.Event()
        self._go.set()

    def hang(self) -> None:
        self._go.clear()

    def release(self) -> None:
        self._go.set()

    def speak(self, utterance: Utterance) -> None:
        self.started.set()
        self._go.wait()
        if self.delay_s:
            time.sleep(self.delay_s)
        if self.fail:
            raise VoiceError("fake", "no audio device")
        self.said.append(utterance)

    def cancel(self) -> None:
        self._go.set()

    @property
    def texts(self) -> list[str]:
        """What was said, as written."""
        return [u.text for u in self.said]
