"""The starting frame: what the display shows from the service's first moment until the game's screen.

``scoreboard run`` shows :class:`StartingScreen` as soon as its display is open, before it
loads the configuration's schema, the journal, the controller or the board link (see
:mod:`scoreboard.starting`); the game's own screen (the scores, the draw for the first
player or a resumed game's) replaces it once the journal is read. It claims nothing about
the game: only that the table is starting. It is drawn on the same canvas as every screen
(:mod:`scoreboard.drawing.canvas`) and :func:`scoreboard.screens.render.render` draws it
too; this module needs neither the other screens' models nor their strings, so that it is
light to load, and the model alone loads no Pillow (it is one of the models).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (the model is imported with the other models, which need no Pillow)
    from drivers.display.panels import Panel

    from .canvas import Canvas

__all__ = ["STARTING_TEXT", "StartingScreen", "draw", "render_starting"]

STARTING_TEXT: dict[str, dict[str, str]] = {
    "starting.title": {"de": "Scoreboard", "fr": "Scoreboard", "en": "Scoreboard"},
    "starting.body": {"de": "Startet…", "fr": "Démarrage…", "en": "Starting…"},
}
"""The starting frame's strings (part of :data:`scoreboard.screens.text.TEXT`, whose tests
check them as every string)."""


@dataclass(frozen=True)
class StartingScreen:
    """The table is starting (nothing of the game is known yet)."""


def draw(model: StartingScreen, lang: str, c: Canvas) -> None:
    """The title bar and "Starting…" in the big face (in the body face where it does not fit)."""
    lang = lang if lang in STARTING_TEXT["starting.body"] else "en"
    c.title(STARTING_TEXT["starting.title"][lang])
    body = STARTING_TEXT["starting.body"][lang]
    rows = c.lay.rows
    big = c.big
    if c.lay.title_end + 2 + big.height <= c.lay.bottom and big.text_width(body) <= c.lay.right - c.lay.left:
        c.put(body, c.lay.title_end + 2, face=big)
    else:
        c.wrapped(rows, body)


def render_starting(model: StartingScreen, lang: str, panel: Panel | None = None) -> Canvas:
    """The starting frame drawn for ``panel`` (by default the renderer's); the frame is the
    canvas's ``image``."""
    from .canvas import DEFAULT_PANEL, Canvas, layout

    canvas = Canvas(layout(panel or DEFAULT_PANEL))
    draw(model, lang, canvas)
    return canvas
