"""The OLED panels people buy, as data: pixels, controller, interfaces and active area in mm.

The screens lay themselves out from a :class:`Panel`: its pixels (128x64 or 256x64) and its
pixel pitch in mm, which says how tall a glyph is on the glass and so from how far it can
be read. Sizes are the active areas of the common modules' data sheets (the glass's lit
part; the module's black border around it is not counted).

Legibility: ISO 9241-3 (and NUREG-0700, the FAA's human-factors guide) ask for characters
of at least 16 minutes of arc, 20 to 22 preferred. A capital (or digit) read at a viewing
distance D must be at least ``2 D tan(8')`` tall: 6.98 mm at 1.5 m (:func:`legible_mm`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = [
    "BEZEL_MM",
    "PANELS",
    "RECOMMENDED",
    "VIEWING_MM",
    "Panel",
    "legible_mm",
    "panel_of_controller",
]

VIEWING_MM = 1500
"""The distance the score and the player to move must be readable from: across a table."""

BEZEL_MM = 0.3
"""What a case's bezel may cover of the active area on each side; screens keep text off it."""


def legible_mm(distance_mm: float = VIEWING_MM, arcmin: float = 16.0) -> float:
    """The capital height in mm that subtends ``arcmin`` minutes of arc at ``distance_mm``."""
    return 2 * distance_mm * math.tan(math.radians(arcmin / 60) / 2)


@dataclass(frozen=True)
class Panel:
    """An OLED panel: ``name`` is its diagonal (``"3.12in"``), as ``display.panel`` names it.

    ``controller`` is the luma.oled device class that drives it (``also``: other controllers
    modules of this panel are sold with); ``interfaces`` the buses its common modules offer,
    the usual one first; ``active_mm`` the lit area (width, height).
    """

    name: str
    controller: str
    width: int
    height: int
    active_mm: tuple[float, float]
    interfaces: tuple[str, ...]
    greyscale: bool = False
    also: tuple[str, ...] = ()

    @property
    def controllers(self) -> tuple[str, ...]:
        """Every controller modules of this panel have, the usual one first."""
        return (self.controller, *self.also)

    def __repr__(self) -> str:
        return f"<Panel {self.name} {self.controller} {self.width}x{self.height}>"

    @property
    def size(self) -> tuple[int, int]:
        """Pixels (width, height)."""
        return self.width, self.height

    @property
    def pitch_mm(self) -> float:
        """The vertical distance between pixel rows in mm (what a glyph's height is made of)."""
        return self.active_mm[1] / self.height

    def mm(self, pixels: int) -> float:
        """How tall ``pixels`` rows are on the glass, in mm."""
        return pixels * self.pitch_mm

    def pixels(self, mm: float) -> int:
        """The fewest whole rows at least ``mm`` tall."""
        return math.ceil(mm / self.pitch_mm - 1e-9)

    @property
    def margin(self) -> int:
        """Pixels kept free on every side: at least 2, and at least :data:`BEZEL_MM`."""
        return max(2, self.pixels(BEZEL_MM))


PANELS: dict[str, Panel] = {
    p.name: p
    for p in (
        Panel("0.96in", "ssd1306", 128, 64, (21.74, 10.86), ("i2c", "spi")),
        Panel("1.3in", "sh1106", 128, 64, (29.42, 14.70), ("i2c", "spi"), also=("ssd1306",)),  # Adafruit 938
        Panel("2.42in", "ssd1309", 128, 64, (55.01, 27.49), ("i2c", "spi")),
        Panel("3.12in", "ssd1322", 256, 64, (76.78, 19.18), ("spi",), greyscale=True),
    )
}
"""The known panels by diagonal (``display.panel``)."""

RECOMMENDED = "3.12in"
"""The panel of the reference build (hardware/README.md): of the two whose headline text is
legible at :data:`VIEWING_MM` (2.42in and 3.12in), the one that shows more of a name."""


def panel_of_controller(controller: str) -> Panel:
    """The known panel a controller drives (``ssd1306``: the 0.96-inch one...); the
    recommended one for an emulated display (``dummy``, ``capture``)."""
    for panel in PANELS.values():
        if panel.controller == controller:
            return panel
    return PANELS[RECOMMENDED]
