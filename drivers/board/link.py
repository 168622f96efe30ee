"""The host side of the board link (hardware/PROTOCOL.md, "The host's rules"), pure.

:class:`BoardLink` takes the bytes read from the controller with the time they arrived and
returns typed events; the frames it wants sent wait in :meth:`BoardLink.outgoing`. No I/O,
no threads, no clock: the transport (:mod:`drivers.board.serial_link`) reads, writes and
calls :meth:`BoardLink.tick` for the watchdog.

The rules it applies:

- frames are taken in sequence; a frame with an unexpected seq (gap, repeat, reordering) is
  dropped, a snapshot is requested, and CHANGES are dropped until that snapshot arrives (a
  lost CHANGES frame is never patched over);
- nothing but HELLO is interpreted before the first HELLO, CHANGES nothing before the first
  SNAPSHOT after it;
- a location the HELLO's geometry does not have (slot 8 of a 7-slot rack, a third rack of
  two) makes its SNAPSHOT, CHANGES or FAULT a bad payload: counted, never applied, and the
  host asks for HELLO again (its idea of the geometry may be what is wrong);
- a HELLO of another board (another geometry or board id) is held and confirmed with an
  IDENTIFY: it is taken when the answer says the same, and the old board's picture is
  dropped (a corrupted or forged one is replaced by the answer, and nothing is interpreted
  meanwhile); whether a game can go on with it is the service's question;
- a refused HELLO (another protocol major version, a board this scoreboard cannot play on)
  is reported once per reason, its frames are not interpreted, and IDENTIFY is sent again
  every ``refused_retry`` seconds: a controller updated or replaced is taken up again;
- frame types this host does not know are counted and ignored; bytes appended to a known
  payload (by any minor version, 1.0 included) are ignored;
- a controller restart seen without its HELLO (:meth:`BoardLink.restarted`) is followed by
  IDENTIFY, and the scan settings follow the HELLO: a HEARTBEAT whose boot id is not the
  HELLO's, whatever its seq (1.1), or whose uptime advanced, counted modulo 2**32, by more
  than the host's clock and 2 s (a 1.0 controller, whose uptime is all there is);
- no valid frame for ``timeout`` seconds is a :class:`LinkLost`; the link then asks for a
  HELLO again;
- a FAULT or SELFTEST_REPORT naming a reader the HELLO does not have is a bad payload
  (:class:`~drivers.board.protocol.ReaderOutOfRangeError`); the last bad payload's error is
  kept in :attr:`BoardLink.last_error`;
- a SELFTEST_REPORT (the self-test, 1.1) is reported as :class:`SelfTestReported`; an ACK
  refusing a command this link sent as :class:`CommandRefused` (a controller that does not
  know SELFTEST answers "unknown type").
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from engine.errors import ScoreboardError

from engine.board import SIZE

from .protocol import (
    MAX_RACKS,
    MAX_SLOTS,
    PROTOCOL_MAJOR,
    PROTOCOL_MINOR,
    Ack,
    AckStatus,
    Changes,
    Fault,
    FaultCode,
    Frame,
    FrameParser,
    FrameType,
    Heartbeat,
    Hello,
    HEARTBEAT_BOOT_AT,
    Identify,
    Loc,
    Message,
    NotOnBoardError,
    ProtocolError,
    ReaderOutOfRangeError,
    RequestSnapshot,
    SelfTestReport,
    SequenceTracker,
    SetScan,
    Snapshot,
    decode_payload,
    decode_selftest_report,
    encode,
    read_boot_id,
)
from .snapshot import BoardSnapshot

DEFAULT_TIMEOUT = 1.5  # PROTOCOL.md: the link is dead after 1.5 s without a valid frame
DEFAULT_RETRY = 1.0  # ask again when a requested SNAPSHOT or HELLO has not come by then
REFUSED_RETRY = 3.0  # IDENTIFY again this long after a refused HELLO (an updated controller is seen)
UPTIME_SLACK = 2.0  # s: a 1.0 controller's uptime may run ahead of the host's clock by this much
UPTIME_WRAP = 1 << 32  # the uptime is a u32 of milliseconds: it wraps after 49.7 days

_CONTROLLER_TYPES = frozenset(t for t in FrameType if t < 0x80)
SENT_REMEMBERED = 64  # host frames whose type the link remembers, to name what an ACK refuses


class LinkConfigError(ScoreboardError, ValueError):
    """A link setting out of range (the value is quoted)."""


# --- events ---------------------------------------------------------------------------------


class BoardEvent:
    """Something the board link reports; ``at`` is the time it was seen."""

    at: float


@dataclass(frozen=True)
class BoardConnected(BoardEvent):
    """A controller of our protocol major version said HELLO."""

    hello: Hello
    at: float


@dataclass(frozen=True)
class SnapshotReceived(BoardEvent):
    """The controller's stable readings as of ``snapshot.sweep``, unfiltered by the host.

    Sent after each SNAPSHOT and CHANGES frame, and after each HEARTBEAT (which confirms the
    board is unchanged up to its sweep); ``source`` says which frame it came from.
    """

    snapshot: BoardSnapshot
    source: FrameType
    at: float


@dataclass(frozen=True)
class ReaderFault(BoardEvent):
    """Reader ``reader`` failed or (``code`` RECOVERED) works again; ``locs``: what it covers."""

    reader: int
    code: FaultCode
    locs: tuple[Loc, ...]
    at: float


@dataclass(frozen=True)
class VersionMismatch(BoardEvent):
    """The controller speaks another protocol major version; its frames are not interpreted."""

    board: tuple[int, int]
    firmware: tuple[int, int, int]
    at: float
    host: tuple[int, int] = (PROTOCOL_MAJOR, PROTOCOL_MINOR)

    def message(self) -> str:
        """What to tell the players."""
        return (
            f"board firmware speaks protocol {self.board[0]}.{self.board[1]}; "
            f"this scoreboard speaks {self.host[0]}.x: update one of them"
        )



@dataclass(frozen=True)
class UnsupportedBoard(BoardEvent):
    """The controller's HELLO describes a board this scoreboard cannot play on."""

    hello: Hello
    reason: str
    at: float

    def message(self) -> str:
        """What to tell the players."""
        return f"this board cannot be used: {self.reason}"

    @property
    def problem(self) -> BoardProblem:
        """What the board has that this scoreboard cannot play on."""
        problem = board_problem(self.hello)
        assert problem is not None, "an UnsupportedBoard of a board that can be used"
        return problem


