"""Seat buttons on GPIO: per seat a Done and a Challenge button, plus a shared Menu/Pause.

:mod:`.logic` is pure (debounce, short/long press, stuck detection on injected time);
:mod:`.gpio` is the gpiozero shell (:class:`Buttons`) and the mock panel
(:class:`MockButtons`) for tests and simulation; :mod:`.chardev` reads the buttons from
the kernel's GPIO character device through libgpiod, asleep until an edge
(:class:`~.chardev.ChardevButtons`; :mod:`.chardev_fake` is its fake kernel chip).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .logic import (
    ButtonBank,
    ButtonError,
    ButtonEvent,
    ButtonId,
    ButtonLogic,
    Kind,
    Role,
    Timing,
    TimingError,
    UnknownButtonError,
)

_GPIO = (
    "DEFAULT_CHALLENGE", "DEFAULT_DONE", "DEFAULT_MENU", "RESERVED_PINS", "Buttons", "ButtonSettings",
    "ManualClock", "MockButtons", "PinFactoryError", "PinMapError", "from_settings", "pin_map",
)
"""The gpiozero shell's names: loaded on first use, so the pure logic comes without gpiozero."""

if TYPE_CHECKING:
    from .gpio import (
        DEFAULT_CHALLENGE,
        DEFAULT_DONE,
        DEFAULT_MENU,
        RESERVED_PINS,
        Buttons,
        ButtonSettings,
        ManualClock,
        MockButtons,
        PinFactoryError,
        PinMapError,
        from_settings,
        pin_map,
    )


def __getattr__(name: str) -> Any:
    if name not in _GPIO:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import gpio

    value = getattr(gpio, name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_CHALLENGE",
    "DEFAULT_DONE",
    "DEFAULT_MENU",
    "RESERVED_PINS",
    "ButtonBank",
    "ButtonError",
    "ButtonEvent",
    "ButtonId",
    "ButtonLogic",
    "Buttons",
    "ButtonSettings",
    "Kind",
    "ManualClock",
    "MockButtons",
    "PinFactoryError",
    "PinMapError",
    "Role",
    "Timing",
    "TimingError",
    "UnknownButtonError",
    "from_settings",
    "pin_map",
]
