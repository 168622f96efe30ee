"""BoardLink, the host's protocol engine, fed from byte strings (hardware/PROTOCOL.md, "The host's rules")."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from drivers.board.link import (
    BoardConnected,
    BoardLink,
    LinkConfigError,
    LinkLost,
    LinkState,
    ReaderFault,
    SnapshotReceived,
    VersionMismatch,
)
from drivers.board.protocol import (
    Ack,
    AckStatus,
    Area,
    Changes,
    Fault,
    FaultCode,
    FrameParser,
    FrameType,
    Heartbeat,
    Hello,
    Identify,
    Loc,
    Message,
    RequestSnapshot,
    SetScan,
    Snapshot,
    decode_payload,
    encode,
    encode_frame,
    encode_payload,
)
from drivers.board.snapshot import BoardSnapshot
from engine.errors import ScoreboardError

UID1 = bytes.fromhex("04A1B2C3D4E5F6")
UID2 = bytes.fromhex("04112233445566")
UID3 = bytes.fromhex("0477889900AABB")
HELLO = Hello((1, 0, 0), (1, 0), 15, 15, 2, 7, 32, bytes.fromhex("E66118604B2D3A2F"))
TAGS = ((Loc.cell("H8"), UID1), (Loc.cell("I8"), UID2), (Loc.slot(0, 0), UID3))
MOVE = ((Loc.cell("J8"), UID3), (Loc.slot(0, 0), b""))


def wire(*msgs: Message, start: int = 0) -> bytes:
    """``msgs`` encoded with consecutive sequence numbers from ``start``."""
    return b"".join(encode(m, start + i) for i, m in enumerate(msgs))


def sent(link: BoardLink) -> list[Message]:
    """The host frames the link wants written, decoded."""
    return [decode_payload(f.type, f.payload) for f in FrameParser().feed(link.outgoing())]


def boards(events: Sequence[object]) -> list[BoardSnapshot]:
    return [e.snapshot for e in events if isinstance(e, SnapshotReceived)]


def state(link: BoardLink) -> LinkState:
    return link.state


def synced(now: float = 0.0) -> BoardLink:
    """A link that has seen HELLO (seq 0) and a SNAPSHOT (seq 1)."""
    link = BoardLink()
    link.feed(wire(HELLO, Snapshot(1, TAGS)), now)
    assert link.state is LinkState.SYNCED
    return link


# --- handshake and state ----------------------------------------------------------------------


def test_the_spec_examples_in_sequence() -> None:
    # PROTOCOL.md's SNAPSHOT..ACK examples are seqs 7-11: a HELLO numbered 6 puts them in order.
    spec = bytes.fromhex(
        "00 02 02 02 07 02 24 03 9c 01 01 02 03 16 01 70 07 04 a1 b2 c3 d4 e5 f6 01 71 07 04 11 22 33 44"
        " 55 66 02 06 07 04 77 88 99 07 aa bb 5c 3a b9 81 00"
        "00 02 03 02 08 02 13 03 9d 01 01 02 02 08 01 72 07 04 77 88 99 04 aa bb 02 01 05 a9 f5 d6 bd 00"
        "00 02 04 02 09 02 0b 03 9d 01 01 03 32 ef 01 02 b6 01 05 5d 36 20 cf 00"
        "00 02 05 02 0a 02 09 05 03 01 03 01 09 01 01 01 0f 2e 31 0f 9a 00"
        "00 02 06 02 0b 02 03 02 05 01 05 e5 81 7f d6 00"
    )
    link = BoardLink()
    events = link.feed(encode(HELLO, 6) + spec, 1.0)
    first = BoardSnapshot.of(TAGS)
    moved = first.with_changes(MOVE)
    assert events == [
        BoardConnected(HELLO, 1.0),
        SnapshotReceived(first, FrameType.SNAPSHOT, 1.0),
        SnapshotReceived(moved, FrameType.CHANGES, 1.0),
        SnapshotReceived(moved, FrameType.HEARTBEAT, 1.0),
        ReaderFault(3, FaultCode.NO_RESPONSE, (Loc.cell("A1"), Loc.cell("B1"), Loc.cell("A2")), 1.0),
    ]
    assert [e.snapshot.sweep for e in events if isinstance(e, SnapshotReceived)] == [412, 413, 413]
    assert moved.at(Loc.cell("J8")) == UID3 and moved.at(Loc.slot(0, 0)) is None
    assert link.stats.frames == 6 and link.stats.sequence_errors == 0
    assert link.outgoing() == b""


def test_the_spec_hello_example_connects() -> None:
    hello = bytes.fromhex(
        "00 02 01 01 01 02 12 02 01 01 02 01 0f 0f 0f 02 07 20 e6 61 18 60 4b 2d 3a 2f 5b 03 d1 df 00"
    )
    link = BoardLink()
    assert link.feed(hello, 0.5) == [BoardConnected(HELLO, 0.5)]
    assert link.hello == HELLO and link.state is LinkState.SYNCING


def test_frames_split_across_reads() -> None:
    link = BoardLink()
    data = wire(HELLO, Snapshot(1, TAGS))
    events = [e for i in range(len(data)) for e in link.feed(data[i:i + 1], 0.0)]
    assert boards(events) == [BoardSnapshot.of(TAGS)]


def test_nothing_but_hello_is_interpreted_before_hello() -> None:
    link = BoardLink()
    assert link.feed(wire(Snapshot(1, TAGS), Fault(1, FaultCode.RESET, ()), start=5), 0.0) == []
    assert link.stats.ignored == 2
    assert link.feed(encode(HELLO, 7), 0.1) == [BoardConnected(HELLO, 0.1)]


def test_changes_before_the_first_snapshot_after_hello_are_dropped() -> None:
    link = BoardLink()
    events = link.feed(wire(HELLO, Changes(2, MOVE), Heartbeat(2, 10, 180, 0)), 0.0)
    assert events == [BoardConnected(HELLO, 0.0)]
    assert link.stats.ignored == 1 and link.stats.sequence_errors == 0
    events = link.feed(encode(Snapshot(3, TAGS), 3), 0.1)
    assert boards(events) == [BoardSnapshot.of(TAGS)]


def test_hello_resets_the_sequence_and_the_sync() -> None:
    link = synced()
    # the controller rebooted: HELLO is seq 0 again; CHANGES wait for its SNAPSHOT
    events = link.feed(wire(HELLO, Changes(5, MOVE)), 1.0)
    assert events == [BoardConnected(HELLO, 1.0)]
    events = link.feed(encode(Snapshot(6, MOVE[:1]), 2), 1.1)
    assert boards(events) == [BoardSnapshot.of(MOVE[:1])]
    assert link.stats.sequence_errors == 0
    assert sent(link) == []


def test_changes_apply_to_the_last_snapshot() -> None:
    link = synced()
    events = link.feed(encode(Changes(2, MOVE), 2), 0.2)
    assert events == [SnapshotReceived(BoardSnapshot.of(TAGS).with_changes(MOVE), FrameType.CHANGES, 0.2)]
    events = link.feed(encode(Changes(3, ((Loc.cell("H8"), b""),)), 3), 0.3)
    assert boards(events)[0].tags == {Loc.cell("I8"): UID2, Loc.cell("J8"): UID3}


def test_heartbeat_confirms_the_board() -> None:
    link = synced()
    (event,) = link.feed(encode(Heartbeat(9, 100, 180, 0), 2), 0.5)
    assert isinstance(event, SnapshotReceived) and event.source is FrameType.HEARTBEAT
    assert event.snapshot == BoardSnapshot.of(TAGS) and event.snapshot.sweep == 9


# --- sequence errors ----------------------------------------------------------------------------


def test_a_gap_drops_the_frame_and_requests_a_snapshot() -> None:
    link = synced()
    assert link.feed(encode(Changes(3, MOVE), 3), 0.1) == []  # seq 2 was lost
    assert sent(link) == [RequestSnapshot()]
    assert link.stats.sequence_errors == 1 and link.stats.snapshot_requests == 1
    # in sequence again, but the lost frame's change is unknown: no patching over it
    assert link.feed(encode(Changes(4, ((Loc.cell("A1"), UID1),)), 4), 0.2) == []
    assert state(link) is LinkState.SYNCING
    assert link.stats.ignored == 1
    events = link.feed(wire(Ack(0, AckStatus.OK), Snapshot(5, MOVE[:1]), start=5), 0.3)
    assert boards(events) == [BoardSnapshot.of(MOVE[:1])]
    assert state(link) is LinkState.SYNCED


def test_the_exact_request_bytes() -> None:
    link = synced()
    link.feed(encode(Changes(3, MOVE), 3), 0.1)
    assert link.outgoing() == encode(RequestSnapshot(), 0)
    link.feed(encode(Snapshot(4, TAGS), 4), 0.2)
    link.feed(encode(Changes(5, MOVE), 9), 0.3)
    assert link.outgoing() == encode(RequestSnapshot(), 1)  # host frames are numbered too


def test_a_repeated_frame_is_dropped() -> None:
    link = synced()
    frame = encode(Changes(2, MOVE), 2)
    assert len(link.feed(frame, 0.1)) == 1
    assert link.feed(frame, 0.2) == []
    assert link.stats.sequence_errors == 1 and sent(link) == [RequestSnapshot()]


def test_out_of_order_frames_are_dropped() -> None:
    link = synced()
    later, earlier = encode(Changes(3, MOVE), 3), encode(Changes(2, ((Loc.cell("A1"), UID1),)), 2)
    assert link.feed(later + earlier, 0.1) == []
    assert link.stats.sequence_errors == 2 and sent(link) == [RequestSnapshot()]


def test_requests_are_not_repeated_before_the_retry_interval() -> None:
    link = synced()
    link.feed(encode(Changes(3, MOVE), 3), 0.0)
    link.feed(encode(Changes(9, MOVE), 9), 0.5)
    assert sent(link) == [RequestSnapshot()]
    assert link.tick(0.9) == [] and sent(link) == []
    link.feed(encode(Heartbeat(10, 0, 0, 0), 10), 1.0)  # keep the link alive
    assert link.tick(1.0) == [] and sent(link) == [RequestSnapshot()]


def test_hello_without_a_snapshot_asks_for_one() -> None:
    link = BoardLink(retry=0.5)
    link.feed(encode(HELLO, 0), 0.0)
    assert link.tick(0.4) == [] and sent(link) == []
    link.tick(0.5)
    assert sent(link) == [RequestSnapshot()]


# --- bad frames -------------------------------------------------------------------------------


def flip_a_bit(frame: bytes, index: int) -> bytes:
    out = bytearray(frame)
    out[index] ^= 0x01 if out[index] != 0x01 else 0x02  # never a new 00 delimiter
    return bytes(out)


def test_crc_errors_are_counted_and_dropped() -> None:
    link = synced()
    bad = flip_a_bit(encode(Changes(2, MOVE), 2), -3)
    assert link.feed(bad, 0.1) == []
    assert link.stats.crc_errors == 1
    assert link.feed(encode(Changes(3, MOVE), 3), 0.2) == []  # the next frame shows the gap
    assert sent(link) == [RequestSnapshot()]


def test_garbage_between_frames_is_skipped() -> None:
    link = BoardLink()
    data = b"\x17\x42" + encode(HELLO, 0) + b"noise\x00\x00\xff" + encode(Snapshot(1, TAGS), 1) + b"\x00\x01"
    events = link.feed(data, 0.0)
    assert boards(events) == [BoardSnapshot.of(TAGS)]
    assert link.stats.malformed >= 1 and link.stats.sequence_errors == 0


def test_a_bad_payload_is_counted_and_a_snapshot_requested() -> None:
    link = synced()
    assert link.feed(encode_frame(FrameType.CHANGES, 2, b"\x01\x02\x03"), 0.1) == []
    assert link.stats.bad_payloads == 1 and sent(link) == [RequestSnapshot()]


def test_a_fault_report_off_the_board_is_a_bad_payload() -> None:
    link = synced()
    payload = bytes((3, 1, 1, Area.BOARD, 230))  # cell 230 does not exist
    assert link.feed(encode_frame(FrameType.FAULT, 2, payload), 0.1) == []
    assert link.stats.bad_payloads == 1


def test_unknown_frame_types_of_our_major_are_counted_and_ignored() -> None:
    link = synced()
    events = link.feed(encode_frame(0x08, 2, b"from 1.4") + encode(Changes(3, MOVE), 3), 0.1)
    assert boards(events) == [BoardSnapshot.of(TAGS).with_changes(MOVE)]
    assert link.stats.unknown_types == 1 and link.stats.sequence_errors == 0 and sent(link) == []


def test_host_frames_echoed_back_are_ignored_outside_the_sequence() -> None:
    link = synced()
    events = link.feed(encode(RequestSnapshot(), 77) + encode(Changes(2, MOVE), 2), 0.1)
    assert boards(events) == [BoardSnapshot.of(TAGS).with_changes(MOVE)]
    assert link.stats.unknown_types == 1 and link.stats.sequence_errors == 0 and sent(link) == []


def test_nacks_are_counted() -> None:
    link = synced()
    assert link.feed(encode(Ack(0, AckStatus.UNKNOWN_TYPE), 2), 0.1) == []
    assert link.stats.nacks == 1


# --- versions -----------------------------------------------------------------------------------


def test_another_major_version_is_reported_and_not_interpreted() -> None:
    link = BoardLink()
    hello2 = Hello((2, 1, 0), (2, 0), 15, 15, 2, 7, 32, bytes(8))
    (event,) = link.feed(encode(hello2, 0), 0.0)
    assert event == VersionMismatch((2, 0), (2, 1, 0), 0.0)
    assert event.message() == "board firmware speaks protocol 2.0; this scoreboard speaks 1.x: update one of them"
    assert link.feed(wire(Snapshot(1, TAGS), Changes(2, MOVE), start=1), 0.1) == []
    assert link.state is LinkState.INCOMPATIBLE and link.stats.ignored == 2 and sent(link) == []
    assert link.tick(0.5) == [] and sent(link) == []
    # the firmware was updated: a HELLO of our major connects
    assert link.feed(encode(HELLO, 0), 0.6) == [BoardConnected(HELLO, 0.6)]


def test_another_major_may_lay_hello_out_anew() -> None:
    link = BoardLink()
    (event,) = link.feed(encode_frame(FrameType.HELLO, 0, bytes((3, 0, 0, 3, 2))), 0.0)
    assert event == VersionMismatch((3, 2), (3, 0, 0), 0.0)


def test_a_newer_minor_version_may_append_fields() -> None:
    link = BoardLink()
    hello = Hello((1, 4, 0), (1, 4), 15, 15, 2, 7, 32, bytes(8))
    extra = b"\x09\x08\x07"
    frames = [
        (FrameType.HELLO, encode_payload(hello) + extra),
        (FrameType.SNAPSHOT, encode_payload(Snapshot(1, TAGS)) + extra),
        (FrameType.CHANGES, encode_payload(Changes(2, MOVE)) + extra),
        (FrameType.HEARTBEAT, encode_payload(Heartbeat(3, 1, 2, 1)) + extra),
        (FrameType.FAULT, encode_payload(Fault(2, FaultCode.BAD_DATA, (Loc.cell("O15"),))) + extra),
    ]
    events = link.feed(b"".join(encode_frame(k, i, p) for i, (k, p) in enumerate(frames)), 0.0)
    first = BoardSnapshot.of(TAGS)
    assert events == [
        BoardConnected(hello, 0.0),
        SnapshotReceived(first, FrameType.SNAPSHOT, 0.0),
        SnapshotReceived(first.with_changes(MOVE), FrameType.CHANGES, 0.0),
        SnapshotReceived(first.with_changes(MOVE), FrameType.HEARTBEAT, 0.0),
        ReaderFault(2, FaultCode.BAD_DATA, (Loc.cell("O15"),), 0.0),
    ]
    assert link.stats.bad_payloads == 0


def test_bytes_appended_by_our_own_minor_version_are_ignored_too() -> None:
    # PROTOCOL.md, Versions: "it ignores bytes appended to a known payload" (a 1.0 HELLO too).
    link = BoardLink()
    link.feed(encode(HELLO, 0), 0.0)
    events = link.feed(encode_frame(FrameType.SNAPSHOT, 1, encode_payload(Snapshot(1, TAGS)) + b"\x01"), 0.1)
    assert boards(events) == [BoardSnapshot.of(TAGS)]
    assert link.stats.bad_payloads == 0 and link.state is LinkState.SYNCED


# --- liveness ---------------------------------------------------------------------------------


def test_no_frame_for_the_timeout_is_a_lost_link() -> None:
    link = synced(now=10.0)
    assert link.tick(11.4) == []
    assert link.tick(11.5) == [LinkLost(1.5, 11.5)]
    assert link.tick(12.0) == []  # reported once
    assert sent(link) == [Identify()] and link.state is LinkState.WAITING_HELLO
    assert link.feed(encode(Changes(2, MOVE), 2), 12.1) == []  # not interpreted until HELLO
    link.tick(13.1)
    assert sent(link) == [Identify()]  # asked again after the retry interval
    assert link.feed(wire(HELLO, Snapshot(1, TAGS)), 13.25)[0] == BoardConnected(HELLO, 13.25)
    assert link.tick(14.5) == []
    assert link.tick(14.75) == [LinkLost(1.5, 14.75)]
    assert link.stats.link_losses == 2


def test_reset_asks_for_hello_and_drops_partial_input() -> None:
    link = synced()
    half = encode(Changes(2, MOVE), 2)[:-5]
    assert link.feed(half, 1.0) == []
    link.reset(2.0)
    assert sent(link) == [Identify()] and link.state is LinkState.WAITING_HELLO
    events = link.feed(half[:1] + encode(HELLO, 40) + encode(Snapshot(2, MOVE[:1]), 41), 2.25)
    assert boards(events) == [BoardSnapshot.of(MOVE[:1])]
    assert link.stats.crc_errors == 0 and link.stats.malformed == 0
    assert link.tick(3.5) == []
    assert link.tick(3.75) == [LinkLost(1.5, 3.75)]


def test_scan_settings_are_sent_after_every_hello() -> None:
    scan = SetScan(stable_sweeps=3, stable_ms=200)
    link = BoardLink(scan=scan)
    link.feed(encode(HELLO, 0), 0.0)
    assert sent(link) == [scan]
    link.feed(encode(HELLO, 0), 0.1)
    assert sent(link) == [scan]


@pytest.mark.parametrize(("kwargs", "quoted"), [({"timeout": 0}, "0"), ({"retry": -1.0}, "-1.0")])
def test_settings_out_of_range(kwargs: dict[str, float], quoted: str) -> None:
    with pytest.raises(LinkConfigError, match=quoted) as info:
        BoardLink(**kwargs)  # type: ignore[arg-type]
    assert isinstance(info.value, ScoreboardError) and isinstance(info.value, ValueError)


def test_a_reboot_whose_hello_was_lost_is_noticed_by_the_uptime() -> None:
    from drivers.board.protocol import FrameParser as Parser
    from drivers.board.protocol import Heartbeat as Beat
    from drivers.board.protocol import Hello as Hi
    from drivers.board.protocol import SetScan as Scan
    from drivers.board.protocol import Snapshot as Snap
    from drivers.board.protocol import encode as enc

    link = BoardLink(scan=Scan(stable_sweeps=3))
    link.reset(0.0)
    link.outgoing()
    link.feed(enc(Hi((1, 0, 0), (1, 0), 15, 15, 2, 7, 19, bytes(8)), 0), 0.1)
    link.feed(enc(Snap(1, ()), 1), 0.2)
    link.feed(enc(Beat(2, 60_000, 180, 0), 2), 0.3)
    link.outgoing()
    # The controller restarts; its HELLO is lost; a heartbeat with a small uptime arrives.
    link.feed(enc(Snap(1, ()), 1), 5.0)
    link.feed(enc(Beat(2, 700, 180, 0), 2), 5.1)
    sent = [f.type for f in Parser().feed(link.outgoing())]
    assert 0x83 in sent  # IDENTIFY: HELLO again, then our scan settings again
    assert link.stats.reboots == 1


def test_a_board_of_another_geometry_is_refused() -> None:
    from drivers.board.link import UnsupportedBoard
    from drivers.board.protocol import Hello as Hi
    from drivers.board.protocol import Snapshot as Snap
    from drivers.board.protocol import encode as enc

    link = BoardLink()
    link.reset(0.0)
    events = link.feed(enc(Hi((1, 0, 0), (1, 0), 21, 21, 2, 7, 21, bytes(8)), 0), 0.1)
    assert len(events) == 1 and isinstance(events[0], UnsupportedBoard)
    assert events[0].message() == "this board cannot be used: it has 21 x 21 cells, not 15 x 15"
    assert link.feed(enc(Snap(1, ()), 1), 0.2) == []  # its frames are not interpreted
    events = link.feed(enc(Hi((1, 0, 0), (1, 0), 15, 15, 5, 7, 21, bytes(8)), 0), 0.3)
    assert "5 racks" in events[0].message()  # type: ignore[attr-defined]
