"""hardware/rfcalc.py: the coupling, coil, matching and air-time formulas behind DESIGN.md."""

from __future__ import annotations

import importlib.util
import math
import random
import sys
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parent.parent / "hardware" / "rfcalc.py"
_spec = importlib.util.spec_from_file_location("rfcalc", _PATH)
assert _spec is not None and _spec.loader is not None
rf = importlib.util.module_from_spec(_spec)
sys.modules["rfcalc"] = rf
_spec.loader.exec_module(rf)


@pytest.mark.parametrize("distance", [2e-3, 5e-3, 20e-3])
def test_neumann_matches_maxwell_for_coaxial_circles(distance: float) -> None:
    a = rf.circle(15e-3, sides=96)
    b = rf.circle(12e-3, z=distance, sides=96)
    exact = rf.coaxial_circles_mutual(7.5e-3, 6e-3, distance)
    assert rf.mutual(a, b, pieces=2) == pytest.approx(exact, rel=0.01)


def test_maxwell_tends_to_the_dipole_law_far_away() -> None:
    r1, r2, d = 5e-3, 4e-3, 0.5
    dipole = rf.MU0 * math.pi * r1 ** 2 * r2 ** 2 / (2 * d ** 3)
    assert rf.coaxial_circles_mutual(r1, r2, d) == pytest.approx(dipole, rel=1e-3)


def test_mutual_is_symmetric_and_changes_sign_with_a_reversed_loop() -> None:
    a = rf.rectangle(15e-3, 15e-3)
    b = rf.rectangle(15e-3, 15e-3, cx=19e-3, z=1e-3)
    assert rf.mutual(a, b) == pytest.approx(rf.mutual(b, a), rel=1e-9)
    assert rf.mutual(a, list(reversed(b))) == pytest.approx(-rf.mutual(a, b), rel=1e-9)
    # side by side in one plane: the neighbour sits in the return flux, so M < 0
    assert rf.mutual(a, rf.rectangle(15e-3, 15e-3, cx=19e-3)) < 0


def test_grover_rectangle_against_a_filament_pair_one_gmd_apart() -> None:
    """A loop's self-inductance equals the mutual inductance of its axis with a filament one
    geometric mean distance away (Grover's method), here for a round wire of radius a: GMD = a."""
    side, radius = 20e-3, 0.5e-3
    inner = rf.rectangle(side, side)
    outer = rf.rectangle(side, side, z=radius)
    assert rf.mutual(inner, outer, pieces=16) == pytest.approx(
        rf.rectangle_self_inductance(side, side, radius), rel=0.03)


def test_the_cell_coil() -> None:
    c = rf.CELL_COIL
    assert c.inner == pytest.approx(10e-3)
    assert c.length() == pytest.approx(4 * (14.6 + 13.2 + 11.8 + 10.4) * 1e-3)
    assert 300e-9 < c.inductance() < 450e-9
    # two turns more, about (6/4)^2 as much, less the shrinking mean diameter
    more = rf.SquareCoil(outer=15e-3, turns=6, width=0.4e-3, gap=0.3e-3)
    assert 1.5 < more.inductance() / c.inductance() < (6 / 4) ** 2
    # the AC resistance sits between DC and a one-face skin layer
    r_dc = rf.RHO_CU * c.length() / (c.width * c.copper)
    assert r_dc < c.resistance() < rf.RHO_CU * c.length() / (c.width * rf.skin_depth())
    assert rf.skin_depth() == pytest.approx(17.9e-6, rel=0.01)


def test_bad_coils_are_refused_with_the_input() -> None:
    with pytest.raises(rf.GeometryError) as err:
        rf.SquareCoil(outer=5e-3, turns=8, width=0.4e-3, gap=0.3e-3)
    assert err.value.value.turns == 8
    with pytest.raises(rf.GeometryError):
        rf.rectangle(0.0, 1e-3)
    with pytest.raises(rf.GeometryError):
        rf.mutual(rf.rectangle(1e-2, 1e-2), rf.rectangle(1e-2, 1e-2))


def test_match_gives_fifty_ohm_and_the_q_asked_for() -> None:
    c = rf.CELL_COIL
    m = rf.match(c.inductance(), c.resistance(), q=20)
    z = m.port_impedance()
    assert z.real == pytest.approx(50.0, abs=0.01)
    assert z.imag == pytest.approx(0.0, abs=0.01)
    assert m.q == pytest.approx(20.0)
    # off-frequency the port is no longer 50 ohm: it is a resonant match
    assert abs(m.port_impedance(14.5e6) - 50) > 20
    assert m.open_port_detune() > 1.05
    with pytest.raises(rf.GeometryError) as err:
        rf.match(c.inductance(), c.resistance(), q=200)
    assert err.value.value[2] == 200


def test_reader_match_shows_the_transmitter_its_target() -> None:
    for target in (20.0, 40.0):
        rm = rf.reader_match(target)
        z = rm.tx_impedance()
        assert z.real == pytest.approx(target, rel=1e-6)
        assert z.imag == pytest.approx(0.0, abs=1e-6)
    with pytest.raises(rf.GeometryError):
        rf.reader_match(80.0)  # the line through C1 alone is already too capacitive


