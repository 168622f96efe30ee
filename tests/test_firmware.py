"""The controller firmware's logic under CPython, on the fake HAL's virtual clock.

Frames must be byte for byte the host's; the debounce must never turn a slide, flicker or
junk read into a reported change; the controller must answer every host command as
hardware/PROTOCOL.md says. No test looks at the wall clock.
"""

from __future__ import annotations

import random
import struct
import zlib
from collections.abc import Iterator
from itertools import pairwise

import pytest

from drivers.board import protocol as P
from firmware import frames as F
from firmware import iso14443a as iso
from firmware.controller import Controller
from firmware.hal import TICKS_PERIOD, ReaderFault, ticks_add, ticks_diff
from firmware.hal_fake import Costs, FakeHal, VirtualBoard
from firmware.scanner import UNKNOWN, Scanner, row_layout, single_reader_layout

UID_A = bytes.fromhex("04A1B2C3D4E5F6")
UID_B = bytes.fromhex("04112233445566")
UID_C = bytes.fromhex("0477889900AABB")


def loc(name: str) -> int:
    value: int = F.parse_loc(name)
    return value


def host_loc(name: str) -> P.Loc:
    value = F.parse_loc(name)
    return P.Loc(P.Area(value >> 8), value & 0xFF)


# --- frames ---------------------------------------------------------------------------------


def random_uid(rng: random.Random) -> bytes:
    return bytes(rng.randrange(256) for _ in range(rng.choice((4, 7, 10))))


def random_locs(rng: random.Random, n: int) -> list[int]:
    every = [F.cell_loc(r, c) for r in range(15) for c in range(15)]
    every += [F.slot_loc(rack, s) for rack in range(4) for s in range(9)]
    return sorted(rng.sample(every, n))


def to_host(value: int) -> P.Loc:
    return P.Loc(P.Area(value >> 8), value & 0xFF)


def message_pairs(rng: random.Random) -> Iterator[tuple[P.Message, int, bytes]]:
    """(host message, its type, the firmware's payload for it), every type, random values."""
    fw = (rng.randrange(256), rng.randrange(256), rng.randrange(256))
    board_id = bytes(rng.randrange(256) for _ in range(8))
    racks, slots, readers = rng.randrange(5), rng.randrange(10), rng.randrange(256)
    boot = rng.choice((None, rng.randrange(2**32)))  # a 1.0 HELLO has none, a 1.1 HELLO one
    yield (P.Hello(fw, (1, 0), 15, 15, racks, slots, readers, board_id, boot), F.HELLO,
           F.hello_payload(fw, (1, 0), 15, 15, racks, slots, readers, board_id, boot))
    sweep = rng.randrange(2**32)
    entries = [(lc, random_uid(rng)) for lc in random_locs(rng, rng.randrange(0, 80))]
    yield (P.Snapshot(sweep, tuple((to_host(lc), u) for lc, u in entries)), F.SNAPSHOT,
           F.tags_payload(sweep, entries))
    changes = [(lc, rng.choice((b"", random_uid(rng)))) for lc in random_locs(rng, rng.randrange(0, 30))]
    yield (P.Changes(sweep, tuple((to_host(lc), u) for lc, u in changes)), F.CHANGES,
           F.tags_payload(sweep, changes))
    hb = (rng.randrange(2**32), rng.randrange(2**32), rng.randrange(2**16), rng.randrange(20))
    yield P.Heartbeat(*hb, boot), F.HEARTBEAT, F.heartbeat_payload(*hb, boot)
    reader, code = rng.randrange(32), rng.randrange(4)
    locs = random_locs(rng, rng.randrange(0, 16))
    yield (P.Fault(reader, P.FaultCode(code), tuple(to_host(lc) for lc in locs)), F.FAULT,
           F.fault_payload(reader, code, locs))
    seq, status = rng.randrange(2**16), rng.randrange(4)
    yield P.Ack(seq, P.AckStatus(status)), F.ACK, F.ack_payload(seq, status)
    scan = tuple(rng.randrange(2**16) for _ in range(4))
    sweeps = rng.randrange(256)
    yield P.SetScan(sweeps, *scan), F.SET_SCAN, F.set_scan_payload(sweeps, *scan)
    yield P.RequestSnapshot(), F.REQUEST_SNAPSHOT, b""
    yield P.Identify(), F.IDENTIFY, b""
    seconds, report_ms = rng.randrange(2**16), rng.randrange(2**16)
    yield P.SelfTest(seconds, report_ms), F.SELFTEST, F.selftest_payload(seconds, report_ms)
    locs = random_locs(rng, rng.randrange(0, 16))
    health = (reader, rng.randrange(256), rng.randrange(4), rng.randrange(256), rng.randrange(256))
    uid, took = random_uid(rng), rng.randrange(2**16)
    counts = (rng.randrange(1, 2**16), rng.randrange(2**15), rng.randrange(2**15, 2**16))
    report = P.SelfTestReport(
        P.SelfTestState(code), sweep, (P.ReaderHealth(*health[:2], P.HealthFlag(health[2]), *health[3:],
                                                      tuple(to_host(lc) for lc in locs)),),
        (P.AntennaReads(reader, 0, P.ReadResult(code % 3), *counts), P.AntennaReads.tag(reader, 0, took, uid)))
    yield report, F.SELFTEST_REPORT, F.selftest_report_payload(
        code, sweep, [F.selftest_health(*health, locs)],
        [F.selftest_summary(reader, 0, code % 3, *counts), F.selftest_tag(reader, 0, took, uid)])


