"""The board link protocol on the controller side (hardware/PROTOCOL.md).

Produces exactly the bytes of the host's ``drivers.board.protocol.encode()`` and parses the
host's frames. MicroPython-compatible: plain functions and tuples, ``struct`` and
``binascii.crc32`` (a table-driven CRC-32 stands in where a port lacks it).

A location is one int, ``area << 8 | index``: ``cell_loc(7, 7)`` is H8 (``0x0170``),
``slot_loc(0, 0)`` is slot 1 of rack 1 (``0x0200``).
"""

import struct

try:
    from binascii import crc32 as _binascii_crc32
except ImportError:  # a MicroPython port built without it
    _binascii_crc32 = None

PROTOCOL_MAJOR = 1
PROTOCOL_MINOR = 1
MAX_PAYLOAD = 4096
COLS = 15
ROWS = 15

# Frame types: controller to host below 0x80, host to controller from 0x80.
HELLO = 0x01
SNAPSHOT = 0x02
CHANGES = 0x03
HEARTBEAT = 0x04
FAULT = 0x05
ACK = 0x06
SELFTEST_REPORT = 0x07  # 1.1: the self-test's results
REQUEST_SNAPSHOT = 0x81
SET_SCAN = 0x82
IDENTIFY = 0x83
SELFTEST = 0x84  # 1.1: start, extend or end the self-test

# Areas of a location.
AREA_BOARD = 1
AREA_RACK = 2

# FAULT codes.
FAULT_RECOVERED = 0
FAULT_NO_RESPONSE = 1
FAULT_BAD_DATA = 2
FAULT_RESET = 3

# ACK status codes.
ACK_OK = 0
ACK_UNKNOWN_TYPE = 1
ACK_BAD_PAYLOAD = 2
ACK_UNSUPPORTED_VALUE = 3

# SELFTEST_REPORT states: running, or why the run ended (in its last report).
SELFTEST_RUNNING = 0
SELFTEST_STOPPED = 1  # the host's SELFTEST with 0 seconds
SELFTEST_TIMED_OUT = 2  # its time limit passed without another SELFTEST
SELFTEST_NEW_HOST = 3  # IDENTIFY, or a host opening the port

# The result of a read in a SELFTEST_REPORT (1 and 2 as the FAULT codes).
READ_EMPTY = 0
READ_NO_RESPONSE = 1
READ_BAD_DATA = 2
READ_TAG = 3

# A reader's health flags in a SELFTEST_REPORT.
HEALTH_EXPANDER_FAILED = 0x01  # its MCP23S17 failed the address check at boot
HEALTH_OUT_OF_SCAN = 0x02  # the normal scan had taken it out when the self-test began

_HEADER = "<BBHH"
_HEADER_SIZE = 6
_CRC_SIZE = 4
MIN_BODY = _HEADER_SIZE + _CRC_SIZE
# The longest frame on the wire: COBS adds one byte per 254, the delimiters two more.
MAX_WIRE = MIN_BODY + MAX_PAYLOAD + (MIN_BODY + MAX_PAYLOAD) // 254 + 4


class FrameError(ValueError):
    """A frame or payload that breaks the protocol."""


class CrcError(FrameError):
    """A frame whose CRC-32 does not match its body."""


# --- locations --------------------------------------------------------------------------


def cell_loc(row, col):
    """The location of the board cell at 0-based ``row``, ``col``."""
    return AREA_BOARD << 8 | (row * COLS + col)


def slot_loc(rack, slot):
    """The location of 0-based ``slot`` of 0-based ``rack``."""
    return AREA_RACK << 8 | (rack << 4 | slot)


def loc_name(loc):
    """``H8`` for a cell, ``R2.5`` (rack 2, slot 5, both 1-based) for a rack slot."""
    area, index = loc >> 8, loc & 0xFF
    if area == AREA_BOARD:
        row, col = divmod(index, COLS)
        return "ABCDEFGHIJKLMNO"[col] + str(row + 1)
    return "R%d.%d" % ((index >> 4) + 1, (index & 0x0F) + 1)


def parse_loc(name):
    """The location called ``name`` (``H8``, or ``R2.5`` for rack 2 slot 5, 1-based)."""
    text = name.strip().upper()
    try:
        if text.startswith("R"):
            rack, slot = text[1:].split(".")
            r, s = int(rack) - 1, int(slot) - 1
            if 0 <= r < 4 and 0 <= s < 9:
                return slot_loc(r, s)
        else:
            col = "ABCDEFGHIJKLMNO".index(text[0])
            row = int(text[1:]) - 1
            if 0 <= row < ROWS and len(text) in (2, 3):
                return cell_loc(row, col)
    except (ValueError, IndexError):
        pass
    raise FrameError("not a location: %r (cells A1-O15, rack slots R1.1-R4.9)" % (name,))


# --- CRC-32 and COBS ----------------------------------------------------------------------

_TABLE = None


