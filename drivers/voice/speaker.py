"""The voice's queue and worker: announcements said one after the other, never holding up the table.

:meth:`Speaker.say` only puts an :class:`Utterance` in a short queue under a lock and returns;
a worker thread takes them out in order and hands each to a backend (espeak-ng and ALSA, WAV
files, or a fake), which may take as long as it likes or fail: a slow or missing espeak-ng or
a dead audio device delays nothing but the next announcement. What waits is kept short:

- a *transient* utterance (whose turn it is, a time warning) is dropped when anything newer
  is queued before it was said: the news it carried is stale (``supersede``, on unless
  every announcement is wanted, as in a simulation's WAV files);
- at most ``capacity`` wait; a full queue drops its oldest;
- an utterance that waited longer than ``max_age_s`` is dropped unsaid.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol

from engine.errors import ScoreboardError

__all__ = ["Backend", "Speaker", "Utterance", "VoiceError"]

log = logging.getLogger(__name__)


class VoiceError(ScoreboardError, RuntimeError):
    """An announcement that could not be said: ``program`` (espeak-ng, aplay) failed or is
    missing, or took longer than allowed; ``detail`` says how."""

    def __init__(self, program: str, detail: str) -> None:
        super().__init__(f"{program}: {detail}")
        self.program, self.detail = program, detail


@dataclass(frozen=True)
class Utterance:
    """One announcement: ``text`` as written (logs), ``parts`` as espeak-ng reads them, each
    with the language whose voice says it; ``topic`` names what it is about (a file name in
    simulation); ``transient``: dropped when something newer is queued before it is said.
    ``queued``: when it was queued (the speaker's clock; set by :meth:`Speaker.say`)."""

    text: str
    parts: tuple[tuple[str, str], ...]
    topic: str = ""
    transient: bool = False
    queued: float = 0.0


class Backend(Protocol):
    """What says an utterance: may block as long as it needs, raises :class:`VoiceError`."""

    def speak(self, utterance: Utterance) -> None: ...

    def cancel(self) -> None:
        """Stop what is being said now (from another thread, when closing)."""


class Speaker:
    """Says utterances through ``backend`` on a worker thread (started at once).

    ``spoken``, ``dropped`` and ``failed`` count what became of them.
    """

    def __init__(
        self,
        backend: Backend,
        *,
        capacity: int = 8,
        max_age_s: float = 30.0,
        supersede: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if capacity < 1:
            raise ValueError(f"capacity {capacity!r} is not 1 or more")
        self.backend = backend
        self.capacity = capacity
        self.max_age_s = max_age_s
        self.supersede = supersede
        self.clock = clock
        self.spoken = 0
        self.dropped = 0
        self.failed = 0
        self._queue: deque[Utterance] = deque()
        self._lock = threading.Condition()
        self._busy = False
        self._closing = False
        self._last_error = ""
        self._thread = threading.Thread(target=self._work, name="voice", daemon=True)
        self._thread.start()

    def say(self, utterance: Utterance) -> None:
        """Queue ``utterance``; returns at once (it only waits for the lock, which the worker
        holds only to take an item)."""
        with self._lock:
            if self._closing:
                return
            stale = [u for u in self._queue if u.transient] if self.supersede else []
            for u in stale:
                self._queue.remove(u)
                self._drop(u, "superseded")
            while len(self._queue) >= self.capacity:
                self._drop(self._queue.popleft(), "queue full")
            self._queue.append(replace(utterance, queued=self.clock()))
            self._lock.notify()

    @property
    def waiting(self) -> int:
        """Utterances queued, not yet taken."""
        with self._lock:
            return len(self._queue)

    def idle(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds until nothing is queued or being said; True if so."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while self._queue or self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(left)
            return True

    def close(self, drain_s: float = 0.0) -> None:
        """Stop: what is queued may still be said for up to ``drain_s`` seconds, then the rest
        is dropped and what is being said is cut off."""
        if drain_s > 0:
            self.idle(drain_s)
        with self._lock:
            self._closing = True
            while self._queue:
                self._drop(self._queue.popleft(), "closing")
            self._lock.notify_all()
        self.backend.cancel()
        self._thread.join(timeout=5.0)

    def _drop(self, utterance: Utterance, why: str) -> None:
        self.dropped += 1
        log.info("not said (%s): %s", why, utterance.text)

    def _take(self) -> Utterance | None:
        with self._lock:
            while True:
                self._busy = False
                self._lock.notify_all()
                while not self._queue and not self._closing:
                    self._lock.wait()
                if self._closing:
                    return None
                utterance = self._queue.popleft()
                if self.clock() - utterance.queued > self.max_age_s:
                    self._drop(utterance, "too old")
                    continue
                self._busy = True
                return utterance

    def _work(self) -> None:
        while (utterance := self._take()) is not None:
            try:
                self.backend.speak(utterance)
            except VoiceError as e:
                self.failed += 1
                message = str(e)
                if message != self._last_error:  # (a dead device would say so at every announcement)
                    log.error("cannot say %r: %s", utterance.text, message)
                    self._last_error = message
            except Exception:  # a bug in a backend must not end the voice
                self.failed += 1
                log.exception("saying %r failed", utterance.text)
            else:
                self.spoken += 1
                self._last_error = ""
        with self._lock:
            self._busy = False
            self._lock.notify_all()
