"""hardware/PROTOCOL.md 1.1's worked examples (E1-E17), checked frame by frame.

Every ``wire:`` line of the spec is parsed with the host's parser, its ``payload:`` and
``body:`` lines compared, its bytes rebuilt by a reference encoder written here from the spec
alone, and its payload decoded with the host's codec (``drivers/board/protocol.py``) to the
meaning the text next to it states. The 1.0 frame-type examples under "## Examples" are
checked by ``tests/test_board_protocol.py``; this file makes sure no hex line of the page goes
unchecked.

Protocol 1.1 adds a boot id to HELLO and HEARTBEAT: those frames are checked against the
reference encoder here, their 1.0 fields as a 1.0 decoder reads them, and the boot id with
the host codec. The receiver rules are checked on the host's link from the examples' bytes.
"""

from __future__ import annotations

import inspect
import re
import struct
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from drivers.board.link import BoardConnected, BoardLink, CommandRefused, LinkState, SelfTestReported
from drivers.board.protocol import (
    AckStatus,
    AntennaReads,
    Area,
    FrameParser,
    FrameType,
    HealthFlag,
    Heartbeat,
    Hello,
    Loc,
    ProtocolError,
    ReaderHealth,
    ReaderOutOfRangeError,
    ReadResult,
    SelfTest,
    SelfTestState,
    SetScan,
    cobs_decode,
    decode_payload,
    encode_frame,
)
from drivers.board.snapshot import BoardSnapshot
from firmware import controller as fw_controller
from firmware import frames as fw_frames
from firmware import scanner as fw_scanner

SPEC = Path(__file__).resolve().parent.parent / "hardware" / "PROTOCOL.md"
FRAME_TYPE_EXAMPLES = {t.name for t in FrameType}  # "## Examples", tests/test_board_protocol.py

BOARD_ID = bytes.fromhex("E66118604B2D3A2F")
BOOT_A = 0x9F3C27A1
BOOT_B = 0x1D07E55B
UID1 = bytes.fromhex("04A1B2C3D4E5F6")
UID2 = bytes.fromhex("04112233445566")
UID3 = bytes.fromhex("0477889900AABB")
UID4 = bytes.fromhex("04C0FFEE123456")
UID5 = bytes.fromhex("045A6B7C8D9EAF")

# The accepted HELLO of the worked examples (E6): the reference build.
REFERENCE = {"cols": 15, "rows": 15, "racks": 4, "slots": 7, "readers": 19}
HELLO_11 = {"firmware": (1, 1, 0), "protocol": (1, 1), **REFERENCE, "board_id": BOARD_ID}
SCAN = {"stable_sweeps": 3, "stable_ms": 150, "empty_timeout_us": 1500, "snapshot_ms": 1000, "heartbeat_ms": 500}
RACK1 = tuple(Loc.slot(0, s) for s in range(7))
RACK2 = tuple(Loc.slot(1, s) for s in range(7))


def cell(name: str) -> Loc:
    return Loc.cell(name)


@dataclass(frozen=True)
class X:
    """What the spec says one frame is: its type, seq, flags and decoded fields.

    ``fields`` are the 1.0 fields of the host's message (or a 1.1 type's); ``boot_id`` the 1.1
    field appended after them; ``appended`` bytes after everything known (ignored);
    ``off_board`` the locations the reference HELLO does not declare (a bad payload by rule
    9); ``bad_reader`` a reader it does not have (rule 9 too); ``raw`` the payload of a type
    the host does not know.
    """

    kind: int
    seq: int
    fields: dict[str, Any] = field(default_factory=dict)
    flags: int = 0
    boot_id: int | None = None
    appended: bytes = b""
    off_board: tuple[Loc, ...] = ()
    bad_reader: int | None = None
    raw: bytes | None = None


