"""The gpiozero shell around the button logic, and a mock panel for tests and simulation.

:class:`Buttons` builds one ``gpiozero.DigitalInputDevice(pin, pull_up=True,
bounce_time=None)`` per configured pin (each button closes to GND; not ``gpiozero.Button``,
whose hold thread wakes ten times a second per button), stamps every edge with the injected
clock in gpiozero's edge callback and feeds it to :class:`~drivers.buttons.logic.ButtonBank`.
Nothing polls: the thread of :meth:`Buttons.start` sleeps until the bank's next deadline (a
level settling, a long press, stuck: :meth:`ButtonBank.next_due`, from the edges' times) or
the next edge, whichever comes first, and sleeps for good while no button is touched. The
owner may instead call :meth:`Buttons.tick` itself (a virtual clock). Events go to
``on_event``, from whichever thread saw them (gpiozero's callback thread or the timer).

The pin factory is the ``pin_factory`` argument (a factory or a name such as ``"mock"``,
``"lgpio"``, ``"rpigpio"``), else ``$GPIOZERO_PIN_FACTORY``, else gpiozero's detection
(lgpio first: the Pi 5 default; RPi.GPIO on older Pis). Nothing here imports a GPIO
library itself.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from importlib.metadata import entry_points
from types import TracebackType
from typing import Any, Protocol, Self

from gpiozero import DigitalInputDevice, Device  # type: ignore[import-untyped]
from gpiozero.pins import Factory  # type: ignore[import-untyped]
from gpiozero.pins.mock import MockFactory, MockPin  # type: ignore[import-untyped]

from .base import BankButtons
from .logic import ButtonBank, ButtonError, ButtonEvent, ButtonId, Role, Timing

__all__ = [
    "DEFAULT_CHALLENGE",
    "DEFAULT_DONE",
    "DEFAULT_MENU",
    "RESERVED_PINS",
    "Buttons",
    "ManualClock",
    "MockButtons",
    "PinFactoryError",
    "PinMapError",
    "ButtonSettings",
    "pin_map",
    "from_settings",
]

DEFAULT_DONE = (17, 22, 5, 13)
"""BCM pins of the Done buttons of seats 1-4 (header pins 11, 15, 29, 33)."""
DEFAULT_CHALLENGE = (27, 23, 6, 19)
"""BCM pins of the Challenge buttons of seats 1-4 (header pins 13, 16, 31, 35)."""
DEFAULT_MENU = 26
"""BCM pin of the shared Menu/Pause button (header pin 37)."""
RESERVED_PINS = frozenset({0, 1, 2, 3, 14, 15})
"""HAT ID EEPROM (0, 1), I2C for the OLED (2, 3), UART link (14, 15)."""

MIN_WAIT_S = 0.001
"""The timer thread's shortest sleep (a deadline that the clock has not reached yet)."""


class PinMapError(ButtonError, ValueError):
    """A pin map with a pin out of range, a pin used twice or a seat count outside 2-4."""


class PinFactoryError(ButtonError, RuntimeError):
    """No GPIO pin factory could be loaded (none named so, or none works here)."""


def pin_map(
    done: Sequence[int] = DEFAULT_DONE,
    challenge: Sequence[int] = DEFAULT_CHALLENGE,
    menu: int = DEFAULT_MENU,
    *,
    seats: int | None = None,
    allow_reserved: bool = False,
) -> dict[ButtonId, int]:
    """Button → BCM pin for the first ``seats`` seats (default: every seat in ``done``).

    Raises :class:`PinMapError` for lists of different lengths, fewer than 2 or more than 4
    seats, pins outside 0-27, a pin used twice, or a reserved pin (``RESERVED_PINS``)
    unless ``allow_reserved``.
    """
    if len(done) != len(challenge):
        raise PinMapError(
            f"{len(done)} Done pins {list(done)!r} but {len(challenge)} Challenge pins"
            f" {list(challenge)!r}"
        )
    seats = len(done) if seats is None else seats
    if not 2 <= seats <= 4 or seats > len(done):
        raise PinMapError(f"{seats!r} seats with pins for {len(done)}; use 2 to 4 seats, each with pins")
    result: dict[ButtonId, int] = {}
    for seat in range(1, seats + 1):
        result[ButtonId(seat, Role.DONE)] = done[seat - 1]
        result[ButtonId(seat, Role.CHALLENGE)] = challenge[seat - 1]
    result[ButtonId(None, Role.MENU)] = menu
    owner: dict[int, ButtonId] = {}
    for button, pin in result.items():
        if not isinstance(pin, int) or isinstance(pin, bool) or not 0 <= pin <= 27:
            raise PinMapError(f"{button.name()}: pin {pin!r} is not a BCM GPIO number 0-27")
        if pin in RESERVED_PINS and not allow_reserved:
            raise PinMapError(f"{button.name()}: GPIO{pin} is reserved (ID EEPROM, I2C, UART)")
        if pin in owner:
            raise PinMapError(f"GPIO{pin} is given to both {owner[pin].name()} and {button.name()}")
        owner[pin] = button
    return result


