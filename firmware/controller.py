"""The controller's main loop, as a class that runs on any HAL (real or fake).

What it sends (hardware/PROTOCOL.md, "When the controller sends what"):

- HELLO at boot (seq 0), on IDENTIFY, and when the HAL sees a host open the port;
- SNAPSHOT after HELLO, on REQUEST_SNAPSHOT and every ``snapshot_ms``. After boot the
  first SNAPSHOT waits until every location has a stable reading (at most
  ``warmup_ms``), so the host never starts from a half-read board;
- CHANGES as soon as the scanner reports stable changes;
- HEARTBEAT every ``heartbeat_ms``; HELLO and HEARTBEAT carry the boot id drawn at boot,
  by which the host sees a restart whose HELLO it missed (protocol 1.1);
- FAULT when a reader fails, is reset, or recovers, with the locations it covers;
- ACK for every host frame with a good CRC: 0 ok, 1 unknown type, 2 bad payload,
  3 a SET_SCAN or SELFTEST value out of range (then nothing of it is applied);
- SELFTEST_REPORT while the self-test runs (``firmware.selftest``; PROTOCOL.md, "Self-test").

The self-test (SELFTEST with a time limit) pauses the normal scan: no CHANGES and no
SNAPSHOT while it runs, HEARTBEAT and FAULT as usual. It ends by a SELFTEST with 0 seconds,
by its time limit, by IDENTIFY or a host opening the port; then every location is read
afresh, as after boot: the SNAPSHOT that ends this re-read carries the board as it is now,
and CHANGES follow it.

The watchdog is fed only while the scan (or the self-test) makes progress, so a wedged bus
or loop resets the controller.
"""

from firmware import frames as F
from firmware.scanner import UNKNOWN, Scanner
from firmware.selftest import SelfTest

FIRMWARE_VERSION = (1, 2, 0)

# SET_SCAN ranges (inclusive); 0 in a field means "unchanged".
STABLE_SWEEPS_RANGE = (1, 20)
STABLE_MS_RANGE = (1, 10000)
EMPTY_TIMEOUT_US_RANGE = (300, 25000)
SNAPSHOT_MS_RANGE = (100, 60000)
HEARTBEAT_MS_RANGE = (50, 1000)  # the host declares the link dead after 1.5 s of silence
# SELFTEST ranges (inclusive): seconds 0 ends the self-test; report ms 0 means the default.
SELFTEST_SECONDS_RANGE = (1, 3600)
SELFTEST_REPORT_MS_RANGE = (100, 1000)  # a report at least every second keeps the link alive
SELFTEST_REPORT_MS = 500


