"""The host's side of the self-test: the SELFTEST_REPORT codec and its errors, the link's events,
the tally of reports (drivers/board/selftest.py), and ``scoreboard board selftest`` against an
in-process controller on the fake HAL behind a FakeCable (the simulator as its own process:
tests/test_board_selftest_sim.py).
"""

from __future__ import annotations

import argparse
import io
import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from drivers.board import protocol as P
from drivers.board.link import BoardLink, CommandRefused, LinkState, SelfTestReported
from drivers.board.selftest import (
    FAILED_SHARE,
    MIN_READS,
    HealthSeen,
    OtherTag,
    ReaderDone,
    ReaderFailing,
    SelfTestTally,
    StrayRead,
    TileRead,
    chip,
    where,
)
from drivers.board.serial_link import FakeCable, SerialBoard
from firmware import frames as F
from firmware.controller import Controller
from firmware.hal_fake import FakeHal
from firmware.scanner import Scanner, row_layout
from scoreboard import board_cli
from scoreboard.registry import BadUidError, TileRegistry

UID_T = bytes.fromhex("04A1B2C3D4E5F6")  # the test tile
UID_X = bytes.fromhex("04112233445566")  # another tag
HELLO = P.Hello((1, 2, 0), (1, 1), 15, 15, 4, 7, 19, bytes.fromhex("E66118604B2D3A2F"), 0x9F3C27A1)
ROW4 = tuple(P.Loc.cell(f"{c}4") for c in "ABCDEFGHIJKLMNO")
RACK1 = tuple(P.Loc.slot(0, s) for s in range(7))


def health(reader: int, locs: tuple[P.Loc, ...], version: int = 0x92, flags: int = 0, faults: int = 0,
           resets: int = 0) -> P.ReaderHealth:
    return P.ReaderHealth(reader, version, P.HealthFlag(flags), faults, resets, locs)


def report(*, health_: tuple[P.ReaderHealth, ...] = (), reads: tuple[P.AntennaReads, ...] = (),
           state: P.SelfTestState = P.SelfTestState.RUNNING, elapsed: int = 500) -> P.SelfTestReport:
    return P.SelfTestReport(state, elapsed, health_, reads)


def payload(rep: P.SelfTestReport) -> bytes:
    return P.encode_payload(rep)


# --- the codec ----------------------------------------------------------------------------------


def test_a_report_round_trips_and_bytes_after_it_are_for_the_link_to_cut() -> None:
    rep = report(health_=(health(3, ROW4, 0xFF, 2, 1, 4),),
                 reads=(P.AntennaReads(3, 14, P.ReadResult.NO_RESPONSE, 7, 3900, 4100),
                        P.AntennaReads.tag(3, 0, 8123, UID_T)))
    data = payload(rep)
    assert P.decode_payload(P.FrameType.SELFTEST_REPORT, data) == rep
    assert P.decode_selftest_report(data + b"\x01\x02", exact=False) == (rep, len(data))
    with pytest.raises(P.SelfTestReportError, match="2 bytes after the reads"):
        P.decode_payload(P.FrameType.SELFTEST_REPORT, data + b"\x01\x02")


def _report_bytes(state: int = 0, health: bytes = b"", n_health: int = 0, reads: bytes = b"", n_reads: int = 0) -> bytes:
    return bytes((state,)) + (500).to_bytes(4, "little") + bytes((n_health,)) + health + n_reads.to_bytes(2, "little") + reads


ROW4_BYTES = bytes((3, 0x92, 0, 0, 0, 15)) + b"".join(bytes((1, 45 + c)) for c in range(15))


