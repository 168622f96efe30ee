"""MicroPython's USB CDC serial on the rp2 port: ``sys.stdout.buffer`` writes and
``select.poll`` on ``sys.stdout``, per MicroPython release, from its source.

- v1.20-v1.23 (``ports/rp2/mphalport.c``, commit 8447fef9f9 for issue #9634 and 38e7b842c6
  for POLLOUT): nothing is written while no host has the port open (DTR low); while one
  has, each piece of up to 64 bytes waits until the TinyUSB TX FIFO has room for all of it,
  up to MICROPY_HW_USB_CDC_TX_TIMEOUT (500 ms), then the rest is dropped. POLLOUT: DTR
  high and at least one byte free.
- v1.24-v1.26 (``shared/tinyusb/mp_usbd_cdc.c``, 8809ae7161, 880f7bc040): with DTR low
  everything goes into the FIFO, which then overwrites its oldest bytes (the host gets the
  latest 256 when it opens the port); with DTR high as before. POLLOUT: DTR low, or at
  least one byte free.
- v1.27 on (a43e38544b): with DTR high a write takes what fits at once, then waits for more
  room, 500 ms after its last progress at most.

``sys.stdout.buffer.write`` loops over those (``py/stream.c`` ``mp_stream_rw``) until a
call writes nothing. The TX FIFO holds 256 bytes at full speed (CFG_TUD_CDC_TX_BUFSIZE).
The host takes ``drain_bytes_per_ms`` while it reads (the Pi's cdc-acm keeps bulk IN
transfers queued: about 1 MB/s at full speed); one that holds the port open without
reading (``reading = False``) takes nothing.

Before v1.20 POLLOUT is never reported on stdout and a write with DTR high waits forever:
the firmware needs MicroPython 1.20 or later (hardware/README.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .clock import VirtualClock

FIFO = 256
PACKET = 64
TX_TIMEOUT_US = 500_000


class UsbCdc:
    """The device side's TX FIFO and the host at the other end of the cable."""

    def __init__(self, clock: VirtualClock, version: tuple[int, int] = (1, 27), dtr: bool = True,
                 reading: bool = True, drain_bytes_per_ms: int = 1000) -> None:
        self.clock = clock
        self.version = version
        self.dtr = dtr
        self.reading = reading
        self.drain_bytes_per_ms = drain_bytes_per_ms
        self.fifo = bytearray()
        self.host_rx = bytearray()  # what the host has read
        self.host_log: list[tuple[int, bytes]] = []  # the same, in pieces with the time they came
        self.stdin = bytearray()  # what the host sent, not yet read by the program
        self.interrupt_char = 3  # micropython.kbd_intr; -1: off
        self.interrupt_pending = False
        self.longest_write_us = 0  # the longest single sys.stdout.buffer.write
        self.writes = 0
        self._drained_at = clock.now

    # --- the host ---------------------------------------------------------------------------

    def drain(self) -> None:
        """The host reads what the FIFO holds, at its pace, up to now."""
        now = self.clock.now
        if not (self.dtr and self.reading):
            self._drained_at = now
            return
        n = (now - self._drained_at) * self.drain_bytes_per_ms // 1000
        if n <= 0:
            return
        self._drained_at += n * 1000 // self.drain_bytes_per_ms
        take = min(n, len(self.fifo))
        if take:
            self.host_rx += self.fifo[:take]
            self.host_log.append((now, bytes(self.fifo[:take])))
            del self.fifo[:take]
        if not self.fifo:
            self._drained_at = now

    def open(self) -> None:
        """The host opens the port (DTR high)."""
        self.drain()
        self.dtr = True
        self._drained_at = self.clock.now

    def close(self) -> None:
        """The host closes the port (DTR low)."""
        self.drain()
        self.dtr = False
        if self.version >= (1, 29):  # 8d3597ca50 (after v1.28): the FIFO is flushed on DTR low
            self.fifo.clear()

    def send(self, data: bytes) -> None:
        """The host writes to the port; a Ctrl-C interrupts the program while kbd_intr allows."""
        for b in data:
            if b == self.interrupt_char:
                self.stdin.clear()  # MicroPython empties the input and raises KeyboardInterrupt
                self.interrupt_pending = True
            else:
                self.stdin.append(b)

    # --- the device: poll and write ------------------------------------------------------------

    def free(self) -> int:
        self.drain()
        return FIFO - len(self.fifo)

    def poll_out(self) -> bool:
        """What ``select.poll`` reports for POLLOUT on ``sys.stdout``."""
        if self.version < (1, 20):
            return False
        if self.version < (1, 24):
            return self.dtr and self.free() > 0
        return not self.dtr or self.free() > 0

    def poll_in(self) -> bool:
        return bool(self.stdin)

    def _push(self, data: bytes) -> None:
        self.drain()
        self.fifo += data
        if len(self.fifo) > FIFO:  # DTR low: the FIFO overwrites its oldest bytes
            del self.fifo[:len(self.fifo) - FIFO]
        if data and self.dtr and self.reading:  # the host takes the rest even if nothing else happens
            self.clock.after(len(self.fifo) * 1000 / self.drain_bytes_per_ms + 1, self.drain)

    def _wait_1ms(self) -> None:
        self.clock.advance(1000)

    def _tx_strn(self, data: bytes) -> int:
        """``mp_hal_stdout_tx_strn`` for one call (see the module doc per version)."""
        n_all = len(data)
        if self.version < (1, 24):
            if not self.dtr:
                return 0
            i = 0
            while i < n_all:
                n = min(n_all - i, PACKET)
                t0 = self.clock.now
                while n > self.free():
                    if self.clock.now - t0 >= TX_TIMEOUT_US:
                        return i
                    self._wait_1ms()
                self._push(data[i:i + n])
                i += n
            return i
        if self.version < (1, 27):
            i = 0
            while i < n_all:
                n = min(n_all - i, PACKET)
                if self.dtr:
                    t0 = self.clock.now
                    while n > self.free() and self.clock.now - t0 < TX_TIMEOUT_US:
                        self._wait_1ms()
                    n = min(n, self.free())
                    if n == 0:
                        break
                self._push(data[i:i + n])
                i += n
            return i
        last = self.clock.now
        i = 0
        while i < n_all:
            n = n_all - i
            if self.dtr:
                n = min(n, self.free())
            self._push(data[i:i + n])
            i += n
            if i < n_all:
                if n > 0:
                    last = self.clock.now
                else:
                    if self.clock.now - last >= TX_TIMEOUT_US:
                        break
                    if self.dtr:
                        self._wait_1ms()
        return i

    def write(self, data: bytes) -> int:
        """``sys.stdout.buffer.write``: ``mp_stream_rw`` around ``_tx_strn``."""
        start = self.clock.now
        self.writes += 1
        done = 0
        while done < len(data):
            n = self._tx_strn(data[done:])
            if n == 0:
                break
            done += n
        self.longest_write_us = max(self.longest_write_us, self.clock.now - start)
        return done
