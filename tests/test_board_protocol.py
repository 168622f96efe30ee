"""The board link protocol: every example of hardware/PROTOCOL.md, framing, payload errors."""

from __future__ import annotations

import re
import zlib
from pathlib import Path

import pytest

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
    ProtocolError,
    AntennaReads,
    HealthFlag,
    ReaderHealth,
    ReadResult,
    RequestSnapshot,
    SelfTest,
    SelfTestReport,
    SelfTestState,
    SequenceTracker,
    SetScan,
    Snapshot,
    cobs_decode,
    cobs_encode,
    decode_payload,
    encode,
    encode_frame,
    uid_hex,
)
from engine.board import Square

SPEC = Path(__file__).resolve().parent.parent / "hardware" / "PROTOCOL.md"
UID1 = bytes.fromhex("04A1B2C3D4E5F6")
UID2 = bytes.fromhex("04112233445566")
UID3 = bytes.fromhex("0477889900AABB")

EXPECTED = {
    "HELLO": (Hello((1, 0, 0), (1, 0), 15, 15, 2, 7, 32, bytes.fromhex("E66118604B2D3A2F")), 0),
    "SNAPSHOT": (Snapshot(412, ((Loc.cell("H8"), UID1), (Loc.cell("I8"), UID2), (Loc.slot(0, 0), UID3))), 7),
    "CHANGES": (Changes(413, ((Loc.cell("J8"), UID3), (Loc.slot(0, 0), b""))), 8),
    "HEARTBEAT": (Heartbeat(413, 61234, 182, 0), 9),
    # Reader 3 covers row 4 in the reference layout (hardware/README.md).
    "FAULT": (Fault(3, FaultCode.NO_RESPONSE, tuple(Loc.cell(f"{c}4") for c in "ABCDEFGHIJKLMNO")), 10),
    "ACK": (Ack(5, AckStatus.OK), 11),
    "REQUEST_SNAPSHOT": (RequestSnapshot(), 5),
    "SET_SCAN": (SetScan(3, 150, 1500, 1000, 500), 6),
    "IDENTIFY": (Identify(), 7),
    "SELFTEST": (SelfTest(30, 500), 8),
    "SELFTEST_REPORT": (SelfTestReport(
        SelfTestState.RUNNING, 500,
        (ReaderHealth(15, 0x92, HealthFlag.NONE, 0, 0, tuple(Loc.slot(0, s) for s in range(7))),),
        (AntennaReads(15, 0, ReadResult.EMPTY, 95, 2611, 2893), AntennaReads.tag(15, 2, 7904, UID1))), 12),
}


def spec_examples() -> dict[str, dict[str, bytes]]:
    """Each ``### NAME`` section's payload/body/wire lines."""
    text = SPEC.read_text(encoding="utf-8")
    examples: dict[str, dict[str, bytes]] = {}
    for name, block in re.findall(r"^### (\w+)\n(.*?)(?=^### |\Z)", text, re.S | re.M):
        lines = dict(re.findall(r"^(payload|body|wire):[ \t]*([0-9a-f ]*)$", block, re.M))
        if "wire" in lines:
            examples[name] = {k: bytes.fromhex(v) for k, v in lines.items()}
    return examples


def test_the_spec_has_an_example_of_every_frame_type() -> None:
    assert set(spec_examples()) == {t.name for t in FrameType} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_spec_example(name: str) -> None:
    example = spec_examples()[name]
    message, seq = EXPECTED[name]
    parser = FrameParser()
    frames = parser.feed(example["wire"])
    assert len(frames) == 1 and frames[0].seq == seq and frames[0].type == message.type
    assert frames[0].payload == example["payload"]
    assert decode_payload(frames[0].type, frames[0].payload) == message
    assert encode(message, seq) == example["wire"]
    assert cobs_decode(example["wire"][1:-1]) == example["body"]


# --- COBS ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [b"", b"\x00", b"\x00\x00", b"abc", b"a\x00b", bytes(range(1, 255)), bytes(range(1, 256)) * 3, bytes(600), b"\x01" * 254 + b"\x00"],
)
def test_cobs_round_trip(data: bytes) -> None:
    encoded = cobs_encode(data)
    assert b"\x00" not in encoded
    assert cobs_decode(encoded) == data


def test_cobs_decode_errors() -> None:
    with pytest.raises(ProtocolError, match="runs past"):
        cobs_decode(b"\x05ab")
    with pytest.raises(ProtocolError, match="zero byte"):
        cobs_decode(b"\x02a\x00")


# --- the parser --------------------------------------------------------------------------------


def frames_of(parser: FrameParser, data: bytes) -> list[tuple[int, int]]:
    return [(f.type, f.seq) for f in parser.feed(data)]


def test_garbage_between_frames_is_skipped() -> None:
    parser = FrameParser()
    stream = b"\xff\x13garbage" + encode(Heartbeat(1, 2, 3, 0), 4) + b"\x01\x02\x03" + encode(Ack(1, AckStatus.OK), 5)
    assert frames_of(parser, stream) == [(FrameType.HEARTBEAT, 4), (FrameType.ACK, 5)]
    assert parser.stats.frames == 2 and parser.stats.crc_errors + parser.stats.malformed == 2


def test_frames_split_across_reads() -> None:
    parser = FrameParser()
    wire = encode(Snapshot(9, ((Loc.cell("H8"), UID1),)), 3)
    got = []
    for i in range(len(wire)):
        got += parser.feed(wire[i:i + 1])
    assert [(f.type, f.seq) for f in got] == [(FrameType.SNAPSHOT, 3)]