@pytest.mark.parametrize(("data", "reason", "offset"), [
    (b"\x00\x01", "cut short in the header", 0),
    (_report_bytes(state=7), "unknown state 7", 0),
    (_report_bytes(health=ROW4_BYTES[:10], n_health=1), "cut short in reader 3's locations", 12),
    (_report_bytes(health=ROW4_BYTES + ROW4_BYTES, n_health=2), "reader 3's health listed twice", 42),
    (_report_bytes(health=bytes((3, 0x92, 0, 0, 0, 1, 3, 0)), n_health=1), "antenna 0 is at no such location 3/0", 12),
    (_report_bytes(health=ROW4_BYTES + bytes((4, 0x92, 0, 0, 0, 1, 1, 45)), n_health=2), "A4 is under readers 3 and 4",
     48),
    (_report_bytes(health=ROW4_BYTES, n_health=1, reads=bytes((3, 15, 0, 1, 0, 0, 10, 0, 10)), n_reads=1),
     "reader 3 has 15 antennas, not an antenna 15", 44),
    (_report_bytes(reads=bytes((3, 0, 4, 1, 0, 0, 0, 0, 0)), n_reads=1), "unknown read result 4", 8),
    (_report_bytes(reads=bytes((3, 0, 3, 0x10, 0x20, 5)) + bytes(5), n_reads=1), "a UID of 5 bytes", 11),
    (_report_bytes(reads=bytes((3, 0, 3, 0x10, 0x20, 7, 4, 1)), n_reads=1), "cut short in a UID", 14),
    (_report_bytes(reads=bytes((3, 0, 0, 0, 0, 1, 0, 2, 0)), n_reads=1), "a summary of 0 reads", 11),
    (_report_bytes(reads=bytes((3, 0, 0, 1, 0, 9, 0, 2, 0)), n_reads=1), "from 9 to 2 us", 11),
    (_report_bytes(reads=bytes((3, 0, 1, 1, 0, 1, 0, 2, 0)) * 2, n_reads=2), "NO_RESPONSE summed twice", 17),
    (_report_bytes(reads=bytes((3, 0, 1, 1)), n_reads=1), "cut short in a read summary", 11),
    (_report_bytes(n_reads=2), "cut short in a read entry", 8),
])
def test_a_malformed_report_is_a_typed_error_naming_what_and_where(data: bytes, reason: str, offset: int) -> None:
    with pytest.raises(P.SelfTestReportError, match=reason) as err:
        P.decode_payload(P.FrameType.SELFTEST_REPORT, data)
    assert isinstance(err.value, P.ProtocolError) and isinstance(err.value, ValueError)
    assert err.value.payload == data and err.value.offset == offset and reason in err.value.reason
    assert f"byte {offset} of {len(data)}" in str(err.value)


def test_a_short_selftest_is_a_protocol_error() -> None:
    with pytest.raises(P.ProtocolError, match="SELFTEST payload of 3 bytes is too short"):
        P.decode_payload(P.FrameType.SELFTEST, b"\x01\x02\x03")
    assert P.decode_payload(P.FrameType.SELFTEST, b"\x1e\x00\xf4\x01\xff") == P.SelfTest(30, 500)


def test_the_hosts_chip_tables_are_the_firmwares() -> None:
    from firmware import hal

    assert tuple(P.MFRC522_VERSIONS) == hal.MFRC522_VERSIONS and tuple(P.CLONE_VERSIONS) == hal.CLONE_VERSIONS
    assert P.HealthFlag.EXPANDER_FAILED == F.HEALTH_EXPANDER_FAILED and P.HealthFlag.OUT_OF_SCAN == F.HEALTH_OUT_OF_SCAN
    assert [s.value for s in P.SelfTestState] == [F.SELFTEST_RUNNING, F.SELFTEST_STOPPED, F.SELFTEST_TIMED_OUT,
                                                  F.SELFTEST_NEW_HOST]
    assert [r.value for r in P.ReadResult] == [F.READ_EMPTY, F.READ_NO_RESPONSE, F.READ_BAD_DATA, F.READ_TAG]


# --- the link -----------------------------------------------------------------------------------


def synced(readers: int = 19) -> BoardLink:
    link = BoardLink()
    link.reset(0.0)
    hello = P.Hello(HELLO.firmware, HELLO.protocol, 15, 15, 4, 7, readers, HELLO.board_id, HELLO.boot_id)
    link.feed(P.encode(hello, 0) + P.encode(P.Snapshot(1, ()), 1), 0.0)
    link.outgoing()
    assert link.state is LinkState.SYNCED
    return link


