"""Board-level figures for the reader board (hardware/DESIGN.md): the SPI edges over the 19
ribbons, the shared IRQ line's rise, the transmitter's drive level, the strip's routing and
the 3.3 V rail's headroom.

Pure Python; ``python hardware/boardcalc.py`` prints every figure DESIGN.md quotes from here,
and tests/test_hardware_boardcalc.py checks the formulas and that DESIGN.md quotes them.
Part figures are worst-case data-sheet values where one is named; the ones marked
"estimate" or "from memory" in ``SOURCES`` are the ones the first strip checks (BRINGUP.md).

- Edges: a lumped RC (10-90 % = 2.2 RC, 50 % = 0.69 RC), valid while the edge is at least
  four times the ribbon's one-way delay (checked: ``lumped_ok``). A driver's resistance is
  taken from its data sheet's output voltage at a rated current (the worst of high and low).
- Line impedances: Hammerstad and Jensen's microstrip formula ("Accurate models for
  microstrip computer-aided design", IEEE MTT-S 1980, zero thickness) and coplanar strips
  by conformal mapping (Wen 1969; Simons, "Coplanar Waveguide Circuits", 2001, eq. 7.2),
  with rfcalc's elliptic integrals.
- The transmitter: a square wave from 0 to TVDD through the drivers' on-resistance; the
  EMC filter passes the fundamental only (amplitude 2 TVDD / pi), so the load at fc (the
  reader match's 20 ohm) gets the fundamental through the mean of the p- and n-driver's
  resistance, each the rated one scaled by the register's conductance code (binary
  weighted, MFRC522 data sheet 9.3.3.5-9.3.3.6).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import rfcalc as rf  # noqa: E402

SOURCES = {
    "rp2040_pad": "RP2040 data sheet 5.5.3: VOH >= 2.62 V, VOL <= 0.5 V at the pad's drive current (2/4/8/12 mA)",
    "lvc": "TI SN74LVC244A / SN74LVC1G125 data sheets: VOH >= 2.2 V, VOL <= 0.55 V at 24 mA, VCC 3 V; "
           "tpd <= 5.9 ns ('244) and 4.5 ns ('1G125) at 3.3 V (from memory: check the sheets)",
    "ribbon": "1.27 mm flat ribbon, every other wire ground: about 50 pF/m and 5 ns/m (estimate)",
    "mfrc522_spi": "MFRC522 SPI: SCK low to MISO valid taken as 25 ns (estimate; the chip is rated to 10 MHz, "
                   "a 50 ns half period)",
    "pl022": "pico-sdk spi_set_baudrate: the highest clk_peri / (prescale * postdiv) not above the request; "
             "MicroPython's rp2 machine.freq keeps clk_peri = clk_sys",
    "tx": "MFRC522 data sheet rev. 3.9 table 165 (from memory: check): VOH(TX) >= TVDD - 0.15 V at 32 mA "
          "with CWGsP 3Fh, VOL(TX) <= 0.15 V at 32 mA with CWGsN Fh: 4.7 ohm each at full conductance",
    "2n7002bks": "Nexperia 2N7002BKS: VGS(th) >= 1.1 V (from memory); body diode 0.6 V at a few mA",
    "fuses": "Bourns MF-PSMF020X: R1max 3.5 ohm (review's quote of Bourns); MF-MSMF300: R1max 0.08 ohm (from memory)",
    "mt3608": "MT3608 boost modules: output up to 28 V (trimmer), switch current limit 4 A (from memory: check)",
    "smbj13a": "SMBJ13A (Littelfuse/Vishay): VRWM 13 V, VBR 14.4-15.9 V at 1 mA, VC 21.5 V at IPP 27.9 A, "
               "600 W for 10/1000 us (from memory: check)",
    "msmf010": "Bourns MF-MSMF010-2: 0.10 A hold, 0.30 A trip, 60 V, R1max 15 ohm, trips within 1.5 s at 0.5 A; "
               "hold x 0.8 at 40 C (from memory: check)",
    "ldo": "TI TLV75733P: dropout <= 425 mV at 1 A (a PMOS pass device: proportional to the current), "
           "output +-1.5 % (from memory: check)",
}

VDD = 3.3
CLK_SYS = 200e6

# --- drivers and loads -------------------------------------------------------------------------


@dataclass(frozen=True)
class Driver:
    """An output: worst-case resistance (ohm) and propagation delay (s)."""

    name: str
    r_out: float
    t_pd: float


def pad_driver(ma: int) -> Driver:
    """An RP2040 GPIO pad at its drive setting (2, 4, 8 or 12 mA), fast slew."""
    if ma not in (2, 4, 8, 12):
        raise ValueError(f"the RP2040 pad drives 2, 4, 8 or 12 mA, not {ma}")
    i = ma * 1e-3
    return Driver(f"RP2040 pad {ma} mA", max((VDD - 2.62) / i, 0.5 / i), 1e-9)


LVC244 = Driver("74LVC244A", max((3.0 - 2.2) / 0.024, 0.55 / 0.024), 5.9e-9)
LVC125 = Driver("74LVC1G125", max((3.0 - 2.2) / 0.024, 0.55 / 0.024), 4.5e-9)

RIBBON_F_PER_M = 50e-12
RIBBON_S_PER_M = 5e-9
RIBBON_M = 0.5  # the longest ribbon (30-50 cm)
C_INPUT = 5e-12  # a CMOS input or a disabled 3-state output
C_STRIP = 3e-12  # header and traces on a strip
C_PICO = 10e-12  # the Pico's pin, its trace and the buffers' inputs on the controller
T_D_MFRC522 = 25e-9
T_SU_PICO = 2 / CLK_SYS  # the PL022's input: two clk_peri cycles (estimate)
READERS = 19


def ribbon_load(ribbons: int, loads_per_strip: int, length: float = RIBBON_M) -> float:
    """Capacitance (F) of ``ribbons`` ribbons each ending in ``loads_per_strip`` inputs."""
    return ribbons * (length * RIBBON_F_PER_M + loads_per_strip * C_INPUT + C_STRIP)


@dataclass(frozen=True)
class Edge:
    """One driven net: its driver, series resistor and load."""

    what: str
    driver: Driver
    series_r: float
    load: float

    @property
    def tau(self) -> float:
        return (self.driver.r_out + self.series_r) * self.load

    @property
    def t10_90(self) -> float:
        return 2.2 * self.tau

    @property
    def t50(self) -> float:
        """Driver delay plus the time to the 50 % point (s)."""
        return self.driver.t_pd + math.log(2) * self.tau

    def lumped_ok(self, length: float = RIBBON_M) -> bool:
        """The RC picture holds when the edge is at least 4 ribbon delays long."""
        return self.t10_90 >= 4 * length * RIBBON_S_PER_M


def pl022_baud(requested: float, clk_peri: float = CLK_SYS) -> float:
    """The SPI clock the RP2040 really makes for ``requested`` (pico-sdk's algorithm)."""
    prescale = 2
    while prescale <= 254 and clk_peri >= (prescale + 2) * 256 * requested:
        prescale += 2
    postdiv = 256
    while postdiv > 1 and not clk_peri / (prescale * (postdiv - 1)) > requested:
        postdiv -= 1
    return clk_peri / (prescale * postdiv)


# The chosen fan-out: SCK and MOSI through 3 x 74LVC244A, each output with 22 ohm in series
# to a group of at most 2 ribbons (10 groups); MISO: each reader's 74LVC1G125 onto the star.
GROUP = 2
SERIES_R = 22.0


def spi_edges(pad_ma: int = 12) -> dict[str, Edge]:
    """The SPI nets as built (buffered) and as the first design had them (direct, 4 mA)."""
    sck_loads = 2  # the MFRC522 and the MCP23S17 on every strip
    return {
        "direct 4 mA": Edge("SCK straight from the pad to 19 ribbons", pad_driver(4), 0.0,
                            ribbon_load(READERS, sck_loads) + C_PICO),
        "direct 12 mA": Edge("the same, pad at 12 mA", pad_driver(12), 0.0, ribbon_load(READERS, sck_loads) + C_PICO),
        "pad to buffers": Edge("pad to the 3 buffers' inputs", pad_driver(pad_ma), 0.0, C_PICO + 6 * C_INPUT),
        "buffer to group": Edge(f"74LVC244A + {SERIES_R:.0f} ohm to {GROUP} ribbons", LVC244, SERIES_R,
                                ribbon_load(GROUP, sck_loads) + C_INPUT),
        "miso star": Edge("a reader's 74LVC1G125 back over 19 ribbons", LVC125, 0.0,
                          ribbon_load(READERS, 2) + C_PICO),
        "miso expander": Edge("an MCP23S17's SO over 19 ribbons (boot check only)",
                              Driver("MCP23S17 SO", (VDD - 2.6) / 3e-3, 0.0), 0.0, ribbon_load(READERS, 2) + C_PICO),
    }


def read_round_trip(edges: dict[str, Edge] | None = None) -> float:
    """From the Pico's SCK falling edge to MISO valid at the Pico (s): pad, buffer, the
    group's edge, the ribbon, the MFRC522's output delay, its MISO buffer, the ribbon back,
    the star's edge, the PL022's input."""
    e = edges or spi_edges()
    flight = RIBBON_M * RIBBON_S_PER_M
    return (e["pad to buffers"].t50 + e["buffer to group"].t50 + flight + T_D_MFRC522
            + e["miso star"].t50 + flight + T_SU_PICO)


def spi_clock(requested: float) -> tuple[float, float]:
    """The real clock for ``requested`` and the read margin at it (s): half a period less
    the round trip (SPI mode 0: the Pico samples MISO half a period after the MFRC522 was
    clocked to change it)."""
    f = pl022_baud(requested)
    return f, 1 / (2 * f) - read_round_trip()


SPI_REQUEST = 6_250_000  # firmware/hal_rp2.SPI_BAUD
EXPANDER_CHECK_BAUD = 1_000_000  # the expanders' boot check (their SO is weak)

# --- the shared IRQ line ---------------------------------------------------------------------

IRQ_PULLUP = 1000.0
RP2040_VIH = 2.0


def irq_rise(pullup: float = IRQ_PULLUP) -> tuple[float, float, float]:
    """The IRQ line's load (F), its rise to the RP2040's V_IH (s), and each reader's sink
    current at 0 V (A) with ``pullup``."""
    c = ribbon_load(READERS, 1) + C_PICO
    t = pullup * c * math.log(VDD / (VDD - RP2040_VIH))
    return c, t, VDD / pullup


# --- transmitter drive level -------------------------------------------------------------------

R_TX_FULL = 0.15 / 0.032  # ohm, p- or n-driver at full conductance (SOURCES["tx"])
TX_LOAD = 20.0  # what the reader match shows the transmitter (rfcalc.reader_match)
PAD_DB = 16.0  # the pi attenuator between the reader match and the bus
BUS_LOSS_DB = 0.41 + 0.17 + 0.25  # the selected PIN diode's 5 ohm, the 1.3 k and the choke shunts
CW_GSP = 0x05  # firmware/hal_rp2.CW_GSP
CW_GSN = 0x8  # firmware/hal_rp2.GSN >> 4
V_CLAMP = 1.1 + 0.6  # the selected antenna's MOSFET pair starts to conduct (SOURCES["2n7002bks"])


def tx_source_r(cwgsp: int, cwgsn: int) -> float:
    """The transmitter's mean source resistance (ohm) at the conductance codes."""
    if not (1 <= cwgsp <= 63 and 1 <= cwgsn <= 15):
        raise ValueError(f"CWGsP 1-63 and CWGsN 1-15, not {cwgsp}, {cwgsn}")
    return (R_TX_FULL * 63 / cwgsp + R_TX_FULL * 15 / cwgsn) / 2


def pi_pad(db: float, z0: float = 50.0) -> tuple[float, float]:
    """A pi attenuator's shunt and series resistors (ohm)."""
    k = 10 ** (db / 20)
    return z0 * (k + 1) / (k - 1), z0 * (k * k - 1) / (2 * k)


@dataclass(frozen=True)
class Drive:
    """The drive at one setting: power into the match, into the bus, the coil's rms
    current, the node's peak, the bus and RX peak-to-peak voltages."""

    cwgsp: int
    cwgsn: int
    p_tx: float
    p_bus: float
    i_coil: float
    v_node_peak: float
    v_bus_pp: float
    v_rx_pp: float


def drive(cwgsp: int = CW_GSP, cwgsn: int = CW_GSN, tvdd: float = VDD, pad_db: float = PAD_DB) -> Drive:
    """The drive level at a setting (the transmitter model in the module's docstring)."""
    coil = rf.CELL_COIL
    m = rf.match(coil.inductance(), coil.resistance(), q=20)
    v = 2 * tvdd / math.pi / math.sqrt(2)  # the fundamental, rms
    rs = tx_source_r(cwgsp, cwgsn)
    p_tx = v * v * TX_LOAD / (rs + TX_LOAD) ** 2
    p_bus = p_tx * 10 ** (-pad_db / 10)
    p_coil = p_bus * 10 ** (-BUS_LOSS_DB / 10)
    i = math.sqrt(p_coil / (m.coil_r + m.damping_r))
    v_node = i * math.sqrt(2) * abs(complex(m.coil_r + m.damping_r, rf.OMEGA * m.inductance))
    v_bus_pp = 2 * math.sqrt(2) * math.sqrt(p_bus * 50)
    return Drive(cwgsp, cwgsn, p_tx, p_bus, i, v_node, v_bus_pp, v_bus_pp * 2200 / 2530)


def coil_current_ratio_db(setting: int, weakest: int, cwgsn: int = CW_GSN) -> float:
    """Field margin (dB) of ``setting`` over ``weakest`` (CWGsP codes): the coil current's
    ratio, 1 / (source + load) (firmware/bringup.drive computes the same)."""
    return 20 * math.log10((tx_source_r(weakest, cwgsn) + TX_LOAD) / (tx_source_r(setting, cwgsn) + TX_LOAD))


def clamp_current() -> float:
    """The coil current (rms) at which the selected pair's body diode and channel conduct."""
    coil = rf.CELL_COIL
    m = rf.match(coil.inductance(), coil.resistance(), q=20)
    return V_CLAMP / math.sqrt(2) / abs(complex(m.coil_r + m.damping_r, rf.OMEGA * m.inductance))


# --- the strip's routing -------------------------------------------------------------------------

ER_FR4 = 4.4
PREPREG = 0.21e-3  # 4-layer 1.6 mm (7628): L1-L2 and L3-L4 0.21 mm, core 1.065 mm
CORE = 1.065e-3


def microstrip_z0(w: float, h: float, er: float = ER_FR4) -> float:
    """Microstrip characteristic impedance (ohm), Hammerstad-Jensen, zero thickness."""
    u = w / h
    a = 1 + math.log((u ** 4 + (u / 52) ** 2) / (u ** 4 + 0.432)) / 49 + math.log(1 + (u / 18.1) ** 3) / 18.7
    b = 0.564 * ((er - 0.9) / (er + 3)) ** 0.053
    e_eff = (er + 1) / 2 + (er - 1) / 2 * (1 + 10 / u) ** (-a * b)
    f = 6 + (2 * math.pi - 6) * math.exp(-((30.666 / u) ** 0.7528))
    z_air = 60 * math.log(f / u + math.sqrt(1 + (2 / u) ** 2))
    return z_air / math.sqrt(e_eff)


def coplanar_strips_z0(w: float, s: float, er_eff: float = ER_FR4) -> float:
    """Two coplanar strips of width ``w``, ``s`` apart, embedded (ohm): 120 pi K(k) / K(k')
    over sqrt(er_eff), k = s / (s + 2 w)."""
    k = s / (s + 2 * w)
    kk = rf._elliptic(k)[0]
    kp = rf._elliptic(math.sqrt(1 - k * k))[0]
    return 120 * math.pi / math.sqrt(er_eff) * kk / kp


def line_return_loss(z_line: float, length: float, load: float = 50.0, er_eff: float = ER_FR4) -> float:
    """Return loss (dB, against 50 ohm) of ``length`` of a ``z_line`` line ending in ``load``."""
    beta_l = 2 * math.pi * rf.FC * math.sqrt(er_eff) / 299792458.0 * length
    t = math.tan(beta_l)
    z_in = z_line * (load + 1j * z_line * t) / (z_line + 1j * load * t)
    gamma = abs((z_in - 50) / (z_in + 50))
    return -20 * math.log10(max(gamma, 1e-12))


def bz(coil: rf.SquareCoil, current: float, x: float, y: float, z: float, pieces: int = 8) -> float:
    """B_z (T, rms) of the coil carrying ``current`` (rms) at a point (Biot-Savart)."""
    total = 0.0
    for loop in coil.loops():
        for (px, py, pz, dx, dy, dz) in rf._quadrature(loop, pieces):
            rx, ry, rz = x - px, y - py, z - pz
            r3 = (rx * rx + ry * ry + rz * rz) ** 1.5
            total += (dx * ry - dy * rx) / r3
    return rf.MU0 / (4 * math.pi) * current * total


@dataclass(frozen=True)
class Routing:
    """The width budget across a strip on one layer (mm) and what runs under the coils."""

    strip: float
    usable: float
    traces: int
    trace: float
    gap: float
    band: float
    bus_z0: float
    bus_rl_db: float
    eddy_fraction: float
    pickup_v: float


STRIP_W = 18.6e-3
EDGE_CLEAR = 0.3e-3
TRACE = 0.1e-3
TRACE_GAP = 0.1e-3
BUS_W, BUS_S = 0.2e-3, 0.1e-3


def strip_routing(i_coil: float | None = None) -> Routing:
    """The chosen 4-layer strip: every line along the strip on L3 (1.27 mm under the coils)
    in a band centred under the coils' 10 mm hole: the RF bus as a coplanar pair (0.2 mm
    strips 0.1 mm apart) in the middle, then the 15 DRV lines, +12 V and 2 grounds at
    0.1/0.1 mm either side. Upper bounds for what the band costs the selected coil: the
    eddy loss in every trace (a thin strip in a perpendicular field, resistance-limited:
    w^3 t omega^2 B_z^2 / (24 rho) per metre, integrated along the trace over one cell pitch
    with B_z at the trace's place) over the coil's own loss; and the voltage the coil
    induces in the bus pair's loop (centre-to-centre spacing times the coil's width at the
    pair's B_z)."""
    coil = rf.CELL_COIL
    m = rf.match(coil.inductance(), coil.resistance(), q=20)
    i = drive().i_coil if i_coil is None else i_coil
    traces = 15 + 1 + 2
    pitch = TRACE + TRACE_GAP
    pair = 2 * BUS_W + BUS_S
    band = pair + traces * pitch + TRACE_GAP
    depth = -(PREPREG + CORE)
    # (centre, width) of every strip of copper in the band
    strips = [(-(BUS_S + BUS_W) / 2, BUS_W), ((BUS_S + BUS_W) / 2, BUS_W)]
    for k in range(traces):
        side = 1 if k % 2 else -1
        strips.append((side * (pair / 2 + TRACE_GAP + (k // 2) * pitch + TRACE / 2), TRACE))
    xs = [(k + 0.5) / 16 * rf.PITCH - rf.PITCH / 2 for k in range(16)]
    p_eddy = 0.0
    for y, w in strips:
        b2 = sum(bz(coil, i, x, y, depth) ** 2 for x in xs) / len(xs) * rf.PITCH  # integral of B^2 dx
        p_eddy += rf.OMEGA ** 2 * 2 * b2 * w ** 3 * 35e-6 / (24 * rf.RHO_CU)  # 2: peak B^2 from rms
    p_coil = i * i * (m.coil_r + m.damping_r)
    pickup = rf.OMEGA * abs(bz(coil, i, 0.0, 0.0, depth)) * (BUS_W + BUS_S) * coil.outer
    z_bus = coplanar_strips_z0(BUS_W, BUS_S)
    usable = STRIP_W - 2 * EDGE_CLEAR
    return Routing(STRIP_W * 1e3, usable * 1e3, traces, TRACE * 1e3, TRACE_GAP * 1e3, band * 1e3, z_bus,
                   line_return_loss(z_bus, 0.285), p_eddy / p_coil, pickup)


# --- the 3.3 V rail -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rail:
    """The worst strip's 3.3 V chain (V): supply, drops, the regulator's input and output."""

    supply: float
    main_fuse: float
    controller: float
    ribbon: float
    strip_fuse: float
    reg_in: float
    dropout: float
    reg_out_min: float
    headroom: float


def rail_budget(strip_a: float = 0.130, total_a: float = 2.53, dropout_per_a: float = 0.425,
                strip_fuse_r: float = 3.5, main_fuse_r: float = 0.08) -> Rail:
    """The last strip at its worst current with the whole board at its worst: 5 V - 5 %,
    the main polyfuse, 50 mohm of controller copper and screw terminal, the ribbon's 2 +5 V
    and 5 ground wires (28 AWG, 0.213 ohm/m, 0.5 m), the strip's polyfuse after tripping
    once (R1max), then the LDO's dropout at the strip's current."""
    supply = 5.0 * 0.95
    main = total_a * main_fuse_r
    controller = total_a * 0.05
    wire = 0.213 * RIBBON_M
    ribbon = strip_a * (wire / 2 + wire / 5)
    fuse = strip_a * strip_fuse_r
    reg_in = supply - main - controller - ribbon - fuse
    dropout = dropout_per_a * strip_a
    out_min = min(3.3 * 0.985, reg_in - dropout)
    return Rail(supply, main, controller, ribbon, fuse, reg_in, dropout, out_min, reg_in - dropout - 3.3 * 0.985)


AMS1117_DROPOUT = 1.3  # V, worst (the regulator the first design used)
MFRC522_VDD_MIN = 2.5
RAIL_MIN = 3.0  # what the design holds the readers to: full transmitter swing, margin to 2.5 V


# --- the +12 V rail's clamp ------------------------------------------------------------------------


@dataclass(frozen=True)
class Clamp12:
    """The +12 V rail's over-voltage clamp (SMBJ13A after an MF-MSMF010 polyfuse)."""

    load: float  # A, every reader's selected line pulled to 0 V through its 10 k
    fuse_drop: float  # V at the load
    rail_min: float  # V at the readers, the module at 11.5 V
    hold_40c: float  # A, the fuse's hold current at 40 C
    fault_i: float  # A, the most the module can push into the clamp
    fault_v: float  # V on the rail at that current
    gate_margin: float  # V under the MOSFET gates' 20 V
    fault_w: float  # W in the TVS at that current
    trip_s: float  # s, the fuse's time to trip at that current (I^2 t from the data sheet's point)
    tvs_rating_w: float  # W the SMBJ takes for that long (600 W at 1 ms, scaled by sqrt(1 ms / t))
    window_w: float  # W in the TVS at the fuse's trip current (a setting just above breakdown)


MODULE_MAX_V = 28.0
MODULE_SWITCH_A = 4.0
BOOST_EFF = 0.85
TVS_VBR_MIN, TVS_VBR_MAX, TVS_VC, TVS_IPP = 14.4, 15.9, 21.5, 27.9
FUSE12_HOLD, FUSE12_TRIP, FUSE12_R1MAX, FUSE12_VMAX = 0.10, 0.30, 15.0, 60.0
FUSE12_POINT = (0.5, 1.5)  # A, s: the data sheet's maximum time to trip
GATE_MAX = 20.0


def rail12(readers: int = READERS, supply: float = 5.25) -> Clamp12:
    """The clamp, sized: normal load and drop, and the worst fault (the trimmer at 28 V): the
    module then pushes at most its switch limit's power into the TVS, which holds the rail at
    its breakdown plus its dynamic resistance times the current, until the fuse trips."""
    load = readers * 12.0 / 10e3
    drop = load * FUSE12_R1MAX
    r_dyn = (TVS_VC - TVS_VBR_MAX) / TVS_IPP
    fault_i = BOOST_EFF * supply * MODULE_SWITCH_A / TVS_VBR_MIN
    fault_v = TVS_VBR_MAX + r_dyn * fault_i
    i0, t0 = FUSE12_POINT
    trip = t0 * (i0 / fault_i) ** 2
    rating = 600.0 * math.sqrt(1e-3 / trip)
    window = FUSE12_TRIP * (TVS_VBR_MAX + r_dyn * FUSE12_TRIP)
    return Clamp12(load, drop, 11.5 - drop, FUSE12_HOLD * 0.8, fault_i, fault_v, GATE_MAX - fault_v,
                   fault_v * fault_i, trip, rating, window)


# --- report --------------------------------------------------------------------------------------


def report() -> list[str]:
    """Every figure DESIGN.md quotes from this module, as lines."""
    out = []
    for key, e in spi_edges().items():
        out.append(f"edge {key}: {e.what}: R {e.driver.r_out + e.series_r:.0f} ohm, C {e.load * 1e12:.0f} pF, "
                   f"10-90 % {e.t10_90 * 1e9:.1f} ns, 50 % at {e.t50 * 1e9:.1f} ns, lumped {'yes' if e.lumped_ok() else 'no'}")
    out.append(f"read round trip {read_round_trip() * 1e9:.1f} ns")
    for req in (8e6, 7.2e6, SPI_REQUEST):
        f, margin = spi_clock(req)
        out.append(f"SPI request {req / 1e6:.2f} MHz: real {f / 1e6:.2f} MHz, half period {0.5e9 / f:.1f} ns, "
                   f"read margin {margin * 1e9:.1f} ns")
    for pullup in (10e3, IRQ_PULLUP):
        c, t, i = irq_rise(pullup)
        out.append(f"IRQ pull-up {pullup:.0f} ohm: {c * 1e12:.0f} pF, rise to V_IH {t * 1e6:.2f} us, sink {i * 1e3:.1f} mA")
    clamp = clamp_current()
    out.append(f"MOSFET pair clamps at {clamp * 1e3:.1f} mA rms coil current (node peak {V_CLAMP:.1f} V)")
    shunt, series = pi_pad(PAD_DB)
    out.append(f"pad {PAD_DB:.0f} dB: shunt {shunt:.1f} ohm, series {series:.1f} ohm")
    for label, d in (("first design 0x14/8, no pad", drive(0x14, 8, pad_db=0.0)),
                     ("first design at 0x3F/15, no pad", drive(63, 15, pad_db=0.0)),
                     ("chosen", drive()), ("chosen, TVDD 3.25 V", drive(tvdd=3.25)),
                     ("chosen +6 dB test", drive(crossread_test_setting()))):
        out.append(f"drive {label} (CWGsP {d.cwgsp}, CWGsN {d.cwgsn}): source {tx_source_r(d.cwgsp, d.cwgsn):.1f} ohm, "
                   f"P_tx {d.p_tx * 1e3:.1f} mW, P_bus {d.p_bus * 1e3:.2f} mW, coil {d.i_coil * 1e3:.1f} mA rms "
                   f"({20 * math.log10(clamp / d.i_coil):+.1f} dB to the clamp), node {d.v_node_peak:.2f} V peak, "
                   f"bus {d.v_bus_pp:.2f} V pp, RX {d.v_rx_pp:.2f} V pp")
    h = rf.field_on_axis(rf.CELL_COIL, drive().i_coil, rf.HEIGHTS[1])
    out.append(f"chosen drive: {h:.1f} A/m on axis at {rf.HEIGHTS[1] * 1e3:.1f} mm "
               f"({20 * math.log10(h / 1.5):.1f} dB over 1.5 A/m)")
    out.append(f"conductance ratio 0x14/0x05 {20 * math.log10(0x14 / 5):.1f} dB; coil current ratio "
               f"{coil_current_ratio_db(0x14, 5, 8):.1f} dB")
    r = strip_routing()
    out.append(f"strip {r.strip:.1f} mm, usable {r.usable:.1f} mm per layer; L3 band {r.band:.2f} mm "
               f"({r.traces} traces {r.trace:.2f}/{r.gap:.2f} mm + bus pair); bus pair {r.bus_z0:.0f} ohm, "
               f"return loss over 285 mm {r.bus_rl_db:.1f} dB; eddy loss <= {r.eddy_fraction * 100:.2f} % of the coil's; "
               f"pickup in the bus pair {r.pickup_v * 1e3:.2f} mV")
    out.append(f"50 ohm microstrip check: w 0.40 mm on 0.21 mm: {microstrip_z0(0.40e-3, PREPREG):.1f} ohm")
    rb = rail_budget()
    out.append(f"3.3 V rail: supply {rb.supply:.2f} V, main fuse -{rb.main_fuse:.2f}, controller -{rb.controller:.2f}, "
               f"ribbon -{rb.ribbon:.3f}, strip fuse -{rb.strip_fuse:.2f}: LDO in {rb.reg_in:.2f} V, dropout "
               f"{rb.dropout * 1e3:.0f} mV, out >= {rb.reg_out_min:.2f} V, headroom {rb.headroom:.2f} V; "
               f"AMS1117 would give {rb.reg_in - AMS1117_DROPOUT:.2f} V")
    cl = rail12()
    out.append(f"+12 V clamp: load {cl.load * 1e3:.1f} mA, fuse drop {cl.fuse_drop:.2f} V, rail >= {cl.rail_min:.2f} V "
               f"(fuse hold {cl.hold_40c * 1e3:.0f} mA at 40 C); fault (module at {MODULE_MAX_V:.0f} V): "
               f"{cl.fault_i:.2f} A, rail {cl.fault_v:.2f} V ({cl.gate_margin:.2f} V under the gates' 20 V), "
               f"TVS {cl.fault_w:.1f} W for {cl.trip_s:.2f} s (rated {cl.tvs_rating_w:.0f} W for that long); "
               f"at the fuse's trip current {cl.window_w:.1f} W")
    return out


def crossread_test_setting(db: float = 6.0) -> int:
    """The CWGsP code whose coil current is at least ``db`` over the firmware's."""
    for g in range(CW_GSP, 64):
        if coil_current_ratio_db(g, CW_GSP) >= db:
            return g
    raise ValueError(f"no CWGsP gives {db} dB over the firmware's")


if __name__ == "__main__":
    print("\n".join(report()))
