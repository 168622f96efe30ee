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
from firmware.hal import TICKS_PERIOD, BadRead, Hal, ReaderFault
from firmware.iso14443a import cascade1
from firmware.scanner import Layout


class Costs:
    """Time costs in microseconds (TIMING.md, "Per-read costs").

    Reader time: a 7-byte select 6.5-8.5 ms (measured), an empty antenna the WUPA plus the
    configured time-out, a presence check ``confirm_share`` of a select. CPU time is
    counted from ``hal_rp2``'s SPI transactions (``reg_us`` each: 2-3 bytes at 4 MHz
    plus MicroPython's call overhead at 125 MHz) and its Python work (``python_scale``
    stretches the latter):

    - start: pick the antenna (60 us), one expander write, 7 transactions to launch WUPA;
    - each finished exchange: 1.5 transactions to find the reader behind the IRQ line,
      2 to fetch the answer, 30 us in ``Select.answer``; each next exchange 7 to launch;
      two CRC_A (40 us each) per full select;
    - end of a read: 1 transaction to release the IRQ line, 40 us of debounce.
    """

    def __init__(self, reg_us: float = 15.0, python_scale: float = 1.0,
                 tag_min_us: int = 6500, tag_max_us: int = 8500) -> None:
        self.reg_us = reg_us
        self.python_scale = python_scale
        self.settle_us = 40  # after switching antennas, before the WUPA goes out
        self.wupa_us = 100  # the WUPA frame and the tag's frame delay time
        self.tag_min_us = tag_min_us  # a 7-byte select, measured (HARDWARE-NOTES.md)
        self.tag_max_us = tag_max_us
        self.confirm_share = 0.4  # WUPA and level-1 anticollision: 2 of the 5 exchanges
        self.deadline_us = 20000  # a read not finished by then: the reader is dead
        self.reset_us = 2000  # RST pulse, oscillator start, register set-up
        reg, py = reg_us, python_scale
        find, fetch, launch = 1.5 * reg, 2 * reg, 7 * reg
        end = reg + 40 * py
        self.cpu_start_us = int(60 * py + (reg + 5) + launch)
        self.cpu_nothing_us = 5  # the IRQ line is high: one GPIO read
        self.cpu_empty_us = int(find + 30 * py + end)
        self.cpu_tag_us = int(5 * (find + fetch + 30 * py) + 4 * launch + 2 * 40 * py + end)
        self.cpu_confirm_us = int(2 * (find + fetch + 30 * py) + launch + end)
        self.cpu_write_us = 50  # one frame into the USB buffer (plus 1 us per 4 bytes)
        self.cpu_read_us = 10  # polling the serial input


