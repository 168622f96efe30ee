"""The buttons read from the kernel's GPIO character device through libgpiod: asleep when idle.

gpiozero's lgpio factory (its first choice on a Pi) delivers edges from a C thread that polls
every 0.5 ms while any edge is watched: some 2,000 wake-ups a second for an idle table.
:class:`ChardevButtons` asks the kernel for the button lines itself (libgpiod v2, the PyPI
package ``gpiod``: pull-up, active low, edge detection on both edges) and one thread blocks
in ``poll`` on the request's file and a wake pipe, with the bank's next deadline (a level
settling, a long press, stuck) as time-out, and with no time-out at all while nobody touches
a button. Edges are stamped by the kernel (``CLOCK_MONOTONIC``, the clock of
:func:`time.monotonic`) when they happen, not when Python gets to them.

The lines are found by name, not by number: every Raspberry Pi's header GPIO line is named
``GPIO<n>`` (BCM numbering) on its pin controller's chip, ``pinctrl-bcm2835``/``-bcm2711``
or the Pi 5's ``pinctrl-rp1`` (``gpiochip0`` or ``gpiochip4`` by kernel version).

The kernel is reached through a :class:`LineApi` (:class:`Libgpiod` on a real system); the
tests and a plain PC use :class:`~drivers.buttons.chardev_fake.FakeChip`, which keeps the
kernel's side (levels, edge queue, a pollable file) and hands out libgpiod's own types.
"""

from __future__ import annotations

import glob
import logging
import os
import select
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import timedelta
from typing import Any, Protocol

from .base import BankButtons
from .logic import ButtonBank, ButtonError, ButtonEvent, ButtonId, Timing

_log = logging.getLogger(__name__)

__all__ = ["CONSUMER", "ChardevButtons", "LineApi", "Libgpiod", "LinesNotFoundError", "NoLibgpiodError", "PI_HEADER_CHIPS", "find_lines"]

CONSUMER = "scoreboard-buttons"
"""The consumer name the kernel shows for our lines (``gpioinfo``)."""

MIN_WAIT_S = 0.001
"""The shortest sleep for a deadline the clock has not reached yet."""


class NoLibgpiodError(ButtonError, RuntimeError):
    """libgpiod's Python package (``gpiod`` v2) is not installed."""


class LinesNotFoundError(ButtonError, LookupError):
    """No GPIO chip here has every line the buttons need; ``names`` are the lines sought."""

    def __init__(self, names: Sequence[str], detail: str) -> None:
        super().__init__(f"no GPIO chip has the lines {', '.join(names)}: {detail}")
        self.names = tuple(names)


class LineRequest(Protocol):
    """What is used of a ``gpiod.LineRequest``."""

    @property
    def fd(self) -> int: ...
    def get_value(self, line: int | str) -> Any: ...
    def read_edge_events(self, max_events: int | None = None) -> list[Any]: ...
    def release(self) -> None: ...


class LineApi(Protocol):
    """The kernel's GPIO character devices, as libgpiod gives them."""

    def chips(self) -> list[str]:
        """The GPIO chip devices (``/dev/gpiochipN``)."""
        ...

    def offsets(self, chip: str, names: Sequence[str]) -> dict[str, int] | None:
        """Each named line's offset on ``chip``; None unless the chip has them all."""
        ...

    def info(self, chip: str) -> tuple[str, int]:
        """The chip's label (``pinctrl-bcm2835``...) and number of lines."""
        ...

    def request_lines(self, chip: str, config: dict[Any, Any], consumer: str | None = None) -> LineRequest:
        """``gpiod.request_lines``: the lines of ``config`` (offset → ``gpiod.LineSettings``)."""
        ...