EXPECTED: dict[str, list[X]] = {
    "E1": [X(FrameType.SNAPSHOT, 40, {"sweep": 1200, "tags": (
        (cell("B1"), UID1), (cell("O1"), UID2), (cell("I8"), UID3), (cell("A15"), UID4))})],
    "E2": [X(FrameType.CHANGES, 41, {"sweep": 1201, "changes": ((Loc.slot(2, 1), b""), (Loc.slot(2, 4), UID5))})],
    "E3": [
        X(FrameType.CHANGES, 42, {"sweep": 1202, "changes": ((Loc.slot(0, 7), UID1),)}, off_board=(Loc.slot(0, 7),)),
        X(FrameType.IDENTIFY, 9),
    ],
    "E4": [
        X(FrameType.HELLO, 0, {"firmware": (2, 0, 0), "protocol": (2, 0), **REFERENCE, "board_id": BOARD_ID}),
        X(FrameType.IDENTIFY, 1),
    ],
    "E5": [
        X(FrameType.CHANGES, 44, {"sweep": 1204, "changes": ((cell("H8"), UID2),)}),
        X(FrameType.REQUEST_SNAPSHOT, 10),
        X(FrameType.ACK, 45, {"seq": 10, "status": 0}),
        X(FrameType.CHANGES, 46, {"sweep": 1205, "changes": ((cell("H9"), UID3),)}),
        X(FrameType.SNAPSHOT, 47, {"sweep": 1205, "tags": ((cell("H8"), UID2), (cell("H9"), UID3))}),
    ],
    "E6": [
        X(FrameType.HEARTBEAT, 700, {"sweep": 70000, "uptime_ms": 35000123, "sweep_ms": 96, "faulty_readers": 0},
          boot_id=BOOT_A),
        X(FrameType.HELLO, 701, HELLO_11, boot_id=BOOT_A),
    ],
    "E7": [
        X(FrameType.HEARTBEAT, 900, {"sweep": 90000, "uptime_ms": 45000500, "sweep_ms": 101, "faulty_readers": 0},
          boot_id=BOOT_A),
        X(FrameType.HEARTBEAT, 2, {"sweep": 14, "uptime_ms": 1530, "sweep_ms": 98, "faulty_readers": 0},
          boot_id=BOOT_B),
        X(FrameType.IDENTIFY, 20),
        X(FrameType.HELLO, 4, HELLO_11, boot_id=BOOT_B),
        X(FrameType.SET_SCAN, 21, SCAN),
    ],
    "E8": [
        X(FrameType.HEARTBEAT, 100, {"sweep": 8589000, "uptime_ms": 4294967196, "sweep_ms": 180, "faulty_readers": 0}),
        X(FrameType.HEARTBEAT, 101, {"sweep": 8589003, "uptime_ms": 404, "sweep_ms": 179, "faulty_readers": 0}),
        X(FrameType.HEARTBEAT, 5, {"sweep": 8, "uptime_ms": 2210, "sweep_ms": 175, "faulty_readers": 0}),
    ],
    "E9": [X(FrameType.HEARTBEAT, 901, {"sweep": 90001, "uptime_ms": 45001000, "sweep_ms": 99, "faulty_readers": 0},
             flags=1, boot_id=BOOT_A)],
    "E10": [X(0x08, 902, raw=bytes.fromhex("aa55"))],
    "E11": [X(FrameType.SNAPSHOT, 48, {"sweep": 1206, "tags": ((cell("H8"), UID2),)}, appended=b"\x00")],
    "E12": [
        X(FrameType.FAULT, 50, {"reader": 16, "code": 1, "locs": RACK2}),
        X(FrameType.HEARTBEAT, 51, {"sweep": 1210, "uptime_ms": 605000, "sweep_ms": 120, "faulty_readers": 1},
          boot_id=BOOT_A),
        X(FrameType.FAULT, 52, {"reader": 16, "code": 3, "locs": RACK2}),
        X(FrameType.FAULT, 53, {"reader": 16, "code": 0, "locs": RACK2}),
    ],
    "E13": [
        X(FrameType.SET_SCAN, 22, {"stable_sweeps": 0, "stable_ms": 0, "empty_timeout_us": 0, "snapshot_ms": 0,
                                   "heartbeat_ms": 2000}),
        X(FrameType.ACK, 60, {"seq": 22, "status": 3}),
    ],
    "E14": [
        X(FrameType.SELFTEST, 30, {"seconds": 30, "report_ms": 500}),
        X(FrameType.ACK, 70, {"seq": 30, "status": 0}),
        X(FrameType.SELFTEST_REPORT, 81, {
            "state": SelfTestState.RUNNING, "elapsed_ms": 2503,
            "health": (ReaderHealth(16, 0xFF, HealthFlag.OUT_OF_SCAN, 1, 2, RACK2),),
            "reads": (AntennaReads(7, 8, ReadResult.EMPTY, 37, 3979, 6360),
                      AntennaReads(16, 0, ReadResult.NO_RESPONSE, 13, 6838, 9048),
                      AntennaReads.tag(7, 7, 14484, UID1))}),
        X(FrameType.SELFTEST, 31, {"seconds": 0, "report_ms": 0}),
    ],
    "E15": [
        X(FrameType.SELFTEST, 5, {"seconds": 30, "report_ms": 500}),
        X(FrameType.ACK, 12, {"seq": 5, "status": 1}),
    ],
    "E16": [
        X(FrameType.SELFTEST_REPORT, 90, {
            "state": SelfTestState.RUNNING, "elapsed_ms": 3003, "health": (),
            "reads": (AntennaReads(19, 0, ReadResult.EMPTY, 41, 2604, 2790),)}, bad_reader=19),
        X(FrameType.REQUEST_SNAPSHOT, 32),
    ],
    "E17": [
        X(FrameType.HELLO, 60, {**HELLO_11, "slots": 9}, boot_id=BOOT_A),
        X(FrameType.IDENTIFY, 30),
        X(FrameType.SNAPSHOT, 61, {"sweep": 1300, "tags": ((Loc.slot(0, 8), UID1),)}, off_board=(Loc.slot(0, 8),)),
        X(FrameType.ACK, 62, {"seq": 30, "status": 0}),
        X(FrameType.HELLO, 63, {**HELLO_11, "slots": 9}, boot_id=BOOT_A),
    ],
}


