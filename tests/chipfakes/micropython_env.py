"""MicroPython's modules on the RP2040, as stubs over the chip fakes, and ``hal_rp2`` loaded
on them unchanged.

``machine`` (Pin with values and IRQ handlers, SPI routed to whatever the chip-select
decoders select, ``mem32`` for the SIO GPIO registers and the core regulator's VSEL, WDT,
UART, unique_id, freq: above 133 MHz only with the core at 1.15 V, 200 MHz at most; the
CPU's costs scale with the clock, the SPI bytes' time with the baud rate),
``micropython`` (const, native/viper as no-ops, kbd_intr), ``time`` (ticks on the virtual
clock, wrapping at 2**30 as on the rp2 port), ``select.poll`` (POLLIN/POLLOUT on
``sys.stdin``/``sys.stdout``, ``poll`` and ``ipoll``), ``sys`` (stdin/stdout and their
``buffer`` on the USB CDC model) and ``os.urandom``. Every call costs virtual CPU time
(``CpuCosts``), so loops that wait on the hardware see time pass.

``load_hal_rp2`` executes ``firmware/hal_rp2.py`` in a fresh module whose ``import``
statements get these stubs: nothing in the file is changed or patched, and CPython's own
``time``, ``sys`` and ``select`` are left alone.
"""

from __future__ import annotations

import builtins
import random
import types
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .board import ReferenceBoard

TICKS_PERIOD = 1 << 30
SIO_BASE = 0xD0000000
SIO_GPIO_IN = SIO_BASE + 0x004
SIO_GPIO_OUT = SIO_BASE + 0x010
SIO_GPIO_OUT_SET = SIO_BASE + 0x014
SIO_GPIO_OUT_CLR = SIO_BASE + 0x018
SIO_GPIO_OUT_XOR = SIO_BASE + 0x01C
VREG = 0x40064000  # VREG_AND_CHIP_RESET: VSEL in bits 7:4
VREG_RESET = 0xB1  # VSEL 0b1011 (1.10 V), EN
PADS_BANK0 = 0x4001C000  # GPIOn's pad control at + 4 + 4 n; DRIVE bits 5:4, SLEWFAST bit 0
PADS_RESET = 0x56  # IE, DRIVE 4 mA, PDE, SCHMITT


def pl022_baud(requested: int, clk_peri: int) -> float:
    """The clock the RP2040's SPI really makes (pico-sdk's spi_set_baudrate)."""
    prescale = 2
    while prescale <= 254 and clk_peri >= (prescale + 2) * 256 * requested:
        prescale += 2
    postdiv = 256
    while postdiv > 1 and not clk_peri / (prescale * (postdiv - 1)) > requested:
        postdiv -= 1
    return clk_peri / (prescale * postdiv)
SPI0_PINS = {"sck": (2, 6, 18, 22), "mosi": (3, 7, 19, 23), "miso": (0, 4, 16, 20)}
HAL_RP2 = Path(__file__).resolve().parents[2] / "firmware" / "hal_rp2.py"


class WatchdogReset(Exception):
    """The RP2040's watchdog ran out: the controller would reboot here."""


class KeyboardInterruptOnBoard(Exception):
    """A Ctrl-C (0x03) from the host while ``micropython.kbd_intr`` allowed it: MicroPython
    would raise KeyboardInterrupt in the program (not CPython's, which would stop pytest)."""


class BlockedForever(Exception):
    """A MicroPython call that would never return (a blocking read with nothing coming)."""


class CpuCosts:
    """Virtual CPU time per MicroPython call, microseconds (fractions add up)."""

    def __init__(self, spi_call_us: float = 4.0, mem32_us: float = 0.5, pin_us: float = 1.5,
                 ticks_us: float = 0.5, poll_us: float = 2.0, usb_write_us: float = 3.0,
                 usb_byte_us: float = 0.05) -> None:
        self.spi_call_us = spi_call_us
        self.mem32_us = mem32_us
        self.pin_us = pin_us
        self.ticks_us = ticks_us
        self.poll_us = poll_us
        self.usb_write_us = usb_write_us
        self.usb_byte_us = usb_byte_us


