"""The HAL on the reference build: RP2040, MFRC522 readers, MCP23S17 antenna switches
(hardware/DESIGN.md: each reader drives a 50 ohm bus single-ended from TX1; each antenna is
matched to 50 ohm and joined to the bus by a PIN diode that its expander output selects).

Runs under MicroPython 1.20 or later (``select.poll`` on ``sys.stdout`` and a bounded USB
write need it). The tests run this file unchanged on register-level fakes of the chips and of
MicroPython's modules (``tests/chipfakes``, ``tests/test_firmware_rp2.py``). Wiring
(hardware/README.md):

- The RP2040 at 200 MHz with its core at 1.15 V (certified since pico-sdk 2.1.1, February
  2025), SPI0 at 8 MHz (SCK GP2, MOSI GP3, MISO GP4; the MFRC522 and MCP23S17 take 10 MHz)
  to every reader strip. Chip selects go
  through two 74HC154 decoders: address A0-A3 on GP6-GP9, strobe of decoder 0 (readers
  0-15) on GP10, of decoder 1 (readers 16-31 and the expanders) on GP11.
- Each strip has one MFRC522 and one MCP23S17 whose outputs select its antennas (GPA0-7,
  GPB0-6: antennas 0-14; high selects: a TBD62083A sink driver then carries the antenna's PIN
  diode current and opens the MOSFET pair that shorts its coil while idle) and drive the
  reader's RST (GPB7). Eight
  expanders share one chip select through their hardware address pins.
- Every reader's IRQ pin (open drain, active low) joins one line on GP12 with a 10 kOhm
  pull-up: the CPU reads registers only when some reader has finished an exchange.
- Link: USB CDC (frames queued, sent from the main loop one byte per ``sys.stdout.buffer``
  write while ``select.poll`` says there is room; ``sys.stdin.buffer`` polled the same way),
  or UART0 at 115200 baud on GP0/GP1.

Each reader runs an ``iso14443a.Select`` state machine; :meth:`Rp2Hal.ready` advances
whichever reader the IRQ line says has finished an exchange, so all readers' radio
exchanges overlap and the CPU does only the register work in between.
"""

import os
import sys
import time

import machine
import micropython
from machine import SPI, Pin

from firmware.hal import KNOWN_VERSIONS, SETTLE_MAX_US, SETTLE_US, BadRead, Hal, ReaderFault, exchange_deadline_us
from firmware.iso14443a import Select
from firmware.mcp23s17 import enable_addresses

# MFRC522 registers and commands (datasheet MFRC522 rev. 3.9, section 9).
CommandReg = 0x01
ComIEnReg = 0x02
DivIEnReg = 0x03
ComIrqReg = 0x04
ErrorReg = 0x06
FIFODataReg = 0x09
FIFOLevelReg = 0x0A
ControlReg = 0x0C
BitFramingReg = 0x0D
CollReg = 0x0E
ModeReg = 0x11
TxControlReg = 0x14
TxASKReg = 0x15
RFCfgReg = 0x26
GsNReg = 0x27
CWGsPReg = 0x28
ModGsPReg = 0x29
TModeReg = 0x2A
TPrescalerReg = 0x2B
TReloadRegH = 0x2C
TReloadRegL = 0x2D
VersionReg = 0x37

# TxControlReg: InvTx2RFOn (reset value) and Tx1RFEn. The strip drives its 50 ohm bus
# single-ended from TX1; TX2 is not connected, so it stays off.
TX_OFF = 0x80
TX_ON = 0x81

CMD_IDLE = 0x00
CMD_TRANSCEIVE = 0x0C
CMD_SOFT_RESET = 0x0F

IRQ_RX = 0x20
IRQ_IDLE = 0x10
IRQ_ERR = 0x02
IRQ_TIMER = 0x01
ERR_MASK = 0x1B  # BufferOvfl, CollErr, ParityErr, ProtocolErr (CRC is checked in software)

# MCP23S17 (BANK=0): IOCON, IODIRA, OLATA.
MCP_IOCON = 0x0A
MCP_IODIRA = 0x00
MCP_OLATA = 0x14
MCP_HAEN = 0x08
RST_BIT = 0x8000  # GPB7

