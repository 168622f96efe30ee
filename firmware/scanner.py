"""The scan scheduler and per-location debounce (the timing model is in TIMING.md).

Every reader works at the same time: whenever one is idle the scanner picks its next
antenna and starts a read, then collects whichever read finishes first. Which antenna:

- **priority by stride.** Each location carries a pass value that grows by its stride at
  every visit; a reader reads its antenna with the lowest pass (the hotter one on a tie).
  Strides: cold ``hot_ratio * rack_ratio`` (far empty cells, settled tiles), rack slots
  ``hot_ratio``, hot ``rack_ratio`` (empty cells next to a tile, and any location whose
  reading waits for confirmation). So per sweep a cold location is read once, a rack slot
  ``rack_ratio`` times, a hot cell ``hot_ratio`` times. A cell that turns hot is due at
  once.
- **no reader runs ahead.** A reader whose lowest pass is more than ``window`` above the
  lowest pass of all readers waits, leaving the CPU to readers with more to read, and
  spreading each location's reads evenly in time.
- **keep-out.** Two antennas within ``keepout`` cells of each other (also diagonally)
  never transmit at the same time: neighbouring readers' fields garble each other's tags.
- **cheap presence checks.** A settled tile is confirmed by its level-1 anticollision
  answer (``iso14443a.Select`` with ``known``) on all but every ``full_every``-th visit.

Debounce: a location's reported (stable) reading changes after ``stable_reads``
consecutive identical reads that also span ``stable_ms``. An empty read where a tag was
is re-read up to ``absent_retries`` times first (readers miss a present tag now and
then). A slid tile, flicker or a garbled UID therefore never becomes a change.

Readers that stop answering (or give only garbage) are taken out of the scan, reported,
and reset every ``reset_ms`` until they read again; their locations keep their last
stable reading. One healthy reader at a time is also reset every ``refresh_ms / readers``
as a precaution (some readers stop after hours); ``refresh_ms=0`` turns that off.
"""

from firmware.frames import (
    AREA_BOARD,
    COLS,
    FAULT_BAD_DATA,
    FAULT_NO_RESPONSE,
    FAULT_RECOVERED,
    FAULT_RESET,
    cell_loc,
    slot_loc,
)
from firmware.hal import ReaderFault
from firmware.iso14443a import BadRead


class _Unknown:
    """The stable reading of a location not read often enough yet (after boot)."""

    def __repr__(self):
        return "UNKNOWN"


UNKNOWN = _Unknown()

OK = 0
FAULTY = 1
PROBATION = 2  # reset after a fault; back in the scan, recovered at its first good read

_REBASE = 1 << 20


class Layout:
    """Which reader and antenna read which location.

    ``readers`` lists, per reader, the location (``frames.cell_loc``/``slot_loc``) under
    each of its antennas.
    """

    def __init__(self, readers, racks, slots):
        self.readers = [list(locs) for locs in readers]
        self.racks = racks
        self.slots = slots
        seen = set()
        for locs in self.readers:
            for loc in locs:
                if loc in seen:
                    raise ValueError("location 0x%04x on two antennas" % loc)
                seen.add(loc)

    def locations(self, reader):
        """The locations ``reader`` covers, by antenna."""
        return self.readers[reader]

    def __len__(self):
        return len(self.readers)


def row_layout(racks=2, slots=7, rows_per_reader=1):
    """The reference layout: board readers of ``rows_per_reader`` rows, one reader per rack."""
    readers = []
    for first in range(0, 15, rows_per_reader):
        readers.append([cell_loc(r, c) for r in range(first, min(first + rows_per_reader, 15)) for c in range(COLS)])
    for rack in range(racks):
        readers.append([slot_loc(rack, s) for s in range(slots)])
    return Layout(readers, racks, slots)


