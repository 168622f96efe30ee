"""The board link protocol (hardware/PROTOCOL.md), pure: bytes in, frames and messages out.

A frame on the wire is ``00 COBS(body) 00``; ``body = type, flags, seq (u16 LE),
length (u16 LE), payload, CRC-32 (u32 LE) of everything before it``. Garbage between
frames is skipped at the next ``00``; a frame whose CRC, length or payload is wrong is
counted and dropped, never guessed.
"""

from __future__ import annotations

import enum
import struct
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field

from engine.board import SIZE, Square
from engine.errors import ScoreboardError

PROTOCOL_MAJOR = 1
PROTOCOL_MINOR = 1
MAX_PAYLOAD = 4096
HEADER = struct.Struct("<BBHH")
CRC = struct.Struct("<I")
MIN_BODY = HEADER.size + CRC.size
MAX_RACKS = 4
MAX_SLOTS = 9


class ProtocolError(ScoreboardError, ValueError):
    """A frame or payload that breaks the protocol (quoted in the message)."""


class NotOnBoardError(ProtocolError):
    """A location that is not on the HELLO's board: the host's HELLO may be the wrong one."""


class NoSuchLocationError(NotOnBoardError):
    """A location no board of this protocol has: an unknown ``area``, or an ``index`` past
    its largest (cell 225, rack 5, slot 10)."""

    def __init__(self, area: int, index: int, what: str = "") -> None:
        known = area in (Area.BOARD, Area.RACK)
        super().__init__(f"{what}{'no such location' if known else 'unknown area'} {area}/{index}")
        self.area = area
        self.index = index


class OutsideGeometryError(NotOnBoardError):
    """A location the HELLO's geometry does not have (slot 8 of a 7-slot rack, rack 3 of 2).

    ``loc``: the location named; ``racks``, ``slots``: the geometry the HELLO declared.
    """

    def __init__(self, loc: Loc, racks: int, slots: int) -> None:
        super().__init__(
            f"{loc.name()} is not on this board ({racks} racks of {slots} slots)"
        )
        self.loc = loc
        self.racks = racks
        self.slots = slots


class ReaderOutOfRangeError(ProtocolError):
    """A FAULT or SELFTEST_REPORT naming a reader the HELLO does not have.

    ``reader``: the reader named; ``readers``: how many the HELLO declared; ``kind``: the
    frame's type.
    """

    def __init__(self, reader: int, readers: int, kind: FrameType) -> None:
        super().__init__(
            f"{kind.name} names reader {reader}, but the board has {readers} readers (0-{readers - 1})"
        )
        self.reader = reader
        self.readers = readers
        self.kind = kind


class SelfTestReportError(ProtocolError):
    """A SELFTEST_REPORT payload that does not follow its layout (PROTOCOL.md, "Self-test").

    ``reason``: what is wrong; ``offset``: the byte of the payload where it was found;
    ``payload``: the whole payload.
    """

    def __init__(self, reason: str, payload: bytes, offset: int) -> None:
        super().__init__(f"SELFTEST_REPORT, byte {offset} of {len(payload)}: {reason}")
        self.reason = reason
        self.payload = payload
        self.offset = offset


class FrameType(enum.IntEnum):
    """Frame types: controller to host below 0x80, host to controller from 0x80."""

    HELLO = 0x01
    SNAPSHOT = 0x02
    CHANGES = 0x03
    HEARTBEAT = 0x04
    FAULT = 0x05
    ACK = 0x06
    SELFTEST_REPORT = 0x07
    REQUEST_SNAPSHOT = 0x81
    SET_SCAN = 0x82
    IDENTIFY = 0x83
    SELFTEST = 0x84


class Area(enum.IntEnum):
    """Where a tag is read: a board cell or a rack slot."""

    BOARD = 1
    RACK = 2