class _Job:
    __slots__ = ("loc", "done_us", "outcome", "present", "confirmed")

    def __init__(self, loc: int, done_us: int, outcome: object, present: bool, confirmed: bool = False) -> None:
        self.loc = loc
        self.done_us = done_us
        self.outcome = outcome  # bytes, None, or an exception to raise
        self.present = present
        self.confirmed = confirmed  # a presence check that matched: the cheap path


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
    """The HAL over a :class:`VirtualBoard`, on a virtual microsecond clock."""

    def __init__(self, layout: Layout, *, board: VirtualBoard | None = None, costs: Costs | None = None,
                 seed: int = 0, ticks_base_ms: int = 0, board_id: bytes = b"\xe6\x61\x18\x60\x4b\x2d\x3a\x2f",
                 crosstalk_p: float = 0.5) -> None:
        self.layout = layout
        self.readers = len(layout.readers)
        self.board = board if board is not None else VirtualBoard()
        self.costs = costs if costs is not None else Costs()
        self.rng = random.Random(seed)
        self.ticks_base_ms = ticks_base_ms
        self.board_id = board_id
        self.crosstalk_p = crosstalk_p
        self.now_us = 0
        self.horizon_us: int | None = None
        self.timeout_us = 1500
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
        self.watchdog_feeds = 0
        self.max_feed_gap_us = 0
        self._last_feed_us = 0
        self.cpu_us = 0
        self.reads_started = 0
        self.checks_started = 0  # reads started with a known UID (presence checks)
        self.crosstalk_events = 0
        self.resets: list[int] = []
        self._events: list[tuple[int, int, Callable[[], None]]] = []
        self._event_seq = 0

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

    def idle(self, max_us: int) -> None:
        target = self.now_us + max(1, int(max_us))
        pending = [j.done_us for j in self.jobs if j is not None and j.done_us > self.now_us]
        if pending:
            target = min(target, min(pending))
        if self.horizon_us is not None:
            target = min(target, max(self.horizon_us, self.now_us))
        self._advance_to(target)

    # --- readers ------------------------------------------------------------------------

    def set_empty_timeout_us(self, us: int) -> None:
        self.timeout_us = us

    def start_read(self, reader: int, antenna: int, known: bytes | None = None) -> None:
        c = self.costs
        self._cpu(c.cpu_start_us)
        loc = self.layout.readers[reader][antenna]
        self.reads_started += 1
        if known is not None:
            self.checks_started += 1
        start = self.now_us
        if reader in self.dead:
            job = _Job(loc, start + c.deadline_us, ReaderFault(reader, "no answer"), False)
        elif reader in self.garbage_readers:
            job = _Job(loc, start + c.settle_us + c.tag_min_us, BadRead("garbage from the reader"), True)
        else:
            outcome = self.board.read(loc, self.rng)
            present = outcome is not None
            confirmed = False
            if present:
                cost = c.settle_us + self.rng.randint(c.tag_min_us, c.tag_max_us)
                if known is not None and cascade1(outcome) == cascade1(known):
                    # Level 1 matches: the real driver stops there and reports ``known``.
                    outcome, confirmed = bytes(known), True
                    cost = c.settle_us + int((cost - c.settle_us) * c.confirm_share)
            else:
                cost = c.settle_us + c.wupa_us + self.timeout_us
            job = _Job(loc, start + cost, outcome, present, confirmed)
            self._crosstalk(reader, job)
        self.jobs[reader] = job

    def _crosstalk(self, reader: int, job: _Job) -> None:
        """Two antennas next to each other transmitting at once garble each other's tags."""
        for other, j in enumerate(self.jobs):
            if other == reader or j is None or not _near(j.loc, job.loc):
                continue
            self.crosstalk_events += 1
            for victim in (j, job):
                if isinstance(victim.outcome, bytes) and self.rng.random() < self.crosstalk_p:
                    victim.outcome = garble(victim.outcome, self.rng)

    def ready(self) -> int:
        c = self.costs
        best = -1
        for r, job in enumerate(self.jobs):
            if job is not None and job.done_us <= self.now_us:
                if best < 0 or job.done_us < self.jobs[best].done_us:  # type: ignore[union-attr,unused-ignore]
                    best = r
        if best < 0:
            self._cpu(c.cpu_nothing_us)
            return -1
        job = self.jobs[best]
        assert job is not None
        self.jobs[best] = None
        self.finished[best] = job
        cost = 0
        if job.confirmed:
            cost += c.cpu_confirm_us
        elif isinstance(job.outcome, bytes) or job.present:
            cost += c.cpu_tag_us
        else:
            cost += c.cpu_empty_us
        self._cpu(cost)
        return best

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
        if reader in self.dead:
            if reader not in self.revived:
                return False
            self.dead.discard(reader)
            self.revived.discard(reader)
        return True

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
        self._cpu(self.costs.cpu_write_us + len(data) // 4)
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

    def power_cycle(self) -> None:
        """The controller loses power: reads in flight and unread input are gone."""
        self.jobs = [None] * self.readers
        self.finished = [None] * self.readers
        self.rx.clear()
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
