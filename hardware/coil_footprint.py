"""The cell coil as a KiCad footprint: the drawing a PCB house builds (hardware/DESIGN.md).

``python hardware/coil_footprint.py`` writes ``hardware/footprints.pretty/cell_coil_15mm_4t.kicad_mod``
(the footprint the schematic's ``CELL_COIL`` names, ``hardware:cell_coil_15mm_4t``). The coil is
``rfcalc.CELL_COIL``: a square spiral on F.Cu along the middle of its trace, from pad 1 at the
outer end inwards; the inner end drops through a via (pad 2) to a B.Cu crossover that leaves
the coil to pad 2 beside pad 1. A Dwgs.User rectangle 1 mm outside the coil marks the area
where no copper pour may go (it would be an eddy-current short).
"""

from __future__ import annotations

import importlib.util
import sys
from itertools import pairwise
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
if "rfcalc" not in sys.modules:
    _spec = importlib.util.spec_from_file_location("rfcalc", _HERE / "rfcalc.py")
    assert _spec is not None and _spec.loader is not None
    _mod = importlib.util.module_from_spec(_spec)
    sys.modules["rfcalc"] = _mod
    _spec.loader.exec_module(_mod)
rfcalc: Any = sys.modules["rfcalc"]

NAME = "cell_coil_15mm_4t"
Point = tuple[float, float]


def spiral(coil: Any) -> list[Point]:
    """The F.Cu centreline of a square spiral (mm), outer end first, clockwise inwards.

    Each turn runs along three sides at its half-side h and comes down the fourth to the next
    turn's corner, one pitch in: so neighbouring runs are exactly one pitch apart."""
    outer = coil.outer * 1e3
    width = coil.width * 1e3
    pitch = (coil.width + coil.gap) * 1e3
    turns = coil.turns
    h = outer / 2 - width / 2
    pts: list[Point] = [(-h, -h)]
    for _ in range(turns):
        pts += [(h, -h), (h, h), (-h, h)]
        inner = h - pitch
        pts += [(-h, -inner), (-inner, -inner)]  # down the left side, in to the next turn's corner
        h = inner
    return pts[:-1]  # the last turn ends on its left side: the inner end


def length(points: list[Point]) -> float:
    """Path length (mm)."""
    return float(sum(((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5 for (x0, y0), (x1, y1) in pairwise(points)))


def footprint(coil: Any = None) -> str:
    """The .kicad_mod text (KiCad 6 format, which KiCad 7-9 read)."""
    coil = coil or rfcalc.CELL_COIL
    width = coil.width * 1e3
    outer = coil.outer * 1e3
    pts = spiral(coil)
    lines = [f'(footprint "{NAME}" (version 20211014) (generator scoreboard_hardware) (layer "F.Cu")',
             (f'  (descr "cell coil: {coil.turns} turns, {width:.2f} mm trace, '
              f'{coil.gap * 1e3:.2f} mm gap, {outer:.1f} mm square; '
              f'L {coil.inductance() * 1e9:.0f} nH (hardware/rfcalc.py)")'),
             '  (attr smd)',
             f'  (fp_text reference "REF**" (at 0 {-outer / 2 - 1.5:.3f}) (layer "F.SilkS")',
             '    (effects (font (size 1 1) (thickness 0.15))))',
             f'  (fp_text value "{NAME}" (at 0 {outer / 2 + 1.5:.3f}) (layer "F.Fab")',
             '    (effects (font (size 1 1) (thickness 0.15))))']
    for (x0, y0), (x1, y1) in pairwise(pts):
        lines.append(f'  (fp_line (start {x0:.3f} {y0:.3f}) (end {x1:.3f} {y1:.3f}) (layer "F.Cu") (width {width:.3f}))')
    (sx, sy), (ex, ey) = pts[0], pts[-1]
    pad = width + 0.2
    lines.append(f'  (pad "1" smd rect (at {sx - 1.0:.3f} {sy:.3f}) (size {pad + 1.0:.3f} {pad:.3f}) (layers "F.Cu"))')
    lines.append(f'  (pad "2" thru_hole circle (at {ex:.3f} {ey:.3f}) (size {pad:.3f} {pad:.3f}) (drill 0.3) (layers "*.Cu"))')
    out_x = -outer / 2 - 1.0
    lines.append(f'  (fp_line (start {ex:.3f} {ey:.3f}) (end {out_x:.3f} {ey:.3f}) (layer "B.Cu") (width {width:.3f}))')
    lines.append(f'  (pad "2" smd rect (at {out_x:.3f} {ey:.3f}) (size {pad + 1.0:.3f} {pad:.3f}) (layers "B.Cu"))')
    k = outer / 2 + 1.0
    lines.append(f'  (fp_rect (start {-k:.3f} {-k:.3f}) (end {k:.3f} {k:.3f}) (layer "Dwgs.User") (width 0.1) (fill none))')
    lines.append(')')
    return "\n".join(lines) + "\n"


def main() -> None:
    out = _HERE / "footprints.pretty" / f"{NAME}.kicad_mod"
    out.parent.mkdir(exist_ok=True)
    out.write_text(footprint())
    print(f"{out}: {len(spiral(rfcalc.CELL_COIL)) - 1} segments, {length(spiral(rfcalc.CELL_COIL)):.1f} mm of trace")


if __name__ == "__main__":
    main()