class ButtonSettings(Protocol):
    """What :func:`from_settings` reads: the ``[buttons]`` section of the configuration."""

    @property
    def done(self) -> Sequence[int]: ...
    @property
    def challenge(self) -> Sequence[int]: ...
    @property
    def menu(self) -> int: ...
    @property
    def allow_reserved(self) -> bool: ...
    @property
    def debounce_ms(self) -> int: ...
    @property
    def long_ms(self) -> int: ...
    @property
    def stuck_ms(self) -> int: ...


def from_settings(settings: ButtonSettings, seats: int | None = None) -> tuple[dict[ButtonId, int], Timing]:
    """The pin map (first ``seats`` seats) and timing of a ``[buttons]`` configuration."""
    pins = pin_map(
        settings.done, settings.challenge, settings.menu, seats=seats, allow_reserved=settings.allow_reserved
    )
    return pins, Timing(settings.debounce_ms, settings.long_ms, settings.stuck_ms)


def _factory(pin_factory: Factory | str | None) -> Factory:
    """The factory given, the one named, else gpiozero's default (env, then detection)."""
    if isinstance(pin_factory, Factory):
        return pin_factory
    try:
        if pin_factory is None:
            Device.ensure_pin_factory()
            assert Device.pin_factory is not None
            return Device.pin_factory
        for name in (pin_factory, pin_factory.lower()):
            for ep in entry_points(group="gpiozero_pin_factories"):
                if ep.name == name:
                    factory: Factory = ep.load()()
                    return factory
    except Exception as e:  # import errors, BadPinFactory, a failing driver
        raise PinFactoryError(f"cannot load a GPIO pin factory {pin_factory or ''}: {e}") from e
    raise PinFactoryError(f"no GPIO pin factory named {pin_factory!r}; e.g. lgpio, rpigpio, mock")