@pytest.mark.parametrize("seed", range(40))
def test_frames_are_the_host_encoders_bytes_for_every_type(seed: int) -> None:
    rng = random.Random(seed)
    kinds = set()
    for msg, kind, payload in message_pairs(rng):
        seq = rng.randrange(2**16)
        assert F.encode_frame(kind, seq, payload) == P.encode(msg, seq), msg
        kinds.add(kind)
    assert kinds == {t.value for t in P.FrameType}


def test_the_protocol_examples_encode_alike() -> None:
    # SNAPSHOT of PROTOCOL.md: sweep 412, seq 7.
    entries = [(loc("H8"), UID_A), (loc("I8"), UID_B), (F.slot_loc(0, 0), UID_C)]
    wire = bytes.fromhex(
        "00 02 02 02 07 02 24 03 9c 01 01 02 03 16 01 70 07 04 a1 b2 c3 d4 e5 f6 01 71 07 04 11 22"
        " 33 44 55 66 02 06 07 04 77 88 99 07 aa bb 5c 3a b9 81 00")
    assert F.encode_frame(F.SNAPSHOT, 7, F.tags_payload(412, entries)) == wire


def test_long_payloads_with_zero_runs_stuff_alike() -> None:
    rng = random.Random(7)
    for n in (0, 1, 253, 254, 255, 508, 1000, 4096):
        for fill in (0, 1, None):
            payload = bytes(n) if fill == 0 else bytes([1]) * n if fill == 1 else bytes(rng.randrange(256) for _ in range(n))
            assert F.encode_frame(0x7E, n, payload) == P.encode_frame(0x7E, n, payload)
            assert F.cobs_decode(F.cobs_encode(payload)) == payload


def test_the_table_crc_matches_zlib() -> None:
    rng = random.Random(3)
    for n in (0, 1, 5, 100, 1000):
        data = bytes(rng.randrange(256) for _ in range(n))
        assert F._crc32_table(data) == zlib.crc32(data) == F.crc32(data)


def test_oversize_payload_is_refused() -> None:
    with pytest.raises(F.FrameError, match="over 4096"):
        F.encode_frame(F.SNAPSHOT, 0, bytes(4097))


def test_the_firmware_parser_reads_host_frames_through_noise() -> None:
    parser = F.FrameParser()
    good = P.encode(P.SetScan(3, 150, 1500, 1000, 500), 6)
    bad = bytearray(P.encode(P.Identify(), 7))
    bad[-2] ^= 0x01  # the last CRC byte: a CRC error
    stream = b"\x13\x37garbage" + good + bytes(bad) + b"\xff" * 3 + P.encode(P.Identify(), 8)
    frames = []
    for i in range(0, len(stream), 5):  # in pieces, as a serial port delivers them
        frames += parser.feed(stream[i:i + 5])
    assert [(k, s) for k, s, _ in frames] == [(F.SET_SCAN, 6), (F.IDENTIFY, 8)]
    assert F.parse_set_scan(frames[0][2]) == (3, 150, 1500, 1000, 500)
    assert parser.crc_errors == 1
    assert parser.malformed >= 1  # the garbage before the first frame


def raw_frame(kind: int, seq: int, payload: bytes) -> bytes:
    """A frame with a valid CRC whatever its length (the encoders refuse over 4096 bytes)."""
    body = struct.pack("<BBHH", kind, 0, seq, len(payload)) + payload
    body += struct.pack("<I", zlib.crc32(body))
    return b"\x00" + F.cobs_encode(body) + b"\x00"


@pytest.mark.parametrize("length", [4096, 4097, 4100, 4115, 4116])
def test_the_firmware_parser_enforces_the_length_limit_as_the_host_does(length: int) -> None:
    wire = raw_frame(F.SET_SCAN, 9, bytes(length)) + P.encode(P.Identify(), 10)
    parser, host = F.FrameParser(), P.FrameParser()
    frames = parser.feed(wire)
    host_frames = host.feed(wire)
    assert [(k, s, len(p)) for k, s, p in frames] == [(f.type, f.seq, len(f.payload)) for f in host_frames]
    assert (parser.malformed, parser.oversize) == (host.stats.malformed, host.stats.oversize)
    if length <= F.MAX_PAYLOAD:
        assert [(k, s) for k, s, _ in frames] == [(F.SET_SCAN, 9), (F.IDENTIFY, 10)]
    else:  # 4097-4115 fit in the wire limit but break the length rule; 4116 is over the wire limit
        assert [(k, s) for k, s, _ in frames] == [(F.IDENTIFY, 10)]
        assert (parser.malformed, parser.oversize) == ((1, 0) if length <= 4115 else (0, 1))


