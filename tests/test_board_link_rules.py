"""The host's receiver rules of issue 13, each from the bytes on the wire (hardware/PROTOCOL.md).

Locations outside the HELLO's geometry, the length limit, bytes appended to a 1.0 payload, a
refused HELLO retried, a HELLO that changes the geometry, the restart hook, and restarts seen
by boot id (1.1) and by uptime (1.0).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence

import pytest

from drivers.board.link import (
    REFUSED_RETRY,
    BoardConnected,
    BoardLink,
    LinkConfigError,
    LinkState,
    ReaderFault,
    SnapshotReceived,
    UnsupportedBoard,
    VersionMismatch,
)
from drivers.board.protocol import (
    MAX_PAYLOAD,
    NoSuchLocationError,
    Area,
    FaultCode,
    FrameParser,
    FrameType,
    Hello,
    Identify,
    Loc,
    Message,
    OutsideGeometryError,
    ProtocolError,
    RequestSnapshot,
    SetScan,
    cobs_encode,
    decode_payload,
    encode,
)
from drivers.board.snapshot import BoardSnapshot
from engine.errors import ScoreboardError

UID1 = bytes.fromhex("04A1B2C3D4E5F6")
UID2 = bytes.fromhex("04112233445566")
UID3 = bytes.fromhex("0477889900AABB")
BOARD_ID = bytes.fromhex("E66118604B2D3A2F")
HELLO = Hello((1, 0, 0), (1, 0), 15, 15, 2, 7, 32, BOARD_ID)

# PROTOCOL.md's HELLO example: protocol 1.0, 2 racks of 7 slots; seq 0.
HELLO_WIRE = "00 02 01 01 01 02 12 02 01 01 02 01 0f 0f 0f 02 07 20 e6 61 18 60 4b 2d 3a 2f 5b 03 d1 df 00"
# The same board saying protocol 2.0.
HELLO_2_0 = "00 02 01 01 01 02 12 02 02 01 02 02 12 0f 0f 02 07 20 e6 61 18 60 4b 2d 3a 2f 40 b7 2a 24 00"
# The same board with 13 x 13 cells.
HELLO_13 = "00 02 01 01 01 02 12 02 01 01 02 01 12 0d 0d 02 07 20 e6 61 18 60 4b 2d 3a 2f 8f 2b b6 53 00"
# The same board with 4 racks of 9 slots.
HELLO_4X9 = "00 02 01 01 01 02 12 02 01 01 02 01 12 0f 0f 04 09 20 e6 61 18 60 4b 2d 3a 2f ab fa ad 29 00"
# SNAPSHOT seq 2, sweep 1: UID1 on H8.
SNAP_H8_SEQ2 = "00 02 02 02 02 02 10 02 01 01 01 02 01 0f 01 70 07 04 a1 b2 c3 d4 e5 f6 50 1f da 97 00"
IDENTIFY = {
    0: "00 02 83 01 01 01 01 05 d5 c7 e6 29 00",
    1: "00 02 83 02 01 01 01 05 b0 a0 5a 91 00",
    2: "00 02 83 02 02 01 01 05 5e 0f ef 83 00",
}


def x(hex_bytes: str) -> bytes:
    return bytes.fromhex(hex_bytes)


def sent(link: BoardLink) -> list[Message]:
    return [decode_payload(f.type, f.payload) for f in FrameParser().feed(link.outgoing())]


def boards(events: Sequence[object]) -> list[BoardSnapshot]:
    return [e.snapshot for e in events if isinstance(e, SnapshotReceived)]


def hello_link() -> BoardLink:
    link = BoardLink()
    assert link.feed(x(HELLO_WIRE), 0.0) == [BoardConnected(HELLO, 0.0)]
    return link


def forged(kind: int, seq: int, payload: bytes, length: int | None = None) -> bytes:
    """A frame with a correct CRC whatever its length field says."""
    body = struct.pack("<BBHH", kind, 0, seq, len(payload) if length is None else length) + payload
    body += struct.pack("<I", zlib.crc32(body))
    return b"\x00" + cobs_encode(body) + b"\x00"


# --- locations outside the HELLO's geometry ---------------------------------------------------

OUTSIDE = [
    pytest.param(  # H8, and slot 8 (index 07) of rack 1: the racks have 7 slots
        "00 02 02 02 01 02 1a 02 01 01 01 02 02 19 01 70 07 04 a1 b2 c3 d4 e5 f6"
        " 02 07 07 04 a1 b2 c3 d4 e5 f6 37 5e be 58 00",
        Loc.slot(0, 7),
        id="snapshot-slot-8-of-7",
    ),
    pytest.param(  # rack 3 (index 20) of 2
        "00 02 02 02 01 02 10 02 01 01 01 02 01 0f 02 20 07 04 a1 b2 c3 d4 e5 f6 ef a8 16 a1 00",
        Loc.slot(2, 0),
        id="snapshot-rack-3-of-2",
    ),
]


@pytest.mark.parametrize(("wire", "where"), OUTSIDE)
def test_a_snapshot_outside_the_geometry_is_a_bad_payload(wire: str, where: Loc) -> None:
    link = hello_link()
    link.outgoing()
    assert link.feed(x(wire), 0.1) == []  # never reaches a board
    assert link.board == BoardSnapshot() and link.state is LinkState.WAITING_HELLO
    stats = link.stats
    assert stats.bad_payloads == 1 and stats.outside_geometry == 1
    assert link.outgoing() == x(IDENTIFY[0])  # HELLO again: ours may be the wrong one
    assert link.feed(x(HELLO_WIRE), 0.2) == [BoardConnected(HELLO, 0.2)]  # the controller's answer


def test_after_a_location_outside_the_geometry_nothing_is_taken_before_hello() -> None:
    link = hello_link()
    link.feed(x(str(OUTSIDE[0].values[0])), 0.1)
    assert link.feed(x(SNAP_H8_SEQ2), 0.15) == [] and link.stats.ignored == 1  # in sequence, but no HELLO yet
    events = link.feed(x(HELLO_WIRE), 0.2) + link.feed(x(SNAP_H8_SEQ2), 0.3)
    # (the HELLO is seq 0, so the SNAPSHOT numbered 2 is a gap: dropped and asked for again)
    assert boards(events) == [] and link.stats.sequence_errors == 1
    assert sent(link) == [Identify()]
    link.tick(1.2)
    assert sent(link) == [RequestSnapshot()]
    assert link.feed(forged(FrameType.SNAPSHOT, 3, x("01 00 00 00 01 00 01 70 07") + UID1), 0.4) != []
    assert link.board == BoardSnapshot.of([(Loc.cell("H8"), UID1)])


def test_changes_outside_the_geometry_are_a_bad_payload() -> None:
    link = hello_link()
    # A good SNAPSHOT (seq 1: H8), then CHANGES seq 2 naming index 17: rack 2 slot 8 of 7.
    good = forged(FrameType.SNAPSHOT, 1, x("01 00 00 00 01 00 01 70 07") + UID1)
    assert boards(link.feed(good, 0.1)) == [BoardSnapshot.of([(Loc.cell("H8"), UID1)])]
    bad = "00 02 03 02 02 02 10 02 02 01 01 02 01 0f 02 17 07 04 a1 b2 c3 d4 e5 f6 0c 98 0f 7a 00"
    link.outgoing()
    assert link.feed(x(bad), 0.2) == []
    assert link.board == BoardSnapshot.of([(Loc.cell("H8"), UID1)])  # untouched
    assert link.stats.outside_geometry == 1 and sent(link) == [Identify()]


def test_a_fault_report_outside_the_geometry_is_a_bad_payload() -> None:
    link = hello_link()
    # FAULT seq 1: reader 3 does not answer; it covers H8 and rack 4 slot 1 (index 30) of 2 racks.
    assert link.feed(forged(FrameType.FAULT, 1, x("03 01 02 01 70 02 30")), 0.1) == []
    assert link.stats.outside_geometry == 1
    link.feed(x(HELLO_WIRE), 0.2)
    # The same with rack 1 slot 7 (index 06), on the board.
    assert link.feed(forged(FrameType.FAULT, 1, x("03 01 02 01 70 02 06")), 0.3) == [
        ReaderFault(3, FaultCode.NO_RESPONSE, (Loc.cell("H8"), Loc.slot(0, 6)), 0.3)
    ]


def test_every_slot_the_geometry_declares_is_taken() -> None:
    link = hello_link()
    tags = [(Loc.slot(r, s), bytes((4, r, s, 0, 0, 0, 1))) for r in range(2) for s in range(7)]
    payload = struct.pack("<IH", 5, len(tags)) + b"".join(bytes((l.area, l.index, 7)) + u for l, u in tags)
    assert boards(link.feed(forged(FrameType.SNAPSHOT, 1, payload), 0.1)) == [BoardSnapshot.of(tags)]
    assert link.stats.bad_payloads == 0


def test_the_geometry_error_carries_the_location_and_the_geometry() -> None:
    with pytest.raises(OutsideGeometryError) as info:
        HELLO.check([Loc.cell("O15"), Loc.slot(1, 7)])
    e = info.value
    assert (e.loc, e.racks, e.slots) == (Loc.slot(1, 7), 2, 7)
    assert "rack 2 slot 8" in str(e) and "2 racks of 7 slots" in str(e)
    assert isinstance(e, ProtocolError) and isinstance(e, ScoreboardError) and isinstance(e, ValueError)
    assert HELLO.has(Loc(Area.BOARD, 224)) and not HELLO.has(Loc(Area.BOARD, 225))


# --- the length field ---------------------------------------------------------------------------


def _padded_snapshot(size: int) -> bytes:
    """A SNAPSHOT payload (H8) with bytes appended up to ``size``."""
    known = x("01 00 00 00 01 00 01 70 07") + UID1
    return known + bytes(size - len(known))


def test_a_length_of_4096_is_taken() -> None:
    parser = FrameParser()
    (frame,) = parser.feed(forged(FrameType.SNAPSHOT, 1, _padded_snapshot(MAX_PAYLOAD)))
    assert len(frame.payload) == 4096
    link = hello_link()
    assert boards(link.feed(forged(FrameType.SNAPSHOT, 1, _padded_snapshot(MAX_PAYLOAD)), 0.1)) == [
        BoardSnapshot.of([(Loc.cell("H8"), UID1)])
    ]


@pytest.mark.parametrize("size", [4097, 4100, 4115])
def test_a_length_over_4096_is_refused(size: int) -> None:
    frame = forged(FrameType.SNAPSHOT, 1, _padded_snapshot(size))  # (CRC right, length field = size)
    parser = FrameParser()
    assert parser.feed(frame) == []
    assert parser.stats.malformed == 1 and parser.stats.crc_errors == 0
    link = hello_link()
    assert link.feed(frame, 0.1) == [] and link.stats.malformed == 1


def test_a_length_field_that_lies_is_refused_even_with_a_good_crc() -> None:
    parser = FrameParser()
    # A payload of 11 bytes declared as 10, then as 4097; the CRC covers what is sent.
    assert parser.feed(forged(FrameType.HEARTBEAT, 1, bytes(11), length=10)) == []
    assert parser.feed(forged(FrameType.HEARTBEAT, 1, bytes(11), length=0x1001)) == []
    assert parser.stats.malformed == 2


# --- bytes appended to a 1.0 payload --------------------------------------------------------------


def test_a_1_0_snapshot_with_a_byte_appended_is_taken() -> None:
    # PROTOCOL.md's SNAPSHOT example (seq 1 here), one byte 01 appended; the HELLO says 1.0.
    wire = (
        "00 02 02 02 01 02 25 03 9c 01 01 02 03 16 01 70 07 04 a1 b2 c3 d4 e5 f6 01 71 07 04 11 22 33 44"
        " 55 66 02 06 07 04 77 88 99 08 aa bb 01 52 19 32 94 00"
    )
    link = hello_link()
    events = link.feed(x(wire), 0.1)
    tags = [(Loc.cell("H8"), UID1), (Loc.cell("I8"), UID2), (Loc.slot(0, 0), UID3)]
    assert boards(events) == [BoardSnapshot.of(tags)]
    assert link.state is LinkState.SYNCED and link.stats.bad_payloads == 0
    # CHANGES example (seq 2) with ee 00 appended, FAULT example (seq 3) with 05 appended.
    changes = "00 02 03 02 02 02 15 03 9d 01 01 02 02 08 01 72 07 04 77 88 99 04 aa bb 02 01 02 ee 05 e8 b7 91 62 00"
    fault = "00 02 05 02 03 02 0a 05 03 01 03 01 0a 01 01 01 0f 05 4c 34 ec a7 00"
    events = link.feed(x(changes) + x(fault), 0.2)
    moved = BoardSnapshot.of(tags).with_changes([(Loc.cell("J8"), UID3), (Loc.slot(0, 0), b"")])
    assert events == [
        SnapshotReceived(moved, FrameType.CHANGES, 0.2),
        ReaderFault(3, FaultCode.NO_RESPONSE, (Loc.cell("A1"), Loc.cell("B1"), Loc.cell("A2")), 0.2),
    ]
    assert link.stats.bad_payloads == 0


def test_a_tag_list_cut_short_is_still_a_bad_payload() -> None:
    link = hello_link()
    # count 2, one entry: nothing appended, something missing.
    link.feed(forged(FrameType.SNAPSHOT, 1, x("01 00 00 00 02 00 01 70 07") + UID1), 0.1)
    assert link.stats.bad_payloads == 1 and link.board == BoardSnapshot()


# --- a refused HELLO is retried -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("wire", "event_type", "says"),
    [
        (HELLO_2_0, VersionMismatch, "board firmware speaks protocol 2.0; this scoreboard speaks 1.x"),
        (HELLO_13, UnsupportedBoard, "this board cannot be used: it has 13 x 13 cells, not 15 x 15"),
    ],
)
def test_a_refused_hello_is_retried_every_few_seconds(wire: str, event_type: type, says: str) -> None:
    link = BoardLink()
    link.reset(0.0)
    assert link.outgoing() == x(IDENTIFY[0])
    (event,) = link.feed(x(wire), 0.1)
    assert isinstance(event, event_type) and says in event.message()
    assert link.state is LinkState.INCOMPATIBLE
    assert link.feed(x(SNAP_H8_SEQ2), 0.2) == []  # its frames are not interpreted
    assert link.feed(x(SNAP_H8_SEQ2), 1.2) == [] and link.feed(x(SNAP_H8_SEQ2), 2.2) == []
    assert link.tick(0.1 + REFUSED_RETRY - 0.01) == [] and link.outgoing() == b""
    assert link.tick(0.1 + REFUSED_RETRY) == [] and link.outgoing() == x(IDENTIFY[1])
    assert link.feed(x(wire), 3.2) == []  # the same refusal is not reported again
    for at in (4.2, 5.2, 6.2):  # frames keep coming: the link is not lost, it stays refused ...
        assert link.feed(x(SNAP_H8_SEQ2), at) == [] and link.tick(at) == []
    assert link.tick(3.2 + REFUSED_RETRY) == [] and link.outgoing() == x(IDENTIFY[2])
    assert link.stats.refusals == 2 and link.state is LinkState.INCOMPATIBLE
    # ... until the controller (updated, replaced) says an acceptable HELLO.
    assert link.feed(x(HELLO_WIRE), 7.1) == [BoardConnected(HELLO, 7.1)]
    assert link.state is LinkState.SYNCING


def test_a_refusal_is_reported_again_after_an_accepted_hello() -> None:
    link = BoardLink()
    assert len(link.feed(x(HELLO_2_0), 0.0)) == 1
    assert link.feed(x(HELLO_WIRE), 0.1) == [BoardConnected(HELLO, 0.1)]
    assert len(link.feed(x(HELLO_2_0), 0.2)) == 1
    (event,) = link.feed(x(HELLO_13), 0.3)  # another reason: reported
    assert isinstance(event, UnsupportedBoard)


def test_the_refused_retry_interval_is_checked() -> None:
    with pytest.raises(LinkConfigError, match="0.0"):
        BoardLink(refused_retry=0.0)


# --- a HELLO that changes the geometry --------------------------------------------------------------


def test_a_hello_with_another_geometry_is_held_until_confirmed() -> None:
    link = hello_link()
    h8 = [(Loc.cell("H8"), UID1)]
    link.feed(forged(FrameType.SNAPSHOT, 1, x("01 00 00 00 01 00 01 70 07") + UID1), 0.05)
    link.outgoing()
    assert link.feed(x(HELLO_4X9), 1.5) == []  # held: a corrupted or forged one must not be taken
    assert link.outgoing() == x(IDENTIFY[0]) and link.state is LinkState.WAITING_HELLO
    assert link.stats.geometry_changes == 1 and link.hello == HELLO
    # Meanwhile a frame that fits the held geometry only (rack 3) is not interpreted.
    assert link.feed(forged(FrameType.SNAPSHOT, 1, x("01 00 00 00 01 00 02 20 07") + UID2), 1.55) == []
    assert link.board == BoardSnapshot.of(h8)
    # The controller's answer: the old geometry. Taken at once, nothing else asked.
    assert link.feed(x(HELLO_WIRE), 1.6) == [BoardConnected(HELLO, 1.6)]
    assert link.outgoing() == b"" and link.stats.geometry_changes == 1


def test_a_hello_of_another_geometry_after_a_refusal_is_held_too() -> None:
    link = hello_link()
    assert len(link.feed(x(HELLO_2_0), 0.1)) == 1 and link.hello is None
    assert link.feed(x(HELLO_4X9), 0.2) == [] and link.state is LinkState.WAITING_HELLO
    assert link.stats.geometry_changes == 1


def test_a_real_geometry_change_is_taken_when_confirmed() -> None:
    link = hello_link()
    link.outgoing()
    assert link.feed(x(HELLO_4X9), 0.1) == [] and link.outgoing() == x(IDENTIFY[0])
    assert link.feed(x(HELLO_4X9), 0.15) == []  # a second one alone is no answer (a repeated forgery)
    ack = forged(FrameType.ACK, 1, x("00 00 00"))  # the controller's ACK of our IDENTIFY (seq 0)
    assert link.feed(ack, 0.18) == []
    (event,) = link.feed(x(HELLO_4X9), 0.2)  # the answer says the same: a board of 4 racks of 9
    assert isinstance(event, BoardConnected) and (event.hello.racks, event.hello.slots) == (4, 9)
    assert link.state is LinkState.SYNCING and link.stats.geometry_changes == 1


@pytest.mark.parametrize("answer", ["the-old-board", "the-new-board"])
def test_a_hello_of_another_board_id_is_held_and_confirmed_like_another_geometry(answer: str) -> None:
    """The same geometry, another board id (another board, or a forged HELLO): held, IDENTIFY;
    the answer decides. Another board drops the old board's picture."""
    other = Hello((1, 0, 0), (1, 0), 15, 15, 2, 7, 32, bytes.fromhex("0102030405060708"))
    link = hello_link()
    link.feed(forged(FrameType.SNAPSHOT, 1, x("01 00 00 00 01 00 01 70 07") + UID1), 0.05)
    link.outgoing()
    assert link.feed(encode(other, 9), 0.1) == [] and sent(link) == [Identify()]
    assert link.state is LinkState.WAITING_HELLO and link.hello == HELLO and link.stats.geometry_changes == 1
    link.feed(forged(FrameType.ACK, 1, x("00 00 00")), 0.15)  # the ACK of our IDENTIFY (seq 0)
    if answer == "the-old-board":
        assert link.feed(x(HELLO_WIRE), 0.2) == [BoardConnected(HELLO, 0.2)]
        assert link.board == BoardSnapshot.of([(Loc.cell("H8"), UID1)])  # the same board: its picture stays
    else:
        assert link.feed(encode(other, 10), 0.2) == [BoardConnected(other, 0.2)]
        assert link.board == BoardSnapshot()  # another board: nothing of the old one's picture
    assert link.stats.geometry_changes == 1