def sent(link: BoardLink) -> list[P.Message]:
    return [P.decode_payload(f.type, f.payload) for f in P.FrameParser().feed(link.outgoing())]


def test_the_link_reports_a_report_in_sync_and_after_a_gap() -> None:
    link = synced()
    rep = report(health_=(health(3, ROW4),), reads=(P.AntennaReads.tag(3, 4, 8000, UID_T),))
    assert link.feed(P.encode(rep, 2), 1.0) == [SelfTestReported(rep, 1.0)]
    assert link.feed(P.encode(rep, 5), 1.1) == []  # a gap: dropped, a SNAPSHOT asked for ...
    assert link.stats.sequence_errors == 1 and link.state is LinkState.SYNCING
    assert [type(m) for m in sent(link)] == [P.RequestSnapshot]
    assert link.feed(P.encode(rep, 6), 1.2) == [SelfTestReported(rep, 1.2)]  # ... and the next report is taken


def test_appended_bytes_are_ignored_by_the_link() -> None:
    link = synced()
    rep = report(reads=(P.AntennaReads(1, 0, P.ReadResult.EMPTY, 3, 2600, 2700),))
    (event,) = link.feed(P.encode_frame(P.FrameType.SELFTEST_REPORT, 2, payload(rep) + b"\x07\x07"), 1.0)
    assert event == SelfTestReported(rep, 1.0) and link.stats.bad_payloads == 0


def test_a_malformed_report_is_a_bad_payload_kept_as_the_last_error() -> None:
    link = synced()
    assert link.feed(P.encode_frame(P.FrameType.SELFTEST_REPORT, 2, _report_bytes(state=9)), 1.0) == []
    assert link.stats.bad_payloads == 1 and isinstance(link.last_error, P.SelfTestReportError)
    assert [type(m) for m in sent(link)] == [P.RequestSnapshot]


@pytest.mark.parametrize("rep", [
    report(health_=(health(19, ()),)),
    report(reads=(P.AntennaReads(25, 0, P.ReadResult.EMPTY, 1, 1, 1),)),
])
def test_a_report_naming_a_reader_the_hello_lacks_is_refused(rep: P.SelfTestReport) -> None:
    link = synced()
    assert link.feed(P.encode(rep, 2), 1.0) == []
    err = link.last_error
    assert isinstance(err, P.ReaderOutOfRangeError) and err.readers == 19 and err.kind is P.FrameType.SELFTEST_REPORT
    assert f"reader {err.reader}" in str(err) and "0-18" in str(err)


def test_a_fault_naming_a_reader_the_hello_lacks_is_refused() -> None:
    link = synced(readers=17)
    assert link.feed(P.encode(P.Fault(17, P.FaultCode.NO_RESPONSE, RACK1), 2), 1.0) == []
    assert isinstance(link.last_error, P.ReaderOutOfRangeError) and link.last_error.kind is P.FrameType.FAULT
    assert link.stats.bad_payloads == 1
    assert len(link.feed(P.encode(P.Fault(16, P.FaultCode.NO_RESPONSE, RACK1), 3), 1.1)) == 1


def test_a_location_off_the_hellos_board_in_a_health_entry_asks_for_the_hello() -> None:
    link = synced()
    rep = report(health_=(health(15, (*RACK1, P.Loc.slot(0, 7))),))  # slot 8 of a 7-slot rack
    assert link.feed(P.encode(rep, 2), 1.0) == []
    assert isinstance(link.last_error, P.OutsideGeometryError) and link.stats.outside_geometry == 1
    assert [type(m) for m in sent(link)] == [P.Identify]