@dataclass(frozen=True)
class SelfTestReported(BoardEvent):
    """A SELFTEST_REPORT: the self-test's results since its previous report (1.1)."""

    report: SelfTestReport
    at: float


@dataclass(frozen=True)
class CommandRefused(BoardEvent):
    """The controller answered a command this link sent with an ACK other than OK.

    ``command``: the command's type; ``seq``: its seq; ``status``: the answer.
    UNKNOWN_TYPE: the firmware does not know the command (a SELFTEST to a controller
    without the self-test); BAD_PAYLOAD and UNSUPPORTED_VALUE: it refused its values.
    """

    command: FrameType
    seq: int
    status: AckStatus
    at: float


@dataclass(frozen=True)
class LinkLost(BoardEvent):
    """No valid frame for ``silent_for`` seconds."""

    silent_for: float
    at: float


# --- state and counters ---------------------------------------------------------------------


class LinkState(enum.Enum):
    """Where the handshake is."""

    WAITING_HELLO = "waiting for HELLO"
    SYNCING = "waiting for a SNAPSHOT"
    SYNCED = "in sync"
    INCOMPATIBLE = "HELLO refused (another protocol major version or board geometry)"


@dataclass(frozen=True)
class LinkStats:
    """Counters since the link was made (a reset keeps them)."""

    bytes: int = 0
    frames: int = 0  # framing, length and CRC right
    crc_errors: int = 0
    malformed: int = 0  # bad COBS, length field wrong, too short
    oversize: int = 0
    sequence_errors: int = 0  # gaps, repeats and reorderings
    bad_payloads: int = 0  # outside_geometry included
    outside_geometry: int = 0  # locations the HELLO's geometry does not have
    unknown_types: int = 0  # types a newer minor version added, or host types coming back
    ignored: int = 0  # before HELLO, CHANGES before a SNAPSHOT, or another major version
    snapshot_requests: int = 0
    nacks: int = 0  # ACKs with a status other than OK
    link_losses: int = 0
    reboots: int = 0  # controller restarts: another boot id, or (1.0) an uptime that did not run on
    refusals: int = 0  # HELLOs refused (each one, repeats included)
    geometry_changes: int = 0  # HELLOs held for confirmation: their geometry or board id differs from the one taken


def identity(hello: Hello) -> tuple[tuple[int, int, int, int], bytes]:
    """What makes a HELLO another board's: its geometry and its board id."""
    return geometry(hello), hello.board_id


