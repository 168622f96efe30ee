"""A virtual microsecond clock with scheduled events: the only time the chip fakes know.

Time moves only when something charges it: a MicroPython call costs what ``CpuCosts`` says,
``time.sleep_us`` sleeps, a blocking USB write waits. Events (a frame ends on air, a tag
answers, a timer runs out) fire in order as the clock passes them, each at its own time.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable


class VirtualClock:
    """Microseconds since the board was powered, never wrapping (the fakes wrap the ticks)."""

    def __init__(self) -> None:
        self.now = 0
        self._events: list[tuple[int, int, Callable[[], None]]] = []
        self._seq = 0
        self.hooks: list[Callable[[], None]] = []  # after every advance (the watchdog)

    def at(self, when: float, fn: Callable[[], None]) -> None:
        """Call ``fn`` when the clock reaches ``when`` (at once if that is past)."""
        self._seq += 1
        heapq.heappush(self._events, (max(self.now, round(when)), self._seq, fn))

    def after(self, delay_us: float, fn: Callable[[], None]) -> None:
        self.at(self.now + delay_us, fn)

    def advance(self, delay_us: float) -> None:
        """Let ``delay_us`` pass, firing every event due meanwhile at its own time."""
        target = self.now + max(0, round(delay_us))
        while self._events and self._events[0][0] <= target:
            when, _, fn = heapq.heappop(self._events)
            self.now = max(self.now, when)
            fn()
        self.now = max(self.now, target)
        for hook in self.hooks:
            hook()

    def next_event(self) -> int | None:
        """When the next event is due, or None."""
        return self._events[0][0] if self._events else None