@dataclass(frozen=True, slots=True, order=True)
class Loc:
    """A reading position: board cell ``row * 15 + col``, or rack slot ``rack << 4 | slot``."""

    area: Area
    index: int

    @classmethod
    def cell(cls, square: Square | str) -> Loc:
        """The board cell of a square (``'H8'`` or a :class:`Square`)."""
        sq = Square.from_name(square) if isinstance(square, str) else square
        return cls(Area.BOARD, sq.row * SIZE + sq.col)

    @classmethod
    def cell_index(cls, index: int) -> Loc:
        """The board cell number ``row * 15 + col``."""
        return cls(Area.BOARD, index)

    @classmethod
    def slot(cls, rack: int, slot: int) -> Loc:
        """Slot ``slot`` (0-based) of rack ``rack`` (0-based)."""
        if not (0 <= rack < MAX_RACKS and 0 <= slot < MAX_SLOTS):
            raise ProtocolError(f"no rack slot {rack}/{slot}: racks 0-3, slots 0-8")
        return cls(Area.RACK, rack << 4 | slot)

    @property
    def square(self) -> Square:
        """The board square of a cell location."""
        return Square.from_cell(self.index)

    @property
    def rack(self) -> int:
        """The rack (0-based) of a slot location."""
        return self.index >> 4

    @property
    def rack_slot(self) -> int:
        """The slot (0-based) of a slot location."""
        return self.index & 0x0F

    def name(self) -> str:
        """``H8`` for a cell, ``rack 2 slot 5`` (1-based) for a rack slot."""
        if self.area is Area.BOARD:
            return self.square.name()
        return f"rack {self.rack + 1} slot {self.rack_slot + 1}"

    @classmethod
    def from_name(cls, name: str) -> Loc:
        """The location :meth:`name` gives: ``'H8'`` or ``'rack 2 slot 5'``."""
        words = name.split()
        try:
            if len(words) == 4 and words[0] == "rack" and words[2] == "slot":
                return cls.slot(int(words[1]) - 1, int(words[3]) - 1)
            return cls.cell(name)
        except (ScoreboardError, ValueError):
            raise ProtocolError(
                f"not a location: {name!r} (a square A1-O15, or 'rack R slot S' with racks 1-4, slots 1-9)"
            ) from None

    def valid(self) -> bool:
        """True when the location exists on a 15x15 board with 4 racks of 9 slots."""
        if self.area is Area.BOARD:
            return 0 <= self.index < SIZE * SIZE
        return self.rack < MAX_RACKS and self.rack_slot < MAX_SLOTS

    def __repr__(self) -> str:
        if self.area is Area.BOARD:
            return f"Loc.cell({self.name()!r})"
        return f"Loc.slot({self.rack}, {self.rack_slot})"


# Every valid location, by ``area << 8 | index`` (decoding looks them up, not builds them).
_LOCS: dict[int, Loc] = {
    loc.area << 8 | loc.index: loc
    for loc in [Loc(Area.BOARD, i) for i in range(SIZE * SIZE)]
    + [Loc(Area.RACK, r << 4 | s) for r in range(MAX_RACKS) for s in range(MAX_SLOTS)]
}


# --- messages -------------------------------------------------------------------------------


class Message:
    """A decoded frame payload."""

    type: FrameType


@dataclass(frozen=True)
class Hello(Message):
    """Handshake: firmware and protocol versions, geometry, readers, the controller's id."""

    firmware: tuple[int, int, int]
    protocol: tuple[int, int]
    cols: int
    rows: int
    racks: int
    slots: int
    readers: int
    board_id: bytes
    boot_id: int | None = None  # 1.1: drawn at each boot (None: a 1.0 controller's HELLO)
    type = FrameType.HELLO

    def has(self, loc: Loc) -> bool:
        """True when this board has ``loc``: a cell of its ``cols x rows``, a slot of its racks."""
        if loc.area is Area.BOARD:
            return 0 <= loc.index < self.cols * self.rows
        return loc.rack < self.racks and loc.rack_slot < self.slots

    def check(self, locs: Iterable[Loc]) -> None:
        """:class:`OutsideGeometryError` for the first of ``locs`` this board does not have."""
        for loc in locs:
            if not self.has(loc):
                raise OutsideGeometryError(loc, self.racks, self.slots)


