"""Bring-up measurements on the real chips (hardware/BRINGUP.md), run on the controller.

With the safe-boot jumper fitted (no watchdog, Ctrl-C works) and the firmware copied:

    mpremote exec "import firmware.bringup as b; b.run('spi')"
    mpremote exec "import firmware.bringup as b; b.run('powerup', reader=0, antenna=7, uid='04A1B2C3D4E5F6')"

Each measurement prints its lines and returns its figures, so the tests run them on the chip
fakes (tests/test_firmware_bringup.py). They use ``hal_rp2.Rp2Hal`` and the HAL interface
only; the scanner is not running.
"""

from firmware.hal import SETTLE_US, BadRead, ReaderFault

POWERUP_STEPS = (100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000)


def _hex(uid):
    return "".join("%02X" % b for b in uid) if uid else "-"


def spi(hal, reader=0, n=1000, out=print):
    """Microseconds of one register read and one register write, each timed ``n`` times in a row.

    Pass (DESIGN.md): at most 11 us, the cost at which the modeled worst sweep reaches the
    250 ms target (246 ms at the 9.5 us estimated at 200 MHz and 6.25 MHz)."""
    read_us, write_us = hal.spi_us(reader, n)
    out("reader %d: %.1f us a register read, %.1f us a register write (%d each)" % (reader, read_us, write_us, n))
    return read_us, write_us


def reads(hal, reader, antenna, n=20):
    """``n`` blocking reads of one antenna: ({UID or None or 'bad': count}, [us each])."""
    counts = {}
    times = []
    for _ in range(n):
        t0 = hal.ticks_us()
        try:
            uid = hal.read_uid(reader, antenna)
        except BadRead:
            uid = "bad"
        times.append(hal.ticks_diff(hal.ticks_us(), t0))
        counts[uid] = counts.get(uid, 0) + 1
    return counts, times


def powerup(hal, reader, antenna, uid, n=20, steps=POWERUP_STEPS, out=print):
    """The tag's power-up time: the shortest settle time at which all ``n`` reads find ``uid``
    (None if none does). Pass: at most 1000 us, the firmware's settle time."""
    uid = _uid(uid)
    found = None
    try:
        for us in steps:
            hal.set_settle_us(us)
            counts, _ = reads(hal, reader, antenna, n)
            ok = counts.get(uid, 0)
            out("settle %4d us: %2d of %d reads found %s" % (us, ok, n, _hex(uid)))
            if ok == n:
                found = us
                break
    finally:
        hal.set_settle_us(SETTLE_US)
    out("tag power-up: %s" % ("%d us" % found if found is not None else "not found up to %d us" % steps[-1]))
    return found


# The transmitter model (hardware/boardcalc.py, DESIGN.md "Drive level"): the coil current is
# TX1's fundamental over (source + 20 ohm), the source the mean of the p- and n-driver's
# resistance, 4.7 ohm at full conductance scaled by the codes.
TX_R_FULL = 0.15 / 0.032
TX_LOAD = 20.0
CWGSN = 8  # hal_rp2.GSN >> 4


def field_db(setting, weakest, cwgsn=CWGSN):
    """The field (coil current) at CWGsP ``setting`` over the field at ``weakest``, in dB."""
    import math

    def source(g):
        return (TX_R_FULL * 63 / g + TX_R_FULL * 15 / cwgsn) / 2

    return 20 * math.log10((source(weakest) + TX_LOAD) / (source(setting) + TX_LOAD))


def drive(hal, reader, antenna, uid, n=10, out=print):
    """Read-range margin: the weakest carrier (CWGsPReg) at which all ``n`` reads find ``uid``,
    and how much stronger the firmware's field is, in dB of coil current (``field_db``: not
    the conductance ratio, which overstates it several times). Measure with the tile at its
    highest (spacers) and lowest; pass: 6 dB or more at the highest. Returns
    (weakest, margin_db) or (None, None)."""
    uid = _uid(uid)
    setting = hal.drive(reader)
    weakest = None
    try:
        for g in range(setting, 0, -1):
            hal.set_drive(reader, g)
            counts, _ = reads(hal, reader, antenna, n)
            if counts.get(uid, 0) < n:
                break
            weakest = g
    finally:
        hal.set_drive(reader, setting)
    if weakest is None:
        out("reader %d antenna %d: %s not read at the firmware's drive 0x%02x" % (reader, antenna, _hex(uid), setting))
        return None, None
    margin = field_db(setting, weakest)
    out("reader %d antenna %d: reads %s down to drive 0x%02x: field %.1f dB under the firmware's 0x%02x"
        % (reader, antenna, _hex(uid), weakest, margin, setting))
    return weakest, margin