# --- a restart: the hook ----------------------------------------------------------------------------


def test_restarted_asks_for_hello_and_the_scan_settings_follow() -> None:
    scan = SetScan(stable_sweeps=3)
    link = BoardLink(scan=scan)
    link.feed(x(HELLO_WIRE), 0.0)
    link.feed(forged(FrameType.SNAPSHOT, 1, x("01 00 00 00 00 00")), 0.1)
    assert sent(link) == [scan] and link.state is LinkState.SYNCED
    link.restarted(1.0)
    assert sent(link) == [Identify()] and link.state is LinkState.WAITING_HELLO
    assert link.stats.reboots == 1
    assert link.feed(forged(FrameType.SNAPSHOT, 2, x("01 00 00 00 00 00")), 1.1) == []  # not before HELLO
    link.feed(x(HELLO_WIRE), 1.2)
    assert sent(link) == [scan]


# --- a restart: by boot id (1.1, rule 5) and by uptime (1.0, rule 10) ------------------------------

BOOT_A, BOOT_B = 0x9F3C27A1, 0x1D07E55B
HELLO_11 = Hello((1, 1, 0), (1, 1), 15, 15, 2, 7, 32, BOARD_ID, BOOT_A)


def beat(uptime_ms: int, boot_id: int | None) -> bytes:
    """A HEARTBEAT payload: sweep 5, ``uptime_ms``, last sweep 180 ms, no fault, ``boot_id``."""
    return struct.pack("<IIHB", 5, uptime_ms, 180, 0) + (b"" if boot_id is None else struct.pack("<I", boot_id))