@dataclass(frozen=True)
class Snapshot(Message):
    """Every location holding a tag after sweep ``sweep`` (stable readings only)."""

    sweep: int
    tags: tuple[tuple[Loc, bytes], ...]
    type = FrameType.SNAPSHOT


@dataclass(frozen=True)
class Changes(Message):
    """Stable changes in sweep ``sweep``: a tag arrived (its UID) or left (``b''``)."""

    sweep: int
    changes: tuple[tuple[Loc, bytes], ...]
    type = FrameType.CHANGES


@dataclass(frozen=True)
class Heartbeat(Message):
    """Sent every heartbeat interval: sweep count, uptime, last sweep's duration, faults."""

    sweep: int
    uptime_ms: int
    sweep_ms: int
    faulty_readers: int
    boot_id: int | None = None  # 1.1: the boot id of the HELLO after the same boot (None: 1.0)
    type = FrameType.HEARTBEAT


class FaultCode(enum.IntEnum):
    """What a reader fault report says."""

    RECOVERED = 0
    NO_RESPONSE = 1
    BAD_DATA = 2
    RESET = 3


@dataclass(frozen=True)
class Fault(Message):
    """Reader ``reader`` failed (or recovered); ``locs`` are the cells and slots it covers."""

    reader: int
    code: FaultCode
    locs: tuple[Loc, ...]
    type = FrameType.FAULT


class AckStatus(enum.IntEnum):
    """The controller's answer to a host command."""

    OK = 0
    UNKNOWN_TYPE = 1
    BAD_PAYLOAD = 2
    UNSUPPORTED_VALUE = 3


@dataclass(frozen=True)
class Ack(Message):
    """The controller's answer to the host frame numbered ``seq``."""

    seq: int
    status: AckStatus
    type = FrameType.ACK


@dataclass(frozen=True)
class RequestSnapshot(Message):
    """Host: send a full snapshot now."""

    type = FrameType.REQUEST_SNAPSHOT


@dataclass(frozen=True)
class SetScan(Message):
    """Host: scan parameters; 0 leaves a value unchanged."""

    stable_sweeps: int = 0
    stable_ms: int = 0
    empty_timeout_us: int = 0
    snapshot_ms: int = 0
    heartbeat_ms: int = 0
    type = FrameType.SET_SCAN


@dataclass(frozen=True)
class Identify(Message):
    """Host: send HELLO again."""

    type = FrameType.IDENTIFY


@dataclass(frozen=True)
class SelfTest(Message):
    """Host (1.1): run the self-test for ``seconds`` from now (0: end it), a report every
    ``report_ms`` (0: the controller's default)."""

    seconds: int
    report_ms: int = 0
    type = FrameType.SELFTEST


# --- the self-test's report (1.1) --------------------------------------------------------------

MFRC522_VERSIONS = {0x91: "MFRC522 1.0", 0x92: "MFRC522 2.0"}
"""VersionReg values of NXP's MFRC522 (as ``firmware.hal.MFRC522_VERSIONS``)."""
CLONE_VERSIONS = {0x88: "FM17522 clone", 0xB2: "MFRC522 clone", 0x12: "MFRC522 clone"}
"""VersionReg values of clones the firmware accepts too (as ``firmware.hal.CLONE_VERSIONS``)."""
NO_ANSWER_VERSIONS = (0x00, 0xFF)
"""What VersionReg reads when nothing answers on SPI (MISO held low, or pulled up)."""


class SelfTestState(enum.IntEnum):
    """A SELFTEST_REPORT's state: the self-test runs, or why it ended (its last report)."""

    RUNNING = 0
    STOPPED = 1  # the host's SELFTEST with 0 seconds
    TIMED_OUT = 2  # its time limit passed without another SELFTEST
    NEW_HOST = 3  # IDENTIFY, or a host opening the port