class Libgpiod:
    """:class:`LineApi` on the real kernel, through the ``gpiod`` package (libgpiod v2)."""

    def __init__(self) -> None:
        try:
            import gpiod  # type: ignore[import-not-found,unused-ignore]
        except ImportError as e:
            raise NoLibgpiodError(f"libgpiod's Python package is not installed (pip install gpiod): {e}") from e
        if not hasattr(gpiod, "request_lines"):  # (Debian's python3-libgpiod 1.x, through system site packages)
            raise NoLibgpiodError(f"the gpiod package found is libgpiod 1.x ({getattr(gpiod, '__file__', '?')}); 2.x is needed")
        self._gpiod: Any = gpiod

    def chips(self) -> list[str]:
        return sorted(
            (p for p in glob.glob("/dev/gpiochip*") if self._gpiod.is_gpiochip_device(p)),
            key=lambda p: int(p.removeprefix("/dev/gpiochip") or 0),
        )

    def offsets(self, chip: str, names: Sequence[str]) -> dict[str, int] | None:
        with self._gpiod.Chip(chip) as c:
            found: dict[str, int] = {}
            for name in names:
                try:
                    found[name] = int(c.line_offset_from_id(name))
                except (OSError, ValueError):
                    return None
            return found

    def info(self, chip: str) -> tuple[str, int]:
        with self._gpiod.Chip(chip) as c:
            info = c.get_info()
            return str(info.label), int(info.num_lines)

    def request_lines(self, chip: str, config: dict[Any, Any], consumer: str | None = None) -> LineRequest:
        request: LineRequest = self._gpiod.request_lines(chip, config=config, consumer=consumer)
        return request


PI_HEADER_CHIPS = frozenset({"pinctrl-bcm2835", "pinctrl-bcm2711", "pinctrl-rp1"})
"""The labels of the chips whose lines 0-27 are a Raspberry Pi's header GPIOs, by BCM number."""


def find_lines(api: LineApi, pins: Iterable[int]) -> tuple[str, dict[int, int]]:
    """The chip with a line ``GPIO<pin>`` for every pin, and each pin's offset on it; else a
    Pi's header chip by its label (:data:`PI_HEADER_CHIPS`), the offset the BCM number (some
    device trees name a few header lines otherwise: ``SPI_MOSI``, ``GPIO_GCLK``, ``TXD1``...).

    Raises :class:`LinesNotFoundError` when no chip has them all (no Pi header, no permission
    to open ``/dev/gpiochip*``: the user needs the ``gpio`` group).
    """
    wanted = sorted(set(pins))
    names = [f"GPIO{p}" for p in wanted]
    chips = api.chips()
    problems: list[str] = []
    usable: list[str] = []
    for chip in chips:
        try:
            found = api.offsets(chip, names)
        except OSError as e:
            problems.append(f"{chip}: {e.strerror or e}")
            continue
        usable.append(chip)
        if found is not None:
            return chip, {p: found[f"GPIO{p}"] for p in wanted}
    for chip in usable:
        try:
            label, lines = api.info(chip)
            if label in PI_HEADER_CHIPS and wanted[-1] < lines:
                return chip, {p: p for p in wanted}
        except OSError as e:
            problems.append(f"{chip}: {e.strerror or e}")
    detail = "; ".join(problems) if problems else (f"looked in {', '.join(chips)}" if chips else "no /dev/gpiochip*")
    raise LinesNotFoundError(names, detail)


def line_settings() -> Any:
    """A button's line: input, internal pull-up, active low (closed = active), both edges,
    kernel timestamps on ``CLOCK_MONOTONIC``. Debouncing is the bank's (from the edges' times)."""
    import gpiod
    from gpiod.line import Bias, Clock, Direction, Edge

    return gpiod.LineSettings(
        direction=Direction.INPUT, edge_detection=Edge.BOTH, bias=Bias.PULL_UP, active_low=True,
        debounce_period=timedelta(0), event_clock=Clock.MONOTONIC,
    )