def geometry(hello: Hello) -> tuple[int, int, int, int]:
    """A HELLO's board geometry: cols, rows, racks, slots per rack."""
    return hello.cols, hello.rows, hello.racks, hello.slots


class BoardProblem(enum.Enum):
    """Why a board cannot be played on: its cells, its number of racks, its rack slots."""

    CELLS = "cells"
    RACKS = "racks"
    SLOTS = "slots"


def board_problem(hello: Hello) -> BoardProblem | None:
    """What a board of this geometry has that cannot be played on (None when it can)."""
    if (hello.cols, hello.rows) != (SIZE, SIZE):
        return BoardProblem.CELLS
    if not 1 <= hello.racks <= MAX_RACKS:
        return BoardProblem.RACKS
    if not 1 <= hello.slots <= MAX_SLOTS:
        return BoardProblem.SLOTS
    return None


def _geometry_problem(hello: Hello) -> str:
    """Why a board of this geometry cannot be played on ("" when it can), for the log."""
    match board_problem(hello):
        case BoardProblem.CELLS:
            return f"it has {hello.cols} x {hello.rows} cells, not {SIZE} x {SIZE}"
        case BoardProblem.RACKS:
            return f"it reports {hello.racks} racks (1 to {MAX_RACKS} are supported)"
        case BoardProblem.SLOTS:
            return f"its racks have {hello.slots} slots (1 to {MAX_SLOTS} are supported)"
    return ""


# --- the engine -----------------------------------------------------------------------------