class ReadResult(enum.IntEnum):
    """What one read of an antenna gave in the self-test (1 and 2 as the FAULT codes)."""

    EMPTY = 0
    NO_RESPONSE = 1
    BAD_DATA = 2
    TAG = 3


class HealthFlag(enum.IntFlag):
    """A reader's health flags in a SELFTEST_REPORT."""

    NONE = 0
    EXPANDER_FAILED = 0x01  # its MCP23S17 failed the address check at boot: not scanned
    OUT_OF_SCAN = 0x02  # the normal scan had taken it out when the self-test began


@dataclass(frozen=True)
class ReaderHealth:
    """One reader in a SELFTEST_REPORT: its VersionReg, flags, how often the normal scan took
    it out since boot (``faults``) and the self-test reset it (``resets``), both up to 255,
    and the locations it covers by antenna (``locs[a]`` is under antenna ``a``)."""

    reader: int
    version: int
    flags: HealthFlag
    faults: int
    resets: int
    locs: tuple[Loc, ...]


@dataclass(frozen=True)
class AntennaReads:
    """Reads of one antenna in a SELFTEST_REPORT.

    ``result`` TAG: one read of the tag ``uid`` that took ``min_us`` (= ``max_us``; ``count``
    is 1). The other results: the ``count`` reads of that kind since the previous report,
    the shortest ``min_us`` and the longest ``max_us``. Times are capped at 65535 us.
    """

    reader: int
    antenna: int
    result: ReadResult
    count: int
    min_us: int
    max_us: int
    uid: bytes = b""

    @classmethod
    def tag(cls, reader: int, antenna: int, time_us: int, uid: bytes) -> AntennaReads:
        """One read of the tag ``uid`` that took ``time_us``."""
        return cls(reader, antenna, ReadResult.TAG, 1, time_us, time_us, uid)


@dataclass(frozen=True)
class SelfTestReport(Message):
    """The self-test's results since the previous report, ``elapsed_ms`` after it began.

    ``health``: the readers whose health this report carries (every reader in the first
    and the last report of a run); ``reads``: per antenna, as :class:`AntennaReads`.
    """

    state: SelfTestState
    elapsed_ms: int
    health: tuple[ReaderHealth, ...]
    reads: tuple[AntennaReads, ...]
    type = FrameType.SELFTEST_REPORT

    def check(self, readers: int) -> None:
        """:class:`ReaderOutOfRangeError` for the first reader not below ``readers``."""
        for reader in [h.reader for h in self.health] + [r.reader for r in self.reads]:
            if reader >= readers:
                raise ReaderOutOfRangeError(reader, readers, FrameType.SELFTEST_REPORT)

    def locs(self) -> tuple[Loc, ...]:
        """Every location its health entries name."""
        return tuple(loc for h in self.health for loc in h.locs)


# --- payload codecs ---------------------------------------------------------------------------

_HELLO = struct.Struct("<BBBBBBBBBB8s")
_SWEEP_COUNT = struct.Struct("<IH")
_HEARTBEAT = struct.Struct("<IIHB")
_BOOT_ID = struct.Struct("<I")  # 1.1: appended to HELLO and HEARTBEAT
HELLO_BOOT_AT = _HELLO.size  # 18: where a HELLO's boot id starts
HEARTBEAT_BOOT_AT = _HEARTBEAT.size  # 11: where a HEARTBEAT's boot id starts
_FAULT = struct.Struct("<BBB")
_ACK = struct.Struct("<HB")
_SET_SCAN = struct.Struct("<BHHHH")
_SELFTEST = struct.Struct("<HH")
_REPORT_HEAD = struct.Struct("<BIB")  # state, elapsed ms, health entries
_HEALTH = struct.Struct("<BBBBBB")  # reader, version, flags, faults, resets, locations
_READ_HEAD = struct.Struct("<BBB")  # reader, antenna, result
_SUMMARY = struct.Struct("<HHH")  # count, shortest us, longest us
_TAG = struct.Struct("<HB")  # time us, UID length
_U16 = struct.Struct("<H")