# --- reading the spec ------------------------------------------------------------------------


def spec_frames() -> dict[str, list[dict[str, bytes]]]:
    """Per ``### ID ...`` section, its frames in order: a ``wire:`` line ends each one."""
    sections: dict[str, list[dict[str, bytes]]] = {}
    current: list[dict[str, bytes]] | None = None
    pending: dict[str, bytes] = {}
    for line in SPEC.read_text(encoding="utf-8").splitlines():
        heading = re.match(r"^#{2,3} (\S+)", line)
        if heading:
            assert not pending, f"payload/body line without a wire line before {line!r}"
            current = sections.setdefault(heading.group(1), []) if line.startswith("### ") else None
            continue
        hexline = re.match(r"^(payload|body|wire):[ \t]*([0-9a-f ]*)$", line)
        if hexline:
            assert current is not None, f"hex outside an example section: {line!r}"
            kind, data = hexline.groups()
            assert kind not in pending, f"two {kind} lines for one frame: {line!r}"
            pending[kind] = bytes.fromhex(data)
            if kind == "wire":
                current.append(pending)
                pending = {}
    assert not pending
    return {name: frames for name, frames in sections.items() if frames}


def all_frames() -> list[tuple[str, int]]:
    return [(name, i) for name, xs in EXPECTED.items() for i in range(len(xs))]


def test_every_hex_line_of_the_spec_is_checked() -> None:
    sections = spec_frames()
    worked = {name for name in sections if name not in FRAME_TYPE_EXAMPLES}
    assert worked == set(EXPECTED), "a worked example without expectations here, or the reverse"
    for name, xs in EXPECTED.items():
        assert len(sections[name]) == len(xs), f"{name}: {len(sections[name])} frames in the spec, {len(xs)} here"
    assert set(sections) - worked == FRAME_TYPE_EXAMPLES
    text = SPEC.read_text(encoding="utf-8")
    assert len(re.findall(r"^wire:", text, re.MULTILINE)) == sum(len(v) for v in sections.values())


def test_the_spec_is_version_1_1() -> None:
    first = SPEC.read_text(encoding="utf-8").splitlines()[0]
    assert first == "# Board link protocol, version 1.1"
    for heading in ("## Receiver rules", "## Version negotiation", "## Changelog 1.0 -> 1.1", "## Worked examples"):
        assert re.search(rf"^{re.escape(heading)}$", SPEC.read_text(encoding="utf-8"), re.MULTILINE), heading


# --- a reference encoder, from the spec's "Frame" section only ------------------------------------


def ref_cobs(data: bytes) -> bytes:
    out = bytearray()
    block = bytearray()
    for b in data:
        if b == 0:
            out += bytes((len(block) + 1,)) + block
            block.clear()
        else:
            block.append(b)
            if len(block) == 254:
                out += b"\xff" + block
                block.clear()
    out += bytes((len(block) + 1,)) + block
    return bytes(out)