def test_crc_error_is_counted_and_dropped() -> None:
    wire = bytearray(encode(Heartbeat(1, 2, 3, 0), 4))
    wire[-3] ^= 0x01  # inside the CRC
    parser = FrameParser()
    assert parser.feed(bytes(wire)) == []
    assert parser.stats.crc_errors == 1


def test_length_field_must_match() -> None:
    payload = b"\x01\x02\x03"
    body = bytes((FrameType.ACK, 0, 1, 0, 9, 0)) + payload  # claims 9 bytes
    body += zlib.crc32(body).to_bytes(4, "little")
    parser = FrameParser()
    assert parser.feed(b"\x00" + cobs_encode(body) + b"\x00") == []
    assert parser.stats.malformed == 1


def test_endless_garbage_stays_bounded() -> None:
    parser = FrameParser()
    for _ in range(20):
        assert parser.feed(b"\x55" * 1000) == []
    assert len(parser._buffer) <= FrameParser.LIMIT
    assert parser.stats.oversize >= 1
    assert frames_of(parser, encode(Identify(), 1)) == [(FrameType.IDENTIFY, 1)]


def test_oversize_payload_refused_by_the_encoder() -> None:
    with pytest.raises(ProtocolError, match="over 4096"):
        encode_frame(FrameType.SNAPSHOT, 0, bytes(5000))


# --- payloads ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "payload", "message"),
    [
        (0x7E, b"", "unknown frame type 0x7e"),
        (FrameType.HEARTBEAT, b"\x01\x02", "too short"),
        (FrameType.SNAPSHOT, b"\x01\x00\x00\x00\x01\x00\x01\x70\x05" + bytes(5), "UID of 5 bytes"),
        (FrameType.SNAPSHOT, b"\x01\x00\x00\x00\x01\x00\x01\xf0\x07" + bytes(7), "no such location 1/240"),
        (FrameType.SNAPSHOT, b"\x01\x00\x00\x00\x01\x00\x03\x01\x07" + bytes(7), "unknown area 3"),
        (FrameType.SNAPSHOT, b"\x01\x00\x00\x00\x02\x00\x01\x70\x07" + bytes(7), "cut short"),
        (FrameType.SNAPSHOT, b"\x01\x00\x00\x00\x01\x00\x01\x70\x07" + bytes(8), "1 bytes after"),
        (FrameType.SNAPSHOT, b"\x01\x00\x00\x00\x01\x00\x01\x70\x00", "UID of 0 bytes"),
        (FrameType.SNAPSHOT, b"\x01\x00\x00\x00\x02\x00" + (b"\x01\x70\x07" + bytes(7)) * 2, "H8 listed twice"),
        (FrameType.FAULT, b"\x01\x07\x00", "FAULT"),
        (FrameType.FAULT, b"\x01\x01\x01\x01\xf0", "no such location 1/240"),
        (FrameType.IDENTIFY, b"\x00", "carries no payload"),
    ],
)
def test_malformed_payloads(kind: int, payload: bytes, message: str) -> None:
    with pytest.raises(ProtocolError, match=message):
        decode_payload(kind, payload)


def test_changes_may_empty_a_location() -> None:
    msg = decode_payload(FrameType.CHANGES, b"\x01\x00\x00\x00\x01\x00\x02\x12\x00")
    assert msg == Changes(1, ((Loc.slot(1, 2), b""),))


def test_hello_of_a_newer_minor_version_with_appended_fields() -> None:
    hello = EXPECTED["HELLO"][0]
    payload = bytes.fromhex("01 00 00 01 03 0f 0f 02 07 20 e6 61 18 60 4b 2d 3a 2f") + b"\x99\x98"
    decoded = decode_payload(FrameType.HELLO, payload)
    assert isinstance(decoded, Hello) and decoded.protocol == (1, 3)
    assert decoded.board_id == hello.board_id  # type: ignore[attr-defined]


# --- locations and sequence numbers ---------------------------------------------------------


def test_locations() -> None:
    h8 = Loc.cell("H8")
    assert (h8.area, h8.index, h8.square, h8.name()) == (Area.BOARD, 112, Square.from_name("H8"), "H8")
    slot = Loc.slot(1, 2)
    assert (slot.index, slot.rack, slot.rack_slot, slot.name()) == (0x12, 1, 2, "rack 2 slot 3")
    assert eval(repr(slot)) == slot and eval(repr(h8)) == h8
    with pytest.raises(ProtocolError, match="no rack slot 4/0"):
        Loc.slot(4, 0)
    assert uid_hex(UID1) == "04A1B2C3D4E5F6"


def test_location_names_round_trip() -> None:
    every = [Loc.cell_index(i) for i in range(225)] + [Loc.slot(r, s) for r in range(4) for s in range(9)]
    assert all(Loc.from_name(loc.name()) == loc for loc in every)
    for bad in ("P1", "H16", "rack 0 slot 1", "rack 5 slot 1", "rack 1 slot 10", "rack one slot 1", ""):
        with pytest.raises(ProtocolError, match="not a location"):
            Loc.from_name(bad)


def test_sequence_tracker() -> None:
    seq = SequenceTracker()
    assert seq.check(10)  # the first frame sets the count
    assert seq.check(11)
    assert not seq.check(13)  # a gap
    assert seq.check(14)
    assert not seq.check(14)  # a repeat
    assert not seq.check(12)  # an older frame
    seq.reset(0)
    assert seq.check(1)
    seq.reset(65535)
    assert seq.check(0)  # wraps
    assert seq.gaps == 3