def _tags(entries: Iterable[tuple[Loc, bytes]]) -> bytes:
    out = bytearray()
    for loc, uid in entries:
        out += bytes((loc.area, loc.index, len(uid)))
        out += uid
    return bytes(out)


def encode_payload(msg: Message) -> bytes:
    """The payload bytes of ``msg``."""
    if isinstance(msg, Hello):
        hello = _HELLO.pack(*msg.firmware, *msg.protocol, msg.cols, msg.rows, msg.racks, msg.slots, msg.readers, msg.board_id)
        return hello + _boot_id(msg.boot_id)
    if isinstance(msg, Snapshot):
        return _SWEEP_COUNT.pack(msg.sweep, len(msg.tags)) + _tags(msg.tags)
    if isinstance(msg, Changes):
        return _SWEEP_COUNT.pack(msg.sweep, len(msg.changes)) + _tags(msg.changes)
    if isinstance(msg, Heartbeat):
        return _HEARTBEAT.pack(msg.sweep, msg.uptime_ms, msg.sweep_ms, msg.faulty_readers) + _boot_id(msg.boot_id)
    if isinstance(msg, Fault):
        return _FAULT.pack(msg.reader, msg.code, len(msg.locs)) + b"".join(bytes((loc.area, loc.index)) for loc in msg.locs)
    if isinstance(msg, Ack):
        return _ACK.pack(msg.seq, msg.status)
    if isinstance(msg, SetScan):
        return _SET_SCAN.pack(msg.stable_sweeps, msg.stable_ms, msg.empty_timeout_us, msg.snapshot_ms, msg.heartbeat_ms)
    if isinstance(msg, SelfTest):
        return _SELFTEST.pack(msg.seconds, msg.report_ms)
    if isinstance(msg, SelfTestReport):
        return _encode_report(msg)
    if isinstance(msg, (RequestSnapshot, Identify)):
        return b""
    raise ProtocolError(f"cannot encode {msg!r}")


def _encode_report(msg: SelfTestReport) -> bytes:
    out = bytearray(_REPORT_HEAD.pack(msg.state, msg.elapsed_ms, len(msg.health)))
    for h in msg.health:
        out += _HEALTH.pack(h.reader, h.version, h.flags, h.faults, h.resets, len(h.locs))
        out += b"".join(bytes((loc.area, loc.index)) for loc in h.locs)
    out += _U16.pack(len(msg.reads))
    for r in msg.reads:
        out += _READ_HEAD.pack(r.reader, r.antenna, r.result)
        if r.result is ReadResult.TAG:
            out += _TAG.pack(r.min_us, len(r.uid)) + r.uid
        else:
            out += _SUMMARY.pack(r.count, r.min_us, r.max_us)
    return bytes(out)