def test_e12() -> None:
    assert rf.e_series(300e-12) == pytest.approx(330e-12)
    assert rf.e_series(68.4e-12) == pytest.approx(68e-12)
    assert rf.e_series(96e-12) == pytest.approx(100e-12)


def test_a_shorted_idle_coil_is_far_from_resonance_an_open_one_is_not() -> None:
    c = rf.CELL_COIL
    m = rf.match(c.inductance(), c.resistance(), q=20)
    k = -0.024 * c.inductance()
    open_, shorted = (abs(rf.idle_coil_current_ratio(m, k, s)) for s in (False, True))
    assert shorted < open_ / 3
    # shorted, the coil's own reactance limits the current: about k
    assert shorted == pytest.approx(0.024, rel=0.2)


def test_crossreads_of_the_cell_grid() -> None:
    c = rf.CELL_COIL
    m = rf.match(c.inductance(), c.resistance(), q=20)
    side, diagonal, far = rf.crossreads(c, m, rf.PITCH, rf.TAG_D, 2, rf.HEIGHTS, rf.OFFSET)
    for x in (side, diagonal, far):
        assert x.idle_shorted_db < x.idle_open_db  # an open idle coil is a resonator
    assert side.direct_db > diagonal.direct_db > far.direct_db
    assert side.idle_shorted_db < -15  # the design's margin (DESIGN.md)


def test_field_on_axis_of_one_square_turn() -> None:
    coil = rf.SquareCoil(outer=10.4e-3, turns=1, width=0.4e-3, gap=0.3e-3)
    # centre of a square loop of side s: H = 2 sqrt(2) I / (pi s)
    assert rf.field_on_axis(coil, 1.0, 0.0) == pytest.approx(2 * math.sqrt(2) / (math.pi * 10e-3))


def test_type_a_air_time_from_the_standard() -> None:
    etu = 128 / 13.56e6
    air, exchanges = rf.select_7byte_air()
    # WUPA 9 etu, ATQA 20, per level: SEL+NVB 20, UID+BCC 47, SELECT 83, SAK 29; five FDTs
    assert air == pytest.approx((9 + 20 + 2 * (20 + 47 + 83 + 29)) * etu + 5 * 1172 / 13.56e6)
    assert exchanges == 5
    check, n = rf.presence_check_air()
    assert check == pytest.approx((9 + 20 + 20 + 47) * etu + 2 * 1172 / 13.56e6)
    assert n == 2


def test_iso15693_inventory_times() -> None:
    empty = rf.inventory_time(0, random.Random(0))
    assert empty == pytest.approx(rf.inventory_request() + 16 * rf.T3_EMPTY + 15 * (rf.T2 + rf.EOF_VCD))
    assert rf.inventory_response() == pytest.approx(2 * 151.04e-6 + 96 * 37.76e-6)
    one = rf.inventory_time(1, random.Random(0))
    assert one == pytest.approx(empty - rf.T3_EMPTY + rf.T1 + rf.inventory_response())
    rng = random.Random(3)
    many = sum(rf.inventory_time(10, rng) for _ in range(20)) / 20
    assert many > 10 * rf.inventory_response()  # every tag answers alone at least once
    sweep = rf.rowcol_sweep([(7, c) for c in range(15)], rack_slots=14)
    assert sweep > 0.4  # 15 tiles in a row: the row's inventory alone is over 100 ms


def test_design_md_quotes_what_rfcalc_computes() -> None:
    """hardware/DESIGN.md's figures are rfcalc's: change one and the other must follow."""
    design = (_PATH.parent / "DESIGN.md").read_text()
    c = rf.CELL_COIL
    m = rf.match(c.inductance(), c.resistance(), q=20)
    rm = rf.reader_match(20.0)
    air, _ = rf.select_7byte_air()
    check, _ = rf.presence_check_air()
    quotes = [
        f"| L | {c.inductance() * 1e9:.0f} nH |",
        f"| R at 13.56 MHz | {c.resistance():.2f} Ω |",
        f"| Q, bare | {c.q():.0f} |",
        f"| Rq for Q = 20 | {m.damping_r:.2f} Ω",
        f"**{rf.e_series(m.cp, rf.E24) * 1e12:.0f} pF** (E24)",
        f"**{rf.e_series(m.cs, rf.E24) * 1e12:.0f} pF** (E24)",
        f"resonates at {m.open_port_detune() * rf.FC / 1e6:.2f} MHz",
        (f"C0 = {rm.c0 * 1e12:.0f} pF → {rf.e_series(rm.c0) * 1e12:.0f} pF, C1 = {rm.c1 * 1e12:.0f} pF → "
         f"{rf.e_series(rm.c1) * 1e12:.0f} pF"),
        f"corner at {rm.emc_corner / 1e6:.1f} MHz",
        f"**{air * 1e3:.2f} ms** on air in 5 exchanges",
        f"**{check * 1e3:.2f} ms**",
    ]
    for quote in quotes:
        assert quote in design, quote