class BoardLink:
    """The host's protocol engine: bytes and time in, :class:`BoardEvent` s and frames out.

    ``timeout``: seconds without a valid frame before :class:`LinkLost`; ``retry``: seconds
    after which an unanswered snapshot request or IDENTIFY is sent again; ``refused_retry``:
    seconds between the IDENTIFYs sent while a HELLO stays refused; ``scan``: scan settings
    sent after every HELLO (None: keep the controller's).
    """

    def __init__(
        self,
        timeout: float = DEFAULT_TIMEOUT,
        retry: float = DEFAULT_RETRY,
        scan: SetScan | None = None,
        refused_retry: float = REFUSED_RETRY,
    ) -> None:
        if not timeout > 0:
            raise LinkConfigError(f"link timeout must be above 0 s, got {timeout!r}")
        if not retry > 0:
            raise LinkConfigError(f"retry interval must be above 0 s, got {retry!r}")
        if not refused_retry > 0:
            raise LinkConfigError(f"refused-HELLO retry interval must be above 0 s, got {refused_retry!r}")
        self.timeout = timeout
        self.retry = retry
        self.refused_retry = refused_retry
        self.scan = scan
        self.state = LinkState.WAITING_HELLO
        self.hello: Hello | None = None
        self.board = BoardSnapshot()  # last SNAPSHOT plus the CHANGES after it
        self._parser = FrameParser()
        self._seq = SequenceTracker()
        self._out = bytearray()
        self._tx_seq = 0
        self._last_rx: float | None = None
        self._lost = False
        self._asked_at: float | None = None  # when the pending IDENTIFY/REQUEST_SNAPSHOT went out
        self._identified_at: float | None = None  # when the last IDENTIFY went out
        self._beat: tuple[int, float] | None = None  # the last HEARTBEAT since the HELLO: uptime, arrival
        self._restart_of: int | None = None  # the boot id whose restart was counted before its HELLO
        self._refusal: str | None = None  # the last refused HELLO's message, until one is accepted
        self._held: Hello | None = None  # a HELLO of another geometry, until a second one confirms it
        self._taken: Hello | None = None  # the last HELLO taken (kept through refusals and losses)
        self._identify_seq: int | None = None  # our last IDENTIFY's seq
        self._answered = False  # its ACK came: the next HELLO is the answer (confirms a held one)
        self._sent: dict[int, FrameType] = {}  # the type of our last frames, by seq
        self.last_error: ProtocolError | None = None  # the last bad payload's error
        self._counts = dict.fromkeys(
            (
                "bad_payloads", "outside_geometry", "unknown_types", "ignored", "snapshot_requests",
                "nacks", "link_losses", "reboots", "refusals", "geometry_changes",
            ),
            0,
        )

    # --- host side ---

    def reset(self, now: float) -> None:
        """The port was (re)opened: drop partial input, ask for HELLO (which resets the seq)."""
        self._parser = FrameParser(stats=self._parser.stats)
        self.state = LinkState.WAITING_HELLO
        self._last_rx = now
        self._lost = False
        self._refusal = None
        self._identify(now)

    def restarted(self, now: float, boot_id: int | None = None) -> None:
        """The controller restarted and its HELLO was not seen: ask for it again.

        Called for a HEARTBEAT of another boot (``boot_id``: its boot id) or, from a 1.0
        controller, one whose uptime did not run on; the hook for any other sign of a
        restart. Nothing is interpreted until the HELLO, and the scan settings are sent
        again after it; that HELLO is not counted as a second restart.
        """
        self._counts["reboots"] += 1
        self._restart_of = boot_id
        self.state = LinkState.WAITING_HELLO
        self._beat = None
        self._identify(now)

    def send(self, msg: Message) -> int:
        """Queue a host frame (numbered here) for :meth:`outgoing`; its seq."""
        seq = self._tx_seq
        self._out += encode(msg, seq)
        self._sent[seq] = msg.type
        self._sent.pop((seq - SENT_REMEMBERED) & 0xFFFF, None)
        self._tx_seq = (seq + 1) & 0xFFFF
        return seq

    def outgoing(self) -> bytes:
        """The bytes to write to the controller now (emptied by the call)."""
        out = bytes(self._out)
        self._out.clear()
        return out

    @property
    def stats(self) -> LinkStats:
        """The counters, the parser's included."""
        p = self._parser.stats
        return LinkStats(
            bytes=p.bytes, frames=p.frames, crc_errors=p.crc_errors, malformed=p.malformed,
            oversize=p.oversize, sequence_errors=self._seq.gaps, **self._counts,
        )

    # --- input ---

    def feed(self, data: bytes, now: float) -> list[BoardEvent]:
        """Events from the bytes ``data`` that arrived at ``now``."""
        events: list[BoardEvent] = []
        for frame in self._parser.feed(data):
            self._last_rx = now
            self._lost = False
            events += self._frame(frame, now)
        return events

    def tick(self, now: float) -> list[BoardEvent]:
        """The watchdog: call at :meth:`next_due` (or any time); resends unanswered requests."""
        events: list[BoardEvent] = []
        if self._last_rx is not None and not self._lost and now - self._last_rx >= self.timeout:
            self._lost = True
            self._counts["link_losses"] += 1
            events.append(LinkLost(now - self._last_rx, now))
            self.state = LinkState.WAITING_HELLO
            self._refusal = None
            self._identify(now)
        elif self.state is LinkState.INCOMPATIBLE:
            if self._asked_at is None or now - self._asked_at >= self.refused_retry:
                self._identify(now)  # the controller may have been updated or replaced
        elif self._asked_at is not None and now - self._asked_at >= self.retry:
            if self.state is LinkState.WAITING_HELLO:
                self._identify(now)
            elif self.state is LinkState.SYNCING:
                self._request_snapshot(now)
        return events

    def next_due(self) -> float | None:
        """When :meth:`tick` next has something to do (the link lost, a request due again);
        None: nothing until bytes arrive. A transport sleeps until then or the next bytes."""
        due: list[float] = []
        if self._last_rx is not None and not self._lost:
            due.append(self._last_rx + self.timeout)
        if self.state is LinkState.INCOMPATIBLE:
            due.append(-float("inf") if self._asked_at is None else self._asked_at + self.refused_retry)
        elif self._asked_at is not None and self.state in (LinkState.WAITING_HELLO, LinkState.SYNCING):
            due.append(self._asked_at + self.retry)
        return min(due) if due else None

    # --- frames ---

    def _frame(self, frame: Frame, now: float) -> list[BoardEvent]:
        if frame.type == FrameType.HELLO:
            return self._hello(frame, now)
        if self._held is not None and frame.type == FrameType.ACK and len(frame.payload) >= 2:
            # (read outside the sequence: the controller's ACK of our IDENTIFY, then its HELLO)
            self._answered = int.from_bytes(frame.payload[:2], "little") == self._identify_seq
        if self.state in (LinkState.WAITING_HELLO, LinkState.INCOMPATIBLE):
            self._counts["ignored"] += 1
            return []
        if frame.type >= 0x80:  # a host frame coming back (an echoing line): not in our sequence
            self._counts["unknown_types"] += 1
            return []
        if frame.type == FrameType.HEARTBEAT and len(frame.payload) >= HEARTBEAT_BOOT_AT:
            assert self.hello is not None  # (accepted: the state says so)
            boot = read_boot_id(frame.payload, HEARTBEAT_BOOT_AT)
            if boot != self.hello.boot_id:  # another boot, whatever its seq (one side without an id included)
                self.restarted(now, boot)
                return []
        if not self._seq.check(frame.seq):
            self._desync(now)
            return []
        if frame.type not in _CONTROLLER_TYPES:  # added by a newer minor version
            self._counts["unknown_types"] += 1
            return []
        try:
            msg = self._decode(frame)
            if isinstance(msg, Fault) and not all(loc.valid() for loc in msg.locs):
                bad = [f"{int(loc.area)}/{loc.index}" for loc in msg.locs if not loc.valid()]
                raise ProtocolError(f"fault report lists locations off the board: {', '.join(bad)}")
            self._check_geometry(msg)
        except NotOnBoardError as e:  # (a location outside the geometry, or one no board has)
            self.last_error = e
            self._counts["bad_payloads"] += 1
            self._counts["outside_geometry"] += 1
            self._regeometry(now)
            return []
        except ProtocolError as e:
            self.last_error = e
            self._counts["bad_payloads"] += 1
            self._desync(now)
            return []
        if isinstance(msg, Snapshot):
            self.board = BoardSnapshot.of(msg.tags, msg.sweep)
            self.state = LinkState.SYNCED
            self._asked_at = None
            return [SnapshotReceived(self.board, FrameType.SNAPSHOT, now)]
        if isinstance(msg, Changes):
            if self.state is not LinkState.SYNCED:
                self._counts["ignored"] += 1
                return []
            self.board = self.board.with_changes(msg.changes, msg.sweep)
            return [SnapshotReceived(self.board, FrameType.CHANGES, now)]
        if isinstance(msg, Heartbeat):
            if msg.boot_id is None and self._uptime_fell(msg.uptime_ms, now):  # a 1.0 controller
                self.restarted(now)  # its HELLO was lost: ask for it again (and re-send our scan settings)
                return []
            self._beat = (msg.uptime_ms, now)
            if self.state is not LinkState.SYNCED:
                return []
            self.board = BoardSnapshot(self.board.tags, msg.sweep)
            return [SnapshotReceived(self.board, FrameType.HEARTBEAT, now)]
        if isinstance(msg, Fault):
            return [ReaderFault(msg.reader, msg.code, msg.locs, now)]
        if isinstance(msg, SelfTestReport):
            return [SelfTestReported(msg, now)]
        if isinstance(msg, Ack) and msg.status is not AckStatus.OK:
            self._counts["nacks"] += 1
            command = self._sent.get(msg.seq)
            if command is not None:
                return [CommandRefused(command, msg.seq, msg.status, now)]
        return []

    def _hello(self, frame: Frame, now: float) -> list[BoardEvent]:
        p = frame.payload
        if len(p) >= 5 and p[3] != PROTOCOL_MAJOR:  # read raw: another major may lay HELLO out anew
            return self._refuse(VersionMismatch((p[3], p[4]), (p[0], p[1], p[2]), now), now)
        try:
            hello = decode_payload(FrameType.HELLO, p)
        except ProtocolError:
            self._counts["bad_payloads"] += 1
            return []
        assert isinstance(hello, Hello)
        problem = _geometry_problem(hello)
        if problem:
            return self._refuse(UnsupportedBoard(hello, problem, now), now)
        before, held, answered = self._taken, self._held, self._answered
        self._held, self._answered = None, False
        confirmed = held is not None and answered and identity(held) == identity(hello)
        if before is not None and identity(before) != identity(hello) and not confirmed:
            # (held until the answer to our IDENTIFY says the same: a corrupted or forged HELLO
            # is replaced by the answer; a real change is confirmed by it)
            if held is None or identity(held) != identity(hello):
                self._counts["geometry_changes"] += 1
            self._held = hello
            self._want_hello(now)
            return []
        if confirmed:
            self.board = BoardSnapshot()  # another board: nothing of the last one's picture stays
        if before is not None and hello.boot_id != before.boot_id and hello.boot_id != self._restart_of:
            self._counts["reboots"] += 1  # (another boot, its restart not seen before the HELLO)
        self._restart_of = None
        self._beat = None
        self._refusal = None
        self._seq.reset(frame.seq)
        self.hello = self._taken = hello
        self.state = LinkState.SYNCING
        self._asked_at = now  # the controller sends a SNAPSHOT after HELLO; ask if it does not
        if self.scan is not None:
            self.send(self.scan)
        return [BoardConnected(hello, now)]

    def _refuse(self, event: VersionMismatch | UnsupportedBoard, now: float) -> list[BoardEvent]:
        """A refused HELLO: nothing is interpreted, IDENTIFY is sent again every
        ``refused_retry`` seconds; the event is reported when the reason is new."""
        self._counts["refusals"] += 1
        self.state = LinkState.INCOMPATIBLE
        self.hello = None
        self._asked_at = now
        message = event.message()
        if message == self._refusal:
            return []
        self._refusal = message
        return [event]

    def _uptime_fell(self, uptime_ms: int, now: float) -> bool:
        """A 1.0 controller's restart: its uptime advanced, modulo 2**32 (a wrap after 49.7
        days is no restart), by more than the host's clock did since the last HEARTBEAT
        plus :data:`UPTIME_SLACK` (an uptime that fell advanced by almost 2**32 ms)."""
        if self._beat is None:
            return False
        last_uptime, last_at = self._beat
        advance_ms = (uptime_ms - last_uptime) % UPTIME_WRAP
        return advance_ms > (now - last_at + UPTIME_SLACK) * 1000

    def _check_geometry(self, msg: Message) -> None:
        """:class:`OutsideGeometryError` for a location the HELLO's geometry does not have,
        :class:`ReaderOutOfRangeError` for a reader beyond its reader count."""
        hello = self.hello
        assert hello is not None  # (nothing but HELLO is interpreted before one)
        if isinstance(msg, Snapshot):
            hello.check(loc for loc, _ in msg.tags)
        elif isinstance(msg, Changes):
            hello.check(loc for loc, _ in msg.changes)
        elif isinstance(msg, Fault):
            if msg.reader >= hello.readers:
                raise ReaderOutOfRangeError(msg.reader, hello.readers, FrameType.FAULT)
            hello.check(msg.locs)
        elif isinstance(msg, SelfTestReport):
            msg.check(hello.readers)
            hello.check(msg.locs())

    def _decode(self, frame: Frame) -> Message:
        try:
            return decode_payload(frame.type, frame.payload)
        except ProtocolError:  # bytes appended after the defined content are ignored, any minor
            known = _known_part(frame.type, frame.payload)
            if known is None or len(known) == len(frame.payload):
                raise
            return decode_payload(frame.type, known)

    # --- requests ---

    def _regeometry(self, now: float) -> None:
        """A location outside the HELLO's geometry: the host's HELLO may be the wrong one
        (a corrupted or forged one was adopted), so HELLO is asked for, then a SNAPSHOT."""
        self._want_hello(now)

    def _want_hello(self, now: float) -> None:
        """Wait for a HELLO: IDENTIFY now, or, when one went out less than ``retry`` ago,
        when that one is due again (the timer runs from it, whatever was asked since)."""
        self.state = LinkState.WAITING_HELLO
        if self._identified_at is None or now - self._identified_at >= self.retry:
            self._identify(now)
        else:
            self._asked_at = self._identified_at

    def _desync(self, now: float) -> None:
        if self.state is LinkState.SYNCED:
            self.state = LinkState.SYNCING
        if self._asked_at is None or now - self._asked_at >= self.retry:
            self._request_snapshot(now)

    def _request_snapshot(self, now: float) -> None:
        self.send(RequestSnapshot())
        self._asked_at = now
        self._counts["snapshot_requests"] += 1

    def _identify(self, now: float) -> None:
        self._identify_seq = self._tx_seq
        self.send(Identify())
        self._asked_at = self._identified_at = now



def _known_part(kind: int, payload: bytes) -> bytes | None:
    """The part of a payload that this host knows, before fields a newer minor appended."""
    if kind in (FrameType.SNAPSHOT, FrameType.CHANGES):
        if len(payload) < 6:
            return None
        count = int.from_bytes(payload[4:6], "little")
        end = 6
        for _ in range(count):
            if end + 3 > len(payload):
                return None
            end += 3 + payload[end + 2]
        return payload[:end] if end <= len(payload) else None
    if kind == FrameType.FAULT:
        if len(payload) < 3:
            return None
        end = 3 + 2 * payload[2]
        return payload[:end] if end <= len(payload) else None
    if kind == FrameType.SELFTEST_REPORT:
        try:
            return payload[:decode_selftest_report(payload, exact=False)[1]]
        except ProtocolError:
            return None
    return None
