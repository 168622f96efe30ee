"""The reference build (hardware/README.md) as chips on a virtual clock, running ``hal_rp2``.

Wiring, from the README's pin table (not from ``hal_rp2``'s constants): SPI0 on GP2-GP4;
two 74HC154 decoders share the address A0-A3 on GP6-GP9, decoder 0 enabled by GP10 low,
decoder 1 by GP11 low; decoder output *k* selects device 16 x decoder + *k*: readers 0-18
are devices 0-18, the MCP23S17s of strips 0-7, 8-15 and 16-18 share devices 19, 20 and 21
at hardware addresses 0-7. Each strip's expander drives its antennas' PIN diodes from
GPA0-GPA7 and GPB0-GPB6 (antenna 0-14) and its reader's RST from GPB7 (pulled up on the
strip, so a reader runs while the expander's pins are still inputs after power-up). Every
reader's IRQ pin joins GP12 (10 kOhm pull-up). GP22 is the safe-boot jumper to GND.
Each reader's MISO goes through a buffer enabled by its own chip select: an unselected or
silent chip leaves MISO to its pull-up (0xFF); two chips driving it at once give the AND.

The field: a tag is powered while its reader's transmitter is on (``Mfrc522.field_on``)
and the expander output of the antenna under it is high. ``keepout_violations`` lists every
frame a reader started on air while another reader's live antenna was within one cell
(also diagonally); with ``crosstalk`` such a neighbour garbles the answer (a parity error).
``wupa_settles`` holds, for every WUPA, how long the field had been on that cell.
"""

from __future__ import annotations

import math

from collections.abc import Callable, Iterable
from typing import Any

from drivers.board import protocol as P
from firmware.frames import AREA_BOARD, COLS
from firmware.scanner import Layout, row_layout

from .clock import VirtualClock
from .iso14443 import WUPA, Tag
from .mcp23s17 import Mcp23s17
from .mfrc522 import IDLE, CWGsPReg, GsNReg, TxControlReg, Mfrc522
from .micropython_env import CpuCosts, Rp2040, load_hal_rp2, make_modules
from .usbcdc import UsbCdc

PIN_ADDR = (6, 7, 8, 9)
PIN_STROBE = (10, 11)
PIN_IRQ = 12
PIN_SAFE_BOOT = 22
EXPANDER_DEVICE = 19  # decoder 1 output 3: strips 0-7; then 20, 21
RST_PIN = 15  # GPB7


# The transmitter's analog side (hardware/boardcalc.py, "drive"): TX1's square wave's
# fundamental through the mean of the p- and n-driver's resistance (4.7 ohm at full
# conductance, scaled by the codes) into the reader match's 20 ohm, then the strip's 16 dB pad
# and 0.83 dB of switch losses into the coil and its damping resistor (1.616 ohm).
TX_R_FULL = 0.15 / 0.032
TX_LOAD = 20.0
PAD_DB = 16.0
LOSS_DB = 0.83
COIL_R = 1.616


def coil_current_ma(cwgsp: int, cwgsn: int, tvdd: float = 3.3) -> float:
    """The selected coil's rms current (mA) at the conductance codes; 0 with either at 0."""
    if cwgsp == 0 or cwgsn == 0:
        return 0.0
    rs = (TX_R_FULL * 63 / cwgsp + TX_R_FULL * 15 / cwgsn) / 2
    v = 2 * tvdd / math.pi / math.sqrt(2)
    p = v * v * TX_LOAD / (rs + TX_LOAD) ** 2 * 10 ** (-(PAD_DB + LOSS_DB) / 10)
    return 1000 * math.sqrt(p / COIL_R)


def near(a: int, b: int, distance: int = 1) -> bool:
    """Two board cells within ``distance`` cells of each other (also diagonally)."""
    if a >> 8 != AREA_BOARD or b >> 8 != AREA_BOARD:
        return False
    ra, ca = divmod(a & 0xFF, COLS)
    rb, cb = divmod(b & 0xFF, COLS)
    return abs(ra - rb) <= distance and abs(ca - cb) <= distance