def test_the_firmware_parser_drops_an_endless_chunk_and_recovers() -> None:
    parser = F.FrameParser(limit=64)
    assert parser.feed(b"\x01" * 200) == []
    frames = parser.feed(b"\x00" + P.encode(P.RequestSnapshot(), 1))
    assert [(k, s) for k, s, _ in frames] == [(F.REQUEST_SNAPSHOT, 1)]
    assert parser.oversize == 1


def test_set_scan_payload_checks() -> None:
    with pytest.raises(F.FrameError):
        F.parse_set_scan(b"\x01\x02")
    assert F.parse_set_scan(F.set_scan_payload(1, 2, 3, 4, 5) + b"\x09") == (1, 2, 3, 4, 5)


@pytest.mark.parametrize("name", ["A1", "H8", "O15", "R1.1", "R4.9", "R2.5"])
def test_location_names_round_trip(name: str) -> None:
    value = F.parse_loc(name)
    assert F.loc_name(value) == name
    assert host_loc(name).valid()


def test_location_names_agree_with_the_host() -> None:
    assert F.parse_loc("H8") == 0x0170
    assert host_loc("H8") == P.Loc.cell("H8")
    assert host_loc("R2.5") == P.Loc.slot(1, 4)


@pytest.mark.parametrize("bad", ["P1", "A0", "A16", "R5.1", "R1.0", "R1", "", "H8x"])
def test_bad_location_names_are_refused(bad: str) -> None:
    with pytest.raises(F.FrameError, match="not a location"):
        F.parse_loc(bad)


# --- ISO 14443A ---------------------------------------------------------------------------


class Tag:
    """An ISO 14443A tag answering one reader, byte for byte (NTAG213 by default)."""

    def __init__(self, uid: bytes, garble_bcc: bool = False) -> None:
        self.uid = uid
        self.garble_bcc = garble_bcc
        if len(uid) == 4:
            self.levels = [uid]
        elif len(uid) == 7:
            self.levels = [b"\x88" + uid[:3], uid[3:]]
        else:
            self.levels = [b"\x88" + uid[:3], b"\x88" + uid[3:6], uid[6:]]
        self.exchanges = 0

    def answer(self, frame: bytes) -> bytes | None:
        self.exchanges += 1
        if frame in (b"\x52", b"\x26"):
            return b"\x44\x00"
        level = iso.SEL_CL.index(frame[0])
        data = self.levels[level]
        if frame[1] == iso.NVB_ANTICOLL:
            bcc = data[0] ^ data[1] ^ data[2] ^ data[3]
            return data + bytes((bcc ^ (1 if self.garble_bcc else 0),))
        assert frame[1] == iso.NVB_SELECT and iso.crc_ok(frame) and frame[2:6] == data
        sak = 0x04 if level < len(self.levels) - 1 else 0x00
        answer: bytes = iso.with_crc(bytes((sak,)))
        return answer


def activate(tag: Tag | None, known: bytes | None = None) -> bytes | None:
    sel = iso.Select(known)
    frame, bits = sel.first()
    assert bits == 7
    while True:
        nxt = sel.answer(tag.answer(frame) if tag else None)
        if nxt is None:
            uid: bytes | None = sel.uid
            return uid
        frame, bits = nxt
        assert bits == 0


def test_crc_a_matches_the_standard() -> None:
    assert iso.with_crc(b"\x50\x00") == bytes.fromhex("500057cd")  # HLTA
    assert iso.crc_a(b"\x00\x00") == 0x1EA0
    assert iso.crc_a(b"\x12\x34") == 0xCF26


@pytest.mark.parametrize("uid", [UID_A, bytes.fromhex("A1B2C3D4"), bytes.fromhex("88010203040506070809")[1:] + b"\x10"])
def test_anticollision_reads_every_uid_size(uid: bytes) -> None:
    tag = Tag(uid)
    assert activate(tag) == uid


def test_a_seven_byte_uid_never_comes_back_as_the_cascade_tag() -> None:
    tag = Tag(UID_A)
    uid = activate(tag)
    assert uid == UID_A and uid[0] != iso.CASCADE_TAG and len(uid) == 7
    assert tag.exchanges == 5  # WUPA, anticollision and select at levels 1 and 2


def test_an_empty_antenna_reads_none() -> None:
    assert activate(None) is None


def test_a_bcc_error_is_a_bad_read() -> None:
    with pytest.raises(iso.BadRead, match="BCC"):
        activate(Tag(UID_A, garble_bcc=True))


def test_a_known_tag_is_confirmed_at_level_one() -> None:
    tag = Tag(UID_A)
    assert activate(tag, known=UID_A) == UID_A
    assert tag.exchanges == 2  # WUPA and level-1 anticollision only
    other = Tag(UID_B)
    assert activate(other, known=UID_A) == UID_B  # a different tile: the full select
    assert other.exchanges == 5


# --- the fake HAL and the scanner -------------------------------------------------------------