def decode_selftest_report(payload: bytes, *, exact: bool = True) -> tuple[SelfTestReport, int]:
    """The report in ``payload`` and where it ends; :class:`SelfTestReportError` when it does
    not follow its layout. With ``exact`` bytes after the reads are an error too (the link
    ignores them: it cuts the payload at the end this returns with ``exact=False``)."""
    size = len(payload)
    at = 0

    def need(n: int, what: str) -> None:
        if at + n > size:
            raise SelfTestReportError(f"cut short in {what}", payload, at)

    need(_REPORT_HEAD.size, "the header")
    raw_state, elapsed, n_health = _REPORT_HEAD.unpack_from(payload, at)
    try:
        state = SelfTestState(raw_state)
    except ValueError:
        raise SelfTestReportError(f"unknown state {raw_state}", payload, at) from None
    at += _REPORT_HEAD.size
    health: list[ReaderHealth] = []
    owner: dict[Loc, int] = {}
    for _ in range(n_health):
        need(_HEALTH.size, "a health entry")
        reader, version, flags, faults, resets, count = _HEALTH.unpack_from(payload, at)
        if any(h.reader == reader for h in health):
            raise SelfTestReportError(f"reader {reader}'s health listed twice", payload, at)
        at += _HEALTH.size
        need(2 * count, f"reader {reader}'s locations")
        locs = []
        for k in range(count):
            loc = _LOCS.get(payload[at] << 8 | payload[at + 1])
            if loc is None:
                raise SelfTestReportError(
                    f"reader {reader} antenna {k} is at no such location {payload[at]}/{payload[at + 1]}", payload, at)
            if loc in owner:
                raise SelfTestReportError(f"{loc.name()} is under readers {owner[loc]} and {reader}", payload, at)
            owner[loc] = reader
            locs.append(loc)
            at += 2
        health.append(ReaderHealth(reader, version, HealthFlag(flags), faults, resets, tuple(locs)))
    antennas = {h.reader: len(h.locs) for h in health}
    need(_U16.size, "the read count")
    (n_reads,) = _U16.unpack_from(payload, at)
    at += _U16.size
    reads: list[AntennaReads] = []
    summed: set[tuple[int, int, ReadResult]] = set()
    for _ in range(n_reads):
        need(_READ_HEAD.size, "a read entry")
        reader, antenna, raw_result = _READ_HEAD.unpack_from(payload, at)
        try:
            result = ReadResult(raw_result)
        except ValueError:
            raise SelfTestReportError(f"unknown read result {raw_result}", payload, at) from None
        if reader in antennas and antenna >= antennas[reader]:
            raise SelfTestReportError(
                f"reader {reader} has {antennas[reader]} antennas, not an antenna {antenna}", payload, at)
        entry_at = at
        at += _READ_HEAD.size
        if result is ReadResult.TAG:
            need(_TAG.size, "a tag read")
            time_us, n = _TAG.unpack_from(payload, at)
            if n not in (4, 7, 10):
                raise SelfTestReportError(f"a UID of {n} bytes (4, 7 or 10 expected)", payload, at)
            at += _TAG.size
            need(n, "a UID")
            reads.append(AntennaReads.tag(reader, antenna, time_us, payload[at:at + n]))
            at += n
            continue
        need(_SUMMARY.size, "a read summary")
        count, lo, hi = _SUMMARY.unpack_from(payload, at)
        if count == 0 or lo > hi:
            raise SelfTestReportError(
                f"a summary of {count} reads from {lo} to {hi} us (1 read or more, shortest first)", payload, at)
        if (reader, antenna, result) in summed:
            raise SelfTestReportError(
                f"reader {reader} antenna {antenna}: {result.name} summed twice", payload, entry_at)
        summed.add((reader, antenna, result))
        at += _SUMMARY.size
        reads.append(AntennaReads(reader, antenna, result, count, lo, hi))
    if exact and at != size:
        raise SelfTestReportError(f"{size - at} bytes after the reads", payload, at)
    return SelfTestReport(state, elapsed, tuple(health), tuple(reads)), at


def _boot_id(boot_id: int | None) -> bytes:
    return b"" if boot_id is None else _BOOT_ID.pack(boot_id)


def read_boot_id(payload: bytes, at: int) -> int | None:
    """The boot id at ``at`` in a HELLO or HEARTBEAT payload; None when the payload ends before
    it (a 1.0 controller): a field is present when the payload is long enough to hold it."""
    return _BOOT_ID.unpack_from(payload, at)[0] if len(payload) >= at + _BOOT_ID.size else None


def _read_tags(payload: bytes, offset: int, count: int, *, allow_empty: bool) -> tuple[tuple[Loc, bytes], ...]:
    out = []
    seen = set()
    size = len(payload)
    locs = _LOCS
    for _ in range(count):
        if offset + 3 > size:
            raise ProtocolError("tag list is cut short")
        area, index, n = payload[offset], payload[offset + 1], payload[offset + 2]
        offset += 3
        if n != 7 and n != 4 and n != 10 and not (allow_empty and n == 0):
            raise ProtocolError(f"a UID of {n} bytes (4, 7 or 10 expected)")
        if offset + n > size:
            raise ProtocolError("tag list is cut short")
        key = area << 8 | index
        loc = locs.get(key)
        if loc is None:
            raise NoSuchLocationError(area, index)
        if key in seen:
            raise ProtocolError(f"{loc.name()} listed twice")
        seen.add(key)
        out.append((loc, payload[offset:offset + n]))
        offset += n
    if offset != size:
        raise ProtocolError(f"{size - offset} bytes after the tag list")
    return tuple(out)