# Transmitter conductance (MFRC522 datasheet rev. 3.9, 9.3.3.4-9.3.3.6). CWGsPReg (0-63) is
# the p-driver's conductance for the unmodulated carrier: it sets the field. It resets to
# 0x20 (0x3F is the maximum); GsNReg (CWGsN and ModGsN, the n-driver's) resets to 0x88.
# ModGsPReg (reset 0x20) is the p-driver's conductance during modulation, i.e. the depth
# of the ASK pauses; it has no effect while TxASKReg.Force100ASK is set, as _init_reader
# sets it for type A's 100 % ASK, so the firmware leaves it alone. The reference build's
# tags sit 2-3 mm above 15 mm coils, so CWGsP starts at 0x14, about a third of the maximum
# and below the reset value: less current (hardware/README.md, "Power budget") and a
# weaker field at the neighbouring cells. The strip's 16 dB pad and this setting give about
# 14 mA rms in the selected coil (hardware/boardcalc.py, DESIGN.md "Drive level"): 8.5 dB
# under the current at which the selected antenna's MOSFET pair would clip, and no setting up
# to 0x3F reaches it. bringup.drive reports the margin over the weakest setting that reads.
CW_GSP = 0x05
GSN = 0x88  # CWGsN 8, ModGsN 8: the reset value, written so the carrier's drive is known

# 6.25 MHz: the fastest clock whose MISO round trip over the 19 ribbons fits half a period
# (hardware/boardcalc.py: 73 ns against 80 ns); at 200 MHz the PL022 makes exactly 6.25 MHz
# (an 8 MHz request would give 7.69 MHz and a read margin of -8 ns).
SPI_BAUD = 6_250_000
EXPANDER_CHECK_BAUD = 1_000_000  # the expanders' SO is weak: their boot check runs slowly
# RP2040 pads (PADS_BANK0): GPIOn's control register; DRIVE bits 5:4 (3 = 12 mA), SLEWFAST bit 0.
PADS_BANK0 = 0x4001C000
PAD_DRIVE_12MA = 0x30
PAD_SLEWFAST = 0x01
CPU_HZ = 200_000_000  # 125 MHz (MicroPython's default) when the core voltage cannot be raised
VREG = 0x40064000  # VREG_AND_CHIP_RESET: VSEL bits 7:4, 0b1011 = 1.10 V (reset), 0b1100 = 1.15 V
VSEL_115 = 0xC
CPU_HZ_AT_110 = 133_000_000  # the highest clock the RP2040 is rated for at 1.10 V

TIMER_TICK_US = 25  # TPrescaler 0xA9: 13.56 MHz / 339 = 40 kHz

# RP2040 single-cycle IO: set and clear GPIO outputs in one write.
SIO_GPIO_IN = 0xD0000004
SIO_GPIO_OUT_SET = 0xD0000014
SIO_GPIO_OUT_CLR = 0xD0000018

PIN_SCK = 2
PIN_MOSI = 3
PIN_MISO = 4
PIN_ADDR = (6, 7, 8, 9)
PIN_STROBE = (10, 11)
PIN_IRQ = 12
PIN_SAFE_BOOT = 22  # to GND with a jumper at power-up: no watchdog, Ctrl-C works (re-flashing)
USB_WRITE_BUDGET_US = 3000  # the USB buffer full this long with bytes waiting: the host is not reading, they are dropped
USB_QUEUE = 8192  # bytes waiting for the USB link at most; a frame that does not fit is dropped
USB_PUMP_WRITE = 32  # bytes sent at once by serial_write (a HEARTBEAT or ACK goes out whole)
USB_PUMP_READY = 16  # bytes sent by each ready(): a long frame goes out between the readers' service
EXPANDER_CS = (19, 20, 21)  # decoder 1 outputs 3-5 (device numbers 16 + 3..5)


def set_clock(hz):
    """Run the RP2040 at ``hz``; above 133 MHz the core supply goes to 1.15 V first, as the
    RP2040 datasheet (section 2.15.3) and pico-sdk 2.1.1 require for 200 MHz."""
    if hz > CPU_HZ_AT_110:
        value = machine.mem32[VREG]
        if (value >> 4) & 0xF < VSEL_115:
            machine.mem32[VREG] = (value & ~0xF0) | (VSEL_115 << 4)
            time.sleep_ms(1)  # the regulator settles (its ROK bit) well within this
    machine.freq(hz)