def test_a_refused_command_is_named_by_the_link() -> None:
    link = synced()
    seq = link.send(P.SelfTest(30, 500))
    link.send(P.SetScan(3, 0, 0, 0, 0))
    link.outgoing()
    events = link.feed(P.encode(P.Ack(seq, P.AckStatus.UNKNOWN_TYPE), 2) + P.encode(P.Ack(seq + 1, P.AckStatus.OK), 3)
                       + P.encode(P.Ack(999, P.AckStatus.BAD_PAYLOAD), 4), 1.0)
    assert events == [CommandRefused(P.FrameType.SELFTEST, seq, P.AckStatus.UNKNOWN_TYPE, 1.0)]
    assert link.stats.nacks == 2  # the ACK of a frame this link did not send is counted, not reported


def test_serial_board_sends_commands_given_from_another_thread() -> None:
    cable = FakeCable()
    with SerialBoard("/dev/fake", opener=cable.open) as board:
        threading.Thread(target=board.send, args=(P.SelfTest(12, 0),)).start()
        deadline = time.monotonic() + 5
        got: list[P.Message] = []
        parser = P.FrameParser()
        while P.SelfTest(12, 0) not in got and time.monotonic() < deadline:
            got += [P.decode_payload(f.type, f.payload) for f in parser.feed(cable.received())]
            time.sleep(0.01)
    assert got[0] == P.Identify() and P.SelfTest(12, 0) in got


# --- the tally ----------------------------------------------------------------------------------


def tally_of(*reports: P.SelfTestReport, readers: int = 2) -> tuple[SelfTestTally, list[object]]:
    tally = SelfTestTally(readers, lambda uid: uid == UID_T)
    events: list[object] = []
    for rep in reports:
        events += tally.feed(rep)
    return tally, events


TWO = (health(0, ROW4[:3]), health(1, RACK1[:2]))  # a small board: reader 0 on A4-C4, reader 1 on two slots


def test_antennas_read_the_tile_one_by_one_until_complete() -> None:
    tally, events = tally_of(report(health_=TWO))
    assert [type(e) for e in events] == [HealthSeen, HealthSeen] and tally.total == 5 and tally.done == 0
    assert not tally.complete
    _, events = tally, tally.feed(report(reads=(
        P.AntennaReads.tag(0, 1, 8100, UID_T), P.AntennaReads.tag(0, 1, 8300, UID_T),
        P.AntennaReads.tag(1, 0, 9000, UID_T), P.AntennaReads.tag(1, 1, 9100, UID_T))))
    assert [type(e) for e in events] == [TileRead, TileRead, TileRead, ReaderDone]
    first = events[0]
    assert isinstance(first, TileRead) and first.antenna.loc == P.Loc.cell("B4") and (first.done, first.total) == (1, 5)
    done = events[3]
    assert isinstance(done, ReaderDone) and done.reader == 1 and done.locs == RACK1[:2]
    assert [a.loc.name() for a in tally.never_read()] == ["A4", "C4"]
    assert tally.never_read_by_reader() == ["row 4: A4 C4"]
    tally.feed(report(reads=(P.AntennaReads.tag(0, 0, 8000, UID_T), P.AntennaReads.tag(0, 2, 8500, UID_T),
                             P.AntennaReads.tag(0, 1, 8200, UID_T))))
    assert tally.complete and tally.passed()
    assert tally.antennas[(0, 1)].tile_ms() == (8.1, 8.2, 8.3)


def test_another_tag_is_reported_once_per_antenna_and_never_counts() -> None:
    tally, _ = tally_of(report(health_=TWO))
    events = tally.feed(report(reads=(P.AntennaReads.tag(0, 0, 8000, UID_X), P.AntennaReads.tag(0, 0, 8000, UID_X),
                                      P.AntennaReads.tag(0, 2, 8000, UID_X))))
    assert [(type(e), e.antenna.antenna) for e in events if isinstance(e, OtherTag)] == [(OtherTag, 0), (OtherTag, 2)]
    assert not tally.antennas[(0, 0)].read and tally.antennas[(0, 0)].others == {UID_X: 2}
    assert {uid: [a.loc.name() for a in ats] for uid, ats in tally.others().items()} == {UID_X: ["A4", "C4"]}