def rig(*, racks: int = 2, slots: int = 7, seed: int = 0, ticks_base_ms: int = 0,
        **scanner_options: int) -> tuple[FakeHal, Scanner, Controller]:
    layout = row_layout(racks, slots)
    hal = FakeHal(layout, seed=seed, ticks_base_ms=ticks_base_ms)
    scanner = Scanner(hal, layout, **scanner_options)
    return hal, scanner, Controller(hal, layout, scanner=scanner)


def decoded(hal: FakeHal) -> list[tuple[float, int, P.Message]]:
    """(ms, seq, message) of every frame the controller sent since the last call."""
    parser = P.FrameParser()
    out = []
    for t_us, data in hal.take_tx_timed():
        for f in parser.feed(data):
            out.append((t_us / 1000, f.seq, P.decode_payload(f.type, f.payload)))
    assert parser.stats.crc_errors == parser.stats.malformed == 0
    return out


def changes_of(msgs: list[tuple[float, int, P.Message]]) -> list[tuple[str, bytes]]:
    return [(lc.name(), uid) for _, _, m in msgs if isinstance(m, P.Changes) for lc, uid in m.changes]


def run(hal: FakeHal, ctl: Controller, ms: float) -> None:
    hal.run(ctl.step, hal.now_ms + ms)


def test_a_placed_tile_is_reported_once_after_the_debounce() -> None:
    hal, sc, ctl = rig()
    run(hal, ctl, 1500)
    decoded(hal)
    t0 = hal.now_ms
    hal.place("H8", UID_A)
    run(hal, ctl, 1500)
    msgs = decoded(hal)
    assert changes_of(msgs) == [("H8", UID_A)]
    (t_report,) = [t for t, _, m in msgs if isinstance(m, P.Changes)]
    assert t_report - t0 >= sc.stable_ms  # two reads spanning 150 ms at least
    assert sc.stable_at(loc("H8")) == UID_A


def test_a_lifted_tile_is_reported_empty() -> None:
    hal, sc, ctl = rig()
    hal.place("H8", UID_A)
    run(hal, ctl, 1500)
    decoded(hal)
    hal.remove("H8")
    run(hal, ctl, 1500)
    assert changes_of(decoded(hal)) == [("H8", b"")]


def test_a_slid_tile_is_reported_only_where_it_stops() -> None:
    hal, sc, ctl = rig()
    hal.place("H8", UID_A)
    run(hal, ctl, 1500)
    decoded(hal)
    hal.slide("H8", "I8", overlap_ms=60)
    run(hal, ctl, 100)
    hal.slide("I8", "J8", overlap_ms=60)
    run(hal, ctl, 1500)
    assert sorted(changes_of(decoded(hal))) == [("H8", b""), ("J8", UID_A)]


def test_a_tile_dwelling_under_stable_ms_on_a_cell_is_never_reported() -> None:
    hal, sc, ctl = rig()
    run(hal, ctl, 1000)
    decoded(hal)
    for _ in range(10):  # a tile put down and lifted again and again, 100 ms each
        hal.place("C3", UID_B)
        run(hal, ctl, 100)
        hal.remove("C3")
        run(hal, ctl, 300)
    assert changes_of(decoded(hal)) == []


def test_a_tile_on_two_cells_for_long_is_reported_on_both_then_the_move() -> None:
    # The host's stabiliser holds back one UID at two places; the controller reports what it reads.
    hal, sc, ctl = rig()
    hal.place("H8", UID_A)
    run(hal, ctl, 1500)
    decoded(hal)
    hal.slide("H8", "H9", overlap_ms=800)
    run(hal, ctl, 2000)
    assert changes_of(decoded(hal)) == [("H9", UID_A), ("H8", b"")]


@pytest.mark.parametrize("how", ["alternate", "random"])
def test_flicker_never_becomes_a_change(how: str) -> None:
    hal, sc, ctl = rig(seed=11)
    for name, uid in (("H8", UID_A), ("R1.1", UID_B)):
        hal.place(name, uid)
        if how == "alternate":
            hal.board.flicker(name, alternate=True)
        else:
            hal.board.flicker(name, 0.3)
    run(hal, ctl, 20000)
    msgs = decoded(hal)
    assert changes_of(msgs) == []
    snaps = [m for _, _, m in msgs if isinstance(m, P.Snapshot)]
    assert len(snaps) >= 19
    assert all({lc.name() for lc, _ in m.tags} == {"H8", "rack 1 slot 1"} for m in snaps)


def test_flicker_is_reported_without_rereads_and_a_time_span() -> None:
    # The same flicker with the re-reads and stable_ms turned off gets through.
    hal, sc, ctl = rig(seed=11, absent_retries=0, stable_ms=1)
    hal.place("H8", UID_A)
    run(hal, ctl, 1500)
    hal.board.flicker("H8", 0.5)
    run(hal, ctl, 20000)
    assert ("H8", b"") in changes_of(decoded(hal))


def test_junk_reads_never_become_a_change() -> None:
    hal, sc, ctl = rig(seed=5)
    hal.place("H8", UID_A)
    hal.place("H9", UID_B)
    run(hal, ctl, 1500)
    hal.board.junk("H8", 0.4)
    hal.board.junk("H9", 0.4)
    run(hal, ctl, 20000)
    msgs = decoded(hal)
    assert changes_of(msgs) == []
    final = [m for _, _, m in msgs if isinstance(m, P.Snapshot)][-1]
    assert {lc.name(): u for lc, u in final.tags} == {"H8": UID_A, "H9": UID_B}


