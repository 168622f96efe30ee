"""The board self-test: every antenna of every reader read in turn, each read timed and reported.

hardware/PROTOCOL.md, "Self-test", is the contract; this is the controller's side of it. The
host starts the mode with SELFTEST; the controller stops its normal scan (the reads in flight
are finished first: ``Scanner.pause``) and a :class:`SelfTest` takes the readers:

- at the start, each reader's health: its VersionReg read over SPI (0x91/0x92 an MFRC522,
  0x00/0xFF nothing answers), whether its MCP23S17 passed the address check at boot, whether
  the normal scan had taken it out and how often it did since boot;
- then every reader whose expander answers reads its antennas in turn, the least recently
  read first: full reads (never the scan's presence check), with the scan's keep-out (no two
  antennas within a cell of each other transmit at the same time). Each read is timed with
  the HAL's microsecond clock from its start to its result, the settle time included;
- a reader whose reads fail ``FAIL_LIMIT`` times in a row is reset (at most every
  ``RESET_MS``) and its VersionReg read again;
- every ``report_ms`` a SELFTEST_REPORT: each tag read on its own (time and UID), the empty,
  bad-data and no-response reads of each antenna counted with the shortest and longest, and
  the readers' health: every reader in the first report, every ``HEALTH_MS`` and in the
  last one, a reader alone after its health changed (a reset). Tag reads waiting for more
  than ``TAG_FLUSH`` bytes send a report early; a report too long for one frame goes out as
  several, all but the last saying "running".

Nothing here decides whether a reader is good: the host judges from the reports.
"""

from firmware import frames as F
from firmware.hal import ReaderFault
from firmware.iso14443a import BadRead
from firmware.scanner import FAULTY

FAIL_LIMIT = 8  # failed reads in a row before the self-test resets a reader
RESET_MS = 2000  # at most one reset of a reader in this time (the normal scan's interval)
HEALTH_MS = 2000  # every reader's health at least this often
TAG_FLUSH = 1024  # bytes of tag reads that send a report before its time
DRAIN_MS = 100  # the longest wait for the reads in flight when the self-test ends

_SUMMED = (F.READ_EMPTY, F.READ_NO_RESPONSE, F.READ_BAD_DATA)


