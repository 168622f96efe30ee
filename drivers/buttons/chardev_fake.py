"""A fake kernel GPIO chip behind libgpiod's own types, for :class:`~drivers.buttons.chardev.ChardevButtons`
on a PC (no ``/dev/gpiochip*``, no ``gpio-sim`` module).

It keeps what the kernel keeps: each line's physical level (pull-up: high while open), which
lines are requested and how (``gpiod.LineSettings``: active low, edge detection), one edge
queue per request with the kernel's bound (the oldest event dropped when full), sequence
numbers, ``CLOCK_MONOTONIC`` stamps from an injected clock, and a file descriptor that
``poll``/``select`` see readable while events wait. Requesting a line twice is ``EBUSY``,
as with the kernel. Events are ``gpiod.EdgeEvent`` objects, values ``gpiod.line.Value``.
"""

from __future__ import annotations

import errno
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import gpiod  # type: ignore[import-not-found,unused-ignore]
from gpiod.line import Edge, Value  # type: ignore[import-not-found,unused-ignore]

__all__ = ["EVENTS_PER_LINE", "FakeChip", "FakeGpio", "FakeRequest", "pi_line_names", "queue_size"]

EVENTS_PER_LINE = 16
"""The kernel's default edge queue: 16 events per requested line (rounded up to a power of two)."""


def queue_size(lines: int) -> int:
    """The kernel's edge queue for ``lines`` lines: a kfifo of 16 per line, a power of two."""
    n = EVENTS_PER_LINE * lines
    return 1 << (n - 1).bit_length()


def pi_line_names() -> dict[str, int]:
    """A Raspberry Pi header chip's line names: ``GPIO0`` .. ``GPIO27`` at offsets 0-27."""
    return {f"GPIO{n}": n for n in range(28)}


