"""The OLED scoreboard display (luma.oled): devices from configuration, push on change.

Screens are drawn elsewhere (:mod:`scoreboard.screens`); this package only sends images.
"""

from .oled import (
    Display,
    DisplayError,
    Multiplexer,
    make_device,
    make_display,
    make_displays,
)

__all__ = ["Display", "DisplayError", "Multiplexer", "make_device", "make_display", "make_displays"]