def strong_pads(pins):
    """12 mA drive and fast slew on ``pins`` (the SPI clock and data, the chip-select
    lines): the reset's 4 mA would give slow edges into the controller's buffers."""
    for p in pins:
        addr = PADS_BANK0 + 4 + 4 * p
        machine.mem32[addr] = (machine.mem32[addr] & ~0x31) | PAD_DRIVE_12MA | PAD_SLEWFAST


class Rp2Hal(Hal):
    """Readers on SPI0, the link on USB CDC (``link='usb'``) or UART0 (``link='uart'``)."""

    def __init__(self, readers, link="usb", spi_baud=SPI_BAUD, settle_us=SETTLE_US, watchdog_ms=2000,
                 cpu_hz=CPU_HZ):
        self.readers = readers
        set_clock(cpu_hz)
        self.settle_us = 0
        self.set_settle_us(settle_us)
        # Safe boot: GP22 held low at power-up leaves the watchdog off and Ctrl-C on, so
        # mpremote can stop the program and copy new files.
        self.safe_boot = Pin(PIN_SAFE_BOOT, Pin.IN, Pin.PULL_UP).value() == 0
        self.dropped_writes = 0  # frames lost, whole or in part, because the host did not take them
        self._txq = []  # frames waiting for the USB link, oldest first
        self._txk = 0  # bytes of the first one already sent
        self._txn = 0  # bytes waiting in all
        self._stuck = None  # since when the USB buffer has had no room while bytes wait
        self.spi_baud = spi_baud
        self.spi = SPI(0, baudrate=min(spi_baud, EXPANDER_CHECK_BAUD), polarity=0, phase=0,
                       sck=Pin(PIN_SCK), mosi=Pin(PIN_MOSI), miso=Pin(PIN_MISO))
        for p in PIN_ADDR:
            Pin(p, Pin.OUT, value=0)
        for p in PIN_STROBE:
            Pin(p, Pin.OUT, value=1)
        strong_pads((PIN_SCK, PIN_MOSI) + PIN_ADDR + PIN_STROBE)
        self.irq = Pin(PIN_IRQ, Pin.IN, Pin.PULL_UP)
        self._addr_all = 0
        for p in PIN_ADDR:
            self._addr_all |= 1 << p
        self._cs = [self._cs_masks(d) for d in range(32)]
        self._b2 = bytearray(2)
        self._b3 = bytearray(3)
        self._fifo = bytearray(17)
        self._sel = [Select() for _ in range(readers)]
        self._busy = [False] * readers
        self._t0 = [0] * readers  # when the exchange on air was launched (or the antenna switched on)
        self._launch_at = [None] * readers  # the WUPA waits for the settle time until then
        self._first = [None] * readers
        self._result = [None] * readers
        self._error = [None] * readers
        self._done = []
        self._order = []  # busy readers, oldest exchange first
        self._check_late = time.ticks_us()  # not 0: ticks_us does not start at 0 after a soft reset
        self._latch = [RST_BIT] * readers  # expander outputs: RST high, no antenna
        self._timeout_reload = 60
        self._link = link
        self._setup_link(link)
        unaddressed = []
        for group in range((readers + 7) // 8):
            hws = range(min(8, readers - 8 * group))
            for hw in enable_addresses(self, 16 + 3 + group, hws):  # the HAEN erratum handled there
                unaddressed.append(8 * group + hw)
        self.spi.init(baudrate=spi_baud)  # the expanders are only written from here on
        for r in range(readers):
            device, hw = self._mcp(r)
            self._mcp_write(device, hw, MCP_IODIRA, b"\x00\x00")
            self._switch(r, RST_BIT)
            if r in unaddressed:
                self._error[r] = ReaderFault(r, "expander does not answer at its address")
            elif not self.reset_reader(r):
                self._error[r] = ReaderFault(r, "no answer at boot")
        self._unaddressed = unaddressed
        self.wdt = None if self.safe_boot else machine.WDT(timeout=watchdog_ms)

    # --- bus ----------------------------------------------------------------------------

    def _cs_masks(self, device):
        addr = 0
        for bit, p in enumerate(PIN_ADDR):
            if device >> bit & 1:
                addr |= 1 << p
        return addr, 1 << PIN_STROBE[device >> 4]

    @micropython.native
    def _select(self, device):
        addr, strobe = self._cs[device]
        machine.mem32[SIO_GPIO_OUT_CLR] = self._addr_all
        machine.mem32[SIO_GPIO_OUT_SET] = addr
        machine.mem32[SIO_GPIO_OUT_CLR] = strobe

    @micropython.native
    def _deselect(self, device):
        machine.mem32[SIO_GPIO_OUT_SET] = self._cs[device][1]

    def _write(self, r, reg, value):
        b = self._b2
        b[0] = (reg << 1) & 0x7E
        b[1] = value
        self._select(r)
        self.spi.write(b)
        self._deselect(r)

    def _read(self, r, reg):
        b = self._b2
        b[0] = 0x80 | (reg << 1)
        b[1] = 0
        self._select(r)
        self.spi.write_readinto(b, b)
        self._deselect(r)
        return b[1]

    def _read2(self, r, reg_a, reg_b):
        """Two registers in one transaction (each byte sent addresses the next read)."""
        b = self._b3
        b[0] = 0x80 | (reg_a << 1)
        b[1] = 0x80 | (reg_b << 1)
        b[2] = 0
        self._select(r)
        self.spi.write_readinto(b, b)
        self._deselect(r)
        return b[1], b[2]

    def _write_fifo(self, r, data):
        buf = bytearray(((FIFODataReg << 1) & 0x7E,)) + data
        self._select(r)
        self.spi.write(buf)
        self._deselect(r)

    def _read_fifo(self, r, n):
        buf = self._fifo
        a = 0x80 | (FIFODataReg << 1)
        for k in range(n):
            buf[k] = a
        buf[n] = 0
        view = memoryview(buf)[:n + 1]
        self._select(r)
        self.spi.write_readinto(view, view)
        self._deselect(r)
        return bytes(buf[1:n + 1])

    def _mcp(self, r):
        return 16 + 3 + (r >> 3), r & 7

    def _mcp_write(self, device, hw_addr, reg, data):
        buf = bytes((0x40 | (hw_addr << 1), reg)) + data
        self._select(device)
        self.spi.write(buf)
        self._deselect(device)

    def mcp_write(self, device, hw_addr, reg, data):
        """Expander registers from ``reg`` on (``mcp23s17.enable_addresses`` uses it)."""
        self._mcp_write(device, hw_addr, reg, data)

    def mcp_read(self, device, hw_addr, reg):
        """One expander register (``mcp23s17.enable_addresses`` checks addresses with it)."""
        buf = bytearray((0x41 | (hw_addr << 1), reg, 0))
        self._select(device)
        self.spi.write_readinto(buf, buf)
        self._deselect(device)
        return buf[2]

    def _switch(self, r, latch):
        self._latch[r] = latch
        device, hw = self._mcp(r)
        self._mcp_write(device, hw, MCP_OLATA, bytes((latch & 0xFF, latch >> 8)))

    # --- bring-up (firmware/bringup.py) ------------------------------------------------------

    def spi_us(self, reader, n=1000):
        """Mean microseconds of one register read and of one register write of ``reader``
        (VersionReg, and TPrescalerReg rewritten with its value), over ``n`` each."""
        t0 = time.ticks_us()
        for _ in range(n):
            self._read(reader, VersionReg)
        t1 = time.ticks_us()
        for _ in range(n):
            self._write(reader, TPrescalerReg, 0xA9)
        t2 = time.ticks_us()
        return time.ticks_diff(t1, t0) / n, time.ticks_diff(t2, t1) / n

    def set_drive(self, reader, cwgsp):
        """The carrier's drive (CWGsPReg, 0-63) of ``reader`` until its next reset."""
        self._write(reader, CWGsPReg, max(0, min(63, cwgsp)))

    def drive(self, reader):
        """CWGsPReg of ``reader`` as it reads now."""
        return self._read(reader, CWGsPReg) & 0x3F

    def hold_field(self, reader, antenna):
        """Select ``antenna`` and leave the carrier on, with no read (current measurements);
        :meth:`release_field` ends it. Only while no read runs on ``reader``."""
        self._switch(reader, RST_BIT | (1 << antenna))
        self._write(reader, TxControlReg, TX_ON)

    def release_field(self, reader):
        """The carrier off and no antenna selected, as after every read."""
        self._write(reader, TxControlReg, TX_OFF)
        self._switch(reader, RST_BIT)

    # --- time -----------------------------------------------------------------------------

    def ticks_ms(self):
        return time.ticks_ms()

    def ticks_us(self):
        return time.ticks_us()

    def ticks_diff(self, a, b):
        return time.ticks_diff(a, b)

    def ticks_add(self, a, delta):
        return time.ticks_add(a, delta)

    def idle(self, max_us):
        if self._txq:
            self._pump(4 * USB_PUMP_READY)
            return
        # Spin rather than sleep: a read finishes within 1.5-2 ms and the IRQ line is cheap to poll.
        if self.irq.value() and max_us > 200:
            time.sleep_us(100)

    # --- readers ------------------------------------------------------------------------

    def set_empty_timeout_us(self, us):
        self._timeout_reload = max(1, us // TIMER_TICK_US)
        for r in range(self.readers):
            if self._error[r] is None:
                self._write(r, TReloadRegH, self._timeout_reload >> 8)
                self._write(r, TReloadRegL, self._timeout_reload & 0xFF)

    def _init_reader(self, r):
        """Registers after a reset: 25 us timer ticks, 100% ASK, CRC preset 6363, IRQ,
        reduced transmitter conductance, field off until a read starts."""
        self._write(r, TModeReg, 0x80)  # TAuto: the timer starts at the end of each transmission
        self._write(r, TPrescalerReg, 0xA9)
        self._write(r, TReloadRegH, self._timeout_reload >> 8)
        self._write(r, TReloadRegL, self._timeout_reload & 0xFF)
        self._write(r, TxASKReg, 0x40)  # Force100ASK: type A's 100 % ASK, whatever ModGsPReg says
        self._write(r, ModeReg, 0x3D)
        self._write(r, CollReg, 0x00)
        self._write(r, RFCfgReg, 0x48)  # receiver gain 33 dB, not maximum (neighbours, notes)
        self._write(r, ComIEnReg, 0x80 | IRQ_RX | IRQ_ERR | IRQ_TIMER)  # IRQ pin active low
        self._write(r, DivIEnReg, 0x00)  # IRQ pin open drain: all readers share one line
        self._write(r, GsNReg, GSN)
        self._write(r, CWGsPReg, CW_GSP)
        self._write(r, TxControlReg, TX_OFF)  # drivers off: an idle reader has no field

    def set_settle_us(self, us):
        self.settle_us = max(0, min(SETTLE_MAX_US, us))

    def reset_reader(self, r):
        self._busy[r] = False
        self._launch_at[r] = None
        if r in getattr(self, "_unaddressed", ()):
            return False  # its expander takes another's writes: a reset cannot fix that
        self._switch(r, 0)  # RST low: hard power-down
        time.sleep_us(100)
        self._switch(r, RST_BIT)
        start = time.ticks_ms()
        while self._read(r, CommandReg) & 0x10:  # PowerDown clears once the oscillator runs
            if time.ticks_diff(time.ticks_ms(), start) > 50:
                self._error[r] = ReaderFault(r, "still powered down 50 ms after reset")
                return False
            time.sleep_us(200)
        version = self._read(r, VersionReg)
        if version not in KNOWN_VERSIONS:
            self._error[r] = ReaderFault(r, "version register reads 0x%02x" % version)
            return False
        self._error[r] = None
        self._init_reader(r)
        return True

    def reader_version(self, reader):
        return self._read(reader, VersionReg)

    def expander_ok(self, reader):
        return reader not in self._unaddressed

    def start_read(self, reader, antenna, known=None):
        r = reader
        self._switch(r, RST_BIT | (1 << antenna))
        sel = self._sel[r]
        sel.known = known
        self._first[r] = sel.first()
        self._busy[r] = True
        if r in self._order:
            self._order.remove(r)
        self._order.append(r)
        if self._error[r] is None:
            self._write(r, TxControlReg, TX_ON)  # the field on, for this antenna only
        now = time.ticks_us()
        self._t0[r] = now
        # The tag needs the field for up to settle_us before it answers: ready() sends the
        # WUPA once that time is up and serves the other readers meanwhile.
        self._launch_at[r] = time.ticks_add(now, self.settle_us)

    def _launch(self, r, frame, bits):
        self._write(r, CommandReg, CMD_IDLE)
        self._write(r, ComIrqReg, 0x7F)  # clear every interrupt flag (releases the IRQ line)
        self._write(r, FIFOLevelReg, 0x80)  # flush
        self._write_fifo(r, frame)
        self._write(r, BitFramingReg, bits)
        self._write(r, CommandReg, CMD_TRANSCEIVE)
        self._write(r, BitFramingReg, 0x80 | bits)  # StartSend
        self._t0[r] = time.ticks_us()  # this exchange's deadline counts from here
        order = self._order  # the oldest exchange is looked at first
        if order and order[-1] != r:
            order.remove(r)
            order.append(r)

    def _service(self, r):
        """Look at reader ``r``: 0 still busy, 1 next exchange launched, 2 read done."""
        irq = self._read(r, ComIrqReg)
        if irq == 0xFF:
            raise ReaderFault(r, "bus reads 0xFF")
        if not irq & (IRQ_RX | IRQ_ERR | IRQ_TIMER):
            return 0
        if irq & IRQ_RX:
            err, n = self._read2(r, ErrorReg, FIFOLevelReg)
            if err & ERR_MASK:
                raise BadRead("reader %d: error register 0x%02x" % (r, err))
            response = self._read_fifo(r, min(n, 16))
        elif irq & IRQ_ERR:
            raise BadRead("reader %d: error without data" % r)
        else:
            response = None  # the timer ran out: nothing answered
        sel = self._sel[r]
        nxt = sel.answer(response)
        if nxt is None:
            self._result[r] = sel.uid
            return 2
        self._launch(r, nxt[0], nxt[1])
        return 1

    def _finish(self, r, error=None):
        # Every ending, a fault's too: a hung reader's command logic may be wedged, but its
        # TxControlReg still switches the drivers off, and one that left the bus ignores the
        # writes. Its antenna is deselected through the expander in any case.
        self._write(r, CommandReg, CMD_IDLE)  # whatever the reader was doing stops
        self._write(r, TxControlReg, TX_OFF)  # no field while idle: the keep-out holds
        self._write(r, ComIrqReg, 0x7F)  # an idle reader must not hold the IRQ line low
        self._switch(r, RST_BIT)  # no antenna selected either
        self._launch_at[r] = None
        self._busy[r] = False
        if r in self._order:
            self._order.remove(r)
        if error is not None:
            self._result[r] = error
        self._done.append(r)

    def ready(self):
        if self._txq:
            self._pump(USB_PUMP_READY)
        if self._done:
            return self._done.pop(0)
        now = time.ticks_us()
        for r in list(self._order):
            at = self._launch_at[r]
            if at is not None and time.ticks_diff(now, at) >= 0:
                self._launch_at[r] = None
                if self._error[r] is None:
                    frame, bits = self._first[r]
                    self._launch(r, frame, bits)
        if time.ticks_diff(now, self._check_late) >= 0:
            self._check_late = time.ticks_add(now, 1000)
            deadline = exchange_deadline_us(self._timeout_reload * TIMER_TICK_US)
            for r in list(self._order):
                if self._launch_at[r] is None and time.ticks_diff(now, self._t0[r]) > deadline:
                    self._late(r, deadline)
        order = self._order
        k = 0
        # The shared IRQ line is low while any reader has finished an exchange.
        while k < len(order) and not self.irq.value():
            r = order[k]
            if self._error[r] is not None or self._launch_at[r] is not None:
                k += 1
                continue
            try:
                state = self._service(r)
            except (ReaderFault, BadRead) as e:
                self._finish(r, e)
                continue
            if state == 2:
                self._finish(r)
            elif state == 0:
                k += 1
        if self._done:
            return self._done.pop(0)
        return -1

    def _late(self, r, deadline):
        """Reader ``r``'s exchange is past its deadline: look at it once more, then call it hung."""
        if self._error[r] is None:
            try:
                state = self._service(r)  # a busy CPU came late: the reader may well be done
            except (ReaderFault, BadRead) as e:
                self._finish(r, e)
                return
            if state == 2:
                self._finish(r)
                return
            if state == 1:
                return  # it was done and its next exchange is on air
        self._finish(r, self._error[r] or ReaderFault(r, "no answer within %d us" % deadline))

    def result(self, reader):
        value = self._result[reader]
        self._result[reader] = None
        if isinstance(value, Exception):
            raise value
        return value

    # --- link, watchdog, identity -------------------------------------------------------

    def _setup_link(self, link):
        if link == "uart":
            self.uart = machine.UART(0, baudrate=115200, tx=Pin(0), rx=Pin(1), txbuf=4096, rxbuf=1024)
        else:
            import select

            if not self.safe_boot:
                micropython.kbd_intr(-1)  # a 0x03 byte in a frame must not stop the program
            self._poll = select.poll()
            self._poll.register(sys.stdin, select.POLLIN)
            # A USB CDC write waits, while a host has the port open (DTR high), until the
            # TinyUSB FIFO has room for it, up to MICROPY_HW_USB_CDC_TX_TIMEOUT (500 ms);
            # MicroPython 1.20-1.26 write nothing then, and poll still says "writable".
            # POLLOUT means one byte of room, so _pump writes one byte at a time.
            self._wpoll = select.poll()
            self._wpoll.register(sys.stdout, select.POLLOUT)
            self._out = sys.stdout.buffer
            self._in = sys.stdin.buffer

    def serial_write(self, data):
        """Over USB: queue the frame and send its first bytes; ``ready`` and ``idle`` send the
        rest (``_pump``). Returns at once, whatever the host does."""
        if self._link == "uart":
            self.uart.write(data)
            return
        if self._txn + len(data) > USB_QUEUE:
            self.dropped_writes += 1  # the host has not taken the frames before: this one is lost
            return
        self._txq.append(data)
        self._txn += len(data)
        self._pump(USB_PUMP_WRITE)

    def _pump(self, limit):
        """Send up to ``limit`` queued bytes, one byte per write, each after poll said the USB
        buffer has room for one: no write ever waits inside MicroPython (hardware/README.md,
        "Wiring to the Pi"). Full for USB_WRITE_BUDGET_US while bytes wait: the host is not
        reading, and everything queued is dropped (it resyncs at the next frame's 0x00)."""
        q = self._txq
        frame = q[0]
        k = self._txk
        write = self._out.write
        ipoll = self._wpoll.ipoll
        while limit > 0:
            wrote = 0
            for _ in ipoll(0):
                wrote = write(frame, k, 1)
                break
            if not wrote:
                now = time.ticks_us()
                if self._stuck is None:
                    self._stuck = now
                elif time.ticks_diff(now, self._stuck) > USB_WRITE_BUDGET_US:
                    self.dropped_writes += len(q)
                    self._txq = []
                    self._txn = 0
                    k = 0
                    self._stuck = None
                break
            self._stuck = None
            limit -= 1
            self._txn -= 1
            k += 1
            if k == len(frame):
                q.pop(0)
                k = 0
                if not q:
                    break
                frame = q[0]
        self._txk = k

    def serial_read(self):
        if self._link == "uart":
            data = self.uart.read()
            return data or b""
        out = bytearray()
        while len(out) < 256 and self._poll.poll(0):
            out.extend(self._in.read(1))
        return bytes(out)

    def feed_watchdog(self):
        if self.wdt is not None:
            self.wdt.feed()

    def unique_id(self):
        return machine.unique_id()

    def boot_id(self):
        # the RP2040's ring oscillator, through MicroPython's os.urandom
        return int.from_bytes(os.urandom(4), "little")