class Buttons(BankButtons):
    """The seats' Done and Challenge buttons and the Menu button, on real or mock GPIO.

    ``pins`` maps each button to its BCM pin (see :func:`pin_map`); ``clock`` returns
    seconds from a monotonic source and stamps every edge and tick.
    """

    def __init__(
        self,
        pins: Mapping[ButtonId, int],
        on_event: Callable[[ButtonEvent], None],
        *,
        timing: Timing = Timing(),
        pin_factory: Factory | str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(on_event, clock)
        self.pins = dict(pins)
        self._devices: dict[ButtonId, DigitalInputDevice] = {}
        self._stop = False
        self._wake = threading.Condition(self._lock)  # an edge or close(): the next deadline changed
        self._thread: threading.Thread | None = None
        self.pin_factory = _factory(pin_factory)
        # A factory made here from its name is ours to close; one passed in or gpiozero's
        # default belongs to the caller or to gpiozero.
        self._owns_factory = isinstance(pin_factory, str)
        try:
            for button, pin in self.pins.items():
                self._devices[button] = DigitalInputDevice(
                    pin, pull_up=True, bounce_time=None, pin_factory=self.pin_factory
                )
        except Exception as e:  # a pin in use, not on this board, no permission...
            self.close()
            raise PinFactoryError(f"cannot set up {button.name()} on GPIO{pin}: {e}") from e
        with self._lock:
            # Handlers first, levels after: an edge in between waits for the lock and then
            # finds the bank built with its own level, so no edge is lost.
            for button, device in self._devices.items():
                device.when_activated = self._edge_handler(button, True)
                device.when_deactivated = self._edge_handler(button, False)
            self._bank = ButtonBank(
                self.pins,
                timing,
                now=clock(),
                pressed={b: bool(d.is_active) for b, d in self._devices.items()},
            )

    def _edge_handler(self, button: ButtonId, pressed: bool) -> Callable[[], None]:
        def handler() -> None:
            at = self._clock()  # stamped before waiting for the lock: the order of presses counts
            with self._lock:
                self._emit(self._bank.edge(button, pressed, at))
                self._wake.notify()

        return handler

    def tick(self, now: float | None = None) -> None:
        """Emit the events due by ``now`` (default: the clock)."""
        with self._lock:
            self._emit(self._bank.tick(self._clock() if now is None else now))

    def start(self) -> None:
        """Tick at each deadline (real time) on a daemon thread until :meth:`close`: it sleeps
        until the bank's next deadline or the next edge, and without a deadline until an edge."""
        if self._thread is not None:
            return
        with self._lock:
            self._stop = False

        def run() -> None:
            with self._lock:
                while not self._stop:
                    due = self._bank.next_due()
                    now = self._clock()
                    if due is not None and due <= now:
                        self._emit(self._bank.tick(now))
                        if self._bank.next_due() == due:  # (a clock that does not move: no spinning)
                            self._wake.wait(MIN_WAIT_S)
                        continue
                    self._wake.wait(None if due is None else max(due - now, MIN_WAIT_S))

        self._thread = threading.Thread(target=run, name="buttons-timer", daemon=True)
        self._thread.start()

    def raw_level(self, button: ButtonId) -> bool:
        """The pin's level now, undebounced: True while the contact is closed."""
        return bool(self._devices[button].is_active)

    def close(self) -> None:
        """Stop the timer thread and release the pins; safe to call twice."""
        with self._lock:
            self._stop = True
            self._wake.notify()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        self._thread = None
        for device in self._devices.values():
            device.close()
        self._devices.clear()
        if self._owns_factory:
            self._owns_factory = False
            self.pin_factory.close()


class ManualClock:
    """A clock that moves only when told: ``clock()`` is the time, :meth:`advance` moves it."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> float:
        """Move on ``seconds``; returns the new time."""
        self.now += seconds
        return self.now


class MockButtons:
    """The button panel on gpiozero's :class:`MockFactory` with a :class:`ManualClock`.

    Drives the mock pins like fingers would (``press``, ``release``, ``bounce``) and records
    every event in :attr:`events`; ``on_event`` (optional) also gets each one.
    """

    def __init__(
        self,
        pins: Mapping[ButtonId, int] | None = None,
        *,
        timing: Timing = Timing(),
        on_event: Callable[[ButtonEvent], None] | None = None,
        clock: ManualClock | None = None,
        factory: MockFactory | None = None,
    ) -> None:
        self.clock = clock or ManualClock()
        self.factory = factory or MockFactory()
        self.events: list[ButtonEvent] = []
        self._forward = on_event
        self.buttons = Buttons(
            pin_map() if pins is None else pins,
            self._record,
            timing=timing,
            pin_factory=self.factory,
            clock=self.clock,
        )

    def _record(self, event: ButtonEvent) -> None:
        self.events.append(event)
        if self._forward is not None:
            self._forward(event)

    def pin(self, seat: int | None, role: Role) -> MockPin:
        """The mock pin of a button."""
        pin: Any = self.factory.pin(self.buttons.pins[ButtonId(seat, role)])
        return pin

    def press(self, seat: int | None, role: Role) -> None:
        """Close the button's contact (drive its pin low) now."""
        self.pin(seat, role).drive_low()

    def release(self, seat: int | None, role: Role) -> None:
        """Open the button's contact (its pin goes high through the pull-up) now."""
        self.pin(seat, role).drive_high()

    def bounce(
        self, seat: int | None, role: Role, *, edges: int = 20, over_ms: float = 30, pressed: bool = True
    ) -> None:
        """A chattering contact: ``edges`` edges evenly over ``over_ms``, the clock moving.

        The edges alternate from the current level; when they would end away from
        ``pressed``, one more edge at ``over_ms`` settles the contact there.
        """
        level = self.buttons.raw_level(ButtonId(seat, role))
        settle = (level if edges % 2 == 0 else not level) != pressed
        total = edges + settle
        step = over_ms / 1000 / max(total - 1, 1)
        for number in range(total):
            if number:
                self.clock.advance(step)
            level = not level
            (self.press if level else self.release)(seat, role)

    def advance(self, ms: float) -> None:
        """Let ``ms`` milliseconds pass on the clock, then tick."""
        self.clock.advance(ms / 1000)
        self.buttons.tick()

    def take(self) -> list[ButtonEvent]:
        """The events recorded since the last call."""
        events, self.events = self.events, []
        return events

    def close(self) -> None:
        """Close the buttons (and their mock pins)."""
        self.buttons.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
