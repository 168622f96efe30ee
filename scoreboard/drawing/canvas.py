"""Drawing a screen: the layout of a panel, the faces, and a canvas with the helpers the screens use.

:func:`layout` places things on a panel (its pixels, the margin a bezel may cover, the body,
big and headline faces); :class:`Canvas` is a blank 1-bit image of the panel that draws text
cut to fit, title bars, shapes and tiles, and records every box it drew into (:class:`Mark`)
for the tests. Both :mod:`scoreboard.screens.render` and the starting frame
(:mod:`scoreboard.drawing.starting`) draw with it; it needs neither the screen models nor
the UI strings, so the starting frame is drawn before they are loaded.
"""

from __future__ import annotations

import functools
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from PIL import Image, ImageDraw

from drivers.display.panels import PANELS, Panel, legible_mm

from .font import BitmapFont, font

__all__ = [
    "DEFAULT_PANEL",
    "HEADLINE_FACES",
    "USABLE_ARCMIN",
    "Align",
    "Canvas",
    "Layout",
    "Mark",
    "cap_height",
    "layout",
]

DEFAULT_PANEL = PANELS["0.96in"]
"""The panel :func:`render` lays out for when none is given."""

HEADLINE_FACES = ("6x12x2", "16x32", "6x12x3")
"""Faces a headline may use (:func:`layout` picks one for a panel)."""

Align = Literal["left", "right", "center"]


@dataclass(frozen=True)
class Mark:
    """A box drawn into: ``box`` is (left, top, right, bottom), right and bottom exclusive.

    ``kind`` is ``text``, ``number`` or ``shape``; ``value`` the text as drawn, ``cut``
    whether it was shortened to fit and ``cuttable`` whether it may be (a player's name, a
    reason of the engine's: text of any length; everything else is meant to be read whole).
    """

    kind: str
    box: tuple[int, int, int, int]
    value: str = ""
    cut: bool = False
    cuttable: bool = False

    def intersects(self, other: Mark) -> bool:
        """True when the two boxes share a pixel."""
        a, b = self.box, other.box
        return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@dataclass(frozen=True)
class Layout:
    """Where things go on ``panel``: the frame inside the margin, the faces and the lines."""

    panel: Panel
    body: BitmapFont
    big: BitmapFont
    head: BitmapFont | None  # legible from across the table, when the panel allows it

    @property
    def width(self) -> int:
        return self.panel.width

    @property
    def height(self) -> int:
        return self.panel.height

    @property
    def left(self) -> int:
        return self.panel.margin

    @property
    def right(self) -> int:
        """The first column right of the frame."""
        return self.panel.width - self.panel.margin

    @property
    def bottom(self) -> int:
        """The first row below the frame."""
        return self.panel.height - self.panel.margin

    @property
    def line(self) -> int:
        return self.body.height

    @property
    def title_end(self) -> int:
        """The first row under the title bar."""
        return self.panel.margin + self.line + 1

    @property
    def rows(self) -> tuple[int, ...]:
        """The tops of the body lines under the title (a dark row between bar and first line)."""
        first = self.title_end + 1
        return tuple(range(first, self.bottom - self.line + 1, self.line))

    @property
    def columns(self) -> int:
        """Body characters on a line inside the margin."""
        return (self.right - self.left) // self.body.width


def cap_height(face: BitmapFont) -> int:
    """Rows of a capital (``H``) in ``face``."""
    top, bottom, _, _ = face.ink("H")
    return bottom - top + 1


USABLE_ARCMIN = 10.0
"""The smallest capitals worth a headline, in minutes of arc at the viewing distance (ISO
9241-3 allows characters this small where reading is not the main task; 16 is its minimum
for reading, see :func:`~drivers.display.panels.legible_mm`)."""


@functools.cache
def layout(panel: Panel) -> Layout:
    """The layout for ``panel``. A headline face is chosen among those that fit between the
    title and one body line with a 5-letter name and a 4-digit score on a line: the one with
    the tallest capitals, if they reach :data:`USABLE_ARCMIN` at the viewing distance."""
    body, big = font("6x12"), font("8x16")
    room = panel.height - 2 * panel.margin - (body.height + 2) - (body.height + 1)
    width = panel.width - 2 * panel.margin
    fits = [f for f in map(font, HEADLINE_FACES) if f.height <= room and 10 * f.width <= width]
    head = max(fits, key=lambda f: (cap_height(f), -f.width), default=None)
    if head is not None and panel.mm(cap_height(head)) < legible_mm(arcmin=USABLE_ARCMIN):
        head = None
    return Layout(panel, body, big, head)


