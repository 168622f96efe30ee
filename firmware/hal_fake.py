"""A virtual board behind the HAL, on a virtual clock whose costs follow TIMING.md.

Runs under CPython only (tests, the scan model, ``scoreboard simulate-board``). Time
passes only when the controller works or waits: every HAL call charges the CPU time the
real driver would spend (``Costs``), and a read keeps its reader busy for as long as the
real exchange takes (a 7-byte select 6.5-8.5 ms, an empty antenna the WUPA plus the
configured time-out). So the scanner code itself, not a formula, produces the sweep and
latency figures.

Faults, as the hardware notes describe them: a flickering tag (missed now and then, or
on every other read), junk reads (a garbled UID), crosstalk between two readers whose
antennas are next to each other at the same moment (garbled UIDs, no error), a slid tile
(one tag on two cells for a moment), a dead reader (silent until reset after it was
revived) and a reader that answers only garbage.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable

from firmware.frames import AREA_BOARD, COLS, parse_loc
from firmware.hal import SETTLE_MAX_US, SETTLE_US, TICKS_PERIOD, BadRead, Hal, ReaderFault, exchange_deadline_us
from firmware.iso14443a import cascade1
from firmware.mcp23s17 import HAEN, IOCON, IODIRA, OLATA, enable_addresses
from firmware.scanner import Layout


class Costs:
    """Time costs in microseconds (TIMING.md, "Per-read costs"): the parameters of the model.

    Reader time: a 7-byte select is 5 exchanges (WUPA, anticollision and select at cascade
    levels 1 and 2) whose radio time adds up to 6.5-8.5 ms (measured), a fifth each; an
    empty antenna is the WUPA plus the configured time-out; a presence check the first 2
    exchanges. Between two exchanges the reader waits for the CPU: the HAL launches the
    next one only when it gets to the reader, so a loaded CPU stretches every read.

    CPU time is counted in ``hal_rp2``'s SPI transactions (``reg_us`` each: 2-3 bytes at
    4 MHz plus MicroPython's call overhead at 125 MHz) and its Python work
    (``python_scale`` stretches the latter):

    - start: pick the antenna (60 us), one expander write (the antenna), one to switch the
      transmitter on; after the settle time, 7 transactions to launch the WUPA;
    - each finished exchange: 1.5 transactions to find the reader behind the IRQ line, 2 to
      fetch the answer, 30 us in ``Select.answer``; each next exchange 7 to launch; two
      CRC_A (40 us each) per full select;
    - end of a read, a fault's too: CMD_IDLE, transmitter off, antenna deselected, IRQ
      released (4 transactions), 40 us of debounce;
    - a frame to the host: ``cpu_write_us`` plus ``cpu_write_byte_us`` a byte (``hal_rp2``
      writes the USB CDC one byte at a time, each after a poll: an estimate to measure), the
      first ``PUMP_WRITE`` bytes at once, the rest ``PUMP_READY`` bytes per ``ready()`` call
      (``PUMP_IDLE`` per ``idle()``) as ``hal_rp2``'s queue sends them. The frame counts as
      sent when written (``tx``), its bytes' CPU time follows.

    ``tag_powerup_us``: how long a tag needs in the field before it answers (ISO 14443-3
    allows 5 ms); a WUPA sent sooner after the antenna was switched on goes unanswered.
    ``mcp_erratum``: expanders with A2 high ignore a HAEN write to address 0.
    """

    def __init__(self, reg_us: float = 15.0, python_scale: float = 1.0,
                 tag_min_us: int = 6500, tag_max_us: int = 8500, tag_powerup_us: int = 200,
                 mcp_erratum: bool = True, cpu_write_byte_us: float = 10.0) -> None:
        self.reg_us = reg_us
        self.python_scale = python_scale
        self.tag_powerup_us = tag_powerup_us
        self.mcp_erratum = mcp_erratum
        self.wupa_us = 100  # the WUPA frame and the tag's frame delay time
        self.tag_min_us = tag_min_us  # a 7-byte select, measured (HARDWARE-NOTES.md)
        self.tag_max_us = tag_max_us
        self.select_exchanges = 5  # WUPA, then anticollision + select at levels 1 and 2
        self.confirm_exchanges = 2  # WUPA and level-1 anticollision
        self.reset_us = 2000  # RST pulse, oscillator start, register set-up
        reg, py = reg_us, python_scale
        self.cpu_pick_us = int(60 * py + 2 * reg + 5)  # pick, antenna on, transmitter on
        self.cpu_launch_us = int(7 * reg)  # CMD_IDLE, clear IRQs, flush, FIFO, framing, TRANSCEIVE, StartSend
        self.cpu_nothing_us = 5  # the IRQ line is high: one GPIO read
        self.cpu_exchange_us = int(1.5 * reg + 2 * reg + 30 * py)  # find, fetch, Select.answer
        self.cpu_crc_us = int(40 * py)
        self.cpu_end_us = int(4 * reg + 40 * py)  # CMD_IDLE, field off, antenna off, IRQ; debounce
        self.cpu_write_us = 50  # one frame to the host, its bytes not counted
        self.cpu_write_byte_us = cpu_write_byte_us  # each byte: a poll and a 1-byte USB write
        self.cpu_read_us = 10  # polling the serial input

    @property
    def cpu_start_us(self) -> int:
        """CPU time to start a read up to its WUPA (the settle time not counted)."""
        return self.cpu_pick_us + self.cpu_launch_us

    @property
    def cpu_tag_us(self) -> int:
        """CPU time of a full select of a 7-byte UID after the start."""
        n = self.select_exchanges
        return n * self.cpu_exchange_us + (n - 1) * self.cpu_launch_us + 2 * self.cpu_crc_us + self.cpu_end_us

    @property
    def cpu_empty_us(self) -> int:
        """CPU time of an empty antenna after the start."""
        return self.cpu_exchange_us + self.cpu_end_us


PUMP_WRITE = 32  # hal_rp2.USB_PUMP_WRITE
PUMP_READY = 16  # hal_rp2.USB_PUMP_READY
PUMP_IDLE = 64  # 4 x hal_rp2.USB_PUMP_READY


class FakeExpanders:
    """The MCP23S17s behind each expander chip select, at register level (IOCON, OLAT...).

    With ``erratum`` an expander whose A2 pin is high answers address 4 instead of 0 while
    IOCON.HAEN is clear (Microchip's erratum). A read nobody answers gives 0xFF (MISO
    pulled up); several answering give the AND of their bytes. ``straps`` gives an expander
    whose address pins are wired (or soldered) wrong the address they really set.
    """

    def __init__(self, devices: dict[int, int], erratum: bool = True,
                 straps: dict[tuple[int, int], int] | None = None) -> None:
        self.erratum = erratum
        self.straps = dict(straps or {})  # (device, hw) -> the address its A2-A0 pins really give
        self.regs: dict[tuple[int, int], bytearray] = {}
        for device, count in devices.items():
            for hw in range(count):
                regs = bytearray(0x16)
                regs[0] = regs[1] = 0xFF  # IODIR: inputs after power-up
                self.regs[(device, hw)] = regs
        self.writes = 0
        self._answers: dict[tuple[int, int], list[bytearray]] = {}  # (device, address) -> who answers

    def _answering(self, device: int, addr: int) -> list[bytearray]:
        hit = self._answers.get((device, addr))
        if hit is None:
            hit = self._answers[(device, addr)] = self._find_answering(device, addr)
        return hit

    def _find_answering(self, device: int, addr: int) -> list[bytearray]:
        out = []
        for (d, hw), regs in self.regs.items():
            if d != device:
                continue
            pins = self.straps.get((d, hw), hw)
            if regs[0x0A] & 0x08:
                own = pins
            else:
                own = 4 if self.erratum and pins & 4 else 0
            if own == addr:
                out.append(regs)
        return out

    def mcp_write(self, device: int, hw: int, reg: int, data: bytes) -> None:
        self.writes += 1
        for regs in self._answering(device, hw):
            for k, b in enumerate(data):
                r = (reg + k) % 0x16
                regs[r] = b
                if r in (0x0A, 0x0B):  # one IOCON, seen at both addresses
                    regs[0x0A] = regs[0x0B] = b
                    self._answers.clear()  # (HAEN decides who answers which address)

    def mcp_read(self, device: int, hw: int, reg: int) -> int:
        value = 0xFF
        for regs in self._answering(device, hw):
            value &= regs[reg]
        return value

    def latch(self, device: int, hw: int) -> int:
        """OLATB:OLATA of the expander at ``hw`` (its real address), 16 bits."""
        regs = self.regs[(device, hw)]
        return regs[0x14] | regs[0x15] << 8


class _Job:
    """One read: the exchanges still to go and what the last one will give."""

    __slots__ = ("loc", "outcome", "present", "confirmed", "radio", "launch_us", "done_us", "deadline_us",
                 "started_us", "exchanges")

    def __init__(self, loc: int, started_us: int) -> None:
        self.loc = loc  # the location actually under the live antenna (-1: none)
        self.outcome: object = None  # bytes, None, or an exception to raise
        self.present = False
        self.confirmed = False  # a presence check that matched: the cheap path
        self.radio: list[int] = []  # radio time of each exchange still to launch
        self.launch_us: int | None = None  # the WUPA waits for the settle time until then
        self.done_us: int | None = None  # the exchange on air ends then (None: never, hung)
        self.deadline_us = 0
        self.started_us = started_us
        self.exchanges = 0


def _loc(loc: int | str) -> int:
    return parse_loc(loc) if isinstance(loc, str) else loc


def _near(a: int, b: int, distance: int = 1) -> bool:
    """True when two board cells are within ``distance`` cells (also diagonally)."""
    if a >> 8 != AREA_BOARD or b >> 8 != AREA_BOARD:
        return False
    ra, ca = divmod(a & 0xFF, COLS)
    rb, cb = divmod(b & 0xFF, COLS)
    return abs(ra - rb) <= distance and abs(ca - cb) <= distance


class VirtualBoard:
    """Where the tags are: location -> UID, with per-location read faults."""

    def __init__(self) -> None:
        self.tags: dict[int, bytes] = {}
        self.flicker_p: dict[int, float] = {}
        self.alternate: dict[int, bool] = {}
        self.junk_p: dict[int, float] = {}
        self._reads: dict[int, int] = {}

    def place(self, loc: int | str, uid: bytes) -> None:
        """Put the tag ``uid`` on ``loc``, taking it away from wherever it was."""
        loc = _loc(loc)
        if len(uid) not in (4, 7, 10):
            raise ValueError(f"a UID has 4, 7 or 10 bytes, not {len(uid)}: {uid.hex()}")
        for other in [k for k, v in self.tags.items() if v == uid]:
            del self.tags[other]
        self.tags[loc] = bytes(uid)

    def remove(self, loc: int | str) -> bytes | None:
        """Take the tag off ``loc``; its UID, or None when there was none."""
        return self.tags.pop(_loc(loc), None)

    def add_copy(self, loc: int | str, uid: bytes) -> None:
        """The tag also answers on ``loc`` (a tile between two cells)."""
        self.tags[_loc(loc)] = bytes(uid)

    def flicker(self, loc: int | str, p: float = 0.5, alternate: bool = False) -> None:
        """Miss the tag on ``loc`` with probability ``p``, or on every other read; p=0 stops."""
        loc = _loc(loc)
        self.flicker_p.pop(loc, None)
        self.alternate.pop(loc, None)
        if alternate:
            self.alternate[loc] = True
        elif p > 0:
            self.flicker_p[loc] = p

    def junk(self, loc: int | str, p: float = 0.2) -> None:
        """Garble the UID read on ``loc`` with probability ``p``; p=0 stops."""
        loc = _loc(loc)
        if p > 0:
            self.junk_p[loc] = p
        else:
            self.junk_p.pop(loc, None)

    def read(self, loc: int, rng: random.Random) -> bytes | None:
        """What one read of ``loc`` returns."""
        uid = self.tags.get(loc)
        if uid is None:
            return None
        n = self._reads[loc] = self._reads.get(loc, 0) + 1
        if self.alternate.get(loc) and n % 2 == 0:
            return None
        p = self.flicker_p.get(loc)
        if p and rng.random() < p:
            return None
        p = self.junk_p.get(loc)
        if p and rng.random() < p:
            return garble(uid, rng)
        return uid


def garble(uid: bytes, rng: random.Random) -> bytes:
    """``uid`` with one random bit flipped (what a disturbed read returns)."""
    out = bytearray(uid)
    bit = rng.randrange(len(out) * 8)
    out[bit // 8] ^= 1 << (bit % 8)
    return bytes(out)


class FakeHal(Hal):
    """The HAL over a :class:`VirtualBoard`, on a virtual microsecond clock.

    Chip by chip where it matters: the MCP23S17s (:class:`FakeExpanders`) choose which
    antenna of a reader is live, so an expander that takes another's writes puts the read on
    the wrong cell; every reader's transmitter and live antenna are tracked, and each
    exchange launched next to another live field is counted in ``keepout_violations``.
    ``haen_workaround=False`` sets up the expanders as the firmware did before the erratum
    was known (HAEN written to address 0 only); ``release_idle=False`` leaves an idle
    reader's field on and its last antenna selected, as it did before. ``expander_straps``
    maps a reader to the hardware address its expander's pins really give (a pin soldered
    wrong): such an expander fails the address check at boot, and so may the one it
    collides with. ``versions`` holds what each reader's VersionReg reads; a dead reader
    reads 0xFF (nothing drives MISO).
    """

    def __init__(self, layout: Layout, *, board: VirtualBoard | None = None, costs: Costs | None = None,
                 seed: int = 0, ticks_base_ms: int = 0, board_id: bytes = b"\xe6\x61\x18\x60\x4b\x2d\x3a\x2f",
                 crosstalk_p: float = 0.5, settle_us: int | None = None, haen_workaround: bool = True,
                 release_idle: bool = True, expander_straps: dict[int, int] | None = None) -> None:
        self.layout = layout
        self.readers = len(layout.readers)
        self.board = board if board is not None else VirtualBoard()
        self.costs = costs if costs is not None else Costs()
        self.rng = random.Random(seed)
        self.seed = seed
        self.boots = 0  # boot ids drawn (one per boot)
        self.ticks_base_ms = ticks_base_ms
        self.board_id = board_id
        self.crosstalk_p = crosstalk_p
        self.release_idle = release_idle
        self.now_us = 0
        self.horizon_us: int | None = None
        self.timeout_us = 1500
        self.settle_us = 0
        self.set_settle_us(SETTLE_US if settle_us is None else settle_us)
        self.jobs: list[_Job | None] = [None] * self.readers
        self.finished: list[_Job | None] = [None] * self.readers
        self.dead: set[int] = set()
        self.revived: set[int] = set()
        self.garbage_readers: set[int] = set()
        self.connected = True
        self.tx: list[bytes] = []
        self.tx_us: list[int] = []  # when each entry of ``tx`` was written
        self.rx = bytearray()
        self.dropped_writes = 0
        self.tx_debt_us = 0.0  # CPU time the queued bytes of frames written still need
        self.watchdog_feeds = 0
        self.max_feed_gap_us = 0
        self._last_feed_us = 0
        self.cpu_us = 0
        self.reads_started = 0
        self.checks_started = 0  # reads started with a known UID (presence checks)
        self.crosstalk_events = 0
        self.exchanges = 0  # exchanges launched, every reader
        self.keepout_violations: list[tuple[int, int, int]] = []  # (reader, other reader, us)
        self.idle_commands = [0] * self.readers  # CMD_IDLE written at the end of a read
        self.settles: list[int] = []  # us from an antenna switched on to its WUPA, every read
        self.resets: list[int] = []
        self.field = [False] * self.readers  # the transmitter on
        self.field_since = [0] * self.readers
        self._events: list[tuple[int, int, Callable[[], None]]] = []
        self._event_seq = 0
        self._wide: dict[int, int] = {}
        self._near_readers: dict[int, list[int]] = {}  # board cell -> readers with an antenna near it
        groups: dict[int, int] = {}
        for r in range(self.readers):
            device, hw = self.expander_of(r)
            groups[device] = max(groups.get(device, 0), hw + 1)
        straps = {self.expander_of(r): hw for r, hw in (expander_straps or {}).items()}
        self.expanders = FakeExpanders(groups, erratum=self.costs.mcp_erratum, straps=straps)
        self.versions = [0x92] * self.readers  # what each reader's VersionReg reads (MFRC522 2.0)
        self.unaddressed: list[int] = []  # readers whose expander failed the address check
        for device, count in groups.items():
            if haen_workaround:
                bad = enable_addresses(self.expanders, device, range(count))
            else:
                self.expanders.mcp_write(device, 0, IOCON, bytes((HAEN, HAEN)))
                bad = []
            for hw in bad:
                self.unaddressed.append(device * 8 + hw)
        for r in range(self.readers):
            device, hw = self.expander_of(r)
            self.expanders.mcp_write(device, hw, IODIRA, b"\x00\x00")
            self.expanders.mcp_write(device, hw, OLATA, b"\x00\x80")  # RST high, no antenna
        for r in self.unaddressed:
            self.dead.add(r)

    @staticmethod
    def expander_of(reader: int) -> tuple[int, int]:
        """(expander chip select, hardware address) of ``reader``'s strip, as in hal_rp2."""
        return reader >> 3, reader & 7

    def live_loc(self, reader: int) -> int:
        """The location under ``reader``'s selected antenna (by its expander), or -1."""
        locs = self.layout.readers[reader]
        if len(locs) > 15:
            a = self._wide.get(reader, -1)
            return int(locs[a]) if a >= 0 else -1
        latch = self.expanders.latch(reader >> 3, reader & 7) & ((1 << len(locs)) - 1)  # (expander_of)
        return int(locs[(latch & -latch).bit_length() - 1]) if latch else -1  # the lowest antenna selected

    # --- time ---------------------------------------------------------------------------

    def ticks_ms(self) -> int:
        return (self.ticks_base_ms + self.now_us // 1000) % TICKS_PERIOD

    def ticks_us(self) -> int:
        return (self.ticks_base_ms * 1000 + self.now_us) % TICKS_PERIOD

    @property
    def now_ms(self) -> float:
        """Virtual time since start, in milliseconds (not wrapped)."""
        return self.now_us / 1000

    def _advance_to(self, t_us: int) -> None:
        while self._events and self._events[0][0] <= t_us:
            when, _, fn = heapq.heappop(self._events)
            self.now_us = max(self.now_us, when)
            fn()
        self.now_us = max(self.now_us, t_us)

    def _cpu(self, us: float) -> None:
        us = max(1, int(us))
        self.cpu_us += us
        self._advance_to(self.now_us + us)

    def after_ms(self, ms: float, fn: Callable[[], None]) -> None:
        """Call ``fn`` when the virtual clock reaches now + ``ms``."""
        self._event_seq += 1
        heapq.heappush(self._events, (self.now_us + int(ms * 1000), self._event_seq, fn))

    def advance_ms(self, ms: float) -> None:
        """Let ``ms`` pass without the controller running (for tests of the board alone)."""
        self._advance_to(self.now_us + int(ms * 1000))

    def _pump(self, nbytes: int) -> None:
        """The CPU sends up to ``nbytes`` queued bytes to the host."""
        us = min(self.tx_debt_us, nbytes * self.costs.cpu_write_byte_us)
        self.tx_debt_us -= us
        self._cpu(us)

    def idle(self, max_us: int) -> None:
        if self.tx_debt_us > 0:
            self._pump(PUMP_IDLE)
            return
        target = self.now_us + max(1, int(max_us))
        pending = [t for t in (self._due(j) for j in self.jobs if j is not None) if t > self.now_us]
        if pending:
            target = min(target, min(pending))
        if self.horizon_us is not None:
            target = min(target, max(self.horizon_us, self.now_us))
        self._advance_to(target)

    # --- readers ------------------------------------------------------------------------

    def set_empty_timeout_us(self, us: int) -> None:
        self.timeout_us = us

    def set_settle_us(self, us: int) -> None:
        self.settle_us = max(0, min(SETTLE_MAX_US, int(us)))

    def _switch(self, reader: int, antenna: int) -> None:
        """Select ``antenna`` of ``reader`` (-1: none) through its expander, RST kept high."""
        if len(self.layout.readers[reader]) > 15:  # a model of many antennas: no expander to go through
            self._wide[reader] = antenna
            return
        latch = 0x8000 | (1 << antenna if antenna >= 0 else 0)
        device, hw = self.expander_of(reader)
        self.expanders.mcp_write(device, hw, OLATA, bytes((latch & 0xFF, latch >> 8)))

    def start_read(self, reader: int, antenna: int, known: bytes | None = None) -> None:
        c = self.costs
        self._cpu(c.cpu_pick_us)
        self._switch(reader, antenna)
        self.field[reader] = reader not in self.unaddressed  # hal_rp2 leaves a reader in error unpowered
        self.field_since[reader] = self.now_us
        self.reads_started += 1
        if known is not None:
            self.checks_started += 1
        job = _Job(self.live_loc(reader), self.now_us)
        self._check_keepout(reader, job)
        if reader in self.garbage_readers:
            job.outcome, job.present = BadRead("garbage from the reader"), True
            job.radio = [c.tag_min_us // c.select_exchanges] * c.select_exchanges
        elif reader not in self.dead:
            outcome = self.board.read(job.loc, self.rng) if job.loc >= 0 else None
            job.present = outcome is not None
            if job.present:
                total = self.rng.randint(c.tag_min_us, c.tag_max_us)
                share = total // c.select_exchanges
                n = c.select_exchanges
                assert isinstance(outcome, bytes)
                if known is not None and cascade1(outcome) == cascade1(known):
                    # Level 1 matches: the real driver stops there and reports ``known``.
                    outcome, job.confirmed = bytes(known), True
                    n = c.confirm_exchanges
                job.radio = [share] * n
            else:
                job.radio = [c.wupa_us + self.timeout_us]
            job.outcome = outcome
        job.launch_us = self.now_us + self.settle_us
        self.jobs[reader] = job

    def _check_keepout(self, reader: int, job: _Job) -> None:
        """Another live field within one cell of ``reader``'s: a violation, and crosstalk."""
        if job.loc < 0 or job.loc >> 8 != AREA_BOARD:
            return  # (a rack's antenna: no board cell is near it)
        row, col = divmod(job.loc & 0xFF, COLS)
        field = self.field
        near = self._near_readers.get(job.loc)
        if near is None:  # the readers with an antenna within one cell of it (the others never are)
            near = self._near_readers[job.loc] = [
                r for r, locs in enumerate(self.layout.readers) if any(_near(int(a), job.loc) for a in locs)
            ]
        for other in near:
            if other == reader or not field[other]:
                continue
            loc = self.live_loc(other)
            if loc < 0 or loc >> 8 != AREA_BOARD:
                continue
            r, c = divmod(loc & 0xFF, COLS)
            if abs(r - row) > 1 or abs(c - col) > 1:  # (_near)
                continue
            self.keepout_violations.append((reader, other, self.now_us))
            self.crosstalk_events += 1
            j = self.jobs[other]
            for victim in (j, job):
                if victim is not None and isinstance(victim.outcome, bytes) and self.rng.random() < self.crosstalk_p:
                    victim.outcome = garble(victim.outcome, self.rng)

    def _launch(self, reader: int, job: _Job) -> None:
        """The next exchange goes on air now (its launch's CPU time already spent)."""
        self.exchanges += 1
        job.exchanges += 1
        self._check_keepout(reader, job)
        job.deadline_us = self.now_us + exchange_deadline_us(self.timeout_us)
        if reader in self.dead:
            job.done_us = None  # hung: never raises its IRQ
            job.radio = []
            return
        job.done_us = self.now_us + job.radio.pop(0)

    def _due(self, job: _Job) -> int:
        """When ``job`` next needs the CPU: its settle time up, its exchange over, its deadline."""
        if job.launch_us is not None:
            return job.launch_us
        return job.deadline_us if job.done_us is None else min(job.done_us, job.deadline_us)

    def ready(self) -> int:
        c = self.costs
        if self.tx_debt_us > 0:
            self._pump(PUMP_READY)
        while True:
            best = -1
            best_t = 0
            now = self.now_us
            for r, job in enumerate(self.jobs):
                if job is not None:
                    # (_due, inline: this loop is most of the simulated board's time)
                    if job.launch_us is not None:
                        t = job.launch_us
                    elif job.done_us is None or job.deadline_us < job.done_us:
                        t = job.deadline_us
                    else:
                        t = job.done_us
                    if t <= now and (best < 0 or t < best_t):
                        best, best_t = r, t
            if best < 0:
                self._cpu(c.cpu_nothing_us)
                return -1
            job = self.jobs[best]
            assert job is not None
            if job.launch_us is not None:  # the settle time is up: the WUPA goes out
                self.settles.append(self.now_us - self.field_since[best])
                if job.present and self.now_us - self.field_since[best] < c.tag_powerup_us and not job.confirmed:
                    job.outcome, job.present = None, False  # the tag is not awake yet: nothing answers
                    job.radio = [c.wupa_us + self.timeout_us]
                elif job.confirmed and self.now_us - self.field_since[best] < c.tag_powerup_us:
                    job.outcome, job.present, job.confirmed = None, False, False
                    job.radio = [c.wupa_us + self.timeout_us]
                job.launch_us = None
                self._cpu(c.cpu_launch_us)
                self._launch(best, job)
                continue
            if job.done_us is None or job.done_us > self.now_us:  # past its deadline, no IRQ
                job.outcome = ReaderFault(best, "no answer within %d us" % exchange_deadline_us(self.timeout_us))
                self._end(best, job)
                return best
            self._cpu(c.cpu_exchange_us)
            if job.radio:
                if job.present and not job.confirmed and len(job.radio) in (1, 3):
                    self._cpu(c.cpu_crc_us)  # the SAK of a select carries a CRC_A
                self._cpu(c.cpu_launch_us)
                self._launch(best, job)
                continue
            if job.present and not job.confirmed:
                self._cpu(c.cpu_crc_us)
            self._end(best, job)
            return best

    def _end(self, reader: int, job: _Job) -> None:
        """The read is over, by a fault too (as ``hal_rp2._finish``): CMD_IDLE, transmitter off,
        antenna deselected, IRQ released. A hung reader's drivers take the write: its field is
        off from its fault to its reset, as every idle reader's."""
        self.jobs[reader] = None
        self.finished[reader] = job
        self._cpu(self.costs.cpu_end_us)
        self.idle_commands[reader] += 1
        if self.release_idle:
            self.field[reader] = False
            self._switch(reader, -1)

    def result(self, reader: int) -> bytes | None:
        job = self.finished[reader]
        if job is None:
            raise ValueError(f"reader {reader} has no finished read")
        self.finished[reader] = None
        if isinstance(job.outcome, Exception):
            raise job.outcome
        return job.outcome  # type: ignore[return-value]

    def reset_reader(self, reader: int) -> bool:
        self._cpu(self.costs.reset_us)
        self.resets.append(reader)
        self.jobs[reader] = None
        self.finished[reader] = None
        self.field[reader] = False
        self._switch(reader, -1)
        if reader in self.dead:
            if reader not in self.revived or reader in self.unaddressed:
                return False
            self.dead.discard(reader)
            self.revived.discard(reader)
        return True

    def reader_version(self, reader: int) -> int:
        self._cpu(self.costs.reg_us)
        return 0xFF if reader in self.dead else self.versions[reader]

    def expander_ok(self, reader: int) -> bool:
        return reader not in self.unaddressed

    def kill_reader(self, reader: int) -> None:
        """``reader`` stops answering until it is revived and then reset."""
        self.dead.add(reader)
        self.revived.discard(reader)

    def revive_reader(self, reader: int) -> None:
        """The next reset of ``reader`` brings it back (a reset fixes the hang)."""
        if reader in self.dead:
            self.revived.add(reader)
        self.garbage_readers.discard(reader)

    def garble_reader(self, reader: int) -> None:
        """``reader`` answers every read with garbage until revived."""
        self.garbage_readers.add(reader)

    # --- the board ------------------------------------------------------------------------

    def place(self, loc: int | str, uid: bytes) -> None:
        """Put a tile with ``uid`` on ``loc`` now (moving it if it lay elsewhere)."""
        self.board.place(loc, uid)

    def remove(self, loc: int | str) -> bytes | None:
        """Lift the tile off ``loc`` now."""
        return self.board.remove(loc)

    def slide(self, src: int | str, dst: int | str, overlap_ms: float = 100) -> None:
        """Slide the tile on ``src`` to ``dst``: it answers on both for ``overlap_ms``."""
        src, dst = _loc(src), _loc(dst)
        uid = self.board.tags.get(src)
        if uid is None:
            raise ValueError(f"no tile to slide on {src:#06x}")
        self.board.add_copy(dst, uid)

        def leave() -> None:
            if self.board.tags.get(src) == uid:
                del self.board.tags[src]

        self.after_ms(overlap_ms, leave)

    # --- link, watchdog, identity -------------------------------------------------------

    def serial_write(self, data: bytes) -> None:
        c = self.costs
        now = min(len(data), PUMP_WRITE)
        self._cpu(c.cpu_write_us + now * c.cpu_write_byte_us)
        self.tx_debt_us += (len(data) - now) * c.cpu_write_byte_us
        if self.connected:
            self.tx.append(bytes(data))
            self.tx_us.append(self.now_us)
        else:
            self.dropped_writes += 1

    def serial_read(self) -> bytes:
        self._cpu(self.costs.cpu_read_us)
        data = bytes(self.rx)
        self.rx.clear()
        return data

    def host_send(self, data: bytes) -> None:
        """Bytes from the host arrive (the controller reads them at its next poll)."""
        self.rx.extend(data)

    def take_tx(self) -> list[bytes]:
        """What the controller sent since the last call, one entry per write (a frame)."""
        out = self.tx
        self.tx = []
        self.tx_us = []
        return out

    def take_tx_timed(self) -> list[tuple[int, bytes]]:
        """Like :meth:`take_tx`, each frame with the virtual time (us) it was written."""
        out = list(zip(self.tx_us, self.tx))
        self.tx = []
        self.tx_us = []
        return out

    def host_connected(self) -> bool:
        return self.connected

    def feed_watchdog(self) -> None:
        self.watchdog_feeds += 1
        self.max_feed_gap_us = max(self.max_feed_gap_us, self.now_us - self._last_feed_us)
        self._last_feed_us = self.now_us

    def unique_id(self) -> bytes:
        return self.board_id

    def boot_id(self) -> int:
        """Another id at each boot, the same sequence for the same seed (repeatable runs)."""
        self.boots += 1
        return random.Random(self.seed * 1_000_003 + self.boots).getrandbits(32)

    def power_cycle(self) -> None:
        """The controller loses power: reads in flight and unread input are gone."""
        self.jobs = [None] * self.readers
        self.finished = [None] * self.readers
        for r in range(self.readers):
            self.field[r] = False
            self._switch(r, -1)
        self.rx.clear()
        self.tx_debt_us = 0.0
        self.tx = []
        self.tx_us = []

    # --- driving a controller -------------------------------------------------------------

    def run(self, step: Callable[[], object], until_ms: float) -> None:
        """Call ``step`` (the controller's) until the virtual clock reaches ``until_ms``."""
        until = round(until_ms * 1000)
        self.horizon_us = until
        try:
            while self.now_us < until:
                step()
        finally:
            self.horizon_us = None