def test_keep_out_prevents_crosstalk() -> None:
    for keepout, expect_crosstalk in ((0, True), (1, False)):
        hal, sc, ctl = rig(keepout=keepout)
        for r in range(15):
            for c in range(0, 15, 2):
                hal.place(F.cell_loc(r, c), bytes((4, r, c, 1, 2, 3, 4)))
        run(hal, ctl, 3000)
        assert (hal.crosstalk_events > 0) is expect_crosstalk


def test_cells_next_to_tiles_and_rack_slots_are_read_more_often() -> None:
    hal, sc, ctl = rig()
    for name, uid in (("H8", UID_A), ("R1.1", UID_B)):
        hal.place(name, uid)
    reads: dict[int, int] = {}
    run(hal, ctl, 1000)
    sc.on_read = lambda lc, uid, t: reads.__setitem__(lc, reads.get(lc, 0) + 1)
    run(hal, ctl, 5000)
    far = reads[loc("A1")]
    assert reads[loc("H9")] >= 3 * far  # next to a tile: hot_ratio (4) times a sweep
    assert reads[loc("R1.2")] >= 1.5 * far  # racks: rack_ratio (2) times
    assert reads[loc("H8")] <= 1.5 * far  # a settled tile: once a sweep


def test_settled_tiles_are_mostly_checked_cheaply() -> None:
    hal, sc, ctl = rig()
    hal.place("H8", UID_A)
    run(hal, ctl, 5000)
    assert hal.checks_started > 0
    hal2, sc2, ctl2 = rig(full_every=1)
    hal2.place("H8", UID_A)
    run(hal2, ctl2, 5000)
    assert hal2.checks_started == 0
    assert sc.sweep > sc2.sweep  # the cheap checks make sweeps shorter


def test_a_swapped_tile_is_caught_by_the_next_full_read() -> None:
    # Same first three UID bytes: the presence check cannot tell; a full read every 4th visit does.
    twin = UID_A[:3] + b"\x99\x98\x97\x96"
    hal, sc, ctl = rig()
    hal.place("H8", UID_A)
    run(hal, ctl, 1500)
    decoded(hal)
    hal.remove("H8")
    hal.place("H8", twin)  # swapped between two reads
    run(hal, ctl, 3000)
    assert changes_of(decoded(hal)) == [("H8", twin)]


def test_one_reader_cannot_sweep_as_fast_as_parallel_readers() -> None:
    fast = rig()
    layout = single_reader_layout(2, 7)
    slow_hal = FakeHal(layout)
    slow = (slow_hal, Scanner(slow_hal, layout))
    for hal in (fast[0], slow_hal):
        for c in range(0, 225, 4):
            hal.place(0x100 | c, bytes((4, c, 0, 1, 2, 3, 4)))
    run(fast[0], fast[2], 4000)
    slow_ctl = Controller(slow_hal, layout, scanner=slow[1])
    run(slow_hal, slow_ctl, 4000)
    assert slow[1].last_sweep_ms > 3 * fast[1].last_sweep_ms
    assert fast[1].last_sweep_ms <= 300  # the model's worst sweep is about 300 ms (TIMING.md)


def test_ticks_wrap_around() -> None:
    assert ticks_diff(ticks_add(TICKS_PERIOD - 5, 10), TICKS_PERIOD - 5) == 10
    assert ticks_diff(3, TICKS_PERIOD - 2) == 5
    hal, sc, ctl = rig(ticks_base_ms=TICKS_PERIOD - 1500)  # wraps 1.5 s in
    hal.place("H8", UID_A)
    run(hal, ctl, 2500)
    decoded(hal)
    hal.place("H9", UID_B)
    run(hal, ctl, 1500)
    msgs = decoded(hal)
    assert changes_of(msgs) == [("H9", UID_B)]
    beats = [t for t, _, m in msgs if isinstance(m, P.Heartbeat)]
    assert len(beats) == 3


# --- reader faults ------------------------------------------------------------------------------


def test_a_dead_reader_is_reported_reset_and_recovered() -> None:
    hal, sc, ctl = rig()
    hal.place("A3", UID_A)  # row 3: reader 2
    run(hal, ctl, 1500)
    decoded(hal)
    hal.kill_reader(2)
    run(hal, ctl, 5000)
    msgs = decoded(hal)
    faults = [m for _, _, m in msgs if isinstance(m, P.Fault)]
    assert faults[0].code is P.FaultCode.NO_RESPONSE and faults[0].reader == 2
    assert [lc.name() for lc in faults[0].locs] == [f"{c}3" for c in "ABCDEFGHIJKLMNO"]
    assert any(f.code is P.FaultCode.RESET for f in faults)  # periodic resets
    assert 2 in hal.resets
    beats = [m for _, _, m in msgs if isinstance(m, P.Heartbeat)]
    assert beats[-1].faulty_readers == 1
    snaps = [m for _, _, m in msgs if isinstance(m, P.Snapshot)]
    assert all((P.Loc.cell("A3"), UID_A) in m.tags for m in snaps)  # kept while the reader is out
    assert changes_of(msgs) == []
    hal.revive_reader(2)
    hal.remove("A3")
    run(hal, ctl, 4000)
    msgs = decoded(hal)
    codes = [m.code for _, _, m in msgs if isinstance(m, P.Fault)]
    assert codes[-1] is P.FaultCode.RECOVERED
    assert changes_of(msgs) == [("A3", b"")]
    assert [m for _, _, m in msgs if isinstance(m, P.Heartbeat)][-1].faulty_readers == 0