def ref_frame(kind: int, seq: int, payload: bytes, flags: int = 0) -> bytes:
    body = struct.pack("<BBHH", kind, flags, seq, len(payload)) + payload
    body += struct.pack("<I", zlib.crc32(body))
    return b"\x00" + ref_cobs(body) + b"\x00"


def ref_tags(entries: tuple[tuple[Loc, bytes], ...]) -> bytes:
    return b"".join(bytes((loc.area, loc.index, len(uid))) + uid for loc, uid in entries)


def ref_payload(x: X) -> bytes:
    """The payload of ``x`` as the spec's tables lay it out (1.1: the boot id appended)."""
    f = x.fields
    if x.raw is not None:
        out = x.raw
    elif x.kind == FrameType.HELLO:
        out = bytes((*f["firmware"], *f["protocol"], f["cols"], f["rows"], f["racks"], f["slots"], f["readers"]))
        out += f["board_id"]
    elif x.kind in (FrameType.SNAPSHOT, FrameType.CHANGES):
        entries = f["tags"] if x.kind == FrameType.SNAPSHOT else f["changes"]
        out = struct.pack("<IH", f["sweep"], len(entries)) + ref_tags(entries)
    elif x.kind == FrameType.HEARTBEAT:
        out = struct.pack("<IIHB", f["sweep"], f["uptime_ms"], f["sweep_ms"], f["faulty_readers"])
    elif x.kind == FrameType.FAULT:
        out = bytes((f["reader"], f["code"], len(f["locs"]))) + b"".join(bytes((l.area, l.index)) for l in f["locs"])
    elif x.kind == FrameType.ACK:
        out = struct.pack("<HB", f["seq"], f["status"])
    elif x.kind == FrameType.SET_SCAN:
        out = struct.pack("<BHHHH", *(f[k] for k in SCAN))
    elif x.kind == FrameType.SELFTEST:
        out = struct.pack("<HH", f["seconds"], f["report_ms"])
    elif x.kind == FrameType.SELFTEST_REPORT:
        out = ref_report(f)
    else:
        out = b""
    if x.boot_id is not None:
        out += struct.pack("<I", x.boot_id)
    return out + x.appended


def ref_report(f: dict[str, Any]) -> bytes:
    """A SELFTEST_REPORT laid out as the spec's "Self-test" section says."""
    out = struct.pack("<BIB", f["state"], f["elapsed_ms"], len(f["health"]))
    for h in f["health"]:
        out += bytes((h.reader, h.version, h.flags, h.faults, h.resets, len(h.locs)))
        out += b"".join(bytes((loc.area, loc.index)) for loc in h.locs)
    out += struct.pack("<H", len(f["reads"]))
    for r in f["reads"]:
        out += bytes((r.reader, r.antenna, r.result))
        if r.result == 3:
            out += struct.pack("<HB", r.min_us, len(r.uid)) + r.uid
        else:
            out += struct.pack("<HHH", r.count, r.min_us, r.max_us)
    return out


def known_part(x: X, payload: bytes) -> bytes:
    """The payload without the 1.1 boot id and without appended bytes: what 1.0 defines."""
    cut = len(x.appended) + (4 if x.boot_id is not None else 0)
    return payload[: len(payload) - cut]


def on_reference_board(loc: Loc) -> bool:
    """PROTOCOL.md "Locations and UIDs": does the reference HELLO declare ``loc``?"""
    if loc.area is Area.BOARD:
        return 0 <= loc.index < REFERENCE["cols"] * REFERENCE["rows"]
    return loc.rack < REFERENCE["racks"] and loc.rack_slot < REFERENCE["slots"]