class ReferenceBoard:
    """The chips of the reference build, the tags on it, and a MicroPython to run ``hal_rp2``.

    ``erratum``: the expanders have Microchip's A2/HAEN erratum. ``versions``: each reader's
    VersionReg. ``straps``: a strip whose expander's A2-A0 pins give another address.
    ``safe_boot``: the GP22 jumper is fitted. ``usb_version``: the MicroPython release whose
    USB CDC behaviour applies (``usbcdc``). ``ticks_base_us``: where ``time.ticks_us`` starts
    (by default 2 s before it wraps, so every run crosses the wrap).
    """

    def __init__(self, layout: Layout | None = None, *, erratum: bool = True, versions: dict[int, int] | None = None,
                 straps: dict[int, int] | None = None, safe_boot: bool = False, usb_version: tuple[int, int] = (1, 27),
                 usb_dtr: bool = True, usb_reading: bool = True, crosstalk: bool = True, startup_us: int = 500,
                 costs: CpuCosts | None = None, ticks_base_us: int = (1 << 30) - 2_000_000, seed: int = 0,
                 unique_id: bytes = b"\xe6\x61\x18\x60\x4b\x2d\x3a\x2f") -> None:
        self.layout = layout or row_layout(4, 7)
        self.clock = VirtualClock()
        self.usb = UsbCdc(self.clock, usb_version, dtr=usb_dtr, reading=usb_reading)
        self.cpu = Rp2040(self, costs or CpuCosts(), ticks_base_us)
        self.clock.hooks.append(self.cpu.watchdog_check)
        self.safe_boot = safe_boot
        self.crosstalk_on = crosstalk
        self.unique_id = unique_id
        self.hang_survives_reset = False
        self.watchdog_started: int | None = None
        self.uart: Any = None
        n = len(self.layout.readers)
        versions = versions or {}
        straps = straps or {}
        self.readers = [Mfrc522(self, r, versions.get(r, 0x92), startup_us) for r in range(n)]
        self.expanders = [Mcp23s17(self, r, EXPANDER_DEVICE + r // 8, straps.get(r, r % 8), erratum)
                          for r in range(n)]
        self.devices: dict[int, list[Any]] = {}
        for r in range(n):
            self.devices.setdefault(r, []).append(self.readers[r])
            self.devices.setdefault(self.expanders[r].device, []).append(self.expanders[r])
        self.owner = {loc: (r, a) for r, locs in enumerate(self.layout.readers) for a, loc in enumerate(locs)}
        self.tags: dict[int, Tag] = {}
        self.field_since: dict[int, int] = {}  # location -> when the field reached it (while it has)
        self.selected: set[int] = set()
        self._bytes: dict[int, int] = {}
        self.cs_glitches: list[int] = []  # a device selected and released without a byte
        self.bus_conflicts = 0  # both decoders enabled at once
        self.spi_unselected = 0  # bytes clocked with no chip selected
        self.irq_contention = 0  # a push-pull IRQ pin driving high against another pulling low
        self.keepout_violations: list[tuple[int, int, int, int, int]] = []  # (reader, other, us, loc, other's loc)
        self.exchanges = 0
        self.wedged: list[tuple[int, int]] = []  # (reader, us): a frame a hung reader never sent
        self.multi_antenna: list[tuple[int, int]] = []  # (reader, us): a frame sent with 2+ antennas live
        self.wupa_settles: list[tuple[int, int, int]] = []  # (reader, loc, us the field had been on it)
        self.host = P.FrameParser()
        self._host_read = 0
        self.messages: list[tuple[int, P.Message]] = []  # (us, message) the host decoded
        self._irq_line = 1
        for r in range(n):  # power-up: the expanders' pins are inputs, RST pulled high
            self.readers[r].rst(True)
        self.modules = make_modules(self, seed)
        self.hal_module = load_hal_rp2(self.modules)

    # --- running the firmware ----------------------------------------------------------------

    def boot(self, **options: Any) -> Any:
        """Construct ``hal_rp2.Rp2Hal`` for every reader of the layout (``main.py``'s way)."""
        return self.hal_module.Rp2Hal(len(self.layout.readers), **options)

    def run(self, step: Callable[[], object], ms: float) -> None:
        """Call ``step`` until ``ms`` of virtual time have passed."""
        until = self.clock.now + round(ms * 1000)
        while self.clock.now < until:
            step()

    @property
    def now_ms(self) -> float:
        return self.clock.now / 1000

    # --- tags ----------------------------------------------------------------------------------

    def place(self, loc: int, uid: bytes, powerup_us: int = 200, min_coil_ma: float = 0.0) -> Tag:
        tag = Tag(uid, powerup_us, min_coil_ma=min_coil_ma)
        self.tags[loc] = tag
        tag.power(loc in self.field_since, self.clock.now)
        return tag

    def remove(self, loc: int) -> Tag | None:
        tag = self.tags.pop(loc, None)
        if tag is not None:
            tag.power(False, self.clock.now)
        return tag

    # --- the wiring: chip selects, SPI, IRQ ------------------------------------------------------

    def gpio_changed(self) -> None:
        cpu = self.cpu
        if cpu.out_mask >> 6 & 0xF == 0xF:  # the address lines driven (as always once booted): their latch
            addr = cpu.out >> 6 & 0xF
        else:
            level = cpu.level
            addr = level(6) | level(7) << 1 | level(8) << 2 | level(9) << 3
        selected = set()
        for decoder, pin in enumerate(PIN_STROBE):
            if self.cpu.out_mask >> pin & 1 and not self.cpu.out >> pin & 1:  # driven low: enabled
                selected.add(16 * decoder + addr)
        if selected == self.selected:
            if self.cpu.handlers:
                self.cpu.check_edges()
            return
        if len(selected) > 1:
            self.bus_conflicts += 1
        for device in self.selected - selected:
            for chip in self.devices.get(device, ()):
                chip.spi_end()
            if self._bytes.pop(device, 0) == 0:
                self.cs_glitches.append(device)
        for device in selected - self.selected:
            self._bytes[device] = 0
            for chip in self.devices.get(device, ()):
                chip.spi_begin()
        self.selected = selected
        self.cpu.check_edges()

    def spi_byte(self, mosi: int) -> int:
        if not self.selected:
            self.spi_unselected += 1
            return 0xFF
        miso = 0xFF
        for device in self.selected:
            self._bytes[device] += 1
            for chip in self.devices.get(device, ()):
                out = chip.spi_byte(mosi)
                if out is not None:
                    miso &= out
        return miso

    def irq_line(self) -> int:
        pins = [chip.irq_pin() for chip in self.readers]
        low = "low" in pins
        if low and "high" in pins:
            self.irq_contention += 1
        return 0 if low else 1

    def external_level(self, pin: int) -> int | None:
        if pin == PIN_IRQ:
            return self.irq_line()
        if pin == PIN_SAFE_BOOT and self.safe_boot:
            return 0
        return None

    def irq_changed(self) -> None:
        if self.cpu.handlers:
            self.cpu.check_edges()

    # --- expanders, antennas, the field --------------------------------------------------------

    def expander_changed(self, exp: Mcp23s17) -> None:
        r = exp.strip
        self.readers[r].rst(exp.output(RST_PIN) != "low")  # an input: the strip's pull-up
        self.reader_field_changed(r)

    def expander_input_high(self, exp: Mcp23s17, pin: int) -> bool:
        return pin == RST_PIN

    def selected_antennas(self, r: int) -> list[int]:
        """Reader ``r``'s antennas whose PIN diodes its expander biases (outputs driven high)."""
        regs = self.expanders[r].regs
        high = (regs[0x14] | regs[0x15] << 8) & ~(regs[0x00] | regs[0x01] << 8) & 0x7FFF
        if not high:
            return []
        return [a for a in range(len(self.layout.readers[r])) if high >> a & 1]

    def live_locs(self, r: int) -> list[int]:
        """The locations reader ``r``'s field reaches now."""
        if not self.readers[r].field_on:
            return []
        locs = self.layout.readers[r]
        return [int(locs[a]) for a in self.selected_antennas(r)]

    def reader_field_changed(self, r: int) -> None:
        live = set(self.live_locs(r))
        now = self.clock.now
        for loc in self.layout.readers[r]:
            on = loc in live
            if on and loc not in self.field_since:
                self.field_since[loc] = now
            elif not on:
                self.field_since.pop(loc, None)
            tag = self.tags.get(loc)
            if tag is not None:
                tag.power(on, now)

    # --- the radio ------------------------------------------------------------------------------

    def exchange_started(self, r: int, frame: bytes, bits: int, wedged: bool = False) -> None:
        """Reader ``r`` puts a frame on air now: the keep-out is checked from the chips' state."""
        now = self.clock.now
        if wedged:
            self.wedged.append((r, now))
            return
        self.exchanges += 1
        mine = self.live_locs(r)
        if len(mine) > 1:
            self.multi_antenna.append((r, now))
        for o in range(len(self.readers)):
            if o == r:
                continue
            for other in self.live_locs(o):
                for loc in mine:
                    if near(loc, other):
                        self.keepout_violations.append((r, o, now, loc, other))
        if frame == bytes((WUPA,)) and bits == 7:
            for loc in mine:
                self.wupa_settles.append((r, loc, now - self.field_since[loc]))

    def answers(self, r: int, frame: bytes, bits: int, start: int) -> list[tuple[Tag, bytes]]:
        """What the tags under reader ``r``'s live antennas answer to a frame begun at ``start``."""
        if not self.readers[r].modulation_ok:
            return []
        out = []
        regs = self.readers[r].regs
        drive = coil_current_ma(regs[CWGsPReg] & 0x3F, regs[GsNReg] >> 4)
        for loc in self.live_locs(r):
            tag = self.tags.get(loc)
            if tag is not None and tag.min_coil_ma <= drive and tag.hears(start):
                answer = tag.receive(frame, bits)
                if answer is not None:
                    out.append((tag, answer))
        return out

    def crosstalk(self, r: int) -> bool:
        if not self.crosstalk_on:
            return False
        mine = self.live_locs(r)
        return any(near(loc, other) for o in range(len(self.readers)) if o != r
                   for other in self.live_locs(o) for loc in mine)

    # --- what tests look at ---------------------------------------------------------------------

    def quiet_problems(self, r: int) -> list[str]:
        """Why reader ``r`` is not idle as a finished read must leave it (empty: it is)."""
        chip = self.readers[r]
        out = []
        if self.selected_antennas(r):
            out.append("antenna %s selected" % self.selected_antennas(r))
        if chip.listening():
            if chip.command != IDLE:
                out.append("command 0x%x" % chip.command)
            if chip.regs[TxControlReg] & 0x03:
                out.append("transmitter on (TxControlReg 0x%02x)" % chip.regs[TxControlReg])
            if chip.irq_pin() == "low":
                out.append("IRQ line held low")
        return out

    def host_messages(self) -> list[tuple[int, P.Message]]:
        """Frames the host received since the last call, decoded, each with the virtual time
        (us) its last byte arrived."""
        self.usb.drain()
        out = []
        for when, data in self.usb.host_log[self._host_read:]:
            for frame in self.host.feed(data):
                out.append((when, P.decode_payload(frame.type, frame.payload)))
        self._host_read = len(self.usb.host_log)
        self.messages += out
        return out


def snapshot_tags(messages: Iterable[tuple[int, P.Message]]) -> dict[int, bytes] | None:
    """The board in the last SNAPSHOT among ``messages`` (loc -> UID), or None."""
    snaps = [m for _, m in messages if isinstance(m, P.Snapshot)]
    if not snaps:
        return None
    return {(loc.area << 8) | loc.index: uid for loc, uid in snaps[-1].tags}
