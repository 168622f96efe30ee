"""The Microchip MCP23S17 SPI port expander at register level (DS20001952, BANK = 0).

SPI: opcode ``0100 A2 A1 A0 R/W``, then a register address, then data; the address pointer
moves on after each byte (IOCON.SEQOP 0: sequential, wrapping after OLATB 0x15; SEQOP 1:
toggling within the A/B pair). A chip takes the opcode only when its address matches:
with IOCON.HAEN set, its A2-A0 pins; with HAEN clear, address 0. Microchip's erratum
(MCP23S17 silicon errata, DS80311): a chip whose A2 pin is high answers address 4, not 0,
while HAEN is clear, so it never sees a HAEN write to address 0. IOCON appears at 0x0A and
0x0B. GPIO writes go to OLAT; an output pin follows OLAT while its IODIR bit is 0, an input
pin (IODIR 1, the power-up state) drives nothing. SO drives MISO only for a read's data
bytes. BANK = 1 (another register map) is refused loudly: the firmware never sets it.

Not modeled: interrupts (GPINTEN, DEFVAL and INTCON are plain registers), pull-ups (GPPU
is a plain register), input polarity.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .board import ReferenceBoard

IODIRA = 0x00
IOCON = 0x0A
IOCON_B = 0x0B
GPIOA = 0x12
GPIOB = 0x13
OLATA = 0x14
OLATB = 0x15
HAEN = 0x08
SEQOP = 0x20
BANK = 0x80


class Mcp23s17:
    """The expander on strip ``strip``: chip select ``device``, its A2-A0 pins ``pins``."""

    def __init__(self, board: ReferenceBoard, strip: int, device: int, pins: int, erratum: bool = True) -> None:
        self.board = board
        self.strip = strip
        self.device = device
        self.pins = pins
        self.erratum = erratum
        self.regs = bytearray(0x16)
        self.regs[IODIRA] = self.regs[IODIRA + 1] = 0xFF
        self._state: tuple[str, int] | None = None  # ("w"/"r"/"skip", pointer) within a transaction
        self._bytes = 0
        self.writes = 0

    def address(self) -> int:
        """The hardware address this chip answers now."""
        if self.regs[IOCON] & HAEN:
            return self.pins
        return 4 if self.erratum and self.pins & 4 else 0

    def spi_begin(self) -> None:
        self._state = None
        self._bytes = 0

    def spi_end(self) -> None:
        self._state = None

    def spi_byte(self, mosi: int) -> int | None:
        self._bytes += 1
        if self._bytes == 1:
            if mosi >> 4 == 0x4 and (mosi >> 1) & 7 == self.address():
                self._state = ("r" if mosi & 1 else "w", -1)
            else:
                self._state = ("skip", -1)
            return None
        assert self._state is not None
        kind, ptr = self._state
        if kind == "skip":
            return None
        if ptr < 0:  # the register address
            if mosi > 0x15:
                self._state = ("skip", -1)
                return None
            self._state = (kind, mosi)
            return None
        if kind == "w":
            self._write(ptr, mosi)
            out = None
        else:
            out = self._read(ptr)
        self._state = (kind, self._next(ptr))
        return out

    def _next(self, ptr: int) -> int:
        if self.regs[IOCON] & SEQOP:
            return ptr ^ 1
        return 0 if ptr >= OLATB else ptr + 1

    def _write(self, reg: int, value: int) -> None:
        self.writes += 1
        if reg in (IOCON, IOCON_B):
            if value & BANK:
                raise AssertionError("IOCON.BANK set: the fake models BANK = 0 only")
            self.regs[IOCON] = self.regs[IOCON_B] = value & 0xFE
            return
        if reg in (GPIOA, GPIOB):
            reg += 2  # a GPIO write goes to OLAT
        if reg in (0x0E, 0x0F, 0x10, 0x11):
            return  # INTF, INTCAP: read only
        self.regs[reg] = value
        if reg in (IODIRA, IODIRA + 1, OLATA, OLATB):
            self.board.expander_changed(self)

    def _read(self, reg: int) -> int:
        if reg in (GPIOA, GPIOB):
            port = reg - GPIOA
            value = 0
            for bit in range(8):
                level = self.output(8 * port + bit)
                if level == "high" or (level == "z" and self.board.expander_input_high(self, 8 * port + bit)):
                    value |= 1 << bit
            return value
        return self.regs[reg]

    def output(self, pin: int) -> str:
        """Pin 0-15 (GPA0-7, GPB0-7): "high", "low" or "z" (an input)."""
        port, bit = divmod(pin, 8)
        if self.regs[IODIRA + port] >> bit & 1:
            return "z"
        return "high" if self.regs[OLATA + port] >> bit & 1 else "low"

    def latch(self) -> int:
        """OLATB:OLATA."""
        return self.regs[OLATA] | self.regs[OLATB] << 8