# --- each frame ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "i"), all_frames())
def test_worked_example_frame(name: str, i: int) -> None:
    x = EXPECTED[name][i]
    spec = spec_frames()[name][i]
    wire = spec["wire"]

    parser = FrameParser()
    frames = parser.feed(wire)
    assert len(frames) == 1, parser.stats
    frame = frames[0]
    assert (frame.type, frame.seq) == (x.kind, x.seq)
    body = cobs_decode(wire[1:-1])
    assert body[1] == x.flags
    assert frame.payload == spec["payload"]
    assert body == spec["body"]

    # The bytes, from the spec alone, and from the project's two encoders.
    assert ref_payload(x) == frame.payload
    assert ref_frame(x.kind, x.seq, frame.payload, x.flags) == wire
    assert encode_frame(x.kind, x.seq, frame.payload, x.flags) == wire
    if x.flags == 0:
        assert fw_frames.encode_frame(x.kind, x.seq, frame.payload) == wire

    # The meaning, with the host's codec.
    if x.raw is not None:
        assert x.kind not in {t.value for t in FrameType}
        with pytest.raises(ProtocolError, match="unknown frame type"):
            decode_payload(x.kind, frame.payload)
        return
    msg = decode_payload(x.kind, known_part(x, frame.payload))
    for key, value in x.fields.items():
        assert getattr(msg, key) == value, key

    # Every location is on the reference board, but those the example says are not.
    locs = [loc for loc, _ in x.fields.get("tags", ()) + x.fields.get("changes", ())] + list(x.fields.get("locs", ()))
    locs += [loc for h in x.fields.get("health", ()) for loc in h.locs]
    assert [loc for loc in locs if not on_reference_board(loc)] == list(x.off_board)
    readers = [x.fields["reader"]] if x.kind == FrameType.FAULT else []
    readers += [e.reader for e in x.fields.get("health", ()) + x.fields.get("reads", ())]
    assert [r for r in readers if r >= REFERENCE["readers"]] == ([] if x.bad_reader is None else [x.bad_reader])


BOOT_FRAMES = [(n, i) for n, i in all_frames() if EXPECTED[n][i].boot_id is not None]


@pytest.mark.parametrize(("name", "i"), BOOT_FRAMES)
def test_boot_id_where_the_spec_puts_it(name: str, i: int) -> None:
    x = EXPECTED[name][i]
    payload = spec_frames()[name][i]["payload"]
    at = {FrameType.HELLO: 18, FrameType.HEARTBEAT: 11}[FrameType(x.kind)]
    assert len(payload) == at + 4
    assert int.from_bytes(payload[at:at + 4], "little") == x.boot_id
    # A 1.0 decoder reads the 1.1 frame's 1.0 fields and ignores the boot id.
    msg = decode_payload(x.kind, payload)
    for key, value in x.fields.items():
        assert getattr(msg, key) == value, key


@pytest.mark.parametrize(("name", "i"), BOOT_FRAMES)
def test_boot_id_decoded_by_the_host_codec(name: str, i: int) -> None:
    x = EXPECTED[name][i]
    msg = decode_payload(x.kind, spec_frames()[name][i]["payload"])
    assert isinstance(msg, (Hello, Heartbeat)) and msg.boot_id == x.boot_id


# --- what the text says about the examples --------------------------------------------------------


def test_e1_cell_indices_run_along_a_row() -> None:
    assert [Loc.cell(n).index for n in ("A1", "B1", "O1", "A2", "H8", "I8", "H9", "A15", "O15")] == [
        0, 1, 14, 15, 112, 113, 127, 210, 224]
    assert [fw_frames.cell_loc(r, c) & 0xFF for r, c in ((0, 1), (0, 14), (7, 8), (14, 0))] == [1, 14, 113, 210]
    assert Loc.slot(2, 4).index == 0x24 and Loc.slot(0, 6).index == 0x06


def uptime_restart(prev_uptime: int, uptime: int, host_elapsed_ms: int) -> bool:
    """PROTOCOL.md rule 10, as a reference."""
    return (uptime - prev_uptime) % 2**32 > host_elapsed_ms + 2000


def test_e8_uptime_rule() -> None:
    a, b, c = (x.fields["uptime_ms"] for x in EXPECTED["E8"])
    assert not uptime_restart(a, b, 500)  # the wrap
    assert (b - a) % 2**32 == 504
    assert uptime_restart(61234, c, 3000)  # the fall, after the HEARTBEAT example's uptime
    assert (c - 61234) % 2**32 == 4294908272
    assert not uptime_restart(61234, 61234 + 1000, 0)  # a burst after a host stall: no restart


def test_e6_e7_boot_ids() -> None:
    hb_old, hb_new, _, hello, _ = EXPECTED["E7"]
    assert hb_old.boot_id != hb_new.boot_id == hello.boot_id
    assert EXPECTED["E6"][0].boot_id == EXPECTED["E6"][1].boot_id == BOOT_A