def test_a_reader_answering_garbage_is_reported_as_bad_data() -> None:
    hal, sc, ctl = rig()
    run(hal, ctl, 1500)
    decoded(hal)
    hal.garble_reader(16)  # rack 2
    run(hal, ctl, 1000)
    faults = [m for _, _, m in decoded(hal) if isinstance(m, P.Fault)]
    assert faults and faults[0].code is P.FaultCode.BAD_DATA and faults[0].reader == 16
    assert [lc.name() for lc in faults[0].locs] == [f"rack 2 slot {s}" for s in range(1, 8)]


def test_sweeps_go_on_without_a_dead_reader() -> None:
    hal, sc, ctl = rig()
    hal.kill_reader(0)
    run(hal, ctl, 3000)
    assert sc.sweep > 5
    assert sc.faulty_readers() == [0]
    assert sc.stable_at(loc("A1")) is UNKNOWN


def test_a_dead_reader_at_boot_is_reported_after_the_first_snapshot() -> None:
    hal, sc, ctl = rig()
    hal.kill_reader(4)
    run(hal, ctl, 1500)
    msgs = decoded(hal)
    kinds = [type(m).__name__ for _, _, m in msgs]
    assert kinds[:3] == ["Hello", "Snapshot", "Fault"]


def test_readers_are_reset_as_a_precaution_in_turn() -> None:
    hal, sc, ctl = rig(refresh_ms=17000)  # one reader a second
    run(hal, ctl, 5500)
    assert len(hal.resets) >= 4 and len(set(hal.resets)) == len(hal.resets)
    assert sc.faulty_readers() == []


def test_read_uid_blocks_for_one_read() -> None:
    layout = row_layout(2, 7)
    hal = FakeHal(layout)
    hal.place("C1", UID_C)
    assert hal.read_uid(0, 2) == UID_C
    assert hal.read_uid(0, 3) is None
    hal.kill_reader(0)
    with pytest.raises(ReaderFault):
        hal.read_uid(0, 2)


def test_the_fake_costs_follow_the_timing_model() -> None:
    layout = row_layout(2, 7)
    hal = FakeHal(layout, costs=Costs())
    hal.place("A1", UID_A)
    t0 = hal.now_us
    hal.read_uid(0, 0)
    assert 6500 <= hal.now_us - t0 <= 8500 + 3000  # a select, plus the CPU's share
    t0 = hal.now_us
    hal.set_empty_timeout_us(1500)
    hal.read_uid(0, 1)
    assert 1500 + hal.settle_us <= hal.now_us - t0 <= 2500 + hal.settle_us  # the settle time first


def test_virtual_board_places_and_moves() -> None:
    board = VirtualBoard()
    board.place("H8", UID_A)
    board.place("I8", UID_A)  # the same tile: it moved
    assert board.tags == {loc("I8"): UID_A}
    with pytest.raises(ValueError, match="4, 7 or 10"):
        board.place("H8", b"\x01\x02")


# --- the controller ---------------------------------------------------------------------------


def test_boot_sends_hello_seq_0_then_the_snapshot_of_a_fully_read_board() -> None:
    hal, sc, ctl = rig()
    hal.place("H8", UID_A)
    hal.place("R1.1", UID_C)
    run(hal, ctl, 1200)
    msgs = decoded(hal)
    (_, s0, hello), (t1, s1, snap) = msgs[0], msgs[1]
    assert isinstance(hello, P.Hello) and s0 == 0
    assert hello == P.Hello((1, 2, 0), (1, 1), 15, 15, 2, 7, 17, hal.board_id, ctl.boot_id)
    assert isinstance(snap, P.Snapshot) and s1 == 1
    assert dict(snap.tags) == {P.Loc.cell("H8"): UID_A, P.Loc.slot(0, 0): UID_C}
    assert t1 <= 1000  # within the warm-up cap
    assert [s for _, s, _ in msgs] == list(range(len(msgs)))


def test_every_boot_draws_a_boot_id_that_its_hello_and_heartbeats_carry() -> None:
    hal, sc, ctl = rig()
    run(hal, ctl, 2000)
    first = [m for _, _, m in decoded(hal) if isinstance(m, (P.Hello, P.Heartbeat))]
    hal.power_cycle()  # a watchdog reset: a new controller on the same HAL boots again
    ctl = Controller(hal, sc.layout, scanner=Scanner(hal, sc.layout))
    run(hal, ctl, 2000)
    second = [m for _, _, m in decoded(hal) if isinstance(m, (P.Hello, P.Heartbeat))]
    assert isinstance(first[0], P.Hello) and isinstance(second[0], P.Hello)
    assert len(first) > 2 and len(second) > 2  # HELLO and heartbeats after each boot
    assert {m.boot_id for m in first} == {first[0].boot_id} and {m.boot_id for m in second} == {second[0].boot_id}
    assert first[0].boot_id != second[0].boot_id