class FakeRequest:
    """A ``gpiod.LineRequest`` on a :class:`FakeChip`."""

    def __init__(self, chip: FakeChip, settings: dict[int, Any], consumer: str | None, buffer: int) -> None:
        self.chip = chip
        self.settings = settings
        self.consumer = consumer
        self.offsets = sorted(settings)
        self._events: deque[Any] = deque(maxlen=buffer)
        self._seqno = 0  # the kernel numbers a request's events (global_seqno), and each line's
        self._r, self._w = os.pipe()
        os.set_blocking(self._r, False)
        self.released = False
        self.dropped = 0

    @property
    def fd(self) -> int:
        self._check()
        return self._r

    def _check(self) -> None:
        if self.released:
            raise gpiod.RequestReleasedError()

    def get_value(self, line: int | str) -> Any:
        self._check()
        offset = self.chip.offset(line)
        if offset not in self.settings:
            raise ValueError(f"line {line!r} is not in this request")
        closed = not self.chip.high[offset]
        return Value.ACTIVE if closed == bool(self.settings[offset].active_low) else Value.INACTIVE

    def _put(self, offset: int, level_high: bool, stamp_ns: int, line_seqno: int) -> None:
        """The kernel's IRQ side: an edge on ``offset`` to ``level_high``."""
        s = self.settings[offset]
        rising = level_high != bool(s.active_low)  # the logical level went active
        if s.edge_detection is Edge.NONE or (s.edge_detection is Edge.RISING and not rising) or (
            s.edge_detection is Edge.FALLING and rising
        ):
            return
        if len(self._events) == self._events.maxlen:
            self.dropped += 1  # the kernel drops the oldest
        kind = gpiod.EdgeEvent.Type.RISING_EDGE if rising else gpiod.EdgeEvent.Type.FALLING_EDGE
        self._seqno += 1
        self._events.append(gpiod.EdgeEvent(kind.value, stamp_ns, offset, self._seqno, line_seqno))
        os.write(self._w, b"e")

    def read_edge_events(self, max_events: int | None = None) -> list[Any]:
        """The queued events; with none queued the kernel's read would block, which a caller
        must never let happen (it waits until the file is readable): an error here."""
        self._check()
        with self.chip.lock:
            if not self._events:
                raise BlockingIOError("read_edge_events with no event queued: the kernel's read would block")
            n = len(self._events) if max_events is None else min(max_events, len(self._events))
            events = [self._events.popleft() for _ in range(n)]
            try:
                os.read(self._r, 4096)
            except BlockingIOError:
                pass
            if self._events:
                os.write(self._w, b"e")
        return events

    def release(self) -> None:
        if self.released:
            return
        self.released = True
        with self.chip.lock:
            for offset in self.offsets:
                self.chip.held.pop(offset, None)
        os.close(self._r)
        os.close(self._w)

    def __enter__(self) -> FakeRequest:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class FakeChip:
    """One GPIO chip: named lines, their physical levels (high while open: the pull-up), the
    requests holding them. :meth:`close_contact` and :meth:`open_contact` are the fingers."""

    def __init__(self, path: str = "/dev/gpiochip0", names: dict[str, int] | None = None, *,
                 clock: Callable[[], float] = time.monotonic, accessible: bool = True,
                 label: str = "pinctrl-bcm2835") -> None:
        self.path = path
        self.label = label
        self.names = pi_line_names() if names is None else dict(names)
        self.clock = clock
        self.accessible = accessible
        self.lock = threading.Lock()
        self.high = {offset: True for offset in self.names.values()}  # open contacts, pulled up
        self.held: dict[int, FakeRequest] = {}
        self._line_seqno: dict[int, int] = {}

    def offset(self, line: int | str) -> int:
        if isinstance(line, str):
            if line not in self.names:
                raise ValueError(f"no line named {line!r} on {self.path}")
            return self.names[line]
        if line not in self.high:
            raise ValueError(f"offset {line} out of range on {self.path}")
        return line

    def request(self, config: dict[Any, Any], consumer: str | None) -> FakeRequest:
        settings: dict[int, Any] = {}
        for key, value in config.items():
            lines: Iterable[int | str] = key if isinstance(key, tuple) else (key,)
            for line in lines:
                settings[self.offset(line)] = value if value is not None else gpiod.LineSettings()
        with self.lock:
            busy = [o for o in settings if o in self.held]
            if busy:
                raise OSError(errno.EBUSY, os.strerror(errno.EBUSY))
            request = FakeRequest(self, settings, consumer, queue_size(len(settings)))
            for offset in settings:
                self.held[offset] = request
        return request

    def _drive(self, offset: int, high: bool) -> None:
        with self.lock:
            if self.high[offset] == high:
                return
            self.high[offset] = high
            request = self.held.get(offset)
            if request is None:
                return
            self._line_seqno[offset] = self._line_seqno.get(offset, 0) + 1
            request._put(offset, high, round(self.clock() * 1e9), self._line_seqno[offset])

    def close_contact(self, line: int | str) -> None:
        """A finger closes the button on ``line``: the line goes low."""
        self._drive(self.offset(line), False)

    def open_contact(self, line: int | str) -> None:
        """The finger lifts: the pull-up takes the line high again."""
        self._drive(self.offset(line), True)


class FakeGpio:
    """:class:`~drivers.buttons.chardev.LineApi` over :class:`FakeChip` objects."""

    def __init__(self, *chips: FakeChip) -> None:
        self.by_path = {c.path: c for c in chips}

    def chips(self) -> list[str]:
        return list(self.by_path)

    def offsets(self, chip: str, names: Sequence[str]) -> dict[str, int] | None:
        c = self.by_path[chip]
        if not c.accessible:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), chip)
        if not all(n in c.names for n in names):
            return None
        return {n: c.names[n] for n in names}

    def info(self, chip: str) -> tuple[str, int]:
        c = self.by_path[chip]
        return c.label, max(c.names.values(), default=-1) + 1

    def request_lines(self, chip: str, config: dict[Any, Any], consumer: str | None = None) -> FakeRequest:
        return self.by_path[chip].request(config, consumer)