class Controller:
    """The board controller: scans, debounces, talks to the host."""

    def __init__(self, hal, layout, scanner=None, snapshot_ms=1000, heartbeat_ms=500,
                 warmup_ms=1000, stall_ms=1000, idle_max_us=2000):
        self.hal = hal
        self.layout = layout
        self.scanner = scanner if scanner is not None else Scanner(hal, layout)
        self.snapshot_ms = snapshot_ms
        self.heartbeat_ms = heartbeat_ms
        self.warmup_ms = warmup_ms
        self.stall_ms = stall_ms
        self.idle_max_us = idle_max_us
        self.parser = F.FrameParser()
        self.seq = 0
        self.booted = False
        self.boot_id = 0  # drawn at boot (hal.boot_id), sent in HELLO and HEARTBEAT
        self.snapshot_sent = False  # the first SNAPSHOT after boot is out
        self.warming = True  # every location is being read (after boot or a self-test): no CHANGES yet
        self.selftest = None  # the SelfTest while the self-test runs
        self.uptime_ms = 0
        self.host_frames = 0
        self._pending_faults = []
        self._connected = None
        self._last_ms = 0
        self._warm_ms = 0  # when the warm-up began
        self._next_snapshot = 0
        self._next_heartbeat = 0

    # --- sending ----------------------------------------------------------------------

    def _send(self, kind, payload):
        self.hal.serial_write(F.encode_frame(kind, self.seq, payload))
        self.seq = (self.seq + 1) & 0xFFFF

    def send_hello(self):
        """HELLO: versions, geometry, readers, board id."""
        layout = self.layout
        self._send(F.HELLO, F.hello_payload(
            FIRMWARE_VERSION, (F.PROTOCOL_MAJOR, F.PROTOCOL_MINOR), F.COLS, F.ROWS,
            layout.racks, layout.slots, len(layout.readers), self.hal.unique_id(), self.boot_id))

    def send_snapshot(self):
        """SNAPSHOT of every stable tag; the periodic snapshot timer starts again."""
        sc = self.scanner
        if self.warming:
            sc.take_changes()  # the SNAPSHOT that ends a warm-up carries every change before it
            self.warming = False
        self._send(F.SNAPSHOT, F.tags_payload(sc.sweep, sc.stable_tags()))
        self._next_snapshot = self.hal.ticks_add(self.hal.ticks_ms(), self.snapshot_ms)
        if not self.snapshot_sent:
            self.snapshot_sent = True
            self._next_heartbeat = self.hal.ticks_add(self.hal.ticks_ms(), self.heartbeat_ms)
            for reader, code in self._pending_faults:
                self._send_fault(reader, code)
            self._pending_faults = []

    def _send_fault(self, reader, code):
        self._send(F.FAULT, F.fault_payload(reader, code, self.layout.locations(reader)))

    def _send_heartbeat(self):
        sc = self.scanner
        self._send(F.HEARTBEAT, F.heartbeat_payload(
            sc.sweep, self.uptime_ms, sc.last_sweep_ms, len(sc.faulty_readers()), self.boot_id))

    # --- the loop ---------------------------------------------------------------------

    def boot(self):
        """HELLO with seq 0; the first SNAPSHOT follows once the board is read."""
        now = self.hal.ticks_ms()
        self._warm_ms = now
        self.warming = True
        self._last_ms = now
        self.seq = 0
        self.boot_id = self.hal.boot_id()
        self.booted = True
        self._connected = self.hal.host_connected()
        self.send_hello()

    def run_forever(self):
        """The main loop (never returns on the controller)."""
        while True:
            self.step()

    def step(self):
        """One pass of the main loop: scan, talk, keep time, feed the watchdog."""
        hal = self.hal
        if not self.booted:
            self.boot()
        st = self.selftest
        progressed = st.step() if st is not None else self.scanner.step()
        now = hal.ticks_ms()
        self.uptime_ms = (self.uptime_ms + hal.ticks_diff(now, self._last_ms)) & 0xFFFFFFFF
        self._last_ms = now

        connected = hal.host_connected()
        if connected and self._connected is False:  # a host opened the port
            if self.selftest is not None:
                self.end_selftest(F.SELFTEST_NEW_HOST)
            self.send_hello()
            if self._snapshot_ready():
                self.send_snapshot()
        self._connected = connected

        data = hal.serial_read()
        if data:
            for kind, seq, payload in self.parser.feed(data):
                self.handle(kind, seq, payload)

        if self.selftest is not None and self.selftest.expired(hal.ticks_ms()):
            self.end_selftest(F.SELFTEST_TIMED_OUT)
        if self.warming and self.selftest is None and (
                self.scanner.settled() or hal.ticks_diff(now, self._warm_ms) >= self.warmup_ms):
            self.send_snapshot()
        self._report_changes()
        self._report_faults()

        if self.snapshot_sent:
            now = hal.ticks_ms()
            if hal.ticks_diff(now, self._next_heartbeat) >= 0:
                self._send_heartbeat()
                self._next_heartbeat = hal.ticks_add(now, self.heartbeat_ms)
            if self._snapshot_ready() and hal.ticks_diff(now, self._next_snapshot) >= 0:
                self.send_snapshot()

        st = self.selftest
        if st is not None:
            alive = hal.ticks_diff(hal.ticks_ms(), st.last_progress) < self.stall_ms or not st.scanning()
        else:
            sc = self.scanner
            alive = hal.ticks_diff(hal.ticks_ms(), sc.last_progress) < self.stall_ms or not sc.working_readers()
        if alive:
            hal.feed_watchdog()
        if not progressed and not data:
            hal.idle(self.idle_max_us)

    def _snapshot_ready(self):
        """True when a SNAPSHOT may go out: not while a warm-up reads the board afresh (its
        own SNAPSHOT follows), not during the self-test (the scan is paused)."""
        return not self.warming and self.selftest is None

    def _report_changes(self):
        changes = self.scanner.take_changes()
        if not changes or self.warming or self.selftest is not None:
            return  # during a warm-up its SNAPSHOT carries them
        latest = {}
        for loc, old, new in changes:
            if new is None:
                if old is UNKNOWN and loc not in latest:
                    continue  # the host already takes an unread location as empty
                latest[loc] = b""
            else:
                latest[loc] = new
        if latest:
            entries = sorted(latest.items())
            self._send(F.CHANGES, F.tags_payload(self.scanner.sweep, entries))

    def _report_faults(self):
        for reader, code in self.scanner.take_faults():
            if self.snapshot_sent:
                self._send_fault(reader, code)
            else:
                self._pending_faults.append((reader, code))

    # --- host commands ----------------------------------------------------------------

    def handle(self, kind, seq, payload):
        """Answer one host frame (its CRC was good)."""
        self.host_frames += 1
        # During a warm-up (after boot or a self-test) and the self-test no SNAPSHOT is sent on
        # request: the board is not read through, and the warm-up SNAPSHOT follows by itself.
        if kind in (F.REQUEST_SNAPSHOT, F.IDENTIFY) and payload:
            self._ack(seq, F.ACK_BAD_PAYLOAD)
        elif kind == F.REQUEST_SNAPSHOT:
            self._ack(seq, F.ACK_OK)
            if self._snapshot_ready():
                self.send_snapshot()
        elif kind == F.IDENTIFY:
            self._ack(seq, F.ACK_OK)
            if self.selftest is not None:
                self.end_selftest(F.SELFTEST_NEW_HOST)
            self.send_hello()
            if self._snapshot_ready():
                self.send_snapshot()
        elif kind == F.SET_SCAN:
            self._ack(seq, self._set_scan(payload))
        elif kind == F.SELFTEST:
            self._selftest(seq, payload)
        else:
            self._ack(seq, F.ACK_UNKNOWN_TYPE)

    # --- the self-test ----------------------------------------------------------------

    def _selftest(self, seq, payload):
        """SELFTEST: start the self-test, extend it (another time limit) or end it (0 s)."""
        try:
            seconds, report_ms = F.parse_selftest(payload)
        except F.FrameError:
            self._ack(seq, F.ACK_BAD_PAYLOAD)
            return
        low, high = SELFTEST_SECONDS_RANGE
        rlow, rhigh = SELFTEST_REPORT_MS_RANGE
        if seconds > high or (report_ms and not rlow <= report_ms <= rhigh):
            self._ack(seq, F.ACK_UNSUPPORTED_VALUE)
            return
        self._ack(seq, F.ACK_OK)
        st = self.selftest
        if seconds < low:
            if st is not None:
                self.end_selftest(F.SELFTEST_STOPPED)
        elif st is not None:
            st.extend(seconds, report_ms)
        else:
            self.scanner.pause()
            self.selftest = SelfTest(self.hal, self.scanner, self._send, seconds,
                                     report_ms or SELFTEST_REPORT_MS)

    def end_selftest(self, state):
        """End the self-test (``state``: why) and scan again, every location read afresh."""
        st = self.selftest
        if st is None:
            return
        st.finish(state)
        self.selftest = None
        self.scanner.resume()
        self.warming = True
        self._warm_ms = self.hal.ticks_ms()

    def _ack(self, seq, status):
        self._send(F.ACK, F.ack_payload(seq, status))

    def _set_scan(self, payload):
        try:
            values = F.parse_set_scan(payload)
        except F.FrameError:
            return F.ACK_BAD_PAYLOAD
        ranges = (STABLE_SWEEPS_RANGE, STABLE_MS_RANGE, EMPTY_TIMEOUT_US_RANGE,
                  SNAPSHOT_MS_RANGE, HEARTBEAT_MS_RANGE)
        for value, (low, high) in zip(values, ranges):
            if value and not low <= value <= high:
                return F.ACK_UNSUPPORTED_VALUE
        stable_sweeps, stable_ms, timeout_us, snapshot_ms, heartbeat_ms = values
        sc = self.scanner
        if stable_sweeps:
            sc.stable_reads = stable_sweeps
        if stable_ms:
            sc.stable_ms = stable_ms
        if timeout_us:
            sc.set_empty_timeout_us(timeout_us)
        now = self.hal.ticks_ms()
        if snapshot_ms:
            self.snapshot_ms = snapshot_ms
            self._next_snapshot = self.hal.ticks_add(now, snapshot_ms)
        if heartbeat_ms:
            self.heartbeat_ms = heartbeat_ms
            self._next_heartbeat = self.hal.ticks_add(now, heartbeat_ms)
        return F.ACK_OK