def test_e13_and_the_set_scan_table_match_the_firmware() -> None:
    text = SPEC.read_text(encoding="utf-8")
    lines = re.findall(r"^\| (stable sweeps|stable ms|empty-cell timeout µs|snapshot interval ms|heartbeat interval ms)"
                       r" \| ([0-9]+)–([0-9]+)[^|]*\| ([0-9]+) \|$", text, re.MULTILINE)
    table = {name: ((int(lo), int(hi)), int(boot)) for name, lo, hi, boot in lines}
    defaults = {k: p.default for k, p in inspect.signature(fw_scanner.Scanner).parameters.items()}
    cdefaults = {k: p.default for k, p in inspect.signature(fw_controller.Controller).parameters.items()}
    assert table == {
        "stable sweeps": (fw_controller.STABLE_SWEEPS_RANGE, defaults["stable_reads"]),
        "stable ms": (fw_controller.STABLE_MS_RANGE, defaults["stable_ms"]),
        "empty-cell timeout µs": (fw_controller.EMPTY_TIMEOUT_US_RANGE, defaults["empty_timeout_us"]),
        "snapshot interval ms": (fw_controller.SNAPSHOT_MS_RANGE, cdefaults["snapshot_ms"]),
        "heartbeat interval ms": (fw_controller.HEARTBEAT_MS_RANGE, cdefaults["heartbeat_ms"]),
    }
    assert EXPECTED["E13"][0].fields["heartbeat_ms"] > fw_controller.HEARTBEAT_MS_RANGE[1]


# --- the host's link on the examples -------------------------------------------------------------


def wires(name: str) -> list[bytes]:
    return [f["wire"] for f in spec_frames()[name]]


def hello_frame(seq: int, boot_id: int = BOOT_A) -> bytes:
    return ref_frame(FrameType.HELLO, seq, ref_payload(X(FrameType.HELLO, seq, HELLO_11, boot_id=boot_id)))


def synced_at(expected: int) -> BoardLink:
    """A link that accepted the reference HELLO and a SNAPSHOT and expects seq ``expected``."""
    link = BoardLink()
    link.reset(0.0)
    link.feed(hello_frame(expected - 2) + ref_frame(FrameType.SNAPSHOT, expected - 1, struct.pack("<IH", 1, 0)), 0.0)
    assert link.state is LinkState.SYNCED
    link.outgoing()
    return link


def state(link: BoardLink) -> LinkState:
    """The link's state, read afresh (each feed may change it)."""
    return link.state


def sent_types(link: BoardLink) -> list[int]:
    return [f.type for f in FrameParser().feed(link.outgoing())]


def test_e5_link_drops_changes_until_the_requested_snapshot() -> None:
    link = synced_at(43)
    changes44, _, ack45, changes46, snapshot47 = wires("E5")
    assert link.feed(changes44, 1.0) == []
    assert sent_types(link) == [FrameType.REQUEST_SNAPSHOT]
    assert link.stats.sequence_errors == 1
    link.feed(ack45, 1.1)
    assert link.feed(changes46, 1.2) == [] and link.state is LinkState.SYNCING
    link.feed(snapshot47, 1.3)
    assert state(link) is LinkState.SYNCED
    assert dict(link.board.tags) == {cell("H8"): UID2, cell("H9"): UID3}
    assert link.stats.sequence_errors == 1 and sent_types(link) == []


def test_e6_link_ignores_frames_before_the_hello_and_sends_set_scan() -> None:
    link = BoardLink(scan=SetScan(**SCAN))
    link.reset(0.0)
    assert sent_types(link) == [FrameType.IDENTIFY]
    heartbeat, hello = wires("E6")
    assert link.feed(heartbeat, 0.1) == [] and link.state is LinkState.WAITING_HELLO
    assert link.stats.sequence_errors == 0 and link.stats.ignored == 1
    link.feed(hello, 0.2)
    assert state(link) is LinkState.SYNCING
    assert sent_types(link) == [FrameType.SET_SCAN]


