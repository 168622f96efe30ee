"""RF figures for the reader board: coils, coupling, matching, air time (hardware/DESIGN.md).

Pure Python, no dependencies. ``python hardware/rfcalc.py`` prints every figure DESIGN.md
quotes; the tests (tests/test_hardware_rfcalc.py) check the formulas against closed forms.

- Mutual inductance of two filament loops (polygons in 3-D) by the Neumann formula,
  M = mu0/(4 pi) * sum over segment pairs of (dl1 . dl2) / r, integrated with Gauss-Legendre
  points on every segment (Grover, "Inductance Calculations", 1946, ch. 1). A planar spiral
  is modelled as concentric closed turns along the middle of its trace.
- Self-inductance of a square planar spiral: the modified Wheeler formula of Mohan, del Mar
  Hershenson, Boyd and Lee, "Simple accurate expressions for planar spiral inductances",
  IEEE JSSC 34 (10), 1999 (K1 = 2.34, K2 = 2.75; a few per cent against field solvers).
- AC resistance of a trace: skin depth delta = sqrt(rho / (pi f mu0)); the current flows in
  a depth delta under both faces of the copper (``trace_resistance``); the proximity effect
  between turns is not included, so Q is an upper bound to check on the prototype.
- Air time: ISO/IEC 14443-2/-3 (type A, 106 kbit/s: 1 etu = 128/fc) and ISO/IEC 15693-2/-3
  (1-of-4 coding, 26.48 kbit/s both ways, one subcarrier).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

MU0 = 4e-7 * math.pi
FC = 13.56e6  # carrier, Hz
OMEGA = 2 * math.pi * FC
RHO_CU = 1.72e-8  # copper, ohm m at 20 C

Point = tuple[float, float, float]
Loop = list[Point]  # a closed polygon: the last point joins the first

# Gauss-Legendre nodes and weights on [-1, 1], 4 points.
_GL_X = (-0.8611363115940526, -0.3399810435848563, 0.3399810435848563, 0.8611363115940526)
_GL_W = (0.3478548451374538, 0.6521451548625461, 0.6521451548625461, 0.3478548451374538)


class GeometryError(ValueError):
    """A coil or loop that cannot exist; ``value`` is the offending input."""

    def __init__(self, message: str, value: object) -> None:
        super().__init__(message)
        self.value = value


# --- geometry -----------------------------------------------------------------------------


def rectangle(width: float, height: float, cx: float = 0.0, cy: float = 0.0, z: float = 0.0) -> Loop:
    """A rectangular filament loop in the plane ``z``, centred on (cx, cy); metres."""
    if width <= 0 or height <= 0:
        raise GeometryError("a loop needs positive sides", (width, height))
    w, h = width / 2, height / 2
    return [(cx - w, cy - h, z), (cx + w, cy - h, z), (cx + w, cy + h, z), (cx - w, cy + h, z)]


def circle(diameter: float, cx: float = 0.0, cy: float = 0.0, z: float = 0.0, sides: int = 48) -> Loop:
    """A circular filament loop as a regular polygon of ``sides`` sides."""
    if diameter <= 0 or sides < 8:
        raise GeometryError("a circle needs a positive diameter and at least 8 sides", (diameter, sides))
    r = diameter / 2
    return [(cx + r * math.cos(2 * math.pi * k / sides), cy + r * math.sin(2 * math.pi * k / sides), z)
            for k in range(sides)]


@dataclass(frozen=True)
class SquareCoil:
    """A square planar spiral: outer side, turns, trace width and gap, copper thickness (m)."""

    outer: float
    turns: int
    width: float
    gap: float
    copper: float = 35e-6

    def __post_init__(self) -> None:
        if self.turns < 1 or self.outer <= 0 or self.width <= 0 or self.gap < 0:
            raise GeometryError("a coil needs turns >= 1 and positive sizes", self)
        if self.inner <= 0:
            raise GeometryError("the turns do not fit inside the outer side", self)

    @property
    def inner(self) -> float:
        """Inner side (m)."""
        return self.outer - 2 * (self.turns * self.width + (self.turns - 1) * self.gap)

    def turn_sides(self) -> list[float]:
        """The side of each turn along the middle of its trace, outermost first (m)."""
        pitch = self.width + self.gap
        return [self.outer - self.width - 2 * k * pitch for k in range(self.turns)]

    def loops(self, cx: float = 0.0, cy: float = 0.0, z: float = 0.0) -> list[Loop]:
        """The turns as concentric closed filaments (the spiral's crossover neglected)."""
        return [rectangle(s, s, cx, cy, z) for s in self.turn_sides()]

    def length(self) -> float:
        """Trace length (m)."""
        return sum(4 * s for s in self.turn_sides())

    def inductance(self) -> float:
        """Self-inductance (H), modified Wheeler (Mohan et al. 1999), square: K1 2.34, K2 2.75."""
        d_avg = (self.outer + self.inner) / 2
        fill = (self.outer - self.inner) / (self.outer + self.inner)
        return 2.34 * MU0 * self.turns ** 2 * d_avg / (1 + 2.75 * fill)

    def resistance(self, f: float = FC) -> float:
        """AC resistance of the trace at ``f`` (ohm), skin effect only."""
        return trace_resistance(self.length(), self.width, self.copper, f)

    def q(self, f: float = FC) -> float:
        """Unloaded Q of the bare coil."""
        return 2 * math.pi * f * self.inductance() / self.resistance(f)


def skin_depth(f: float = FC, rho: float = RHO_CU) -> float:
    """Skin depth (m)."""
    return math.sqrt(rho / (math.pi * f * MU0))


def trace_resistance(length: float, width: float, thickness: float, f: float = FC, rho: float = RHO_CU) -> float:
    """AC resistance of a flat trace: the current in a depth delta under each face."""
    d = skin_depth(f, rho)
    t_eff = 2 * d * (1 - math.exp(-thickness / (2 * d)))
    return rho * length / (width * t_eff)


# --- inductance ---------------------------------------------------------------------------


def _segments(loop: Loop) -> list[tuple[Point, Point]]:
    return [(loop[k], loop[(k + 1) % len(loop)]) for k in range(len(loop))]


def mutual(a: Loop, b: Loop, pieces: int = 4) -> float:
    """Mutual inductance (H) of two closed filament loops, Neumann's double line integral.

    Every segment is cut into ``pieces`` parts with 4 Gauss-Legendre points each; accurate to
    well under 1 % once the loops are further apart than a part's length.
    """
    pts_a = _quadrature(a, pieces)
    pts_b = _quadrature(b, pieces)
    total = 0.0
    for (xa, ya, za, dxa, dya, dza) in pts_a:
        for (xb, yb, zb, dxb, dyb, dzb) in pts_b:
            r = math.sqrt((xa - xb) ** 2 + (ya - yb) ** 2 + (za - zb) ** 2)
            if r == 0.0:
                raise GeometryError("the loops touch", (xa, ya, za))
            total += (dxa * dxb + dya * dyb + dza * dzb) / r
    return MU0 / (4 * math.pi) * total


def _quadrature(loop: Loop, pieces: int) -> list[tuple[float, float, float, float, float, float]]:
    """Points and weighted tangent elements (x, y, z, dx, dy, dz) along a loop."""
    out = []
    for (x0, y0, z0), (x1, y1, z1) in _segments(loop):
        for p in range(pieces):
            s0, s1 = p / pieces, (p + 1) / pieces
            for x, w in zip(_GL_X, _GL_W):
                s = s0 + (s1 - s0) * (x + 1) / 2
                scale = w * (s1 - s0) / 2
                out.append((x0 + (x1 - x0) * s, y0 + (y1 - y0) * s, z0 + (z1 - z0) * s,
                            (x1 - x0) * scale, (y1 - y0) * scale, (z1 - z0) * scale))
    return out


def mutual_coils(a: Sequence[Loop], b: Sequence[Loop], pieces: int = 4) -> float:
    """Mutual inductance of two multi-turn coils: the sum over every pair of turns."""
    return sum(mutual(x, y, pieces) for x in a for y in b)


def rectangle_self_inductance(width: float, height: float, radius: float) -> float:
    """Self-inductance (H) of a rectangular loop of round wire (Grover; high frequency,
    no internal inductance)."""
    a, b, d = width, height, math.hypot(width, height)
    return MU0 / math.pi * (a * math.log(2 * a / radius) + b * math.log(2 * b / radius) + 2 * d
                            - a * math.asinh(a / b) - b * math.asinh(b / a) - 2 * (a + b))


def coaxial_circles_mutual(r1: float, r2: float, distance: float) -> float:
    """Maxwell's exact mutual inductance of two coaxial circular filaments (H)."""
    k2 = 4 * r1 * r2 / ((r1 + r2) ** 2 + distance ** 2)
    k = math.sqrt(k2)
    big_k, big_e = _elliptic(k)
    return MU0 * math.sqrt(r1 * r2) * ((2 / k - k) * big_k - 2 / k * big_e)


def _elliptic(k: float) -> tuple[float, float]:
    """Complete elliptic integrals K(k), E(k) by the arithmetic-geometric mean."""
    a, b, c = 1.0, math.sqrt(1 - k * k), k
    s, p = c * c / 2, 1.0
    while abs(c) > 1e-15:
        a, b, c = (a + b) / 2, math.sqrt(a * b), (a - b) / 2
        p *= 2
        s += p * c * c / 2
    big_k = math.pi / (2 * a)
    return big_k, big_k * (1 - s)


# --- matching -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Match:
    """An antenna matched to ``z0``: the coil (L, R), the damping resistor, C parallel to the
    coil, C in series to the port (topology: port - Cs - node - (coil + Rq) || Cp - ground)."""

    inductance: float
    coil_r: float
    damping_r: float
    cp: float
    cs: float
    z0: float

    @property
    def q(self) -> float:
        """Q of the coil with its damping resistor."""
        return OMEGA * self.inductance / (self.coil_r + self.damping_r)

    def port_impedance(self, f: float = FC) -> complex:
        """What the port sees at ``f``."""
        w = 2 * math.pi * f
        coil = self.coil_r + self.damping_r + 1j * w * self.inductance
        node = 1 / (1 / coil + 1j * w * self.cp)
        return node + 1 / (1j * w * self.cs)

    def open_port_detune(self) -> float:
        """Resonance of the coil with Cp alone (port open: the switch off), over fc."""
        return 1 / (2 * math.pi * math.sqrt(self.inductance * self.cp)) / FC


def match(inductance: float, coil_r: float, q: float = 20.0, z0: float = 50.0) -> Match:
    """The damping resistor for ``q`` and the two capacitors matching the coil to ``z0``."""
    total_r = OMEGA * inductance / q
    if total_r < coil_r:
        raise GeometryError("the coil's own Q is below the target", (inductance, coil_r, q))
    damping = total_r - coil_r
    coil = complex(total_r, OMEGA * inductance)
    g = (1 / coil).real
    if g > 1 / z0:
        raise GeometryError("the coil's resistance is above the line's: no L match", (inductance, coil_r, q))
    b_total = -math.sqrt(g / z0 - g * g)  # the node stays inductive; Cs cancels it
    cp = (b_total - (1 / coil).imag) / OMEGA
    x_node = (1 / complex(g, b_total)).imag
    cs = 1 / (OMEGA * x_node)
    return Match(inductance, coil_r, damping, cp, cs, z0)


@dataclass(frozen=True)
class ReaderMatch:
    """The reader end, single-ended: L0 in series from the transmitter pin, C0 shunt (the EMC
    low-pass and the first half of the match), C1 in series to the 50 ohm line, so that the
    transmitter sees ``target`` ohm, real."""

    l0: float
    c0: float
    c1: float
    target: float

    @property
    def emc_corner(self) -> float:
        """Resonance of L0 and C0 (Hz)."""
        return 1 / (2 * math.pi * math.sqrt(self.l0 * self.c0))

    def tx_impedance(self, z_line: complex = 50.0, f: float = FC) -> complex:
        """What the transmitter pin sees with the line terminated in ``z_line``."""
        w = 2 * math.pi * f
        branch = z_line + 1 / (1j * w * self.c1)
        return 1j * w * self.l0 + 1 / (1j * w * self.c0 + 1 / branch)


def reader_match(target: float, l0: float = 560e-9, z0: float = 50.0) -> ReaderMatch:
    """C0 and C1 for a transmitter that wants ``target`` ohm behind L0 (AN1445's 560 nH)."""
    w = OMEGA
    ya = 1 / complex(target, -w * l0)  # what node A must show so that L0 + node A = target
    if ya.real > 1 / z0:
        raise GeometryError("the target is below what a series C can bring the line to", (target, l0))
    x1 = math.sqrt(z0 / ya.real - z0 * z0)  # Re(1 / (z0 - j x1)) = Re(ya)
    c0 = (ya.imag - x1 / (z0 * z0 + x1 * x1)) / w
    if c0 <= 0:
        raise GeometryError("no shunt capacitor reaches this target", (target, l0))
    return ReaderMatch(l0, c0, 1 / (w * x1), target)


E24 = (1.0, 1.1, 1.2, 1.3, 1.5, 1.6, 1.8, 2.0, 2.2, 2.4, 2.7, 3.0, 3.3, 3.6, 3.9, 4.3, 4.7, 5.1, 5.6, 6.2,
       6.8, 7.5, 8.2, 9.1)


def e_series(value: float, series: Sequence[float] = (1.0, 1.2, 1.5, 1.8, 2.2, 2.7, 3.3, 3.9, 4.7, 5.6, 6.8, 8.2)) -> float:
    """The nearest standard value (E12 by default)."""
    decade = 10.0 ** math.floor(math.log10(value))
    candidates = [m * decade for m in series] + [10 * decade]
    return float(min(candidates, key=lambda c: abs(math.log(c / value))))


# --- coupling and cross-reads -------------------------------------------------------------


@dataclass(frozen=True)
class Crossread:
    """Induced-voltage ratios (dB) at a tag on a neighbouring cell against the tag on the read
    cell, worst case (the own tag far, the other near): ``direct`` from the read coil alone;
    ``idle_open`` and ``idle_shorted`` add the current the read coil induces in the neighbour's
    idle coil, left open or shorted (``idle_coil_current_ratio``)."""

    where: str
    direct_db: float
    idle_open_db: float
    idle_shorted_db: float


def tag_loops(diameter: float, turns: int, cx: float, cy: float, z: float) -> list[Loop]:
    """A round sticker tag's coil, its turns at 0.5 mm pitch inwards (filaments)."""
    return [circle(diameter - k * 1e-3, cx, cy, z, sides=24) for k in range(turns)]


def idle_coil_current_ratio(m: Match, mutual_coils_h: float, shorted: bool, c_off: float = 0.2e-12,
                            short_r: float = 4.0) -> complex:
    """Current in an idle neighbour over the read coil's current.

    Open (its switch off and the MOSFET pair open, as in design B with a failed pair): the
    idle coil closes through Cp and, in parallel, Cs in series with the off PIN diode's
    ``c_off`` to the bus (AC ground): practically Cp alone, a resonator 10 % above fc.
    Shorted (the chosen design: a MOSFET pair across the coil and its damping resistor,
    ``short_r`` on): the coil closes through the short alone, far from any resonance. The
    read coil drives it through the coils' mutual inductance.
    """
    w = OMEGA
    if shorted:
        loop = m.coil_r + m.damping_r + short_r + 1j * w * m.inductance
    else:
        zc = 1 / (1j * w * m.cp)
        zs = 1 / (1j * w * m.cs) + 1 / (1j * w * c_off)
        loop = m.coil_r + m.damping_r + 1j * w * m.inductance + zc * zs / (zc + zs)
    return -1j * w * mutual_coils_h / loop


def crossreads(coil: SquareCoil, m: Match, pitch: float, tag_d: float, tag_turns: int,
               heights: tuple[float, float], offset: float) -> list[Crossread]:
    """Cross-read margins for the side, diagonal and two-cells-away neighbours.

    ``heights``: the tag's lowest and highest position over the coil (m); ``offset``: how far
    a tag may sit off its cell's centre. Worst case: the own tag high and ``offset`` away from
    the neighbour (the weakest own signal), the neighbour's tag low and ``offset`` towards
    the read coil.
    """
    lo, hi = heights
    read = coil.loops(0.0, 0.0, 0.0)
    own_tag = tag_loops(tag_d, tag_turns, -offset, 0.0, hi)
    m_own = abs(mutual_coils(read, own_tag))
    out = []
    for where, (nx, ny) in (("side", (pitch, 0.0)), ("diagonal", (pitch, pitch)), ("two cells", (2 * pitch, 0.0))):
        d = math.hypot(nx, ny)
        tx, ty = nx - offset * nx / d, ny - offset * ny / d
        tag = tag_loops(tag_d, tag_turns, tx, ty, lo)
        direct = mutual_coils(read, tag)
        idle = coil.loops(nx, ny, 0.0)
        m_coils, m_idle_tag = mutual_coils(read, idle), mutual_coils(idle, tag)
        total = [direct + idle_coil_current_ratio(m, m_coils, shorted) * m_idle_tag for shorted in (False, True)]
        out.append(Crossread(where, 20 * math.log10(abs(direct) / m_own),
                             20 * math.log10(abs(total[0]) / m_own), 20 * math.log10(abs(total[1]) / m_own)))
    return out


def field_on_axis(coil: SquareCoil, current: float, z: float) -> float:
    """H (A/m, rms for an rms current) on the axis of a square spiral at height ``z``."""
    h = 0.0
    for s in coil.turn_sides():
        a = s / 2
        # a square loop of half-side a: H = 2 I a^2 / (pi (a^2 + z^2) sqrt(2 a^2 + z^2))
        h += 2 * current * a * a / (math.pi * (a * a + z * z) * math.sqrt(2 * a * a + z * z))
    return h


def row_crossread(length: float, width: float, tag_d: float, tag_turns: int, height: float, offset: float,
                  pitch: float) -> float:
    """ISO 15693 row antennas: a tag's coupling to the neighbouring row's loop over its own (dB)."""
    own = [rectangle(length, width, 0.0, 0.0, 0.0)]
    other = [rectangle(length, width, 0.0, pitch, 0.0)]
    tag = tag_loops(tag_d, tag_turns, 0.0, offset, height)
    return 20 * math.log10(abs(mutual_coils(other, tag, pieces=12)) / abs(mutual_coils(own, tag, pieces=12)))


# --- air time -----------------------------------------------------------------------------

ETU_A = 128 / FC  # ISO 14443-A at 106 kbit/s
FDT_A = 1172 / FC  # reader frame end to tag frame start (the last bit 0; 1236/fc after a 1)


def frame_a(nbytes: int) -> float:
    """A standard type A frame of ``nbytes`` bytes (start, 9 bits a byte with parity, end), s."""
    return (9 * nbytes + 2) * ETU_A


def select_7byte_air() -> tuple[float, int]:
    """Air time (s) of WUPA + anticollision and select at cascade levels 1 and 2, and the
    number of exchanges (each adds the reader's turnaround)."""
    wupa = 9 * ETU_A + FDT_A + frame_a(2)  # short frame, ATQA
    level = (frame_a(2) + FDT_A + frame_a(5)  # SEL NVB=0x20, the UID part with its BCC
             + frame_a(9) + FDT_A + frame_a(3))  # SELECT with CRC, SAK with CRC
    return wupa + 2 * level, 5


def presence_check_air() -> tuple[float, int]:
    """WUPA and the level-1 anticollision: air time and exchanges."""
    return 9 * ETU_A + FDT_A + frame_a(2) + frame_a(2) + FDT_A + frame_a(5), 2


# ISO 15693 (high data rate, one subcarrier, 1-of-4 coding)
BIT_V = 37.76e-6  # a bit either way at 26.48 kbit/s
SOF_VCD = 75.52e-6
EOF_VCD = 37.76e-6
SOF_VICC = 151.04e-6  # 24 pulses, unmodulated time and a logic 1: 56.64 + 56.64 + 37.76 us
EOF_VICC = 151.04e-6
T1 = 4352 / FC  # request end to response start (nominal)
T2 = 4192 / FC  # response end to the next EOF (slot marker), at least
T3_EMPTY = 4384 / FC + SOF_VICC  # an empty slot: wait this long before the next EOF


def inventory_request(mask_bits: int = 0) -> float:
    """An INVENTORY request (flags, command, mask length, mask, CRC), s."""
    bits = 8 + 8 + 8 + 8 * ((mask_bits + 7) // 8) + 16
    return SOF_VCD + bits * BIT_V + EOF_VCD


def inventory_response() -> float:
    """A tag's answer: flags, DSFID, 64-bit UID, CRC."""
    return SOF_VICC + (8 + 8 + 64 + 16) * BIT_V + EOF_VICC


def inventory_time(tags: int, rng: random.Random, slots16: bool = True) -> float:
    """Time to identify ``tags`` tags under one antenna: 16-slot inventories, recursing with a
    4-bit longer mask into every slot that collided (ISO 15693-3 annex D); a collision is
    heard out to the frame's end. With ``slots16`` False a single-slot inventory (for an
    antenna that holds at most one tag)."""
    if not slots16:
        return inventory_request() + T1 + (inventory_response() if tags else T3_EMPTY - T1)
    total = 0.0
    pending: list[tuple[int, int]] = [(tags, 0)]  # (tags that match the mask, mask length)
    while pending:
        n, mask = pending.pop()
        total += inventory_request(mask)
        counts = [0] * 16
        for _ in range(n):
            counts[rng.randrange(16)] += 1
        for k, c in enumerate(counts):
            if c == 0:
                total += T3_EMPTY
            else:
                total += T1 + inventory_response()
                if c > 1:
                    pending.append((c, mask + 4))
            if k < 15:
                total += T2 + EOF_VCD  # the slot marker
    return total


def rowcol_sweep(tiles: Sequence[tuple[int, int]], rack_slots: int, seed: int = 0, turnaround: float = 0.5e-3) -> float:
    """One reader, 15 row and 15 column loops with anticollision, one antenna per rack slot:
    a full sweep (s). ``turnaround``: the host's work per inventory round and antenna switch."""
    rng = random.Random(seed)
    rows = [0] * 15
    cols = [0] * 15
    for r, c in tiles:
        rows[r] += 1
        cols[c] += 1
    total = 0.0
    for n in rows + cols:
        total += inventory_time(n, rng) + turnaround + 1e-3  # 1 ms for the tags to power up
    total += rack_slots * (inventory_time(1, rng, slots16=False) + turnaround + 1e-3)
    return total


# --- the chosen coil, printed -------------------------------------------------------------

CELL_COIL = SquareCoil(outer=15e-3, turns=4, width=0.4e-3, gap=0.3e-3)
TAG_D, TAG_TURNS = 13e-3, 5  # a 15 mm round NTAG213 sticker's coil (about 13 mm, several turns)
HEIGHTS = (1.6e-3, 4.0e-3)  # tag over coil: 1.6 mm top board, up to a 2.4 mm tile base with play
OFFSET = 2.0e-3  # tag off its cell's centre: sticker placement and the tile's play
PITCH = 19e-3


def report() -> list[str]:
    """Every figure DESIGN.md quotes, as lines."""
    c = CELL_COIL
    m = match(c.inductance(), c.resistance(), q=20)
    out = [
        (f"coil {c.outer * 1e3:.0f} mm, {c.turns} turns, trace {c.width * 1e3:.1f}/{c.gap * 1e3:.1f} mm, "
         f"inner {c.inner * 1e3:.1f} mm, length {c.length() * 1e3:.0f} mm"),
        (f"L = {c.inductance() * 1e9:.0f} nH, R(13.56 MHz) = {c.resistance():.2f} ohm "
         f"(skin depth {skin_depth() * 1e6:.1f} um), Q = {c.q():.0f}"),
        (f"matched to 50 ohm at Q 20: Rq = {m.damping_r:.2f} ohm, Cp = {m.cp * 1e12:.0f} pF "
         f"(E24 {e_series(m.cp, E24) * 1e12:.0f}), Cs = {m.cs * 1e12:.0f} pF (E24 {e_series(m.cs, E24) * 1e12:.0f}); "
         f"port {m.port_impedance():.1f}"),
        f"switch off (port open): coil with Cp resonates at {m.open_port_detune() * FC / 1e6:.2f} MHz",
    ]
    for h in HEIGHTS:
        i_needed = 1.5 / (field_on_axis(c, 1.0, h))
        out.append(f"coil current for Hmin 1.5 A/m on axis at {h * 1e3:.1f} mm: {i_needed * 1e3:.0f} mA rms")
    for x in crossreads(c, m, PITCH, TAG_D, TAG_TURNS, HEIGHTS, OFFSET):
        out.append(f"cross-read {x.where}: direct {x.direct_db:.1f} dB; with the idle neighbour coil open "
                   f"{x.idle_open_db:.1f} dB, shorted {x.idle_shorted_db:.1f} dB")
    k_side = mutual_coils(c.loops(), c.loops(PITCH, 0, 0)) / c.inductance()
    out.append(f"coupling factor of side-by-side cell coils: {k_side:.4f}")
    for target in (20.0, 40.0):
        rm = reader_match(target)
        out.append(f"reader end for {target:.0f} ohm: L0 560 nH, C0 = {rm.c0 * 1e12:.0f} pF "
                   f"(E12 {e_series(rm.c0) * 1e12:.0f}; L0-C0 corner {rm.emc_corner / 1e6:.1f} MHz), "
                   f"C1 = {rm.c1 * 1e12:.0f} pF (E12 {e_series(rm.c1) * 1e12:.0f})")
    row = row_crossread(285e-3, 15e-3, TAG_D, TAG_TURNS, HEIGHTS[0], 2e-3, PITCH)
    out.append(f"ISO 15693 row loops 285 x 15 mm: tag on the neighbouring row {row:.1f} dB")
    sel, n = select_7byte_air()
    pres, k = presence_check_air()
    out.append(f"ISO 14443-A 7-byte select: {sel * 1e3:.2f} ms air, {n} exchanges; presence check "
               f"{pres * 1e3:.2f} ms, {k} exchanges; etu {ETU_A * 1e6:.2f} us")
    rng = random.Random(1)
    for n_tags in (0, 1, 5, 10, 15):
        t = sum(inventory_time(n_tags, rng) for _ in range(200)) / 200
        out.append(f"ISO 15693 16-slot inventory of {n_tags} tags: {t * 1e3:.1f} ms (mean of 200)")
    return out


if __name__ == "__main__":
    print("\n".join(report()))
