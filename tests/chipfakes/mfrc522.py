"""The NXP MFRC522 at register level, as far as the firmware uses it (datasheet rev. 3.9).

SPI (section 8.1.2): an address byte ``1 addr[5:0] 0`` reads (each further byte sent
addresses the next read, so byte *k + 1* on MISO is the register byte *k* named),
``0 addr[5:0] 0`` writes every further byte to that one register (FIFODataReg takes them
all). Registers keep their reset values until written (the reset table below).

Modeled: the Idle, Transceive and SoftReset commands; the 64-byte FIFO, FIFOLevelReg and its
FlushBuffer bit; BitFramingReg (StartSend, TxLastBits); ComIrqReg with Set1 and the IRQ pin
(ComIEnReg: IRqInv; DivIEnReg: IRQPushPull, so open drain unless set); ErrorReg (BufferOvfl,
CollErr, ParityErr, ProtocolErr, CRCErr, cleared at the receiver's start as the datasheet
says); TModeReg.TAuto, TPrescaler and TReload: the timer starts at the end of each
transmission and stops at the fifth bit of an answer; ModeReg.TxWaitRF (a transmission
waits for the field); TxModeReg/RxModeReg CRC generation and check (off at reset: the
firmware does CRC_A in software); TxControlReg: the antenna drivers, the field only while
Tx1RFEn or Tx2RFEn is set; TxASKReg.Force100ASK: without it (or a ModGsP well below CWGsP) a
tag cannot hear the 100 % ASK pauses of type A; CWGsPReg, ModGsPReg, GsNReg as plain
registers (no field at CWGsP 0); CommandReg.PowerDown and RcvOff; Status2Reg.ModemState;
VersionReg. The RST pin (NRSTPD): low is hard power-down (registers lost, no field, IRQ and
MISO released), high starts the oscillator: until ``startup_us`` later the chip does not
answer on SPI (MISO reads 0xFF through the strip's pull-up).

Not modeled: the other commands (Mem, CalcCRC, Transmit, Receive, MFAuthent: recorded in
``unsupported``), HiAlert/LoAlert beyond their reset values, the analog receiver (RFCfgReg is
a plain register), MIFARE crypto, RxAlign/bit-oriented anticollision with a partial UID, 212+
kbit/s.

Faults: ``hang()`` wedges the transceive logic (a frame started never ends: no IRQ, no
timer; Idle does not help, a hard reset does), ``kill()`` cuts it off SPI (MISO floats
high, writes are lost), ``irq_open`` disconnects its IRQ pin.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .iso14443 import BIT_US, FDT_US, FC_MHZ, crc_a, reader_frame_us, tag_frame_us

if TYPE_CHECKING:
    from .board import ReferenceBoard
    from .iso14443 import Tag

CommandReg = 0x01
ComIEnReg = 0x02
DivIEnReg = 0x03
ComIrqReg = 0x04
DivIrqReg = 0x05
ErrorReg = 0x06
Status1Reg = 0x07
Status2Reg = 0x08
FIFODataReg = 0x09
FIFOLevelReg = 0x0A
WaterLevelReg = 0x0B
ControlReg = 0x0C
BitFramingReg = 0x0D
CollReg = 0x0E
ModeReg = 0x11
TxModeReg = 0x12
RxModeReg = 0x13
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

IDLE = 0x0
TRANSCEIVE = 0xC
SOFT_RESET = 0xF

TX_IRQ = 0x40
RX_IRQ = 0x20
IDLE_IRQ = 0x10
ERR_IRQ = 0x02
TIMER_IRQ = 0x01

BUFFER_OVFL = 0x10
COLL_ERR = 0x08
CRC_ERR = 0x04
PARITY_ERR = 0x02
PROTOCOL_ERR = 0x01

# Modem states (Status2Reg[2:0]).
MODEM_IDLE = 0
MODEM_WAIT_START = 1
MODEM_TX_WAIT = 2
MODEM_TRANSMITTING = 3
MODEM_RX_WAIT = 4
MODEM_WAIT_DATA = 5

# Reset values (datasheet section 9, the register tables).
RESET = {
    0x01: 0x20, 0x02: 0x80, 0x03: 0x00, 0x04: 0x14, 0x05: 0x00, 0x06: 0x00, 0x07: 0x21, 0x08: 0x00,
    0x0A: 0x00, 0x0B: 0x08, 0x0C: 0x10, 0x0D: 0x00, 0x0E: 0xA0, 0x11: 0x3F, 0x12: 0x00, 0x13: 0x00,
    0x14: 0x80, 0x15: 0x00, 0x16: 0x10, 0x17: 0x84, 0x18: 0x84, 0x19: 0x4D, 0x1C: 0x62, 0x1D: 0x00,
    0x1F: 0xEB, 0x21: 0xFF, 0x22: 0xFF, 0x24: 0x26, 0x26: 0x48, 0x27: 0x88, 0x28: 0x20, 0x29: 0x20,
    0x2A: 0x00, 0x2B: 0x00, 0x2C: 0x00, 0x2D: 0x00, 0x2E: 0x00, 0x2F: 0x00,
}
FIFO_SIZE = 64


class Mfrc522:
    """Reader ``index`` of ``board``."""

    def __init__(self, board: ReferenceBoard, index: int, version: int = 0x92, startup_us: int = 500) -> None:
        self.board = board
        self.index = index
        self.version = version
        self.startup_us = startup_us
        self.regs = bytearray(64)
        self.fifo = bytearray()
        self.power = "off"  # "off" (RST low), "starting" (oscillator), "on"
        self.command = IDLE
        self.soft_pd = False
        self.rcv_off = True
        self.modem = MODEM_IDLE
        self.hung = False
        self.spi_dead = False
        self.irq_open = False
        self.timer_running = False
        self._gen = 0  # bumped to cancel a frame in flight
        self._tgen = 0  # bumped to cancel the timer
        self._txn: tuple[str, int] | None = None
        self._pending_tx: tuple[bytes, int] | None = None
        self.writes: dict[int, list[int]] = {}  # register -> every value written since power-up
        self.unsupported: list[int] = []  # commands the model does not know
        self.protocol_errors: list[str] = []  # SPI bytes that break the datasheet's framing
        self.resets = 0  # hard resets (RST low, then high)
        self.exchanges = 0  # frames sent on air
        self._tx_start = 0  # when the last one began
        self._reset_registers()

    # --- power and reset ------------------------------------------------------------------

    def _reset_registers(self) -> None:
        self.regs = bytearray(64)
        for reg, value in RESET.items():
            self.regs[reg] = value
        self.regs[VersionReg] = self.version
        self.fifo = bytearray()
        self.command = IDLE
        self.soft_pd = False
        self.rcv_off = True
        self.modem = MODEM_IDLE
        self._pending_tx = None
        self.timer_running = False
        self._gen += 1
        self._tgen += 1

    def rst(self, high: bool) -> None:
        """The NRSTPD pin: low powers the chip down hard, a rising edge resets and starts it."""
        board = self.board
        if not high:
            if self.power != "off":
                self.power = "off"
                self._gen += 1
                self._tgen += 1
                self.hung = self.hung and self.board.hang_survives_reset
                board.reader_field_changed(self.index)
                board.irq_changed()
            return
        if self.power != "off":
            return
        self.power = "starting"
        self.resets += 1
        gen = self._gen = self._gen + 1

        def started() -> None:
            if self.power == "starting" and self._gen == gen:
                hung = self.hung
                self._reset_registers()
                self.hung = hung
                self.power = "on"
                board.reader_field_changed(self.index)
                board.irq_changed()

        board.clock.after(self.startup_us, started)

    @property
    def field_on(self) -> bool:
        """The antenna driver puts a carrier on the strip's RF bus: TX1 alone is wired to it
        (single-ended, hardware/DESIGN.md); TX2 is not connected."""
        return (self.power == "on" and not self.soft_pd and bool(self.regs[TxControlReg] & 0x01)
                and self.regs[CWGsPReg] & 0x3F > 0)

    @property
    def modulation_ok(self) -> bool:
        """A type A tag hears the reader: 100 % ASK forced, or ModGsP a quarter of CWGsP at most."""
        if self.regs[TxASKReg] & 0x40:
            return True
        return (self.regs[ModGsPReg] & 0x3F) * 4 <= (self.regs[CWGsPReg] & 0x3F)

    def hang(self) -> None:
        """The transceive logic wedges: a frame in flight or started later never ends."""
        self.hung = True
        self._gen += 1
        if self.modem in (MODEM_TRANSMITTING, MODEM_RX_WAIT, MODEM_WAIT_DATA):
            self.modem = MODEM_TRANSMITTING
            self.board.wedged.append((self.index, self._tx_start))  # the exchange in flight never ends

    def kill(self) -> None:
        """The chip drops off SPI (a broken MISO or chip select): reads 0xFF, writes are lost."""
        self.spi_dead = True

    # --- SPI -------------------------------------------------------------------------------

    def listening(self) -> bool:
        return self.power == "on" and not self.spi_dead

    def spi_begin(self) -> None:
        self._txn = None

    def spi_end(self) -> None:
        self._txn = None

    def spi_byte(self, mosi: int) -> int | None:
        """One byte each way; None when the chip does not drive MISO."""
        if not self.listening():
            return None
        if self._txn is None:
            if mosi & 0x01:
                self.protocol_errors.append("address byte 0x%02x has bit 0 set" % mosi)
            self._txn = ("r" if mosi & 0x80 else "w", (mosi >> 1) & 0x3F)
            return 0x00
        kind, reg = self._txn
        if kind == "r":
            value = self.read(reg)
            self._txn = ("r", (mosi >> 1) & 0x3F)
            if mosi and not mosi & 0x80:
                self.protocol_errors.append("read continued with a write address 0x%02x" % mosi)
            return value
        self.write(reg, mosi)
        return 0x00

    # --- registers --------------------------------------------------------------------------

    def status1(self) -> int:
        level = len(self.fifo)
        water = self.regs[WaterLevelReg] & 0x3F
        value = 0x20  # CRCReady (no CRC calculation is ever running)
        if self.irq_active():
            value |= 0x10
        if self.timer_running:
            value |= 0x08
        if FIFO_SIZE - level <= water:
            value |= 0x02
        if level <= water:
            value |= 0x01
        return value

    def read(self, reg: int) -> int:
        regs = self.regs
        if reg == CommandReg:
            return (0x20 if self.rcv_off else 0) | (0x10 if self.soft_pd else 0) | self.command
        if reg == ComIrqReg or reg == DivIrqReg:
            return regs[reg] & 0x7F
        if reg == Status1Reg:
            return self.status1()
        if reg == Status2Reg:
            return (regs[reg] & 0xC8) | self.modem
        if reg == FIFODataReg:
            return self.fifo.pop(0) if self.fifo else 0x00
        if reg == FIFOLevelReg:
            return len(self.fifo)
        if reg == VersionReg:
            return self.version
        return regs[reg]

    def write(self, reg: int, value: int) -> None:
        self.writes.setdefault(reg, []).append(value)
        regs = self.regs
        if reg == CommandReg:
            self.rcv_off = bool(value & 0x20)
            was_pd = self.soft_pd
            self.soft_pd = bool(value & 0x10)
            self._command(value & 0x0F)
            if was_pd != self.soft_pd:
                self.board.reader_field_changed(self.index)
        elif reg == ComIrqReg or reg == DivIrqReg:
            bits = value & 0x7F
            if value & 0x80:
                regs[reg] |= bits
            else:
                regs[reg] &= ~bits & 0xFF
            self.board.irq_changed()
        elif reg in (ErrorReg, Status1Reg, VersionReg, 0x2E, 0x2F):
            pass  # read only
        elif reg == Status2Reg:
            regs[reg] = value & 0xC8
        elif reg == FIFODataReg:
            if len(self.fifo) >= FIFO_SIZE:
                self._error(BUFFER_OVFL)
            else:
                self.fifo.append(value)
        elif reg == FIFOLevelReg:
            if value & 0x80:
                self.fifo = bytearray()
                regs[ErrorReg] &= ~BUFFER_OVFL & 0xFF
        elif reg == ControlReg:
            if value & 0x80:
                self._stop_timer()
            if value & 0x40:
                self._start_timer()
        elif reg == BitFramingReg:
            regs[reg] = value & 0x7F
            if value & 0x80 and (self.command == TRANSCEIVE or self.hung):  # a wedged chip takes it, never ends it
                self._start_send()
        elif reg == TxControlReg:
            regs[reg] = value
            if value & 0x02:
                self.protocol_errors.append("TxControlReg 0x%02x drives TX2, which the strip leaves open" % value)
            self.board.reader_field_changed(self.index)
            if self._pending_tx is not None and self.field_on:
                frame, bits = self._pending_tx
                self._pending_tx = None
                self._transmit(frame, bits)
        elif reg in (CWGsPReg, ModGsPReg):
            regs[reg] = value & 0x3F
            self.board.reader_field_changed(self.index)
        else:
            regs[reg] = value
        if reg in (ComIEnReg, DivIEnReg):
            self.board.irq_changed()

    # --- commands, transmission, reception -----------------------------------------------

    def _command(self, cmd: int) -> None:
        if cmd == SOFT_RESET:
            self.hung = self.hung and self.board.hang_survives_reset
            self._reset_registers()
            self.power = "starting"
            gen = self._gen

            def started() -> None:
                if self._gen == gen:
                    self.power = "on"
                    self.board.irq_changed()

            self.board.clock.after(self.startup_us, started)
            self.board.reader_field_changed(self.index)
            self.board.irq_changed()
            return
        if self.hung:
            return  # the wedged logic ignores commands: only a reset helps
        if cmd == IDLE:
            self.command = IDLE
            self.modem = MODEM_IDLE
            self._pending_tx = None
            self._gen += 1
        elif cmd == TRANSCEIVE:
            self.command = TRANSCEIVE
            self.modem = MODEM_WAIT_START
        elif cmd == 0x7:  # NoCmdChange
            pass
        else:
            self.unsupported.append(cmd)
            self.command = cmd

    def _start_send(self) -> None:
        frame = bytes(self.fifo)
        self.fifo = bytearray()
        bits = self.regs[BitFramingReg] & 0x07
        if self.hung:
            self.modem = MODEM_TRANSMITTING  # and never done
            self.board.exchange_started(self.index, frame, bits, wedged=True)
            return
        if self.regs[TxModeReg] & 0x80:  # TxCRCEn
            frame += crc_a(frame)
        if self.regs[ModeReg] & 0x20 and not self.field_on:  # TxWaitRF: wait for the field
            self.modem = MODEM_TX_WAIT
            self._pending_tx = (frame, bits)
            return
        self._transmit(frame, bits)

    def _transmit(self, frame: bytes, bits: int) -> None:
        board = self.board
        self.modem = MODEM_TRANSMITTING
        self.exchanges += 1
        start = self._tx_start = board.clock.now
        board.exchange_started(self.index, frame, bits)
        gen = self._gen = self._gen + 1
        board.clock.after(reader_frame_us(len(frame), bits), lambda: self._tx_done(gen, frame, bits, start))

    def _tx_done(self, gen: int, frame: bytes, bits: int, start: int) -> None:
        if gen != self._gen:
            return
        board = self.board
        regs = self.regs
        regs[ComIrqReg] |= TX_IRQ
        regs[ErrorReg] &= ~(COLL_ERR | CRC_ERR | PARITY_ERR | PROTOCOL_ERR) & 0xFF  # receiver start-up
        self.modem = MODEM_WAIT_DATA
        if regs[TModeReg] & 0x80:  # TAuto
            self._start_timer()
        heard = board.answers(self.index, frame, bits, start) if self.field_on else []
        if heard and not self.rcv_off:
            n = max(len(answer) for _, answer in heard)
            rx_start = board.clock.now + FDT_US
            board.clock.at(rx_start + 5 * BIT_US, lambda: self._fifth_bit(gen))
            board.clock.at(rx_start + tag_frame_us(n), lambda: self._rx_done(gen, heard))
        board.irq_changed()

    def _fifth_bit(self, gen: int) -> None:
        if gen == self._gen and not self.regs[RxModeReg] & 0x04:  # RxMultiple off: the answer stops the timer
            self._stop_timer()

    def _rx_done(self, gen: int, heard: list[tuple[Tag, bytes]]) -> None:
        if gen != self._gen:
            return
        regs = self.regs
        answers = [answer for tag, answer in heard if tag.powered_since is not None]
        if not answers:
            return  # the field went away mid-answer: nothing arrives
        data = bytearray(answers[0])
        errors = 0
        for other in answers[1:]:
            for k in range(min(len(data), len(other))):
                diff = data[k] ^ other[k]
                if diff:
                    errors |= COLL_ERR
                    first = (diff & -diff).bit_length() - 1  # bits go LSB first
                    regs[CollReg] = (regs[CollReg] & 0x80) | ((8 * k + first + 1) & 0x1F)
                    if not regs[CollReg] & 0x80:  # ValuesAfterColl 0: bits after it are cleared
                        data[k] &= (1 << first) - 1
                        for j in range(k + 1, len(data)):
                            data[j] = 0
                    break
            if errors:
                break
        if self.board.crosstalk(self.index):
            errors |= PARITY_ERR  # a neighbour's carrier on the tag: a garbled answer
        if regs[RxModeReg] & 0x80:  # RxCRCEn: the chip checks and strips the CRC_A
            if len(data) >= 3 and crc_a(bytes(data[:-2])) == bytes(data[-2:]):
                data = data[:-2]
            else:
                errors |= CRC_ERR
        for b in data:
            if len(self.fifo) >= FIFO_SIZE:
                errors |= BUFFER_OVFL
                break
            self.fifo.append(b)
        if errors:
            self._error(errors)
        regs[ComIrqReg] |= RX_IRQ
        self.modem = MODEM_WAIT_START  # Transceive goes on: the next frame waits for StartSend
        self.board.irq_changed()

    def _error(self, bits: int) -> None:
        self.regs[ErrorReg] |= bits
        self.regs[ComIrqReg] |= ERR_IRQ
        self.board.irq_changed()

    # --- timer -------------------------------------------------------------------------------

    def timer_us(self) -> float:
        """TPrescaler and TReload as the datasheet's formula (TPrescalEven 0)."""
        presc = (self.regs[TModeReg] & 0x0F) << 8 | self.regs[TPrescalerReg]
        reload = self.regs[TReloadRegH] << 8 | self.regs[TReloadRegL]
        return (2 * presc + 1) * (reload + 1) / FC_MHZ

    def _start_timer(self) -> None:
        tgen = self._tgen = self._tgen + 1
        self.timer_running = True

        def expired() -> None:
            if tgen == self._tgen and self.power == "on":
                self.timer_running = False
                self.regs[ComIrqReg] |= TIMER_IRQ
                self.board.irq_changed()

        self.board.clock.after(self.timer_us(), expired)

    def _stop_timer(self) -> None:
        self._tgen += 1
        self.timer_running = False

    # --- the IRQ pin ---------------------------------------------------------------------------

    def irq_active(self) -> bool:
        regs = self.regs
        return bool(regs[ComIrqReg] & regs[ComIEnReg] & 0x7F or regs[DivIrqReg] & regs[DivIEnReg] & 0x14)

    def irq_pin(self) -> str:
        """What the IRQ pin does to the shared line: "low", "high" (push-pull) or "z"."""
        if self.power != "on" or self.irq_open:
            return "z"
        level = self.irq_active() != bool(self.regs[ComIEnReg] & 0x80)  # IRqInv inverts it
        if self.regs[DivIEnReg] & 0x80:  # IRQPushPull
            return "high" if level else "low"
        return "z" if level else "low"  # open drain: it can only pull low
