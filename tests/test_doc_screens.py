"""The README's screenshots (docs/screens/) are the screens as rendered now: one of each kind,
in English, on the recommended panel and on a 128x64 one, each pixel doubled.

Regenerate them with the golden images (``SCOREBOARD_REGENERATE_GOLDEN=1``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PIL import Image, ImageChops
from test_screens import SCREENS

from drivers.display.panels import PANELS, RECOMMENDED
from scoreboard.screens import render

DOCS = Path(__file__).resolve().parent.parent / "docs" / "screens"
README = Path(__file__).resolve().parent.parent / "README.md"
REGENERATE = os.environ.get("SCOREBOARD_REGENERATE_GOLDEN") == "1"
SHOWN = (
    "scores-4p", "scores-your-turn", "last-play", "challenge-window", "challenge-invalid", "error-tile-moved",
    "blank-picker", "confirm-pass", "confirm-undo", "unseen", "tally-tie", "menu", "reading", "paused",
    "draw-first-tie", "adjust", "enroll-place", "starting",
)
PANELS_SHOWN = (RECOMMENDED, "0.96in")


@pytest.mark.parametrize("panel", PANELS_SHOWN)
@pytest.mark.parametrize("name", SHOWN)
def test_the_screenshot_is_the_screen(name: str, panel: str) -> None:
    p = PANELS[panel]
    image = render(SCREENS[name], "en", p).resize((p.width * 2, p.height * 2), Image.Resampling.NEAREST)
    path = DOCS / panel / f"{name}.png"
    if REGENERATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        image.save(path, optimize=True)
    with Image.open(path) as shot:
        assert ImageChops.logical_xor(image, shot.convert("1")).getbbox() is None, path


def test_every_screenshot_is_in_the_readme_and_every_kind_is_shown() -> None:
    text = README.read_text(encoding="utf-8")
    for panel in PANELS_SHOWN:
        for name in SHOWN:
            assert f"docs/screens/{panel}/{name}.png" in text, (panel, name)
    assert {type(SCREENS[n]) for n in SHOWN} >= {type(s) for s in SCREENS.values()}
    assert {p.name for p in DOCS.glob("*/*.png")} == {f"{n}.png" for n in SHOWN}