def test_e9_e10_link_ignores_flags_and_counts_unknown_types_in_sequence() -> None:
    link = synced_at(901)
    (flagged,) = wires("E9")
    (unknown,) = wires("E10")
    assert len(link.feed(flagged, 1.0)) == 1  # the HEARTBEAT confirms the board
    assert link.feed(unknown, 1.1) == []
    heartbeat903 = ref_frame(FrameType.HEARTBEAT, 903, struct.pack("<IIHBI", 90002, 45001500, 99, 0, BOOT_A))
    assert len(link.feed(heartbeat903, 1.2)) == 1
    assert link.stats.unknown_types == 1 and link.stats.sequence_errors == 0


def test_e3_link_refuses_a_slot_the_hello_does_not_declare() -> None:
    link = synced_at(42)
    changes, _ = wires("E3")
    assert link.feed(changes, 1.0) == []
    assert link.stats.outside_geometry == 1 and sent_types(link) == [FrameType.IDENTIFY]


def test_e4_link_retries_a_refusal() -> None:
    link = BoardLink()
    link.reset(0.0)
    link.outgoing()
    hello2, _ = wires("E4")
    link.feed(hello2, 0.1)
    assert link.state is not LinkState.SYNCING
    for t in (1.0, 2.0, 3.0):
        link.feed(ref_frame(FrameType.HEARTBEAT, int(t), struct.pack("<IIHB", 1, 1000, 1, 0)), t)  # keeps it alive
        link.tick(t)
    link.tick(3.2)
    assert FrameType.IDENTIFY in sent_types(link)



def test_e7_link_sees_the_reboot_by_boot_id() -> None:
    link = BoardLink(scan=SetScan(**SCAN))
    link.reset(0.0)
    link.feed(hello_frame(898) + ref_frame(FrameType.SNAPSHOT, 899, struct.pack("<IH", 1, 0)), 0.0)
    link.outgoing()
    old, new, _, hello, _ = wires("E7")
    link.feed(old, 1.0)
    link.feed(new, 3.0)
    assert sent_types(link) == [FrameType.IDENTIFY]
    link.feed(ref_frame(FrameType.ACK, 3, struct.pack("<HB", 20, 0)) + hello, 3.1)
    assert sent_types(link) == [FrameType.SET_SCAN]
    assert link.stats.reboots == 1



def test_e8_link_takes_a_wrap_for_no_restart() -> None:
    link = BoardLink()
    link.reset(0.0)
    link.feed(encode_frame(FrameType.HELLO, 98, bytes((1, 0, 0, 1, 0, 15, 15, 4, 7, 19)) + BOARD_ID)
              + ref_frame(FrameType.SNAPSHOT, 99, struct.pack("<IH", 1, 0)), 0.0)
    link.outgoing()
    a, b, _ = wires("E8")
    link.feed(a, 10.0)
    link.feed(b, 10.5)
    assert link.stats.reboots == 0 and sent_types(link) == []


def selftest_report_payload(x: X) -> bytes:
    """The payload of ``x`` made by the firmware's encoder (firmware/frames.py)."""
    f = x.fields
    health = [fw_frames.selftest_health(h.reader, h.version, h.flags, h.faults, h.resets,
                                        [loc.area << 8 | loc.index for loc in h.locs]) for h in f["health"]]
    reads = [fw_frames.selftest_tag(r.reader, r.antenna, r.min_us, r.uid) if r.result is ReadResult.TAG
             else fw_frames.selftest_summary(r.reader, r.antenna, r.result, r.count, r.min_us, r.max_us)
             for r in f["reads"]]
    return bytes(fw_frames.selftest_report_payload(f["state"], f["elapsed_ms"], health, reads))


@pytest.mark.parametrize(("name", "i"), [(n, i) for n, i in all_frames()
                                         if EXPECTED[n][i].kind in (FrameType.SELFTEST, FrameType.SELFTEST_REPORT)])
def test_the_firmware_encodes_the_self_test_examples_alike(name: str, i: int) -> None:
    x = EXPECTED[name][i]
    payload = spec_frames()[name][i]["payload"]
    if x.kind == FrameType.SELFTEST:
        assert fw_frames.selftest_payload(x.fields["seconds"], x.fields["report_ms"]) == payload
        assert fw_frames.parse_selftest(payload) == (x.fields["seconds"], x.fields["report_ms"])
    else:
        assert selftest_report_payload(x) == payload


