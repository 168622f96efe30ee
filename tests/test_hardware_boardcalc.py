"""hardware/boardcalc.py: SPI edges, the IRQ rise, the transmitter's drive level, the strip's
routing and the 3.3 V rail, and that DESIGN.md, the firmware and the fakes use its figures."""

from __future__ import annotations

import importlib.util
import math
import re
import sys
from pathlib import Path

import pytest

_HW = Path(__file__).resolve().parent.parent / "hardware"
sys.path.insert(0, str(_HW))
_spec = importlib.util.spec_from_file_location("boardcalc", _HW / "boardcalc.py")
assert _spec is not None and _spec.loader is not None
bc = importlib.util.module_from_spec(_spec)
sys.modules["boardcalc"] = bc
_spec.loader.exec_module(bc)


def test_pl022_makes_the_sdks_clocks() -> None:
    assert bc.pl022_baud(8e6, 200e6) == pytest.approx(200e6 / 26)  # 7.69 MHz, not 8
    assert bc.pl022_baud(6.25e6, 200e6) == pytest.approx(6.25e6)
    assert bc.pl022_baud(1e6, 125e6) <= 1e6
    from chipfakes.micropython_env import pl022_baud  # the fake's copy: the same clocks
    for req in (1e6, 4e6, 6.25e6, 8e6, 10e6):
        for clk in (125e6, 200e6):
            assert pl022_baud(int(req), int(clk)) == pytest.approx(bc.pl022_baud(req, clk))


def test_rc_edges() -> None:
    e = bc.Edge("x", bc.Driver("d", 50.0, 0.0), 0.0, 100e-12)
    assert e.t10_90 == pytest.approx(2.2 * 5e-9) and e.t50 == pytest.approx(math.log(2) * 5e-9)
    assert bc.pad_driver(4).r_out == pytest.approx(170, rel=0.01)
    with pytest.raises(ValueError):
        bc.pad_driver(6)


def test_the_buffered_bus_fits_and_the_direct_one_does_not() -> None:
    edges = bc.spi_edges()
    half = 1 / (2 * bc.pl022_baud(bc.SPI_REQUEST))
    assert edges["direct 4 mA"].t10_90 > 2 * half and edges["direct 12 mA"].t10_90 > half
    assert edges["buffer to group"].t10_90 < 0.2 * half
    f, margin = bc.spi_clock(8e6)
    assert margin < 0  # 8 MHz (7.69 real) cannot read back over the star
    f, margin = bc.spi_clock(bc.SPI_REQUEST)
    assert f == pytest.approx(6.25e6) and margin > 5e-9
    # the expanders' weak SO: only at the boot check's 1 MHz
    assert edges["miso expander"].t10_90 < 1 / (2 * bc.EXPANDER_CHECK_BAUD)


def test_the_irq_line_rises_before_the_firmware_looks_again() -> None:
    _, slow, _ = bc.irq_rise(10e3)
    c, fast, sink = bc.irq_rise()
    assert slow > 5e-6 and fast < 1e-6 and sink < 4e-3  # the MFRC522's IRQ pin sinks 4 mA
    # the firmware samples the line no sooner than the chip-select release and the loop test
    # after the clearing write: on the fake's costs at 200 MHz, 2 us at least
    from chipfakes.micropython_env import CpuCosts

    costs = CpuCosts()
    assert fast < (costs.mem32_us + costs.pin_us) * 125 / 200 * 1e-6


def test_the_transmitter_model() -> None:
    assert bc.tx_source_r(63, 15) == pytest.approx(bc.R_TX_FULL)
    with pytest.raises(ValueError):
        bc.tx_source_r(0, 8)
    shunt, series = bc.pi_pad(16.0)
    # a pi pad terminated in 50 ohm shows 50 ohm and passes -16 dB
    z_out = 1 / (1 / shunt + 1 / (series + 1 / (1 / shunt + 1 / 50)))
    assert z_out == pytest.approx(50, rel=1e-6)
    first = bc.drive(0x14, 8, pad_db=0.0)
    assert first.i_coil > 4 * bc.clamp_current()  # the first design clipped by 12 dB
    chosen = bc.drive()
    assert bc.clamp_current() / chosen.i_coil > 10 ** (8 / 20)
    assert bc.drive(63, 15, tvdd=3.35).i_coil < bc.clamp_current()  # no setting reaches the clamp
    assert rf_field(chosen.i_coil) > 1.5  # Hmin at the highest tag
    assert 0.2 < chosen.v_rx_pp < 1.5 and chosen.v_node_peak < bc.V_CLAMP
    g = bc.crossread_test_setting()
    assert bc.coil_current_ratio_db(g, bc.CW_GSP) >= 6.0 and bc.drive(g).i_coil < bc.clamp_current()