def synced(hello: Hello, scan: SetScan | None = None) -> BoardLink:
    """A link that took ``hello`` (seq 0) and a SNAPSHOT (seq 1): seq 2 expected next."""
    link = BoardLink(scan=scan)
    link.reset(0.0)
    link.feed(encode(hello, 0) + forged(FrameType.SNAPSHOT, 1, x("01 00 00 00 00 00")), 0.1)
    assert link.state is LinkState.SYNCED
    link.outgoing()
    return link


@pytest.mark.parametrize("seq", [2, 40, 1], ids=["in-sequence", "a-gap", "a-repeat"])
def test_a_heartbeat_of_another_boot_is_a_restart_whatever_its_seq(seq: int) -> None:
    scan = SetScan(stable_sweeps=3)
    link = synced(HELLO_11, scan)
    assert link.feed(forged(FrameType.HEARTBEAT, seq, beat(1530, BOOT_B)), 1.0) == []
    assert sent(link) == [Identify()]  # not REQUEST_SNAPSHOT: a restart, not a gap
    assert link.state is LinkState.WAITING_HELLO and link.stats.reboots == 1
    assert link.stats.sequence_errors == 0
    link.tick(2.05)
    assert sent(link) == [Identify()]  # again every second until the HELLO
    rebooted = Hello((1, 1, 0), (1, 1), 15, 15, 2, 7, 32, BOARD_ID, BOOT_B)
    assert link.feed(encode(rebooted, 4), 2.1) == [BoardConnected(rebooted, 2.1)]
    assert sent(link) == [scan]  # the scan settings again: a restart brought the defaults back
    assert link.stats.reboots == 1  # its HELLO is not a second restart


