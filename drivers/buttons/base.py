"""What both button drivers share: a :class:`~drivers.buttons.logic.ButtonBank` behind a lock,
the events handed on, the debounced levels read. No GPIO here."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Self

from .logic import ButtonBank, ButtonEvent, ButtonId

__all__ = ["BankButtons"]

class BankButtons:
    """The bank (``_bank``, made by the subclass under ``_lock``) and the consumer ``on_event``."""

    _bank: ButtonBank

    def __init__(self, on_event: Callable[[ButtonEvent], None], clock: Callable[[], float]) -> None:
        self._on_event = on_event
        self._clock = clock
        self._lock = threading.RLock()

    def _emit(self, events: list[ButtonEvent]) -> None:
        for event in events:
            try:
                self._on_event(event)
            except Exception:  # the consumer's bug must not stop the buttons
                logging.getLogger(type(self).__module__).exception("button event handler failed on %s", event)

    def next_due(self) -> float | None:
        """When the next ``tick`` can give an event (the clock's time; None: not before an edge)."""
        with self._lock:
            return self._bank.next_due()

    def is_pressed(self, button: ButtonId) -> bool:
        """The debounced level of ``button``."""
        with self._lock:
            return self._bank.logic(button).is_pressed

    def is_stuck(self, button: ButtonId) -> bool:
        """``button`` was reported stuck and is not released yet."""
        with self._lock:
            return self._bank.logic(button).is_stuck

    def close(self) -> None:
        """Release what the driver holds; safe to call twice."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