def drive_for(db, setting, cwgsn=CWGSN):
    """The weakest CWGsP whose field is ``db`` over ``setting``'s (None: not reachable)."""
    for g in range(setting, 64):
        if field_db(g, setting, cwgsn) >= db:
            return g
    return None


def crossreads(hal, layout, uid, n=5, out=print, boost_db=0.0):
    """With the tile on one cell, every antenna of every reader read ``n`` times: the
    antennas that read ``uid`` as [(reader, antenna, reads)]. Pass: exactly one antenna, its
    own, with ``n`` reads; a neighbour that reads it is a cross-read. ``boost_db``: every
    reader's field that much stronger than the firmware's for the test (``drive_for``)."""
    uid = _uid(uid)
    hits = []
    settings = []
    try:
        if boost_db:
            for r in range(len(layout.readers)):
                try:
                    setting = hal.drive(r)
                except ReaderFault:
                    continue  # _crossreads reports it
                g = drive_for(boost_db, setting)
                if g is None:
                    raise ValueError("no drive gives %.1f dB over 0x%02x" % (boost_db, setting))
                settings.append((r, setting))
                hal.set_drive(r, g)
                out("reader %d: field %.1f dB over the firmware's 0x%02x: CWGsP 0x%02x"
                    % (r, field_db(g, setting), setting, g))
        hits = _crossreads(hal, layout, uid, n, out)
    finally:
        for r, setting in settings:
            hal.set_drive(r, setting)
    out("%s read by %d antenna(s)%s" % (_hex(uid), len(hits), ": PASS" if len(hits) == 1 and hits[0][2] == n else ": FAIL"))
    return hits


def _crossreads(hal, layout, uid, n, out):
    hits = []
    for r in range(len(layout.readers)):
        for a in range(len(layout.readers[r])):
            try:
                counts, _ = reads(hal, r, a, n)
            except ReaderFault:
                out("reader %d: not answering, skipped" % r)
                break
            k = counts.get(uid, 0)
            if k:
                hits.append((r, a, k))
                out("reader %d antenna %d (location 0x%04x): %d of %d reads" % (r, a, layout.readers[r][a], k, n))
        hal.feed_watchdog()
    return hits


def field(hal, readers, antenna=0, seconds=10, out=print):
    """The carrier on ``antenna`` of every reader in ``readers`` at once, for ``seconds``, for an
    ammeter in the 5 V feed: one reader for its own current, all of them for the worst case.
    (All fields at once break the keep-out on purpose: no tile on the board meanwhile.)"""
    for r in readers:
        hal.hold_field(r, antenna)
    out("field on: readers %s, antenna %d, %d s: read the current now" % (list(readers), antenna, seconds))
    try:
        end = hal.ticks_add(hal.ticks_ms(), seconds * 1000)
        while hal.ticks_diff(end, hal.ticks_ms()) > 0:
            hal.feed_watchdog()
            hal.idle(10000)
    finally:
        for r in readers:
            hal.release_field(r)
    out("field off")
    return len(readers)


def _uid(uid):
    if isinstance(uid, str):
        return bytes(int(uid[k:k + 2], 16) for k in range(0, len(uid), 2))
    return bytes(uid)


def run(what, **kw):
    """Build the HAL as ``main.py`` does and run one measurement (safe boot: no watchdog)."""
    import main
    from firmware.hal_rp2 import Rp2Hal
    from firmware.scanner import row_layout

    layout = row_layout(main.RACKS, main.SLOTS)
    hal = Rp2Hal(len(layout.readers), link=main.LINK)
    if what == "spi":
        return spi(hal, **kw)
    if what == "powerup":
        return powerup(hal, **kw)
    if what == "drive":
        return drive(hal, **kw)
    if what == "crossreads":
        return crossreads(hal, layout, **kw)
    if what == "field":
        return field(hal, **kw)
    raise ValueError("unknown measurement %r: spi, powerup, drive, crossreads, field" % what)