def test_a_heartbeat_of_the_same_boot_is_no_restart() -> None:
    link = synced(HELLO_11)
    events = link.feed(forged(FrameType.HEARTBEAT, 2, beat(4_000_000_000, BOOT_A)), 1.0)
    assert boards(events) == [BoardSnapshot(sweep=5)] and link.stats.reboots == 0 and sent(link) == []


@pytest.mark.parametrize(
    ("hello", "boot_id"),
    [(HELLO_11, None), (HELLO, BOOT_A)],
    ids=["1.1-hello-1.0-heartbeat", "1.0-hello-1.1-heartbeat"],
)
def test_a_boot_id_on_one_side_only_is_a_restart(hello: Hello, boot_id: int | None) -> None:
    """The firmware changed between 1.0 and 1.1: that took a restart (PROTOCOL.md rule 5)."""
    link = synced(hello)
    assert link.feed(forged(FrameType.HEARTBEAT, 2, beat(700, boot_id)), 1.0) == []
    assert link.stats.reboots == 1 and sent(link) == [Identify()]


def test_a_hello_of_another_boot_counts_one_restart_and_one_of_the_same_none() -> None:
    link = synced(HELLO_11)
    link.feed(encode(HELLO_11, 7), 1.0)  # an IDENTIFY's answer: the same boot
    assert link.stats.reboots == 0
    rebooted = Hello((1, 1, 0), (1, 1), 15, 15, 2, 7, 32, BOARD_ID, BOOT_B)
    assert link.feed(encode(rebooted, 0), 2.0) == [BoardConnected(rebooted, 2.0)]
    assert link.stats.reboots == 1