def single_reader_layout(racks=2, slots=7):
    """Every cell and slot behind one reader (the design the timing model rules out)."""
    locs = [cell_loc(r, c) for r in range(15) for c in range(COLS)]
    locs += [slot_loc(rack, s) for rack in range(racks) for s in range(slots)]
    return Layout([locs], racks, slots)


class Scanner:
    """Schedules reads over all readers and debounces what they read.

    Call :meth:`step` from the main loop; take the results with :meth:`take_changes`
    and :meth:`take_faults`; :meth:`stable_tags` is the current stable picture.
    """

    def __init__(self, hal, layout, stable_reads=2, stable_ms=150, empty_timeout_us=1500,
                 hot_ratio=4, rack_ratio=2, keepout=1, absent_retries=3, bad_limit=8, reset_ms=2000,
                 refresh_ms=600000, full_every=4):
        self.hal = hal
        self.layout = layout
        self.stable_reads = stable_reads
        self.stable_ms = stable_ms
        self.hot_ratio = hot_ratio
        self.rack_ratio = rack_ratio
        self.cold_stride = hot_ratio * rack_ratio
        self.hot_stride = rack_ratio
        self.rack_stride = hot_ratio
        self.window = rack_ratio
        self.keepout = keepout
        self.absent_retries = absent_retries
        self.bad_limit = bad_limit
        self.reset_ms = reset_ms
        self.refresh_ms = refresh_ms
        self.full_every = full_every
        self.empty_timeout_us = empty_timeout_us
        hal.set_empty_timeout_us(empty_timeout_us)
        self.on_read = None  # optional callback(loc, uid_or_None, ticks_ms), for models

        nr = len(layout.readers)
        locs = []
        reader_of = []
        antenna_of = []
        ants = []
        for r in range(nr):
            mine = []
            for a, loc in enumerate(layout.readers[r]):
                mine.append(len(locs))
                locs.append(loc)
                reader_of.append(r)
                antenna_of.append(a)
            ants.append(mine)
        n = len(locs)
        self.n = n
        self.locs = locs
        self.reader_of = reader_of
        self.antenna_of = antenna_of
        self.ants = ants
        self.index = {}
        for i in range(n):
            self.index[locs[i]] = i
        self.is_board = [loc >> 8 == AREA_BOARD for loc in locs]
        self.nb = [[] for _ in range(n)]
        self.keep = [[] for _ in range(n)]
        self._neighbours()

        self.stable = [UNKNOWN] * n
        self.cand = [UNKNOWN] * n
        self.count = [0] * n
        self.since = [0] * n
        self.occ = [False] * n
        self.occ_nb = [0] * n
        # Stagger the start so a reader's cold antennas do not all fall due together.
        self.pass_ = [(antenna_of[i] * self.hot_stride) % self.cold_stride for i in range(n)]
        self.stride = [self._stride(i) for i in range(n)]
        self.seen = [False] * n
        # Presence checks since the last full read; staggered so full reads spread over sweeps.
        self.checks = [i % max(1, full_every) for i in range(n)]

        self.active = [-1] * nr
        self.retries = [0] * nr
        self.state = [OK] * nr
        self.fault_counts = [0] * nr  # how often each reader was taken out of the scan since boot
        self.paused = False  # the self-test has the readers: no read is started
        self.bad_run = [0] * nr
        self.next_reset = [0] * nr
        self.min_pass = [0] * nr
        self.floor = 0

        now = hal.ticks_ms()
        self.sweep = 0
        self.last_sweep_ms = 0
        self.sweep_start = now
        self.unseen = n
        self.reads = 0
        self.bad_reads = 0
        self.last_progress = now
        self.next_refresh = hal.ticks_add(now, self._refresh_every())
        self.refresh_next_reader = 0
        self._changes = []
        self._faults = []

    # --- set-up -----------------------------------------------------------------------

    def _neighbours(self):
        where = {}
        for i in range(self.n):
            if self.is_board[i]:
                where[divmod(self.locs[i] & 0xFF, COLS)] = i
        k = self.keepout
        for (row, col), i in where.items():
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                j = where.get((row + dr, col + dc))
                if j is not None:
                    self.nb[i].append(j)
            for dr in range(-k, k + 1):
                for dc in range(-k, k + 1):
                    j = where.get((row + dr, col + dc))
                    if j is not None and self.reader_of[j] != self.reader_of[i]:
                        self.keep[i].append(j)

    def _refresh_every(self):
        if not self.refresh_ms:
            return 1 << 28
        return max(1000, self.refresh_ms // max(1, len(self.ants)))

    def set_empty_timeout_us(self, us):
        """Change how long an empty antenna is listened to."""
        self.empty_timeout_us = us
        self.hal.set_empty_timeout_us(us)

    # --- results ----------------------------------------------------------------------

    def take_changes(self):
        """Stable changes since the last call: ``(loc, old, new)``; old may be UNKNOWN."""
        out = self._changes
        self._changes = []
        return out

    def take_faults(self):
        """Reader events since the last call: ``(reader, frames.FAULT_* code)``."""
        out = self._faults
        self._faults = []
        return out

    def stable_tags(self):
        """Every location whose stable reading is a tag: ``(loc, uid)`` by location."""
        out = []
        for i in range(self.n):
            v = self.stable[i]
            if v is not None and v is not UNKNOWN:
                out.append((self.locs[i], v))
        out.sort()
        return out

    def stable_at(self, loc):
        """The stable reading at ``loc``: a UID, None (empty) or UNKNOWN."""
        return self.stable[self.index[loc]]

    def faulty_readers(self):
        """Readers out of the scan now."""
        return [r for r in range(len(self.ants)) if self.state[r] == FAULTY]

    def settled(self):
        """True when every location of a working reader has a stable reading."""
        for i in range(self.n):
            if self.stable[i] is UNKNOWN and self.state[self.reader_of[i]] != FAULTY:
                return False
        return True

    # --- the loop ---------------------------------------------------------------------

    def step(self):
        """Collect finished reads, look after faulty readers, start idle ones.

        Returns True when anything happened (False: the caller may idle).
        """
        hal = self.hal
        progressed = False
        while True:
            r = hal.ready()
            if r < 0:
                break
            self._finish(r)
            progressed = True
        now = hal.ticks_ms()
        for r in range(len(self.ants)):
            if self.state[r] == FAULTY and hal.ticks_diff(now, self.next_reset[r]) >= 0:
                self._reset(r, now)
                progressed = True
        if hal.ticks_diff(now, self.next_refresh) >= 0:
            self._refresh(now)
        if self.paused:
            return progressed
        for r in range(len(self.ants)):
            if self.active[r] < 0 and self.state[r] != FAULTY:
                if self._start(r):
                    progressed = True
        return progressed

    def _start(self, r):
        best = -1
        best_pass = 0
        active = self.active
        reader_of = self.reader_of
        pass_ = self.pass_
        stride = self.stride
        for i in self.ants[r]:
            p = pass_[i] * 16 + stride[i]  # on a tie the hotter location first
            if best < 0 or p < best_pass:
                clear = True
                for j in self.keep[i]:
                    if active[reader_of[j]] == j:
                        clear = False
                        break
                if clear:
                    best = i
                    best_pass = p
        if best < 0 or best_pass >> 4 > self.floor + self.window:
            return False
        active[r] = best
        self.retries[r] = self.absent_retries
        known = None
        v = self.stable[best]
        if isinstance(v, bytes) and self.cand[best] == v and self.checks[best] < self.full_every - 1:
            known = v  # settled tag: a presence check will do
            self.checks[best] += 1
        else:
            self.checks[best] = 0
        self.hal.start_read(r, self.antenna_of[best], known)
        return True

    def _finish(self, r):
        hal = self.hal
        i = self.active[r]
        if i < 0:  # a result nobody waits for (after a reset): drop it
            try:
                hal.result(r)
            except (ReaderFault, BadRead):
                pass
            return
        try:
            uid = hal.result(r)
        except ReaderFault:
            self.active[r] = -1
            self._fail(r, FAULT_NO_RESPONSE)
            return
        except BadRead:
            self.active[r] = -1
            self.bad_reads += 1
            self.bad_run[r] += 1
            self._visited(r, i, hal.ticks_ms())
            if self.bad_run[r] >= self.bad_limit:
                self._fail(r, FAULT_BAD_DATA)
            return
        self.bad_run[r] = 0
        if self.state[r] == PROBATION:
            self.state[r] = OK
            self._faults.append((r, FAULT_RECOVERED))
        if uid is None and self.retries[r] > 0 and not self.paused and (
                isinstance(self.cand[i], bytes) or isinstance(self.stable[i], bytes)):
            self.retries[r] -= 1  # a tag was here: make sure it is gone
            hal.start_read(r, self.antenna_of[i])
            return
        self.active[r] = -1
        now = hal.ticks_ms()
        self.reads += 1
        self._record(i, uid, now)
        self._visited(r, i, now)

    def _record(self, i, v, now):
        if self.on_read is not None:
            self.on_read(self.locs[i], v, now)
        if v == self.cand[i]:
            if self.count[i] < 255:
                self.count[i] += 1
        else:
            self.cand[i] = v
            self.count[i] = 1
            self.since[i] = now
        c = self.cand[i]
        if (c != self.stable[i] and self.count[i] >= self.stable_reads
                and self.hal.ticks_diff(now, self.since[i]) >= self.stable_ms):
            self._changes.append((self.locs[i], self.stable[i], c))
            self.stable[i] = c
        if self.is_board[i]:
            occupied = isinstance(c, bytes) or isinstance(self.stable[i], bytes)
            if occupied != self.occ[i]:
                self.occ[i] = occupied
                d = 1 if occupied else -1
                for j in self.nb[i]:
                    self.occ_nb[j] += d
                    self.stride[j] = s = self._stride(j)
                    if s == self.hot_stride and self.pass_[j] > self.floor + s:
                        self.pass_[j] = self.floor + s  # newly hot: due soon
                        self._update_min(self.reader_of[j])

    def _stride(self, i):
        if not self.is_board[i]:
            return self.rack_stride
        if self.cand[i] != self.stable[i]:
            return self.hot_stride  # a change waits for confirmation
        if not self.occ[i] and self.occ_nb[i] > 0:
            return self.hot_stride
        return self.cold_stride

    def _visited(self, r, i, now):
        self.last_progress = now
        self.stride[i] = s = self._stride(i)
        self.pass_[i] += s
        self._update_min(r)
        if not self.seen[i]:
            self.seen[i] = True
            self.unseen -= 1
            if self.unseen <= 0:
                self._sweep_done(now)

    def _update_min(self, r):
        pass_ = self.pass_
        m = None
        for i in self.ants[r]:
            if m is None or pass_[i] < m:
                m = pass_[i]
        self.min_pass[r] = 0 if m is None else m
        self._update_floor()

    def _update_floor(self):
        f = None
        for r in range(len(self.ants)):
            if self.state[r] != FAULTY and self.ants[r] and (f is None or self.min_pass[r] < f):
                f = self.min_pass[r]
        if f is None:
            return
        self.floor = f
        if f >= _REBASE:  # keep the pass values small ints on the controller
            pass_ = self.pass_
            for i in range(self.n):
                pass_[i] -= f
            for r in range(len(self.ants)):
                self.min_pass[r] -= f
            self.floor = 0

    def _sweep_done(self, now):
        self.sweep += 1
        self.last_sweep_ms = self.hal.ticks_diff(now, self.sweep_start)
        self._new_sweep(now)

    def _new_sweep(self, now):
        """Start counting a sweep: every location of a working reader still to read."""
        self.sweep_start = now
        unseen = 0
        for i in range(self.n):
            working = self.state[self.reader_of[i]] != FAULTY
            self.seen[i] = not working
            if working:
                unseen += 1
        self.unseen = unseen  # 0: nothing to scan, no sweep ends until a reader is back

    # --- the self-test takes the readers --------------------------------------------------

    def busy(self):
        """True while a read started by the scan is still running."""
        for i in self.active:
            if i >= 0:
                return True
        return False

    def pause(self, limit_ms=100):
        """Start no more reads and finish those running (without re-reads); the readers are
        then free for the self-test. Waits ``limit_ms`` at most (a read ends by its deadline
        long before: TIMING.md)."""
        self.paused = True
        hal = self.hal
        start = hal.ticks_ms()
        while self.busy() and hal.ticks_diff(hal.ticks_ms(), start) < limit_ms:
            r = hal.ready()
            if r >= 0:
                self._finish(r)
            else:
                hal.idle(500)

    def resume(self):
        """Scan again after a pause, every location read afresh: the readings of before are
        forgotten (tiles may have moved meanwhile), so every stable reading is UNKNOWN until
        read again, as after boot. Readers keep their state (faulty ones stay out)."""
        now = self.hal.ticks_ms()
        self.paused = False
        for i in range(self.n):
            self.stable[i] = UNKNOWN
            self.cand[i] = UNKNOWN
            self.count[i] = 0
            self.since[i] = now
            self.occ[i] = False
            self.occ_nb[i] = 0
            self.checks[i] = 0
        for i in range(self.n):
            self.stride[i] = self._stride(i)
        for r in range(len(self.ants)):
            self._update_min(r)
        self._changes = []
        self.last_progress = now
        self._new_sweep(now)

    # --- faults -----------------------------------------------------------------------

    def _fail(self, r, code):
        self._faults.append((r, code))
        self.fault_counts[r] += 1
        self.state[r] = FAULTY
        self.active[r] = -1
        self.next_reset[r] = self.hal.ticks_add(self.hal.ticks_ms(), self.reset_ms)
        for i in self.ants[r]:
            if not self.seen[i]:  # a sweep does not wait for a dead reader
                self.seen[i] = True
                self.unseen -= 1
        self._update_floor()
        if self.unseen <= 0 and self.working_readers() > 0:
            self._sweep_done(self.hal.ticks_ms())

    def working_readers(self):
        """How many readers are in the scan."""
        return len([s for s in self.state if s != FAULTY])

    def _reset(self, r, now):
        try:
            ok = self.hal.reset_reader(r)
        except ReaderFault:
            ok = False
        self._faults.append((r, FAULT_RESET))
        self.next_reset[r] = self.hal.ticks_add(self.hal.ticks_ms(), self.reset_ms)
        if ok:
            self._back_in_service(r)

    def _back_in_service(self, r):
        stalled = self.working_readers() == 0
        self.state[r] = PROBATION
        self.bad_run[r] = 0
        if stalled:  # every reader was out: sweeps start again with this one
            self._new_sweep(self.hal.ticks_ms())
        for i in self.ants[r]:  # do not let it hog the scan to catch up
            self.pass_[i] = max(self.pass_[i], self.floor)
        self._update_min(r)

    def _refresh(self, now):
        """Precautionary reset of the next idle, healthy reader in turn."""
        self.next_refresh = self.hal.ticks_add(now, self._refresh_every())
        nr = len(self.ants)
        for k in range(nr):
            r = (self.refresh_next_reader + k) % nr
            if self.state[r] == OK and self.active[r] < 0:
                self.refresh_next_reader = (r + 1) % nr
                try:
                    ok = self.hal.reset_reader(r)
                except ReaderFault:
                    ok = False
                if not ok:
                    self._fail(r, FAULT_NO_RESPONSE)
                return