def _crc32_table(data, crc=0):
    """CRC-32 (IEEE 802.3) by table, for ports without ``binascii.crc32``."""
    global _TABLE
    if _TABLE is None:
        table = []
        for n in range(256):
            c = n
            for _ in range(8):
                c = (c >> 1) ^ 0xEDB88320 if c & 1 else c >> 1
            table.append(c)
        _TABLE = table
    table = _TABLE
    crc ^= 0xFFFFFFFF
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def crc32(data):
    """CRC-32 of ``data`` as ``zlib.crc32`` computes it."""
    if _binascii_crc32 is not None:
        return _binascii_crc32(data) & 0xFFFFFFFF
    return _crc32_table(data)


def cobs_encode(data):
    """Consistent Overhead Byte Stuffing: ``data`` without any zero byte.

    Same blocks as the host's encoder: each zero-separated part in blocks of 254 bytes
    (code 255), then its remainder (code ``len + 1``, 1 when empty).
    """
    out = bytearray()
    n = len(data)
    start = 0
    while True:
        end = start
        while end < n and data[end] != 0:
            end += 1
        i = start
        while end - i >= 254:
            out.append(255)
            out.extend(data[i:i + 254])
            i += 254
        out.append(end - i + 1)
        out.extend(data[i:end])
        if end >= n:
            return bytes(out)
        start = end + 1


