"""A stop that wakes the runner: set by a signal handler, it puts :data:`WAKE` on the queue
the runner sleeps on (no timer needed to notice it). Imports nothing of the service, so
``scoreboard run`` can make it before anything else loads."""

from __future__ import annotations

import threading
from collections.abc import Callable

__all__ = ["WAKE", "StopEvent", "Wake"]


class Wake:
    """Put on the inbox to wake the runner (a stop); carries nothing."""

    def __repr__(self) -> str:
        return "WAKE"


WAKE = Wake()


class StopEvent(threading.Event):
    """A stop that wakes those asleep on its account: :meth:`set` (from a signal handler
    too) calls every waker added, which must be safe there (``queue.SimpleQueue.put`` is)."""

    def __init__(self) -> None:
        super().__init__()
        self._wakers: list[Callable[[], None]] = []
        self._signalled = False  # set by signal(): no lock taken

    def is_set(self) -> bool:
        return self._signalled or super().is_set()

    def signal(self) -> None:
        """The stop from a signal handler: a flag and the wakers, no lock taken (a second
        signal's handler can run inside the first; :meth:`set` takes the event's lock)."""
        self._signalled = True
        for waker in list(self._wakers):
            waker()

    def add_waker(self, waker: Callable[[], None]) -> None:
        """Call ``waker`` when the stop is set (at once if it is)."""
        self._wakers.append(waker)
        if self.is_set():
            waker()

    def set(self) -> None:
        super().set()
        for waker in list(self._wakers):
            waker()