def test_e14_link_reports_the_self_test() -> None:
    link = synced_at(70)
    selftest30, ack70, report81, selftest31 = wires("E14")
    link._tx_seq = 30  # (the host's seq as the example has it)
    assert link.send(SelfTest(30, 500)) == 30
    assert link.outgoing() == selftest30
    first = struct.pack("<BIBH", 0, 0, 0, 0)  # (the first report, its 19 health entries left out)
    events = link.feed(ack70 + ref_frame(FrameType.SELFTEST_REPORT, 71, first), 0.1)
    assert [type(e) for e in events] == [SelfTestReported]
    link.feed(b"".join(ref_frame(FrameType.HEARTBEAT, seq, struct.pack("<IIHBI", 1, 1000, 100, 0, BOOT_A))
                       for seq in range(72, 81)), 2.0)
    (event,) = link.feed(report81, 2.5)
    assert isinstance(event, SelfTestReported)
    assert event.report == decode_payload(FrameType.SELFTEST_REPORT, spec_frames()["E14"][2]["payload"])
    assert link.stats.bad_payloads == 0 and link.stats.sequence_errors == 0
    link.send(SelfTest(0, 0))
    assert link.outgoing() == selftest31


def test_e15_link_names_the_command_a_controller_does_not_know() -> None:
    link = synced_at(12)
    selftest5, ack12 = wires("E15")
    link._tx_seq = 5
    link.send(SelfTest(30, 500))
    assert link.outgoing() == selftest5
    (event,) = link.feed(ack12, 1.0)
    assert event == CommandRefused(FrameType.SELFTEST, 5, AckStatus.UNKNOWN_TYPE, 1.0)
    assert link.state is LinkState.SYNCED  # nothing else changes
    assert link.stats.nacks == 1


def test_e16_link_refuses_a_reader_the_hello_does_not_have() -> None:
    link = synced_at(90)
    report90, request32 = wires("E16")
    link._tx_seq = 32
    assert link.feed(report90, 1.0) == []
    assert link.outgoing() == request32
    assert link.stats.bad_payloads == 1
    assert isinstance(link.last_error, ReaderOutOfRangeError)
    assert (link.last_error.reader, link.last_error.readers) == (19, 19)
    assert "reader 19" in str(link.last_error) and "19 readers" in str(link.last_error)
    # the reports that follow in sequence are taken meanwhile
    following = ref_frame(FrameType.SELFTEST_REPORT, 91, struct.pack("<BIBH", 0, 3503, 0, 0))
    (event,) = link.feed(following, 1.5)
    assert isinstance(event, SelfTestReported) and event.report.elapsed_ms == 3503


def test_e11_link_ignores_appended_bytes_from_a_1_0_controller() -> None:
    link = BoardLink()
    link.reset(0.0)
    link.feed(encode_frame(FrameType.HELLO, 47, bytes((1, 0, 0, 1, 0, 15, 15, 4, 7, 19)) + BOARD_ID), 0.0)
    (snapshot,) = wires("E11")
    link.feed(snapshot, 0.1)
    assert link.state is LinkState.SYNCED and dict(link.board.tags) == {cell("H8"): UID2}


def test_e17_link_holds_another_boards_hello_until_the_identify_answers() -> None:
    link = BoardLink(scan=SetScan(**SCAN))
    link.reset(0.0)
    link.feed(hello_frame(58) + ref_frame(FrameType.SNAPSHOT, 59, struct.pack("<IH", 1, 1) + bytes((1, 0x70, 7)) + UID2),
              0.0)
    assert link.state is LinkState.SYNCED
    link._tx_seq = 30  # (the host's seq as the example has it)
    link.outgoing()
    wide, identify, snapshot, ack, answer = wires("E17")
    assert link.feed(wide, 10.0) == [] and link.state is LinkState.WAITING_HELLO
    assert link.outgoing() == identify  # byte for byte as the example
    assert link.feed(snapshot, 10.1) == [] and dict(link.board.tags) == {cell("H8"): UID2}  # ignored
    assert link.feed(ack, 10.2) == []
    (event,) = link.feed(answer, 10.3)
    assert isinstance(event, BoardConnected) and (event.hello.racks, event.hello.slots) == (4, 9)
    assert link.board == BoardSnapshot() and link.state is LinkState.SYNCING  # another board: its picture dropped
    assert sent_types(link) == [FrameType.SET_SCAN]