class ChardevButtons(BankButtons):
    """The seats' buttons on the kernel's GPIO character device (see the module doc).

    ``pins`` maps each button to its BCM pin; ``clock`` must be the kernel's
    ``CLOCK_MONOTONIC`` in seconds (:func:`time.monotonic`; a fake kernel's clock in tests),
    since edges carry the kernel's stamps. Same interface as :class:`~drivers.buttons.gpio.Buttons`.
    """

    def __init__(
        self,
        pins: Mapping[ButtonId, int],
        on_event: Callable[[ButtonEvent], None],
        *,
        timing: Timing = Timing(),
        api: LineApi | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(on_event, clock)
        self.pins = dict(pins)
        self._thread: threading.Thread | None = None
        self._stop = False
        self.api = api if api is not None else Libgpiod()
        self.chip, offsets = find_lines(self.api, self.pins.values())
        self._button_at = {offsets[pin]: button for button, pin in self.pins.items()}
        self._offset_of = {button: offsets[pin] for button, pin in self.pins.items()}
        try:
            self._request = self.api.request_lines(
                self.chip, {tuple(sorted(self._button_at)): line_settings()}, consumer=CONSUMER
            )
        except OSError as e:  # EBUSY: a line held by another program; EACCES: not in the gpio group
            raise LinesNotFoundError(
                [f"GPIO{p}" for p in sorted(self.pins.values())], f"cannot request them on {self.chip}: {e.strerror or e}"
            ) from e
        try:
            self._wake_r, self._wake_w = os.pipe()
            os.set_blocking(self._wake_r, False)
            with self._lock:
                # levels after the request: an edge from now on is in the request's queue
                self._bank = ButtonBank(self.pins, timing, now=clock(), pressed={b: self.raw_level(b) for b in self.pins})
        except BaseException:
            self._request.release()  # (else the lines stay taken, from a fallback to gpiozero too)
            raise

    def read_edges(self) -> int:
        """Feed the bank the edges the kernel has queued (call it when the request's file is
        readable: the read blocks while nothing is queued); how many."""
        with self._lock:  # (a request wants one reader at a time)
            events = self._request.read_edge_events()
            for ev in events:
                button = self._button_at.get(ev.line_offset)
                if button is not None:
                    pressed = ev.event_type.name == "RISING_EDGE"  # active low: rising = closed
                    self._emit(self._bank.edge(button, pressed, ev.timestamp_ns / 1e9))
        return len(events)

    def tick(self, now: float | None = None) -> None:
        """Take the edges queued, then emit the events due by ``now`` (default: the clock)."""
        at = self._clock() if now is None else now
        if select.select([self._request.fd], [], [], 0)[0]:  # (the wake pipe is the edge thread's)
            self.read_edges()
        with self._lock:
            self._emit(self._bank.tick(at))

    def _ready(self, timeout: float | None) -> bool:
        """Wait up to ``timeout`` s (None: for ever) for edges or a wake; True if edges wait."""
        readable, _, _ = select.select([self._request.fd, self._wake_r], [], [], timeout)
        if self._wake_r in readable:
            try:
                os.read(self._wake_r, 512)
            except BlockingIOError:
                pass
        return self._request.fd in readable

    def start(self) -> None:
        """Run the edge thread until :meth:`close`: it sleeps in ``poll`` until an edge, a wake
        or the bank's next deadline, whichever comes first."""
        if self._thread is not None:
            return
        self._stop = False

        def run() -> None:
            try:
                while not self._stop:
                    due = self.next_due()
                    now = self._clock()
                    if due is not None and due <= now:
                        self.tick(now)
                        if self.next_due() == due:  # (a clock that does not move: no spinning)
                            self._ready(MIN_WAIT_S)
                        continue
                    if self._ready(None if due is None else max(due - now, MIN_WAIT_S)):
                        self.read_edges()
            except Exception:  # (an I/O error from the kernel's file: the buttons are dead, said so)
                _log.exception("the buttons' edge thread stopped: no button works until the service restarts")

        self._thread = threading.Thread(target=run, name="buttons-edges", daemon=True)
        self._thread.start()

    def raw_level(self, button: ButtonId) -> bool:
        """The line's level now, undebounced: True while the contact is closed."""
        return str(getattr(self._request.get_value(self._offset_of[button]), "name", "")) == "ACTIVE"

    def close(self) -> None:
        """Stop the edge thread and release the lines; safe to call twice."""
        self._stop = True
        if self._wake_w >= 0:
            os.write(self._wake_w, b"x")
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        self._thread = None
        if self._wake_w >= 0:
            self._request.release()
            os.close(self._wake_r)
            os.close(self._wake_w)
            self._wake_r = self._wake_w = -1