class SelfTest:
    """One run of the self-test on ``hal``, over the readers and keep-out of ``scanner``.

    ``send(kind, payload)`` sends a frame; ``seconds``: the time limit from now (see
    :meth:`extend`); ``report_ms``: the interval between reports. The controller calls
    :meth:`step` from its loop, :meth:`expired` to end it, and :meth:`finish` at the end.
    """

    def __init__(self, hal, scanner, send, seconds, report_ms):
        self.hal = hal
        self.send = send
        self.layout = scanner.layout
        self.ants = scanner.ants
        self.keep = scanner.keep
        self.reader_of = scanner.reader_of
        self.antenna_of = scanner.antenna_of
        self.n = scanner.n
        nr = len(self.ants)
        now = hal.ticks_ms()
        self.started = now
        self.report_ms = report_ms
        self.end_at = hal.ticks_add(now, seconds * 1000)
        self.next_report = now  # the first report (every reader's health) goes out at once
        self.next_health = now
        self.expander_ok = []
        self.version = []
        self.flags = []
        for r in range(nr):
            ok = hal.expander_ok(r)
            self.expander_ok.append(ok)
            self.version.append(hal.reader_version(r))
            flags = 0 if ok else F.HEALTH_EXPANDER_FAILED
            if scanner.state[r] == FAULTY:
                flags |= F.HEALTH_OUT_OF_SCAN
            self.flags.append(flags)
        self.faults = list(scanner.fault_counts)
        self.resets = [0] * nr
        self.changed = [False] * nr
        self.active = [-1] * nr  # the location each reader reads now, -1 when idle
        self.t0 = [0] * nr  # when that read started (us ticks)
        self.started_reads = [0] * nr
        self.last = [0] * self.n  # the reader's read count when the location was last started
        self.fails = [0] * nr
        self.next_reset = [now] * nr
        self.counts = [[0] * self.n for _ in _SUMMED]  # by result: empty, no response, bad data
        self.lo = [[0] * self.n for _ in _SUMMED]
        self.hi = [[0] * self.n for _ in _SUMMED]
        self.tags = []  # tag read entries waiting for the next report
        self.tag_bytes = 0
        self.reads = 0
        self.reports = 0
        self.last_progress = now
        self.running = True

    # --- the mode -------------------------------------------------------------------------

    def extend(self, seconds, report_ms):
        """Another SELFTEST while it runs: the time limit ``seconds`` from now, the report
        interval ``report_ms`` (0: unchanged); the counts go on, and a report already due
        (the first one, say) is not put off."""
        hal = self.hal
        now = hal.ticks_ms()
        self.end_at = hal.ticks_add(now, seconds * 1000)
        if report_ms:
            self.report_ms = report_ms
            sooner = hal.ticks_add(now, report_ms)
            if hal.ticks_diff(self.next_report, sooner) > 0:
                self.next_report = sooner

    def expired(self, now):
        """True once the time limit has passed."""
        return self.hal.ticks_diff(now, self.end_at) >= 0

    def scanning(self):
        """How many readers the self-test reads with (those whose expander answers)."""
        return len([ok for ok in self.expander_ok if ok])

    def busy(self):
        """True while a read of the self-test is running."""
        for i in self.active:
            if i >= 0:
                return True
        return False

    def finish(self, state):
        """End the run: the reads in flight are finished (``DRAIN_MS`` at most), then the
        last report goes out with ``state`` (why it ended)."""
        self.running = False
        hal = self.hal
        start = hal.ticks_ms()
        while self.busy() and hal.ticks_diff(hal.ticks_ms(), start) < DRAIN_MS:
            r = hal.ready()
            if r >= 0:
                self._collect(r)
            else:
                hal.idle(500)
        self.report(state)

    # --- the loop -------------------------------------------------------------------------

    def step(self):
        """Collect finished reads, reset failing readers, start idle ones, report when due.

        Returns True when anything happened (False: the caller may idle).
        """
        hal = self.hal
        progressed = False
        while True:
            r = hal.ready()
            if r < 0:
                break
            self._collect(r)
            progressed = True
        if not self.running:
            return progressed
        now = hal.ticks_ms()
        for r in range(len(self.ants)):
            if self.active[r] >= 0 or not self.expander_ok[r]:
                continue
            if self.fails[r] >= FAIL_LIMIT and hal.ticks_diff(now, self.next_reset[r]) >= 0:
                self._reset(r)
                progressed = True
            if self._start(r):
                progressed = True
        now = hal.ticks_ms()
        if hal.ticks_diff(now, self.next_report) >= 0 or self.tag_bytes >= TAG_FLUSH:
            self.report(F.SELFTEST_RUNNING)
        return progressed

    def _start(self, r):
        """Start a read on the least recently read antenna of ``r`` that keep-out allows."""
        active = self.active
        reader_of = self.reader_of
        last = self.last
        best = -1
        for i in self.ants[r]:
            if best >= 0 and last[i] >= last[best]:
                continue
            clear = True
            for j in self.keep[i]:
                if active[reader_of[j]] == j:
                    clear = False
                    break
            if clear:
                best = i
        if best < 0:
            return False
        self.started_reads[r] += 1
        last[best] = self.started_reads[r]
        active[r] = best
        hal = self.hal
        self.t0[r] = hal.ticks_us()
        hal.start_read(r, self.antenna_of[best])
        return True

    def _collect(self, r):
        hal = self.hal
        i = self.active[r]
        if i < 0:  # not ours (the normal scan's, finished late): dropped
            try:
                hal.result(r)
            except (ReaderFault, BadRead):
                pass
            return
        took = hal.ticks_diff(hal.ticks_us(), self.t0[r])
        if took < 0:
            took = 0
        self.active[r] = -1
        self.reads += 1
        self.last_progress = hal.ticks_ms()
        try:
            uid = hal.result(r)
        except ReaderFault:
            self.fails[r] += 1
            self._count(F.READ_NO_RESPONSE, i, took)
            return
        except BadRead:
            self.fails[r] += 1
            self._count(F.READ_BAD_DATA, i, took)
            return
        self.fails[r] = 0
        if uid is None:
            self._count(F.READ_EMPTY, i, took)
            return
        entry = F.selftest_tag(r, self.antenna_of[i], took, uid)
        self.tags.append(entry)
        self.tag_bytes += len(entry)

    def _count(self, result, i, took):
        counts = self.counts[result]
        lo = self.lo[result]
        hi = self.hi[result]
        if counts[i] == 0:
            lo[i] = hi[i] = took
        elif took < lo[i]:
            lo[i] = took
        elif took > hi[i]:
            hi[i] = took
        counts[i] += 1

    def _reset(self, r):
        hal = self.hal
        try:
            hal.reset_reader(r)
        except ReaderFault:
            pass
        self.resets[r] += 1
        self.version[r] = hal.reader_version(r)
        self.changed[r] = True
        self.fails[r] = 0
        self.next_reset[r] = hal.ticks_add(hal.ticks_ms(), RESET_MS)

    # --- reports --------------------------------------------------------------------------

    def report(self, state):
        """Send what was read since the last report (and the health due) with ``state``."""
        hal = self.hal
        now = hal.ticks_ms()
        elapsed = hal.ticks_diff(now, self.started)
        every = state != F.SELFTEST_RUNNING or hal.ticks_diff(now, self.next_health) >= 0
        if every:
            self.next_health = hal.ticks_add(now, HEALTH_MS)
        health = []
        for r in range(len(self.ants)):
            if every or self.changed[r]:
                health.append(F.selftest_health(r, self.version[r], self.flags[r], self.faults[r],
                                                self.resets[r], self.layout.locations(r)))
                self.changed[r] = False
        reads = []
        for result in _SUMMED:
            counts = self.counts[result]
            lo = self.lo[result]
            hi = self.hi[result]
            for i in range(self.n):
                if counts[i]:
                    reads.append(F.selftest_summary(self.reader_of[i], self.antenna_of[i], result,
                                                    counts[i], lo[i], hi[i]))
                    counts[i] = 0
        reads.extend(self.tags)
        self.tags = []
        self.tag_bytes = 0
        self.next_report = hal.ticks_add(now, self.report_ms)
        self._send_split(state, elapsed, health, reads)

    def _send_split(self, state, elapsed, health, reads):
        """One frame, or several when the entries do not fit in one payload."""
        budget = F.MAX_PAYLOAD - F.SELFTEST_REPORT_HEAD
        parts = []
        h = []
        rd = []
        size = 0
        for entry in health:
            if size + len(entry) > budget:
                parts.append((h, rd))
                h, rd, size = [], [], 0
            h.append(entry)
            size += len(entry)
        for entry in reads:
            if size + len(entry) > budget:
                parts.append((h, rd))
                h, rd, size = [], [], 0
            rd.append(entry)
            size += len(entry)
        parts.append((h, rd))
        last = len(parts) - 1
        for k in range(len(parts)):
            h, rd = parts[k]
            self.send(F.SELFTEST_REPORT, F.selftest_report_payload(
                state if k == last else F.SELFTEST_RUNNING, elapsed, h, rd))
            self.reports += 1