def test_a_1_0_uptime_that_wraps_is_no_restart_and_one_that_falls_is() -> None:
    link = synced(HELLO)
    assert link.feed(forged(FrameType.HEARTBEAT, 2, beat(2**32 - 100, None)), 10.0)
    assert link.feed(forged(FrameType.HEARTBEAT, 3, beat(404, None)), 10.5)  # +504 ms in 0.5 s: a wrap
    assert link.stats.reboots == 0 and sent(link) == []
    assert link.feed(forged(FrameType.HEARTBEAT, 4, beat(100, None)), 11.0) == []  # fell by 304 ms
    assert link.stats.reboots == 1 and sent(link) == [Identify()]


def test_a_1_0_uptime_running_ahead_of_the_host_by_more_than_the_slack_is_a_restart() -> None:
    """E8's second case: in sequence 3 s later, the uptime went from 61,234 to 2,210 ms."""
    link = synced(HELLO)
    assert link.feed(forged(FrameType.HEARTBEAT, 2, beat(61_234, None)), 10.0)
    assert link.feed(forged(FrameType.HEARTBEAT, 3, beat(61_234 + 4_900, None)), 13.0)  # 4.9 s in 3 s: slack
    assert link.stats.reboots == 0
    assert link.feed(forged(FrameType.HEARTBEAT, 4, beat(2_210, None)), 16.0) == []
    assert link.stats.reboots == 1