def cobs_decode(data):
    """Undo :func:`cobs_encode`; :class:`FrameError` for a malformed block."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise FrameError("zero byte inside a COBS block")
        end = i + code
        if end > n:
            raise FrameError("COBS block runs past the frame")
        out.extend(data[i + 1:end])
        i = end
        if code < 255 and i < n:
            out.append(0)
    return bytes(out)


# --- frames -----------------------------------------------------------------------------


def encode_frame(kind, seq, payload):
    """The wire bytes of a frame: ``00 COBS(body) 00``."""
    if len(payload) > MAX_PAYLOAD:
        raise FrameError("payload of %d bytes is over %d" % (len(payload), MAX_PAYLOAD))
    body = bytearray(struct.pack(_HEADER, kind, 0, seq & 0xFFFF, len(payload)))
    body.extend(payload)
    body.extend(struct.pack("<I", crc32(body)))
    return b"\x00" + cobs_encode(body) + b"\x00"


def decode_body(chunk):
    """``(type, seq, payload)`` of one COBS chunk (no delimiters); FrameError when bad."""
    body = cobs_decode(chunk)
    if len(body) < MIN_BODY:
        raise FrameError("frame of %d bytes is too short" % len(body))
    (crc,) = struct.unpack("<I", body[-_CRC_SIZE:])
    if crc32(body[:-_CRC_SIZE]) != crc:
        raise CrcError("CRC mismatch")
    kind, _flags, seq, length = struct.unpack(_HEADER, body[:_HEADER_SIZE])
    if length > MAX_PAYLOAD:  # as on the host: the wire limit lets bodies of up to 4115 bytes through
        raise FrameError("length field %d is over %d" % (length, MAX_PAYLOAD))
    if length != len(body) - MIN_BODY:
        raise FrameError("length field %d, payload %d bytes" % (length, len(body) - MIN_BODY))
    return kind, seq, body[_HEADER_SIZE:-_CRC_SIZE]


class FrameParser:
    """Turns a byte stream into ``(type, seq, payload)`` frames; never raises on input.

    Counts what it drops in ``crc_errors``, ``malformed`` (bad COBS, too short, a length
    field other than the payload's or over ``MAX_PAYLOAD``) and ``oversize`` (no delimiter
    within ``MAX_WIRE``), as the host's parser does (PROTOCOL.md, framing).
    """

    def __init__(self, limit=MAX_WIRE):
        self.limit = limit
        self.frames = 0
        self.crc_errors = 0
        self.malformed = 0
        self.oversize = 0
        self._buf = bytearray()

    def feed(self, data):
        """The frames completed by ``data`` (a list, maybe empty)."""
        out = []
        buf = self._buf
        limit = self.limit
        for b in data:
            if b != 0:
                if len(buf) <= limit:
                    buf.append(b)
                    if len(buf) > limit:  # overlong: counted once, dropped at the next 00
                        self.oversize += 1
                continue
            if buf:
                if len(buf) <= limit:
                    frame = self._frame(bytes(buf))
                    if frame is not None:
                        out.append(frame)
                self._buf = buf = bytearray()
        return out

    def _frame(self, chunk):
        try:
            frame = decode_body(chunk)
        except CrcError:
            self.crc_errors += 1
            return None
        except FrameError:
            self.malformed += 1
            return None
        self.frames += 1
        return frame


# --- payloads ---------------------------------------------------------------------------


def hello_payload(firmware, protocol, cols, rows, racks, slots, readers, board_id, boot_id=None):
    """HELLO: versions (3 and 2 ints), geometry, reader count, 8-byte board id, and (1.1)
    the u32 boot id."""
    board_id = bytes(board_id)[:8]
    board_id = board_id + bytes(8 - len(board_id))
    return struct.pack(
        "<BBBBBBBBBB",
        firmware[0], firmware[1], firmware[2], protocol[0], protocol[1],
        cols, rows, racks, slots, readers,
    ) + board_id + _boot_id(boot_id)


def _boot_id(boot_id):
    return b"" if boot_id is None else struct.pack("<I", boot_id & 0xFFFFFFFF)


def tags_payload(sweep, entries):
    """SNAPSHOT or CHANGES: ``entries`` are ``(loc, uid)``; ``uid`` ``b''`` means empty."""
    out = bytearray(struct.pack("<IH", sweep & 0xFFFFFFFF, len(entries)))
    for loc, uid in entries:
        out.append(loc >> 8)
        out.append(loc & 0xFF)
        out.append(len(uid))
        out.extend(uid)
    return bytes(out)


def heartbeat_payload(sweep, uptime_ms, sweep_ms, faulty_readers, boot_id=None):
    """HEARTBEAT: sweep count, uptime, last sweep's duration (clamped to u16), faults, and
    (1.1) the u32 boot id."""
    return struct.pack(
        "<IIHB", sweep & 0xFFFFFFFF, uptime_ms & 0xFFFFFFFF, min(sweep_ms, 0xFFFF), faulty_readers
    ) + _boot_id(boot_id)


def fault_payload(reader, code, locs):
    """FAULT: the reader, its code and every location it covers."""
    out = bytearray((reader, code, len(locs)))
    for loc in locs:
        out.append(loc >> 8)
        out.append(loc & 0xFF)
    return bytes(out)


def ack_payload(seq, status):
    """ACK of the host frame numbered ``seq``."""
    return struct.pack("<HB", seq & 0xFFFF, status)


SET_SCAN_SIZE = 9


def set_scan_payload(stable_sweeps, stable_ms, empty_timeout_us, snapshot_ms, heartbeat_ms):
    """SET_SCAN (the host's; here for tests and tools); 0 leaves a value unchanged."""
    return struct.pack("<BHHHH", stable_sweeps, stable_ms, empty_timeout_us, snapshot_ms, heartbeat_ms)


SELFTEST_SIZE = 4


def selftest_payload(seconds, report_ms):
    """SELFTEST (the host's; here for tests and tools): 0 seconds ends the self-test."""
    return struct.pack("<HH", seconds, report_ms)


def parse_selftest(payload):
    """``(seconds, report_ms)`` of a SELFTEST; bytes after them are ignored, a short payload
    is a FrameError."""
    if len(payload) < SELFTEST_SIZE:
        raise FrameError("SELFTEST payload of %d bytes, %d expected" % (len(payload), SELFTEST_SIZE))
    return struct.unpack("<HH", payload[:SELFTEST_SIZE])


def selftest_health(reader, version, flags, faults, resets, locs):
    """A reader's health entry: VersionReg, HEALTH_* flags, faults since boot and resets in
    this self-test (both up to 255), and the locations it covers, by antenna."""
    out = bytearray((reader, version & 0xFF, flags, min(faults, 255), min(resets, 255), len(locs)))
    for loc in locs:
        out.append(loc >> 8)
        out.append(loc & 0xFF)
    return bytes(out)


def selftest_summary(reader, antenna, result, count, min_us, max_us):
    """The ``count`` empty, no-response or bad-data reads of one antenna since the last
    report, the shortest and longest in microseconds (each up to 65535)."""
    return struct.pack("<BBBHHH", reader, antenna, result, min(count, 0xFFFF), min(min_us, 0xFFFF),
                       min(max_us, 0xFFFF))


def selftest_tag(reader, antenna, time_us, uid):
    """One read of a tag: its time in microseconds (up to 65535) and its UID."""
    return struct.pack("<BBBHB", reader, antenna, READ_TAG, min(time_us, 0xFFFF), len(uid)) + bytes(uid)


SELFTEST_REPORT_HEAD = 8  # state, elapsed ms, health count; read count


def selftest_report_payload(state, elapsed_ms, health, reads):
    """SELFTEST_REPORT: the state, the ms since the self-test began, then the entries made by
    :func:`selftest_health` and by :func:`selftest_summary` or :func:`selftest_tag`."""
    out = bytearray(struct.pack("<BIB", state, elapsed_ms & 0xFFFFFFFF, len(health)))
    for entry in health:
        out.extend(entry)
    out.extend(struct.pack("<H", len(reads)))
    for entry in reads:
        out.extend(entry)
    return bytes(out)


def parse_set_scan(payload):
    """``(stable_sweeps, stable_ms, empty_timeout_us, snapshot_ms, heartbeat_ms)``.

    Bytes after the known fields (a newer minor version) are ignored; a short payload is
    a FrameError.
    """
    if len(payload) < SET_SCAN_SIZE:
        raise FrameError("SET_SCAN payload of %d bytes, %d expected" % (len(payload), SET_SCAN_SIZE))
    return struct.unpack("<BHHHH", payload[:SET_SCAN_SIZE])