def test_a_read_of_an_antenna_no_health_lists_is_stray() -> None:
    tally, _ = tally_of(report(health_=TWO))
    events = tally.feed(report(reads=(P.AntennaReads(0, 3, P.ReadResult.EMPTY, 4, 1, 2),
                                      P.AntennaReads(0, 3, P.ReadResult.EMPTY, 4, 1, 2))))
    assert events == [StrayRead(0, 3)] and tally.stray == {(0, 3): 8}
    assert tally.as_dict()["stray_reads"] == [{"reader": 0, "antenna": 3, "reads": 8}]


@pytest.mark.parametrize(("h", "ok", "text"), [
    (health(0, ROW4[:3], 0xFF), False, "no answer on SPI: VersionReg reads 0xFF"),
    (health(0, ROW4[:3], 0x00), False, "no answer on SPI: VersionReg reads 0x00"),
    (health(0, ROW4[:3], 0x37), False, "unknown chip: VersionReg reads 0x37"),
    (health(0, ROW4[:3], 0xB2), True, "a clone chip (VersionReg 0xB2)"),
    (health(0, ROW4[:3], 0x91), True, ""),
    (health(0, ROW4[:3], flags=1), False, "MCP23S17 does not answer at its address"),
    (health(0, ROW4[:3], flags=2, faults=3, resets=1), True, "taken out of the normal scan 3 times"),
])
def test_a_readers_health_is_judged(h: P.ReaderHealth, ok: bool, text: str) -> None:
    tally, (event, *_) = tally_of(report(health_=(h,)))
    assert isinstance(event, HealthSeen) and event.first and event.verdict.ok is ok
    assert text in " ".join(event.verdict.problems + event.verdict.notes)


def test_failed_reads_make_a_reader_faulty_once_enough_were_read() -> None:
    tally, _ = tally_of(report(health_=TWO))
    few = tally.feed(report(reads=(P.AntennaReads(0, 0, P.ReadResult.NO_RESPONSE, 10, 3900, 4000),)))
    assert 10 < MIN_READS and few == [] and tally.verdict(0).ok  # not judged on so few reads
    many = tally.feed(report(reads=(P.AntennaReads(0, 1, P.ReadResult.EMPTY, 200, 2600, 2800),
                                    P.AntennaReads(0, 2, P.ReadResult.BAD_DATA, 30, 9000, 9500))))
    assert [type(e) for e in many] == [ReaderFailing]
    failing = many[0]
    assert isinstance(failing, ReaderFailing) and failing.reader == 0 and len(failing.problems) == 1
    assert failing.problems[0].startswith("30 of 240 reads gave bad data")
    assert 10 / 240 < FAILED_SHARE  # its 10 without answer are not enough
    assert tally.feed(report(reads=(P.AntennaReads(0, 2, P.ReadResult.BAD_DATA, 30, 9000, 9500),))) == []  # once


def test_a_reader_that_read_nothing_is_faulty_at_the_end() -> None:
    tally, _ = tally_of(report(health_=TWO))
    assert tally.verdict(1).ok and not tally.verdict(1, final=True).ok
    assert "it read nothing" in tally.verdict(1, final=True).problems[0]
    assert not tally.verdict(5).ok and tally.verdict(5).problems == ("no health report came from it",)


def test_a_health_change_is_an_event_and_the_same_health_is_not() -> None:
    tally, _ = tally_of(report(health_=TWO))
    assert tally.feed(report(health_=TWO)) == []
    (event,) = tally.feed(report(health_=(health(0, ROW4[:3], resets=1),)))
    assert isinstance(event, HealthSeen) and not event.first and event.health.resets == 1