def decode_payload(kind: int, payload: bytes) -> Message:
    """The message of a frame of type ``kind``; :class:`ProtocolError` when malformed."""
    try:
        t = FrameType(kind)
    except ValueError:
        raise ProtocolError(f"unknown frame type 0x{kind:02x}") from None
    try:
        if t is FrameType.HELLO:
            v = _HELLO.unpack_from(payload)  # newer minor versions may append fields
            boot = read_boot_id(payload, HELLO_BOOT_AT)
            return Hello(tuple(v[0:3]), tuple(v[3:5]), v[5], v[6], v[7], v[8], v[9], v[10], boot)
        if t in (FrameType.SNAPSHOT, FrameType.CHANGES):
            sweep, count = _SWEEP_COUNT.unpack_from(payload)
            tags = _read_tags(payload, _SWEEP_COUNT.size, count, allow_empty=t is FrameType.CHANGES)
            return Snapshot(sweep, tags) if t is FrameType.SNAPSHOT else Changes(sweep, tags)
        if t is FrameType.HEARTBEAT:
            sweep, uptime, sweep_ms, faulty = _HEARTBEAT.unpack_from(payload)
            return Heartbeat(sweep, uptime, sweep_ms, faulty, read_boot_id(payload, HEARTBEAT_BOOT_AT))
        if t is FrameType.FAULT:
            reader, code, count = _FAULT.unpack_from(payload)
            body = payload[_FAULT.size:]
            if len(body) != 2 * count:
                raise ProtocolError(f"fault report lists {count} locations in {len(body)} bytes")
            locs = []
            for i in range(0, len(body), 2):
                loc = _LOCS.get(body[i] << 8 | body[i + 1])
                if loc is None:
                    raise NoSuchLocationError(body[i], body[i + 1], "fault report names ")
                locs.append(loc)
            return Fault(reader, FaultCode(code), tuple(locs))
        if t is FrameType.ACK:
            seq, status = _ACK.unpack_from(payload)
            return Ack(seq, AckStatus(status))
        if t is FrameType.SET_SCAN:
            return SetScan(*_SET_SCAN.unpack_from(payload))
        if t is FrameType.SELFTEST:
            return SelfTest(*_SELFTEST.unpack_from(payload))
        if t is FrameType.SELFTEST_REPORT:
            return decode_selftest_report(payload)[0]
        if payload:
            raise ProtocolError(f"{t.name} carries no payload, got {len(payload)} bytes")
        return RequestSnapshot() if t is FrameType.REQUEST_SNAPSHOT else Identify()
    except struct.error:
        raise ProtocolError(f"{t.name} payload of {len(payload)} bytes is too short") from None
    except ValueError as e:  # an enum value out of range
        if isinstance(e, ProtocolError):
            raise
        raise ProtocolError(f"{t.name}: {e}") from None


# --- framing --------------------------------------------------------------------------------


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: ``data`` without any zero byte."""
    out = bytearray()
    for part in data.split(b"\x00"):
        while len(part) >= 254:
            out.append(255)
            out += part[:254]
            part = part[254:]
        out.append(len(part) + 1)
        out += part
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Undo :func:`cobs_encode`; :class:`ProtocolError` for a malformed block."""
    out = bytearray()
    i, n = 0, len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise ProtocolError("zero byte inside a COBS block")
        end = i + code
        if end > n:
            raise ProtocolError("COBS block runs past the frame")
        out += data[i + 1:end]
        i = end
        if code < 255 and i < n:
            out.append(0)
    return bytes(out)