def rf_field(i: float) -> float:
    import rfcalc

    return float(rfcalc.field_on_axis(rfcalc.CELL_COIL, i, rfcalc.HEIGHTS[1]))


def test_the_firmware_and_the_fakes_use_the_model() -> None:
    from chipfakes.board import coil_current_ma

    from firmware import bringup

    hal = (_HW.parent / "firmware" / "hal_rp2.py").read_text()  # MicroPython: read, not imported

    def const(name: str) -> int:
        m = re.search(rf"^{name} = ([0-9A-Fa-fx_]+)", hal, re.M)
        assert m is not None, name
        return int(m.group(1), 0)

    assert const("CW_GSP") == bc.CW_GSP and const("GSN") >> 4 == bc.CW_GSN == bringup.CWGSN
    assert const("SPI_BAUD") == bc.SPI_REQUEST and const("EXPANDER_CHECK_BAUD") == bc.EXPANDER_CHECK_BAUD
    for g in (1, 5, 20, 63):
        assert coil_current_ma(g, 8) == pytest.approx(bc.drive(g, 8).i_coil * 1e3, rel=1e-3)
        assert bringup.field_db(g, 1) == pytest.approx(bc.coil_current_ratio_db(g, 1))
    from scoreboard.bench.scan_model import CLK200, SPI_HZ

    assert SPI_HZ == bc.SPI_REQUEST and CLK200.reg_us == pytest.approx(9.5)


def test_line_impedances() -> None:
    assert bc.microstrip_z0(0.40e-3, 0.21e-3) == pytest.approx(50, abs=1.5)
    assert bc.microstrip_z0(3.0e-3, 1.6e-3) == pytest.approx(50, abs=2.5)  # the usual 1.6 mm FR4 line
    # coplanar strips: wider strips, closer, lower impedance
    assert bc.coplanar_strips_z0(0.3e-3, 0.1e-3) < bc.coplanar_strips_z0(0.2e-3, 0.1e-3)
    assert bc.line_return_loss(50.0, 0.285) > 60
    assert bc.line_return_loss(100.0, 0.285) < bc.line_return_loss(80.0, 0.285)


def test_the_strip_routing_budget() -> None:
    r = bc.strip_routing()
    assert r.band < 10.0 - 2 * 2.0  # inside the coil's 10 mm hole, 2 mm from its inner turn
    assert r.bus_rl_db > 15 and r.eddy_fraction < 0.06
    assert r.pickup_v < 0.05 * bc.drive().v_bus_pp / (2 * math.sqrt(2))


def test_the_rail_budget() -> None:
    rb = bc.rail_budget()
    assert rb.reg_out_min >= bc.RAIL_MIN and rb.headroom > 0.3
    assert rb.reg_in - bc.AMS1117_DROPOUT < bc.RAIL_MIN  # the first design's regulator falls out


def test_the_12v_clamp_holds_the_gates_under_20v() -> None:
    c = bc.rail12()
    assert c.load < c.hold_40c / 3  # no nuisance trip, even at 40 C
    assert c.rail_min > 5.0 + 6.0  # the idle diodes keep 6 V of reverse bias
    assert bc.TVS_VBR_MIN > 12.5  # the rail's top (BRINGUP step 0) stays under breakdown
    assert c.fault_v < bc.GATE_MAX - 3.0 and c.fault_i > bc.FUSE12_TRIP * 3  # the clamp trips the fuse
    assert c.fault_w < c.tvs_rating_w and bc.FUSE12_VMAX > bc.MODULE_MAX_V
    # more readers, more load: the check would notice a fuse too small
    assert bc.rail12(readers=60).load > bc.rail12().hold_40c / 3


def test_design_md_quotes_what_boardcalc_computes() -> None:
    design = (_HW / "DESIGN.md").read_text()
    for line in bc.report():
        assert line in design, line