def test_a_repeated_1_0_heartbeat_is_a_gap_not_a_restart() -> None:
    """The uptime check comes after the sequence check (rule 10 after rule 7)."""
    link = synced(HELLO)
    old = forged(FrameType.HEARTBEAT, 2, beat(60_000, None))
    link.feed(old, 10.0)
    link.feed(forged(FrameType.HEARTBEAT, 3, beat(60_500, None)), 10.5)
    link.feed(old, 10.6)  # repeated: its uptime went back, but it is dropped as a repeat first
    assert link.stats.reboots == 0 and link.stats.sequence_errors == 1
    assert sent(link) == [RequestSnapshot()]


def test_a_location_outside_the_geometry_soon_after_an_identify_still_gets_its_retry() -> None:
    """The fuzz found a link waiting for a HELLO for good: an IDENTIFY answered (in sync
    again), then within a second a frame outside the geometry. No IDENTIFY went out then (one
    had just gone), and none ever did; now the retry runs from the last IDENTIFY."""
    link = hello_link()
    link.outgoing()
    outside = forged(FrameType.CHANGES, 1, x("01 00 00 00 01 00 02 07 07 04 a1 b2 c3 d4 e5 f6"))  # slot 8 of 7
    link.feed(outside, 0.1)
    assert sent(link) == [Identify()] and link.state is LinkState.WAITING_HELLO
    link.feed(encode(HELLO, 2) + forged(FrameType.SNAPSHOT, 3, x("01 00 00 00 00 00")), 0.3)
    assert link.state is LinkState.SYNCED
    sent(link)
    link.feed(forged(FrameType.CHANGES, 4, x("01 00 00 00 01 00 02 07 07 04 a1 b2 c3 d4 e5 f6")), 0.5)
    assert link.state is LinkState.WAITING_HELLO and sent(link) == []  # (an IDENTIFY went out 0.4 s ago)
    link.tick(1.05)
    assert sent(link) == []
    link.tick(1.15)
    assert sent(link) == [Identify()]  # 1 s after the last one (at 0.1 s)


@pytest.mark.parametrize(
    ("area", "index"),
    [(1, 225), (2, 0x40), (2, 0x09), (0, 0x70), (3, 0x01)],
    ids=["cell-225", "rack-5", "slot-10", "area-0", "area-3"],
)
def test_a_location_no_board_has_is_handled_as_one_outside_the_geometry(area: int, index: int) -> None:
    """PROTOCOL.md rule 9: any location not on the HELLO's board makes the host ask for the
    HELLO again (IDENTIFY), not only those a bigger board would have."""
    link = hello_link()
    link.outgoing()
    changes = struct.pack("<IH", 1, 1) + bytes((area, index, 7)) + UID1
    assert link.feed(forged(FrameType.CHANGES, 1, changes), 0.1) == []
    assert sent(link) == [Identify()] and link.stats.outside_geometry == 1
    error = link.last_error
    assert isinstance(error, NoSuchLocationError) and (error.area, error.index) == (area, index)