def encode(msg: Message, seq: int) -> bytes:
    """The wire bytes of ``msg`` numbered ``seq``: ``00 COBS(body) 00``."""
    payload = encode_payload(msg)
    return encode_frame(msg.type, seq, payload)


def encode_frame(kind: int, seq: int, payload: bytes, flags: int = 0) -> bytes:
    """The wire bytes of a raw frame."""
    if len(payload) > MAX_PAYLOAD:
        raise ProtocolError(f"payload of {len(payload)} bytes is over {MAX_PAYLOAD}")
    body = HEADER.pack(kind, flags, seq & 0xFFFF, len(payload)) + payload
    body += CRC.pack(zlib.crc32(body))
    return b"\x00" + cobs_encode(body) + b"\x00"


@dataclass(frozen=True, slots=True)
class Frame:
    """A frame whose framing, length and CRC are right (its payload is not decoded yet)."""

    type: int
    seq: int
    payload: bytes


@dataclass
class ParserStats:
    """What a parser has seen: frames, and what it dropped."""

    frames: int = 0
    crc_errors: int = 0
    malformed: int = 0  # bad COBS, wrong length, too short, a length field over MAX_PAYLOAD
    oversize: int = 0  # no delimiter within the largest frame's size
    bytes: int = 0


@dataclass
class FrameParser:
    """Turns a byte stream into frames; never raises on any input."""

    stats: ParserStats = field(default_factory=ParserStats)
    _buffer: bytearray = field(default_factory=bytearray)

    # COBS adds one byte per 254; the delimiters two more.
    LIMIT = MIN_BODY + MAX_PAYLOAD + (MIN_BODY + MAX_PAYLOAD) // 254 + 4

    def feed(self, data: bytes) -> list[Frame]:
        """Frames completed by ``data``."""
        self.stats.bytes += len(data)
        buf = self._buffer
        buf += data
        if b"\x00" not in data:
            if len(buf) > self.LIMIT:  # garbage without delimiter: drop it, stay bounded
                self.stats.oversize += 1
                buf.clear()
            return []
        chunks = bytes(buf).split(b"\x00")
        buf.clear()
        buf += chunks.pop()  # the unfinished tail
        frames = []
        for chunk in chunks:
            if chunk:
                frame = self._frame(chunk)
                if frame is not None:
                    frames.append(frame)
        return frames

    def _frame(self, chunk: bytes) -> Frame | None:
        if len(chunk) > self.LIMIT:
            self.stats.oversize += 1
            return None
        try:
            body = cobs_decode(chunk)
        except ProtocolError:
            self.stats.malformed += 1
            return None
        if len(body) < MIN_BODY:
            self.stats.malformed += 1
            return None
        (crc,) = CRC.unpack_from(body, len(body) - CRC.size)
        if zlib.crc32(memoryview(body)[:-CRC.size]) != crc:
            self.stats.crc_errors += 1
            return None
        kind, _flags, seq, length = HEADER.unpack_from(body)
        if length > MAX_PAYLOAD or length != len(body) - MIN_BODY:  # (LIMIT lets up to 4115 through)
            self.stats.malformed += 1
            return None
        self.stats.frames += 1
        return Frame(kind, seq, body[HEADER.size:-CRC.size])


class SequenceTracker:
    """Checks the controller's sequence numbers: a gap, repeat or reordering needs a snapshot."""

    def __init__(self) -> None:
        self.expected: int | None = None
        self.gaps = 0

    def reset(self, seq: int) -> None:
        """Start again at ``seq`` (after a HELLO)."""
        self.expected = (seq + 1) & 0xFFFF

    def check(self, seq: int) -> bool:
        """True when ``seq`` is the next one; else counts a gap and resynchronises on it."""
        ok = self.expected is None or seq == self.expected
        if not ok:
            self.gaps += 1
        self.expected = (seq + 1) & 0xFFFF
        return ok


def uid_hex(uid: bytes) -> str:
    """A UID as upper-case hex: ``04A1B2C3D4E5F6``."""
    return uid.hex().upper()
