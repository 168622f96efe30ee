"""The hardware the scan and link logic needs, behind one small interface.

``hal_rp2.Rp2Hal`` drives the real readers; ``hal_fake.FakeHal`` is a virtual board on a
virtual clock. The scanner never waits for one reader: it starts a read on every idle
reader (:meth:`Hal.start_read`), then collects the ones that finished
(:meth:`Hal.ready`, :meth:`Hal.result`), so all readers work at the same time while the
one CPU only does the short register work between their radio exchanges.

Times are MicroPython ticks: ints that wrap at ``TICKS_PERIOD``; compare them with
:meth:`Hal.ticks_diff` only.
"""

from firmware.iso14443a import BadRead

TICKS_PERIOD = 1 << 30
_TICKS_HALF = TICKS_PERIOD >> 1

SETTLE_US = 1000  # the default: NTAG21x need 0.25 ms and more; see TIMING.md, "Settle time"
SETTLE_MAX_US = 5000  # ISO/IEC 14443-3: a tag is ready at most 5 ms after the field reaches it
FRAME_MAX_US = 1300  # the longest exchange's frames on air: SELECT (9 bytes) and SAK at 106 kbit/s
DEADLINE_MARGIN_US = 1000  # the timer's 25 us ticks, the reader's own processing, the IRQ line

# What a reader's VersionReg (0x37) reads: the NXP MFRC522 1.0 and 2.0, and the clones the
# firmware accepts as well (FM17522 0x88, 0xB2, 0x12). 0x00 or 0xFF: nothing answers on SPI.
MFRC522_VERSIONS = (0x91, 0x92)
CLONE_VERSIONS = (0x88, 0xB2, 0x12)
KNOWN_VERSIONS = MFRC522_VERSIONS + CLONE_VERSIONS

__all__ = ["CLONE_VERSIONS", "KNOWN_VERSIONS", "MFRC522_VERSIONS", "SETTLE_MAX_US", "SETTLE_US", "TICKS_PERIOD",
           "BadRead", "Hal", "ReaderFault", "exchange_deadline_us", "ticks_add", "ticks_diff"]


class ReaderFault(Exception):
    """A reader that does not answer its bus, or never finishes a read."""

    def __init__(self, reader, message):
        super().__init__("reader %d: %s" % (reader, message))
        self.reader = reader


def ticks_diff(a, b):
    """``a - b`` for ticks that wrap at ``TICKS_PERIOD`` (as ``time.ticks_diff``)."""
    return ((a - b + _TICKS_HALF) & (TICKS_PERIOD - 1)) - _TICKS_HALF


def ticks_add(a, delta):
    """``a + delta`` wrapped at ``TICKS_PERIOD`` (as ``time.ticks_add``)."""
    return (a + delta) & (TICKS_PERIOD - 1)


def exchange_deadline_us(timeout_us):
    """How long after its launch one exchange may go unanswered before the reader is hung.

    Every exchange ends by itself: the reader's timer (started at the end of transmission,
    stopped when an answer begins) raises its IRQ after ``timeout_us`` at the latest. So
    the bound is the frames on air, the time-out and a margin, counted from that
    exchange's launch: the time a busy CPU takes to get to a finished reader is not part
    of it, and a reader past its deadline is looked at once more before it is called hung.
    """
    return FRAME_MAX_US + timeout_us + DEADLINE_MARGIN_US


class Hal:
    """The interface; subclasses implement every method that raises here.

    Readers are numbered from 0; each switches between its antennas (0-based).
    """

    readers = 0

    # --- time ---------------------------------------------------------------------------

    def ticks_ms(self):
        """Milliseconds, wrapping."""
        raise NotImplementedError

    def ticks_us(self):
        """Microseconds, wrapping."""
        raise NotImplementedError

    def ticks_diff(self, a, b):
        """``a - b`` in ticks."""
        return ticks_diff(a, b)

    def ticks_add(self, a, delta):
        """``a + delta`` in ticks."""
        return ticks_add(a, delta)

    def idle(self, max_us):
        """Nothing to do: wait at most ``max_us`` for a read to finish or input to arrive."""
        raise NotImplementedError

    # --- readers ------------------------------------------------------------------------

    def set_empty_timeout_us(self, us):
        """How long a reader waits for a tag's answer before calling the cell empty."""
        raise NotImplementedError

    def set_settle_us(self, us):
        """How long an antenna is in the field before the WUPA goes out (0-5000 us).

        The wait never blocks the other readers: the WUPA is launched by :meth:`ready`
        once the time is up.
        """
        raise NotImplementedError

    def start_read(self, reader, antenna, known=None):
        """Switch ``reader`` to ``antenna`` and start reading the UID there; returns at once.

        The reader's antenna is selected and its transmitter on from here until its read
        finishes (:meth:`ready` returns it): an idle reader has no field and no antenna, so
        the scanner's keep-out, which looks at the readers that read, holds at every moment.

        With ``known`` (the UID last read there) the reader may stop after cascade level 1
        when the tag's answer matches it (``iso14443a.Select``) and report ``known``.
        """
        raise NotImplementedError

    def ready(self):
        """A reader whose read has finished (its result waits in :meth:`result`), or -1."""
        raise NotImplementedError

    def result(self, reader):
        """The finished read's UID, or None for an empty antenna.

        Raises :class:`ReaderFault` for a reader that stopped answering and
        :class:`BadRead` for a garbled answer.
        """
        raise NotImplementedError

    def reset_reader(self, reader):
        """Reset ``reader`` through its RST line; True when it answers again."""
        raise NotImplementedError

    def reader_version(self, reader):
        """The reader's VersionReg (0x37), read over SPI now: one of ``KNOWN_VERSIONS``, 0x00
        or 0xFF when nothing answers. Only while ``reader`` has no read running."""
        raise NotImplementedError

    def expander_ok(self, reader):
        """True when ``reader``'s MCP23S17 answered at its own address at boot
        (``mcp23s17.enable_addresses``); False: its antennas cannot be switched."""
        raise NotImplementedError

    def read_uid(self, reader, antenna):
        """One blocking read: the UID on ``antenna``, or None. Only while no other read runs."""
        self.start_read(reader, antenna)
        while True:
            done = self.ready()
            if done == reader:
                return self.result(reader)
            if done >= 0:  # another reader's leftover result: not ours to take
                self.result(done)
            self.idle(1000)

    # --- link, watchdog, identity -------------------------------------------------------

    def serial_write(self, data):
        """Send ``data`` (one frame) to the host; returns at once, never waiting for the host.

        A HAL may queue it and send the rest from :meth:`ready` and :meth:`idle`; a frame the
        host does not take is dropped (``dropped_writes``), whole or in part."""
        raise NotImplementedError

    def serial_read(self):
        """Bytes the host sent since the last call (``b''`` when none); never blocks."""
        raise NotImplementedError

    def host_connected(self):
        """True or False when the link tells whether a host has the port open, else None."""
        return

    def feed_watchdog(self):
        """Tell the watchdog the main loop is alive."""
        raise NotImplementedError

    def unique_id(self):
        """The controller's 8-byte unique id."""
        raise NotImplementedError

    def boot_id(self):
        """32 random bits, drawn once per boot (protocol 1.1's boot id)."""
        raise NotImplementedError
