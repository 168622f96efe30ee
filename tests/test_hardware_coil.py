"""hardware/coil_footprint.py: the cell coil's KiCad footprint is the coil rfcalc computes."""

from __future__ import annotations

import importlib.util
import itertools
import sys
from pathlib import Path
from typing import Any

import pytest

_HW = Path(__file__).resolve().parent.parent / "hardware"
_spec = importlib.util.spec_from_file_location("coil_footprint", _HW / "coil_footprint.py")
assert _spec is not None and _spec.loader is not None
cf: Any = importlib.util.module_from_spec(_spec)
sys.modules["coil_footprint"] = cf
_spec.loader.exec_module(cf)
COIL = cf.rfcalc.CELL_COIL


def _gap(a: tuple[tuple[float, float], tuple[float, float]], b: tuple[tuple[float, float], tuple[float, float]]) -> float:
    """Distance between two axis-parallel segments (centrelines, mm)."""
    (ax0, ay0), (ax1, ay1) = a
    (bx0, by0), (bx1, by1) = b
    dx = max(0.0, max(min(ax0, ax1), min(bx0, bx1)) - min(max(ax0, ax1), max(bx0, bx1)))
    dy = max(0.0, max(min(ay0, ay1), min(by0, by1)) - min(max(ay0, ay1), max(by0, by1)))
    return float((dx * dx + dy * dy) ** 0.5)


def test_the_spiral_is_the_computed_coil() -> None:
    pts = cf.spiral(COIL)
    assert len(pts) - 1 == 5 * COIL.turns - 1  # per turn three sides, down the fourth, a step in; no last step
    assert cf.length(pts) == pytest.approx(COIL.length() * 1e3, rel=0.01)
    xs = [x for x, _ in pts]
    ys = [y for _, y in pts]
    side = (COIL.outer - COIL.width) * 1e3
    assert max(xs) - min(xs) == pytest.approx(side) and max(ys) - min(ys) == pytest.approx(side)


def test_no_two_runs_closer_than_one_pitch() -> None:
    pts = cf.spiral(COIL)
    segs = list(itertools.pairwise(pts))
    pitch = (COIL.width + COIL.gap) * 1e3
    for (i, a), (j, b) in itertools.combinations(enumerate(segs), 2):
        if j > i + 1:  # not joined at a corner
            assert _gap(a, b) >= pitch - 1e-9, (i, j)


def test_the_committed_footprint_is_the_generated_one() -> None:
    text = (_HW / "footprints.pretty" / f"{cf.NAME}.kicad_mod").read_text()
    assert text == cf.footprint(), "run: python hardware/coil_footprint.py"
    assert text.count("(") == text.count(")")
    assert text.count('(pad "1"') == 1 and text.count('(pad "2"') == 2
    assert text.count('(layer "F.Cu") (width 0.400)') == len(cf.spiral(COIL)) - 1
