"""Seat buttons on GPIO: per seat a Done and a Challenge button, plus a shared Menu/Pause.

:mod:`.logic` is pure (debounce, short/long press, stuck detection on injected time);
:mod:`.gpio` is the gpiozero shell (:class:`Buttons`) and the mock panel
(:class:`MockButtons`) for tests and simulation.
"""

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