class Canvas:
    """A blank 1-bit image of the panel with the drawing helpers the screens use; every
    text and shape drawn is recorded in :attr:`marks`."""

    def __init__(self, lay: Layout) -> None:
        self.lay = lay
        self.image = Image.new("1", (lay.width, lay.height), 0)
        self.draw = ImageDraw.Draw(self.image)
        self.body = lay.body
        self.big = lay.big
        self.marks: list[Mark] = []
        self.bars: list[tuple[int, int, int, int]] = []  # lit backgrounds, right and bottom exclusive
        self.dropped: list[str] = []  # text that found no room

    # --- text ---

    def put(
        self,
        value: str,
        y: int,
        x0: int | None = None,
        x1: int | None = None,
        *,
        align: Align = "left",
        face: BitmapFont | None = None,
        fill: int = 1,
        kind: str = "text",
        cuttable: bool = False,
    ) -> int:
        """``value`` on one line at ``y`` between ``x0`` and ``x1`` (the frame by default),
        aligned, cut to fit (``cuttable``: as it may be); returns its width in pixels (0:
        nothing drawn, and a ``value`` with no room at all is reported as dropped)."""
        f = face or self.body
        x0 = self.lay.left if x0 is None else x0
        x1 = self.lay.right if x1 is None else x1
        shown = f.fit(value, x1 - x0)
        if not shown:
            if value:
                self.dropped.append(value)
            return 0
        w = f.text_width(shown)
        x = x0 if align == "left" else x1 - w if align == "right" else x0 + (x1 - x0 - w) // 2
        f.draw(self.image, (x, y), shown, fill)
        self.marks.append(Mark(kind, (x, y, x + w, y + f.height), shown, shown != value, cuttable))
        return w

    def number(self, value: str, y: int, right: int, *, face: BitmapFont | None = None, fill: int = 1) -> int:
        """A number right-aligned at ``right``, never cut unless it is wider than the frame;
        returns the left edge of its box."""
        f = face or self.body
        self.put(value, y, max(self.lay.left, right - f.text_width(value)), right, align="right", face=f, fill=fill,
                 kind="number")
        return right - f.text_width(value)

    def title(
        self, value: str, right: str = "", *, number: bool = False, cuttable: bool = False, right_cuttable: bool = False
    ) -> None:
        """The title bar: ``value`` at the left, ``right`` at the right (a number, never cut,
        with ``number``). Of two texts the one that may be cut (a name) gets the room the
        other leaves; of two alike the right one leaves the title half the bar or all it needs."""
        self.bar(0, self.lay.title_end)
        y = self.lay.panel.margin
        end = self.lay.right
        if right:
            frame = self.lay.right - self.lay.left
            gap = self.body.width // 2
            if number:
                edge = self.number(right, y, self.lay.right, fill=0)
            else:
                if right_cuttable and not cuttable:
                    keep = min(self.body.text_width(value), frame)
                elif cuttable and not right_cuttable:
                    keep = max(0, frame - gap - self.body.text_width(right))
                else:
                    keep = min(self.body.text_width(value), frame // 2)
                x0 = self.lay.right - min(frame - keep - gap, self.body.text_width(right))
                edge = self.lay.right - self.put(right, y, x0, align="right", fill=0, cuttable=right_cuttable)
            end = edge - gap
        self.put(value, y, self.lay.left, end, fill=0, cuttable=cuttable)

    def lines(self, rows: Sequence[int], values: Sequence[str], *, face: BitmapFont | None = None) -> None:
        """One value a line, from the first of ``rows``; the values past the last row are
        reported as dropped."""
        for y, value in zip(rows, values):
            self.put(value, y, face=face)
        self.dropped.extend(values[len(rows) :])

    def wrapped(self, rows: Sequence[int], value: str, *, cuttable: bool = False) -> int:
        """``value`` word-wrapped on ``rows`` (what does not fit on them goes on the last,
        cut there with ``…``); returns how many rows it took."""
        parts = textwrap.wrap(value, self.lay.columns) or [""]
        if not rows:
            self.dropped.append(value)
            return 0
        if len(parts) > len(rows):
            parts = [*parts[: len(rows) - 1], " ".join(parts[len(rows) - 1 :])]
        for y, part in zip(rows, parts):
            self.put(part, y, cuttable=cuttable)
        return len(parts)

    # --- shapes ---

    def bar(self, y: int, height: int, x0: int = 0, x1: int | None = None) -> None:
        """An inverted band (text on it is drawn with ``fill=0``); not a mark but a background
        (:attr:`bars`): text sits on it. It may run under the bezel: cut there, it loses nothing."""
        box = (x0, y, self.lay.width if x1 is None else x1, y + height)
        self.draw.rectangle((box[0], box[1], box[2] - 1, box[3] - 1), fill=1)
        self.bars.append(box)

    def arrow(self, x: int, y: int, height: int, fill: int = 1) -> int:
        """A right-pointing triangle ``height`` tall in a box from ``x``; returns its width."""
        h = height - height % 2 - 1 if height % 2 == 0 else height
        w = h // 2 + 1
        self.draw.polygon(((x, y), (x + w - 1, y + h // 2), (x, y + h - 1)), fill=fill)
        self.marks.append(Mark("shape", (x, y, x + w, y + h)))
        return w

    def shape(self, box: tuple[int, int, int, int], *, outline: bool = False, fill: int = 1) -> None:
        """A filled (or outlined) rectangle, right and bottom exclusive."""
        x0, y0, x1, y1 = box
        if outline:
            self.draw.rectangle((x0, y0, x1 - 1, y1 - 1), outline=fill)
        else:
            self.draw.rectangle((x0, y0, x1 - 1, y1 - 1), fill=fill)
        self.marks.append(Mark("shape", box))

    def tile(self, x: int, y: int, letter: str, fill: int = 1) -> int:
        """A tile: ``letter`` dark on a lit box (lit on dark with ``fill=0``); returns its width."""
        w, h = self.body.width + 1, self.body.height
        self.draw.rectangle((x, y, x + w - 1, y + h - 1), fill=fill)
        self.body.draw(self.image, (x + 1, y), letter[:1], 1 - fill)
        self.marks.append(Mark("text", (x, y, x + w, y + h), letter[:1]))
        return w