def test_heartbeats_and_snapshots_come_at_their_intervals() -> None:
    hal, sc, ctl = rig()
    run(hal, ctl, 1000)
    decoded(hal)
    run(hal, ctl, 5000)
    msgs = decoded(hal)
    beats = [t for t, _, m in msgs if isinstance(m, P.Heartbeat)]
    snaps = [t for t, _, m in msgs if isinstance(m, P.Snapshot)]
    assert len(beats) == 10 and len(snaps) == 5
    assert all(495 <= b - a <= 510 for a, b in pairwise(beats))
    last = [m for _, _, m in msgs if isinstance(m, P.Heartbeat)][-1]
    assert 0 < last.sweep_ms <= 250 and last.sweep == sc.sweep or last.sweep == sc.sweep - 1
    assert 5900 <= last.uptime_ms <= 6000


def host(hal: FakeHal, ctl: Controller, msg: P.Message, seq: int, ms: float = 5) -> list[P.Message]:
    decoded(hal)
    hal.host_send(P.encode(msg, seq))
    run(hal, ctl, ms)
    return [m for _, _, m in decoded(hal) if not isinstance(m, P.Heartbeat)]


@pytest.fixture()
def booted() -> tuple[FakeHal, Scanner, Controller]:
    hal, sc, ctl = rig()
    hal.place("H8", UID_A)
    run(hal, ctl, 1200)
    return hal, sc, ctl


def test_request_snapshot_is_acked_then_answered(booted: tuple[FakeHal, Scanner, Controller]) -> None:
    hal, sc, ctl = booted
    ack, snap = host(hal, ctl, P.RequestSnapshot(), 41)
    assert ack == P.Ack(41, P.AckStatus.OK)
    assert isinstance(snap, P.Snapshot) and dict(snap.tags) == {P.Loc.cell("H8"): UID_A}


def test_identify_is_acked_then_hello_and_snapshot(booted: tuple[FakeHal, Scanner, Controller]) -> None:
    hal, sc, ctl = booted
    ack, hello, snap = host(hal, ctl, P.Identify(), 9)
    assert ack == P.Ack(9, P.AckStatus.OK)
    assert isinstance(hello, P.Hello) and hello.readers == 17
    assert isinstance(snap, P.Snapshot)


def test_set_scan_applies_its_values(booted: tuple[FakeHal, Scanner, Controller]) -> None:
    hal, sc, ctl = booted
    (ack,) = host(hal, ctl, P.SetScan(3, 200, 1000, 2000, 250), 5)
    assert ack == P.Ack(5, P.AckStatus.OK)
    assert (sc.stable_reads, sc.stable_ms, hal.timeout_us) == (3, 200, 1000)
    assert (ctl.snapshot_ms, ctl.heartbeat_ms) == (2000, 250)
    decoded(hal)
    run(hal, ctl, 2000)
    beats = [t for t, _, m in decoded(hal) if isinstance(m, P.Heartbeat)]
    assert 7 <= len(beats) <= 8
    assert all(245 <= b - a <= 260 for a, b in pairwise(beats))


def test_set_scan_zero_leaves_values_unchanged(booted: tuple[FakeHal, Scanner, Controller]) -> None:
    hal, sc, ctl = booted
    (ack,) = host(hal, ctl, P.SetScan(0, 0, 2000, 0, 0), 6)
    assert ack == P.Ack(6, P.AckStatus.OK)
    assert (sc.stable_reads, sc.stable_ms, hal.timeout_us, ctl.heartbeat_ms) == (2, 150, 2000, 500)


@pytest.mark.parametrize("values", [(21, 0, 0, 0, 0), (0, 0, 100, 0, 0), (0, 0, 0, 50, 0), (0, 0, 0, 0, 1500)])
def test_set_scan_out_of_range_is_refused_whole(booted: tuple[FakeHal, Scanner, Controller],
                                                values: tuple[int, ...]) -> None:
    hal, sc, ctl = booted
    msg = P.SetScan(*values)
    (ack,) = host(hal, ctl, msg, 7)
    assert ack == P.Ack(7, P.AckStatus.UNSUPPORTED_VALUE)
    assert (sc.stable_reads, sc.stable_ms, hal.timeout_us, ctl.snapshot_ms, ctl.heartbeat_ms) == (2, 150, 1500, 1000, 500)


def test_a_short_set_scan_is_a_bad_payload(booted: tuple[FakeHal, Scanner, Controller]) -> None:
    hal, sc, ctl = booted
    decoded(hal)
    hal.host_send(P.encode_frame(P.FrameType.SET_SCAN, 8, b"\x03\x96"))
    run(hal, ctl, 5)
    acks = [m for _, _, m in decoded(hal) if isinstance(m, P.Ack)]
    assert acks == [P.Ack(8, P.AckStatus.BAD_PAYLOAD)]