class Rp2040:
    """The controller: its GPIO pins (SIO), the CPU time spent, the watchdog."""

    def __init__(self, board: ReferenceBoard, costs: CpuCosts, ticks_base_us: int) -> None:
        self.board = board
        self.costs = costs
        self.ticks_base_us = ticks_base_us
        self.out = 0  # SIO GPIO_OUT
        self.out_mask = 0  # pins whose output the SIO drives (Pin.OUT)
        self.mode: dict[int, str] = {}  # "in", "out", "spi"
        self.pull: dict[int, str | None] = {}
        self.handlers: dict[int, tuple[Any, int, Any]] = {}  # pin -> (handler, trigger, Pin)
        self._levels: dict[int, int] = {}
        self._frac = 0.0
        self.spi_baud = 0
        self.spi_real_baud = 0.0  # what the PL022 makes of spi_baud at the clock
        self.spi_calls = 0
        self.pads: dict[int, int] = {}  # PADS_BANK0 registers written (pin -> value)
        self.freq_hz = 125_000_000
        self.vreg = VREG_RESET
        self.wdt_timeout_us: int | None = None
        self.wdt_fed = 0
        self.wdt_feeds = 0
        self.kbd_intr: list[int] = []

    def charge(self, us: float, io: float = 0.0) -> None:
        """The CPU spends ``us`` (at 125 MHz; less at a faster clock) and waits ``io`` for a
        peripheral: the clock moves, chips and tags act meanwhile."""
        self._frac += us * 125_000_000 / self.freq_hz + io
        whole = int(self._frac)
        self._frac -= whole
        self.board.clock.advance(whole)
        usb = self.board.usb
        if usb.interrupt_pending:
            usb.interrupt_pending = False
            raise KeyboardInterruptOnBoard("Ctrl-C from the host")

    def level(self, pin: int) -> int:
        if self.out_mask >> pin & 1:
            return self.out >> pin & 1
        ext = self.board.external_level(pin)
        if ext is not None:
            return ext
        pull = self.pull.get(pin)
        return 1 if pull == "up" else 0  # a floating input reads 0 here

    def set_mode(self, pin: int, mode: str) -> None:
        self.mode[pin] = mode
        if mode == "out":
            self.out_mask |= 1 << pin
        else:
            self.out_mask &= ~(1 << pin)
        self.board.gpio_changed()

    def set_out(self, value: int) -> None:
        changed = (self.out ^ value) & self.out_mask
        self.out = value & 0x3FFFFFFF
        if changed:
            self.board.gpio_changed()

    def check_edges(self) -> None:
        """Call the IRQ handlers of input pins whose level changed."""
        for pin, (handler, trigger, obj) in list(self.handlers.items()):
            new = self.level(pin)
            old = self._levels.get(pin, new)
            self._levels[pin] = new
            if old != new and (trigger & (4 if new == 0 else 8)) and handler is not None:
                handler(obj)

    def watchdog_check(self) -> None:
        if self.wdt_timeout_us is not None and self.board.clock.now - self.wdt_fed > self.wdt_timeout_us:
            self.wdt_timeout_us = None
            raise WatchdogReset("watchdog: not fed for %d ms" % ((self.board.clock.now - self.wdt_fed) // 1000))


def make_modules(board: ReferenceBoard, seed: int = 0) -> dict[str, types.ModuleType]:
    """The MicroPython modules ``hal_rp2`` imports, bound to ``board``."""
    cpu = board.cpu
    costs = cpu.costs
    clock = board.clock
    usb = board.usb
    rng = random.Random(seed)

    # --- machine ------------------------------------------------------------------------
    machine = types.ModuleType("machine")

    class Pin:
        IN = 0
        OUT = 1
        OPEN_DRAIN = 2
        ALT = 3
        PULL_UP = 1
        PULL_DOWN = 2
        IRQ_FALLING = 4
        IRQ_RISING = 8

        def __init__(self, id: int, mode: int = -1, pull: int = -1, *, value: int | None = None) -> None:
            if not 0 <= id <= 29:
                raise ValueError("invalid pin")
            self.id = id
            self.init(mode, pull, value=value)

        def init(self, mode: int = -1, pull: int = -1, *, value: int | None = None) -> None:
            pin = self.id
            if value is not None:
                cpu.set_out(cpu.out | 1 << pin if value else cpu.out & ~(1 << pin))
            if mode == Pin.OUT:
                cpu.set_mode(pin, "out")
            elif mode == Pin.IN:
                cpu.set_mode(pin, "in")
            elif mode != -1:
                raise ValueError("mode %d not modeled" % mode)
            if pull != -1:
                cpu.pull[pin] = {0: None, None: None, Pin.PULL_UP: "up", Pin.PULL_DOWN: "down"}[pull]

        def value(self, x: int | None = None) -> int | None:
            cpu.charge(costs.pin_us)
            if x is None:
                return cpu.level(self.id)
            cpu.set_out(cpu.out | 1 << self.id if x else cpu.out & ~(1 << self.id))
            return None

        __call__ = value

        def on(self) -> None:
            self.value(1)

        def off(self) -> None:
            self.value(0)

        def irq(self, handler: Any = None, trigger: int = 12, hard: bool = False) -> None:
            cpu.handlers[self.id] = (handler, trigger, self)
            cpu._levels[self.id] = cpu.level(self.id)

    class SPI:
        MSB = 0
        LSB = 1

        def __init__(self, id: int, baudrate: int = 1000000, *, polarity: int = 0, phase: int = 0, bits: int = 8,
                     firstbit: int = 0, sck: Pin | None = None, mosi: Pin | None = None,
                     miso: Pin | None = None) -> None:
            if id != 0:
                raise ValueError("only SPI0 is wired")
            for name, pin in (("sck", sck), ("mosi", mosi), ("miso", miso)):
                if pin is None or pin.id not in SPI0_PINS[name]:
                    raise ValueError("bad %s pin" % name.upper())
                cpu.set_mode(pin.id, "spi")
            if (polarity, phase, bits, firstbit) != (0, 0, 8, 0):
                raise ValueError("the MFRC522 and MCP23S17 need SPI mode 0, 8 bits, MSB first")
            self.wired = (sck.id, mosi.id, miso.id) == (2, 3, 4)  # the board's traces
            self.init(baudrate)

        def init(self, baudrate: int) -> None:
            if baudrate > 10_000_000:
                raise ValueError("%d baud: the MCP23S17 takes 10 MHz at most" % baudrate)
            cpu.spi_baud = baudrate
            cpu.spi_real_baud = pl022_baud(baudrate, cpu.freq_hz)
            self.byte_us = 8e6 / cpu.spi_real_baud

        def _transfer(self, out: Any, into: Any) -> None:
            cpu.spi_calls += 1
            n = len(out) if out is not None else len(into)
            cpu.charge(costs.spi_call_us, n * self.byte_us)
            for k in range(n):
                mosi = out[k] if out is not None else self._fill
                miso = board.spi_byte(mosi) if self.wired else 0xFF
                if into is not None:
                    into[k] = miso

        def write(self, buf: Any) -> None:
            self._transfer(memoryview(bytes(buf)), None)

        def readinto(self, buf: Any, write: int = 0) -> None:
            self._fill = write
            self._transfer(None, buf)

        def read(self, n: int, write: int = 0) -> bytes:
            buf = bytearray(n)
            self.readinto(buf, write)
            return bytes(buf)

        def write_readinto(self, wbuf: Any, rbuf: Any) -> None:
            if len(wbuf) != len(rbuf):
                raise ValueError("buffers must be the same length")
            self._transfer(bytes(wbuf), rbuf)

    class Mem32:
        def __getitem__(self, addr: int) -> int:
            cpu.charge(costs.mem32_us)
            if addr == SIO_GPIO_IN:
                return sum(cpu.level(p) << p for p in range(30))
            if addr == SIO_GPIO_OUT:
                return cpu.out
            if addr == VREG:
                return cpu.vreg
            if PADS_BANK0 + 4 <= addr < PADS_BANK0 + 4 + 4 * 30:
                return cpu.pads.get((addr - PADS_BANK0 - 4) // 4, PADS_RESET)
            raise AssertionError("mem32 read of 0x%08x: not modeled" % addr)

        def __setitem__(self, addr: int, value: int) -> None:
            cpu.charge(costs.mem32_us)
            if addr == SIO_GPIO_OUT_SET:
                cpu.set_out(cpu.out | value)
            elif addr == SIO_GPIO_OUT_CLR:
                cpu.set_out(cpu.out & ~value)
            elif addr == SIO_GPIO_OUT_XOR:
                cpu.set_out(cpu.out ^ value)
            elif addr == SIO_GPIO_OUT:
                cpu.set_out(value)
            elif addr == VREG:
                if value & 0x02:
                    raise AssertionError("VREG.HIZ set: the core would lose its supply")
                cpu.vreg = value & 0xF3
            elif PADS_BANK0 + 4 <= addr < PADS_BANK0 + 4 + 4 * 30:
                cpu.pads[(addr - PADS_BANK0 - 4) // 4] = value & 0xFF
            else:
                raise AssertionError("mem32 write of 0x%08x: not modeled" % addr)

    class WDT:
        def __init__(self, id: int = 0, timeout: int = 5000) -> None:
            if not 1 <= timeout <= 8388:
                raise ValueError("timeout: the RP2040 watchdog takes at most 8388 ms")
            cpu.wdt_timeout_us = timeout * 1000
            cpu.wdt_fed = clock.now
            board.watchdog_started = timeout

        def feed(self) -> None:
            cpu.charge(costs.pin_us)
            if cpu.wdt_timeout_us is not None:
                cpu.wdt_fed = clock.now
                cpu.wdt_feeds += 1

    class UART:
        def __init__(self, id: int, baudrate: int = 115200, **kw: Any) -> None:
            self.tx = bytearray()
            self.rx = bytearray()
            board.uart = self

        def write(self, buf: Any) -> int:
            cpu.charge(costs.usb_write_us + len(buf) * costs.usb_byte_us)
            self.tx += bytes(buf)
            return len(buf)

        def read(self, n: int = -1) -> bytes | None:
            cpu.charge(costs.poll_us)
            if not self.rx:
                return None
            data = bytes(self.rx if n < 0 else self.rx[:n])
            del self.rx[:len(data)]
            return data

    def unique_id() -> bytes:
        return board.unique_id

    def freq(hz: int | None = None) -> int | None:
        if hz is None:
            return cpu.freq_hz
        vsel = cpu.vreg >> 4 & 0xF
        if hz > 200_000_000:
            raise AssertionError("machine.freq(%d): the RP2040 is certified to 200 MHz" % hz)
        if hz > 133_000_000 and vsel < 0xC:
            raise AssertionError("machine.freq(%d) with VSEL 0x%x: above 133 MHz the core needs 1.15 V" % (hz, vsel))
        cpu.freq_hz = hz
        return None

    def idle() -> None:
        cpu.charge(10)

    for name, value in (("Pin", Pin), ("SPI", SPI), ("WDT", WDT), ("UART", UART), ("mem32", Mem32()),
                        ("unique_id", unique_id), ("freq", freq), ("idle", idle)):
        setattr(machine, name, value)

    # --- micropython ----------------------------------------------------------------------
    mp = types.ModuleType("micropython")

    def kbd_intr(char: int) -> None:
        cpu.kbd_intr.append(char)
        usb.interrupt_char = char

    def same(f: Any) -> Any:
        return f

    for name, value in (("const", same), ("native", same), ("viper", same), ("asm_thumb", same),
                        ("kbd_intr", kbd_intr), ("alloc_emergency_exception_buf", lambda n: None),
                        ("schedule", lambda f, arg: f(arg)), ("opt_level", lambda *a: 0)):
        setattr(mp, name, value)

    # --- time -------------------------------------------------------------------------------
    mtime = types.ModuleType("time")

    def ticks_us() -> int:
        cpu.charge(costs.ticks_us)
        return (clock.now + cpu.ticks_base_us) & (TICKS_PERIOD - 1)

    def ticks_ms() -> int:
        cpu.charge(costs.ticks_us)
        return ((clock.now + cpu.ticks_base_us) // 1000) & (TICKS_PERIOD - 1)

    def ticks_diff(a: int, b: int) -> int:
        half = TICKS_PERIOD >> 1
        return ((a - b + half) & (TICKS_PERIOD - 1)) - half

    def ticks_add(t: int, delta: int) -> int:
        if not -(TICKS_PERIOD >> 1) <= delta < TICKS_PERIOD >> 1:
            raise OverflowError("ticks interval overflow")
        return (t + delta) & (TICKS_PERIOD - 1)

    def sleep_us(us: int) -> None:
        cpu.charge(0, max(0, us))

    def sleep_ms(ms: int) -> None:
        cpu.charge(0, max(0, ms) * 1000)

    for name, value in (("ticks_us", ticks_us), ("ticks_ms", ticks_ms), ("ticks_diff", ticks_diff),
                        ("ticks_add", ticks_add), ("sleep_us", sleep_us), ("sleep_ms", sleep_ms),
                        ("sleep", lambda s: sleep_ms(int(s * 1000)))):
        setattr(mtime, name, value)

    # --- sys: stdin, stdout on the USB CDC ------------------------------------------------
    class StdioBuffer:
        def __init__(self, fd: int) -> None:
            self.fd = fd

        def write(self, buf: Any, off: int | None = None, maxlen: int | None = None) -> int:
            if self.fd == 0:
                raise OSError(1, "EPERM")
            data = bytes(buf)
            if maxlen is None and off is not None:  # write(buf, max)
                data = data[:off]
            elif off is not None:
                data = data[off:off + (maxlen if maxlen is not None else len(data))]
            cpu.charge(costs.usb_write_us + len(data) * costs.usb_byte_us)
            return usb.write(data)

        def read(self, n: int = 1) -> bytes:
            if self.fd != 0:
                raise OSError(1, "EPERM")
            waited = 0
            while len(usb.stdin) < n:  # mp_hal_stdin_rx_chr waits for ever
                cpu.charge(0, 1000)
                waited += 1
                if waited > 10_000:
                    raise BlockedForever("sys.stdin.buffer.read(%d): nothing came for 10 s" % n)
            cpu.charge(costs.usb_write_us)
            data = bytes(usb.stdin[:n])
            del usb.stdin[:n]
            return data

    class Stdio:
        def __init__(self, fd: int) -> None:
            self.fd = fd
            self.buffer = StdioBuffer(fd)

        def write(self, text: str) -> int:
            self.buffer.write(text.replace("\n", "\r\n").encode())
            return len(text)

        def read(self, n: int = 1) -> str:
            return self.buffer.read(n).decode()

    msys = types.ModuleType("sys")
    msys.stdin = Stdio(0)  # type: ignore[attr-defined]
    msys.stdout = Stdio(1)  # type: ignore[attr-defined]
    msys.stderr = Stdio(2)  # type: ignore[attr-defined]
    msys.platform = "rp2"  # type: ignore[attr-defined]
    msys.implementation = types.SimpleNamespace(name="micropython", version=usb.version + (0,))  # type: ignore[attr-defined]

    # --- select -------------------------------------------------------------------------------
    mselect = types.ModuleType("select")
    POLLIN, POLLOUT, POLLERR, POLLHUP = 1, 4, 8, 16

    class Poll:
        def __init__(self) -> None:
            self.objs: dict[int, tuple[Any, int]] = {}

        def register(self, obj: Any, mask: int = POLLIN | POLLOUT) -> None:
            self.objs[id(obj)] = (obj, mask)

        def modify(self, obj: Any, mask: int) -> None:
            self.objs[id(obj)] = (obj, mask)

        def unregister(self, obj: Any) -> None:
            self.objs.pop(id(obj), None)

        def _ready(self) -> list[tuple[Any, int]]:
            out = []
            for obj, mask in self.objs.values():
                if not isinstance(obj, Stdio):
                    raise AssertionError("poll on %r: only sys.stdin/sys.stdout are modeled" % obj)
                ev = 0
                if mask & POLLIN and usb.poll_in():  # stdio's ioctl answers for stdin and stdout alike
                    ev |= POLLIN
                if mask & POLLOUT and usb.poll_out():
                    ev |= POLLOUT
                if ev:
                    out.append((obj, ev))
            return out

        def poll(self, timeout: int = -1) -> list[tuple[Any, int]]:
            cpu.charge(costs.poll_us)
            ready = self._ready()
            waited = 0
            while not ready and timeout != 0 and (timeout < 0 or waited < timeout):
                cpu.charge(0, 1000)
                waited += 1
                ready = self._ready()
            return ready

        def ipoll(self, timeout: int = -1, flags: int = 0) -> Any:
            ready = self.poll(timeout)
            if flags & 1:  # one-shot: events off until modify()
                for obj, _ in ready:
                    self.objs[id(obj)] = (obj, 0)
            return iter(ready)

    for name, value in (("poll", Poll), ("POLLIN", POLLIN), ("POLLOUT", POLLOUT), ("POLLERR", POLLERR),
                        ("POLLHUP", POLLHUP)):
        setattr(mselect, name, value)

    # --- os -------------------------------------------------------------------------------------
    mos = types.ModuleType("os")
    mos.urandom = lambda n: bytes(rng.randrange(256) for _ in range(n))  # type: ignore[attr-defined]

    return {"machine": machine, "micropython": mp, "time": mtime, "sys": msys, "select": mselect, "os": mos}


def load_hal_rp2(modules: dict[str, types.ModuleType]) -> types.ModuleType:
    """A fresh ``firmware.hal_rp2`` whose imports of MicroPython modules get ``modules``."""
    real_import = builtins.__import__

    def micropython_import(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (),
                           level: int = 0) -> Any:
        if level == 0 and name in modules:
            return modules[name]
        if level == 0 and name.split(".")[0] in ("rp2", "network", "bluetooth", "uasyncio", "asyncio"):
            raise ImportError("%s is not modeled" % name)
        return real_import(name, globals, locals, fromlist, level)

    env = dict(vars(builtins))
    env["__import__"] = micropython_import
    module = types.ModuleType("firmware.hal_rp2")
    module.__file__ = str(HAL_RP2)
    module.__dict__["__builtins__"] = env
    exec(compile(HAL_RP2.read_text(encoding="utf-8"), str(HAL_RP2), "exec"), module.__dict__)
    return module