def test_the_whole_result_for_machines() -> None:
    tally, _ = tally_of(report(health_=TWO, reads=(
        P.AntennaReads.tag(0, 0, 8000, UID_T), P.AntennaReads(0, 1, P.ReadResult.EMPTY, 10, 2600, 2900),
        P.AntennaReads.tag(1, 1, 8000, UID_X))))
    data = json.loads(json.dumps(tally.as_dict()))
    assert data["passed"] is False and data["complete"] is False
    assert data["never_read"] == ["B4", "C4", "rack 1 slot 1", "rack 1 slot 2"]
    assert data["readers"][0]["reads"] == {"tile": 1, "other_tags": 0, "empty": 10, "no_response": 0, "bad_data": 0}
    assert data["readers"][1]["where"] == "rack 1" and data["readers"][1]["chip"] == "MFRC522 2.0"
    a4 = data["antennas"][0]
    assert a4["location"] == "A4" and a4["tile_ms"] == {"min": 8.0, "median": 8.0, "max": 8.0}
    assert data["antennas"][1]["empty"] == {"count": 10, "min_ms": 2.6, "max_ms": 2.9}
    assert data["other_tags"] == [{"uid": "04112233445566", "locations": ["rack 1 slot 2"], "reads": 1}]


def test_names() -> None:
    assert where(ROW4) == "row 4" and where(RACK1) == "rack 1" and where(()) == "no antennas"
    assert where((P.Loc.cell("A4"), P.Loc.cell("A5"))) == "A4-A5"
    assert chip(0x92) == "MFRC522 2.0" and chip(0x88) == "FM17522 clone" and chip(0xFF) == "nothing answers"
    assert chip(0x37) == "unknown chip"


# --- the command, against a controller in this process --------------------------------------------


class OldController(Controller):  # type: ignore[misc]
    """A controller whose firmware predates the self-test (controller rule 4: ACK 1)."""

    def handle(self, kind: int, seq: int, payload: bytes) -> None:
        if kind == F.SELFTEST:
            self.host_frames += 1
            self._ack(seq, F.ACK_UNKNOWN_TYPE)
            return
        super().handle(kind, seq, payload)


class PickyController(Controller):  # type: ignore[misc]
    """A controller that refuses every SELFTEST's values (ACK 3)."""

    def handle(self, kind: int, seq: int, payload: bytes) -> None:
        if kind == F.SELFTEST:
            self.host_frames += 1
            self._ack(seq, F.ACK_UNSUPPORTED_VALUE)
            return
        super().handle(kind, seq, payload)


class Bench:
    """A controller on the fake HAL at one end of a FakeCable, in a thread: 10 ms of its time a turn."""

    def __init__(self, kind: type[Controller] = Controller) -> None:
        layout = row_layout(4, 7)
        self.hal = FakeHal(layout, seed=5)
        self.ctl = kind(self.hal, layout, scanner=Scanner(self.hal, layout))
        self.cable = FakeCable()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self.stop.is_set():
            data = self.cable.received()
            if data:
                self.hal.host_send(data)
            self.hal.run(self.ctl.step, self.hal.now_ms + 10)
            for frame in self.hal.take_tx():
                self.cable.send(frame)
            time.sleep(0.002)


@pytest.fixture()
def bench() -> Iterator[Callable[..., Bench]]:
    benches: list[Bench] = []

    def make(kind: type[Controller] = Controller) -> Bench:
        b = Bench(kind)
        benches.append(b)
        b.thread.start()
        return b

    yield make
    for b in benches:
        b.stop.set()
        b.thread.join(timeout=10)


def args(tmp_path: Path, *extra: str) -> argparse.Namespace:
    from scoreboard.cli import build_parser

    config = tmp_path / "config.toml"
    config.write_text(f'[paths]\nstate_dir = "{tmp_path / "state"}"\n')
    return build_parser().parse_args(["board", "selftest", "--link", "/dev/fake", "--config", str(config), *extra])