@pytest.mark.parametrize("kind", [0x85, 0xFF, 0x01, 0x7F])
def test_an_unknown_frame_type_is_acked_as_such(booted: tuple[FakeHal, Scanner, Controller], kind: int) -> None:
    hal, sc, ctl = booted
    decoded(hal)
    hal.host_send(P.encode_frame(kind, 12, b"\x01\x02"))
    run(hal, ctl, 5)
    acks = [m for _, _, m in decoded(hal) if isinstance(m, P.Ack)]
    assert acks == [P.Ack(12, P.AckStatus.UNKNOWN_TYPE)]


def test_a_host_frame_with_a_bad_crc_is_ignored(booted: tuple[FakeHal, Scanner, Controller]) -> None:
    hal, sc, ctl = booted
    frame = bytearray(P.encode(P.RequestSnapshot(), 3))
    frame[-2] ^= 0x10
    decoded(hal)
    hal.host_send(bytes(frame))
    run(hal, ctl, 5)
    assert [m for _, _, m in decoded(hal) if not isinstance(m, P.Heartbeat)] == []
    assert ctl.parser.crc_errors == 1


def test_a_host_opening_the_port_gets_hello_and_snapshot(booted: tuple[FakeHal, Scanner, Controller]) -> None:
    hal, sc, ctl = booted
    decoded(hal)
    hal.connected = False
    run(hal, ctl, 600)
    assert hal.tx == [] and hal.dropped_writes > 0
    hal.connected = True
    run(hal, ctl, 5)
    kinds = [type(m).__name__ for _, _, m in decoded(hal)]
    assert kinds[:2] == ["Hello", "Snapshot"]


def test_the_watchdog_is_fed_while_the_scan_runs_and_starved_when_it_stalls() -> None:
    hal, sc, ctl = rig()
    run(hal, ctl, 3000)
    assert hal.watchdog_feeds > 100 and hal.max_feed_gap_us < 20_000
    feeds = hal.watchdog_feeds
    stalled_at = hal.now_us
    sc.step = lambda: False  # type: ignore[method-assign]  # the scan wedges
    run(hal, ctl, 3000)
    assert hal.watchdog_feeds > feeds  # fed for a while: a slow read is no stall
    assert hal._last_feed_us - stalled_at <= 1_000_000  # not after stall_ms (1 s)
    assert hal.now_us - hal._last_feed_us >= 1_900_000  # the 2 s watchdog would fire


# --- found in review: no half-read board on request during warm-up -------------------------


def test_identify_during_warm_up_sends_no_half_read_board() -> None:
    from drivers.board.protocol import FrameParser as HostParser
    from drivers.board.protocol import Snapshot as HostSnapshot
    from drivers.board.protocol import decode_payload as host_decode
    from firmware import frames as FR
    from firmware.controller import Controller as Ctl
    from firmware.hal_fake import FakeHal as Hal
    from firmware.scanner import row_layout as layout_of

    lay = layout_of(2, 7)
    hal = Hal(lay)
    squares = ["H8", "I8", "J8", "K8", "H9", "H10", "R1.1", "R2.3"]
    for i, sq in enumerate(squares):
        hal.place(sq, bytes([4, 0x5C, 0, 0x41 + i, 0, 1, 0x11]))
    ctl = Ctl(hal, lay)
    ctl.boot()
    hal.run(ctl.step, 20)
    hal.host_send(FR.encode_frame(FR.IDENTIFY, 0, b""))  # the host opens the port at once
    hal.host_send(FR.encode_frame(FR.REQUEST_SNAPSHOT, 1, b""))
    hal.run(ctl.step, 1500)
    snapshots = [
        m for f in HostParser().feed(b"".join(hal.take_tx()))
        if isinstance(m := host_decode(f.type, f.payload), HostSnapshot)
    ]
    assert snapshots and all(len(s.tags) == len(squares) for s in snapshots)


def test_a_command_with_a_payload_it_should_not_have_is_a_bad_payload() -> None:
    from drivers.board.protocol import Ack as HostAck
    from drivers.board.protocol import AckStatus, FrameParser as HostParser
    from drivers.board.protocol import decode_payload as host_decode
    from firmware import frames as FR
    from firmware.controller import Controller as Ctl
    from firmware.hal_fake import FakeHal as Hal
    from firmware.scanner import row_layout as layout_of

    lay = layout_of(2, 7)
    hal = Hal(lay)
    ctl = Ctl(hal, lay)
    ctl.boot()
    hal.run(ctl.step, 50)
    hal.take_tx()
    hal.host_send(FR.encode_frame(FR.REQUEST_SNAPSHOT, 7, b"\x01"))
    hal.run(ctl.step, 100)
    acks = [
        m for f in HostParser().feed(b"".join(hal.take_tx()))
        if isinstance(m := host_decode(f.type, f.payload), HostAck)
    ]
    assert acks == [HostAck(7, AckStatus.BAD_PAYLOAD)]