def run_cli(a: argparse.Namespace, cable: FakeCable | None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    opener = cable.open if cable is not None else _no_port
    code = board_cli.cmd_board_selftest(a, opener=opener, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def _no_port(path: str) -> FakeCable:
    raise FileNotFoundError(2, "No such file or directory", path)


def test_a_firmware_without_the_self_test_is_told_to_update(tmp_path: Path, bench: Callable[..., Bench]) -> None:
    b = bench(OldController)
    code, out, err = run_cli(args(tmp_path, "--tile", UID_T.hex()), b.cable)
    assert code == board_cli.EXIT_ERROR
    assert "this board's firmware 1.2.0 has no self-test: update it" in err
    assert "Board: firmware 1.2.0" in out
    assert not b.ctl.selftest


def test_refused_values_are_an_error(tmp_path: Path, bench: Callable[..., Bench]) -> None:
    b = bench(PickyController)
    code, _, err = run_cli(args(tmp_path, "--tile", UID_T.hex()), b.cable)
    assert code == board_cli.EXIT_ERROR
    assert "the board refused SelfTest(seconds=30, report_ms=500): unsupported value" in err


def test_no_board_is_an_error_after_the_connect_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(board_cli, "CONNECT_S", 0.5)
    code, out, err = run_cli(args(tmp_path, "--tile", UID_T.hex()), None)
    assert code == board_cli.EXIT_ERROR
    assert "no HELLO from the board at /dev/fake within 0.5 s" in err
    assert "The board is not there (cannot open '/dev/fake'" in out


@pytest.mark.parametrize(("extra", "message"), [
    (("--tile", "04A1B2"), "04A1B2 has 3 bytes, not 4, 7 or 10"),
    (("--tile", "nothex"), "not a hex UID: 'nothex'"),
    (("--tile", "88A1B2C3"), "starts with the cascade tag 88"),
])
def test_a_bad_tile_is_an_error(tmp_path: Path, extra: tuple[str, ...], message: str) -> None:
    code, _, err = run_cli(args(tmp_path, *extra), FakeCable())
    assert code == board_cli.EXIT_ERROR and message in err


def test_a_bad_seconds_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        args(tmp_path, "--seconds", "0")
    assert "from 1 to 3600 seconds, not 0" in capsys.readouterr().err


def test_the_test_tiles_come_from_the_registries(tmp_path: Path) -> None:
    state = tmp_path / "state"
    german = TileRegistry.load(state, "de")
    german.add(UID_T, "E")
    german.save()
    tiles = board_cli.TestTiles.load(None, ["de", "fr", "en"], state)
    assert UID_T in tiles and UID_X not in tiles and "1 german tiles" in tiles.source
    assert tiles.name(UID_T) == "04A1B2C3D4E5F6 (E)"
    given = board_cli.TestTiles.load(UID_X, ["de"], state)
    assert UID_X in given and UID_T not in given and given.name(UID_T) == "04A1B2C3D4E5F6 (E)"
    none = board_cli.TestTiles.load(None, ["fr"], state)
    assert not none.uids and "no tile is enrolled for fr" in none.source
    with pytest.raises(BadUidError):
        board_cli.parse_tile("04")


def test_the_self_test_runs_to_its_time_limit_on_an_in_process_board(tmp_path: Path,
                                                                   bench: Callable[..., Bench]) -> None:
    b = bench()
    b.hal.place("H8", UID_T)
    b.hal.place("A1", UID_X)
    b.hal.kill_reader(3)
    code, out, err = run_cli(args(tmp_path, "--tile", UID_T.hex(), "--seconds", "2", "--json"), b.cable)
    assert code == board_cli.EXIT_FAIL, err
    data = json.loads(out)
    assert data["ended"] == "time limit" and data["passed"] is False and data["board"]["readers"] == 19
    assert [a["location"] for a in data["antennas"] if a["read"]] == ["H8"]
    assert data["readers"][3]["ok"] is False and "no answer on SPI" in data["readers"][3]["problems"][0]
    assert data["other_tags"][0]["uid"] == UID_X.hex().upper() and data["other_tags"][0]["locations"] == ["A1"]
    assert "Slide the test tile" in err and "Result: FAIL" in err
    deadline = time.monotonic() + 5
    while b.ctl.selftest is not None and time.monotonic() < deadline:  # SELFTEST 0 ended it
        time.sleep(0.05)
    assert b.ctl.selftest is None


def test_the_self_test_is_kept_going_past_its_lease(tmp_path: Path, bench: Callable[..., Bench],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(board_cli, "LEASE_S", 1)  # the board's time limit: 1 s of its clock
    monkeypatch.setattr(board_cli, "RENEW_S", 100.0)  # the wall clock does not renew it here...
    monkeypatch.setattr(board_cli, "RENEW_ELAPSED_MS", 300)  # ... the reports' time does
    b = bench()
    code, out, err = run_cli(args(tmp_path, "--tile", UID_T.hex(), "--seconds", "2", "--json"), b.cable)
    assert code == board_cli.EXIT_FAIL
    assert json.loads(out)["restarts"] == 0 and "ended the self-test" not in err


def test_a_self_test_the_board_ended_is_started_again(tmp_path: Path, bench: Callable[..., Bench],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(board_cli, "LEASE_S", 1)
    monkeypatch.setattr(board_cli, "RENEW_S", 100.0)
    monkeypatch.setattr(board_cli, "RENEW_ELAPSED_MS", 10**9)  # never renewed: the board's limit passes
    b = bench()
    b.hal.place("H8", UID_T)
    code, out, err = run_cli(args(tmp_path, "--tile", UID_T.hex(), "--seconds", "2", "--json"), b.cable)
    assert code == board_cli.EXIT_FAIL
    data = json.loads(out)
    assert data["restarts"] >= 1 and [a["location"] for a in data["antennas"] if a["read"]] == ["H8"]
    assert "The board ended the self-test (its time limit passed): starting it again.\nThe self-test runs again." in err


def test_frames_the_link_could_not_read_are_in_the_report() -> None:
    link = synced()
    link.feed(P.encode_frame(P.FrameType.SELFTEST_REPORT, 2, _report_bytes(state=9)), 1.0)
    tally, _ = tally_of(report(health_=TWO))
    outcome = board_cli.Outcome(HELLO, tally, "interrupted", 3.0, 0)
    tiles = board_cli.TestTiles(frozenset((UID_T,)), {}, "--tile")
    lines = board_cli.report_lines(outcome, 600, tiles, link)
    assert "The board sent 1 frame that could not be read (dropped: what they held is missing here), the last: " \
           "SELFTEST_REPORT, byte 0 of 8: unknown state 9" in lines
    assert lines[-1] == "Result: FAIL: 2 of 2 readers faulty (0, 1); 5 of 5 antennas never read the test tile."
    assert json.loads(json.dumps(board_cli.report_json(outcome, 600, tiles, link)))["link"]["bad_payloads"] == 1


def test_the_spec_states_the_values_both_ends_use() -> None:
    from firmware import controller as fw_controller
    from firmware import selftest as fw_selftest

    spec = (Path(__file__).resolve().parent.parent / "hardware" / "PROTOCOL.md").read_text(encoding="utf-8")
    section = spec[spec.index("## Self-test (1.1)"):spec.index("## Receiver rules")]
    low, high = fw_controller.SELFTEST_SECONDS_RANGE
    rlow, rhigh = fw_controller.SELFTEST_REPORT_MS_RANGE
    assert f"`seconds` {low}–{high} starts the self-test" in section
    assert f"report interval ms (u16: {rlow}–{rhigh}, 0 the default {fw_controller.SELFTEST_REPORT_MS})" in spec
    assert f"fail {fw_selftest.FAIL_LIMIT} times in a row" in section
    assert f"at most every {fw_selftest.RESET_MS // 1000} s" in section
    assert f"at least every {fw_selftest.HEALTH_MS // 1000} s" in section
    assert (f"a limit of {board_cli.LEASE_S} s, sent again every {board_cli.RENEW_S:g} s and every "
            f"{board_cli.RENEW_ELAPSED_MS // 1000} s of the report's elapsed time") in " ".join(section.split())
    assert f"longer than {F.MAX_PAYLOAD} bytes goes out as several" in section
