"""The controller's self-test (hardware/PROTOCOL.md, "Self-test") on the fake HAL's virtual clock.

What the host may expect while it runs (reports, ACKs, HEARTBEATs; no CHANGES, no SNAPSHOT),
how it ends (SELFTEST 0, its time limit, IDENTIFY, a host opening the port), that the board
is read afresh after it, and what it reports of healthy, dead, garbled and unaddressed
readers. No test looks at the wall clock.
"""

from __future__ import annotations

import random

import pytest

from drivers.board import protocol as P
from firmware import frames as F
from firmware import selftest as fw_selftest
from firmware.controller import Controller
from firmware.hal import SETTLE_US
from firmware.hal_fake import FakeHal
from firmware.scanner import Scanner, row_layout

UID_A = bytes.fromhex("04A1B2C3D4E5F6")
UID_B = bytes.fromhex("04112233445566")
Msgs = list[tuple[float, int, P.Message]]


def rig(**hal_options: object) -> tuple[FakeHal, Scanner, Controller]:
    layout = row_layout(4, 7)  # the reference build: 19 readers
    hal = FakeHal(layout, seed=3, **hal_options)  # type: ignore[arg-type]
    scanner = Scanner(hal, layout)
    return hal, scanner, Controller(hal, layout, scanner=scanner)


def run(hal: FakeHal, ctl: Controller, ms: float) -> None:
    hal.run(ctl.step, hal.now_ms + ms)


def decoded(hal: FakeHal) -> Msgs:
    """(ms, seq, message) of every frame the controller sent since the last call."""
    parser = P.FrameParser()
    out = []
    for t_us, data in hal.take_tx_timed():
        for f in parser.feed(data):
            out.append((t_us / 1000, f.seq, P.decode_payload(f.type, f.payload)))
    assert parser.stats.crc_errors == parser.stats.malformed == 0
    return out


def send(hal: FakeHal, ctl: Controller, msg: P.Message, seq: int, ms: float = 5) -> Msgs:
    decoded(hal)
    hal.host_send(P.encode(msg, seq))
    run(hal, ctl, ms)
    return decoded(hal)


def reports(msgs: Msgs) -> list[P.SelfTestReport]:
    return [m for _, _, m in msgs if isinstance(m, P.SelfTestReport)]


def reads(msgs: Msgs, result: P.ReadResult) -> list[P.AntennaReads]:
    return [r for rep in reports(msgs) for r in rep.reads if r.result is result]


def kinds(msgs: Msgs) -> list[str]:
    return [type(m).__name__ for _, _, m in msgs]


@pytest.fixture()
def booted() -> tuple[FakeHal, Scanner, Controller]:
    hal, sc, ctl = rig()
    hal.place("H8", UID_A)
    run(hal, ctl, 1200)
    decoded(hal)
    return hal, sc, ctl


def started(hal: FakeHal, ctl: Controller, seconds: int = 30, report_ms: int = 500) -> Msgs:
    msgs = send(hal, ctl, P.SelfTest(seconds, report_ms), 40, ms=30)  # (the scan's reads in flight end first)
    assert msgs[0][2] == P.Ack(40, P.AckStatus.OK)
    assert ctl.selftest is not None
    return msgs


# --- the frames ---------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(20))
def test_the_firmwares_reports_are_the_host_encoders_bytes(seed: int) -> None:
    rng = random.Random(seed)
    every = [F.cell_loc(r, c) for r in range(15) for c in range(15)] + [F.slot_loc(k, s) for k in range(4) for s in range(9)]
    rng.shuffle(every)
    health, fw_health = [], []
    for reader in rng.sample(range(32), rng.randrange(0, 6)):
        locs = [every.pop() for _ in range(rng.randrange(0, 16))]
        version, flags, faults, resets = rng.randrange(256), rng.randrange(4), rng.randrange(300), rng.randrange(300)
        fw_health.append(F.selftest_health(reader, version, flags, faults, resets, locs))
        health.append(P.ReaderHealth(reader, version, P.HealthFlag(flags), min(faults, 255), min(resets, 255),
                                     tuple(P.Loc(P.Area(lc >> 8), lc & 0xFF) for lc in locs)))
    reads, fw_reads = [], []
    antennas = {h.reader: len(h.locs) for h in health}
    for reader, antenna in rng.sample([(r, a) for r in range(40) for a in range(16)], rng.randrange(0, 30)):
        if antenna >= antennas.get(reader, 16):
            continue  # (a read names an antenna of its reader's health entry)
        if rng.random() < 0.5:
            uid, t = rng.randbytes(rng.choice((4, 7, 10))), rng.randrange(70000)
            fw_reads.append(F.selftest_tag(reader, antenna, t, uid))
            reads.append(P.AntennaReads.tag(reader, antenna, min(t, 0xFFFF), uid))
        else:
            result, count = rng.randrange(3), rng.randrange(1, 70000)
            lo = rng.randrange(70000)
            hi = lo + rng.randrange(5000)
            fw_reads.append(F.selftest_summary(reader, antenna, result, count, lo, hi))
            reads.append(P.AntennaReads(reader, antenna, P.ReadResult(result), min(count, 0xFFFF), min(lo, 0xFFFF),
                                        min(hi, 0xFFFF)))
    state, elapsed = rng.randrange(4), rng.randrange(2**32)
    payload = F.selftest_report_payload(state, elapsed, fw_health, fw_reads)
    report = P.SelfTestReport(P.SelfTestState(state), elapsed, tuple(health), tuple(reads))
    assert P.encode_payload(report) == payload
    assert P.decode_payload(P.FrameType.SELFTEST_REPORT, payload) == report
    assert F.encode_frame(F.SELFTEST_REPORT, 9, payload) == P.encode(report, 9)


def test_the_firmwares_selftest_command_is_the_hosts() -> None:
    assert F.SELFTEST == P.FrameType.SELFTEST and F.SELFTEST_REPORT == P.FrameType.SELFTEST_REPORT
    assert F.selftest_payload(30, 500) == P.encode_payload(P.SelfTest(30, 500))
    assert F.parse_selftest(P.encode_payload(P.SelfTest(0, 0))) == (0, 0)
    with pytest.raises(F.FrameError, match="3 bytes, 4 expected"):
        F.parse_selftest(b"\x01\x02\x03")


# --- starting -----------------------------------------------------------------------------------


def test_the_first_report_comes_at_once_with_every_readers_health_and_antennas(
        booted: tuple[FakeHal, Scanner, Controller]) -> None:
    hal, sc, ctl = booted
    msgs = started(hal, ctl)
    assert kinds(msgs)[:2] == ["Ack", "SelfTestReport"]
    first = reports(msgs)[0]
    assert first.state is P.SelfTestState.RUNNING and first.elapsed_ms <= 5
    assert [h.reader for h in first.health] == list(range(19))
    for h in first.health:
        assert (h.version, h.flags, h.faults, h.resets) == (0x92, P.HealthFlag.NONE, 0, 0)
        assert [lc.area << 8 | lc.index for lc in h.locs] == ctl.layout.locations(h.reader)
    assert first.reads == ()


def test_every_antenna_is_read_in_full_timed_and_with_keep_out(booted: tuple[FakeHal, Scanner, Controller]) -> None:
    hal, sc, ctl = booted
    started(hal, ctl)
    checks, violations = hal.checks_started, len(hal.keepout_violations)
    run(hal, ctl, 1000)
    msgs = decoded(hal)
    assert hal.checks_started == checks  # never the presence check: every read a full select
    assert len(hal.keepout_violations) == violations
    empty = reads(msgs, P.ReadResult.EMPTY)
    seen = {(r.reader, r.antenna) for r in empty}
    tagged = {(r.reader, r.antenna) for r in reads(msgs, P.ReadResult.TAG)}
    assert seen | tagged == {(r, a) for r in range(19) for a in range(len(ctl.layout.locations(r)))}
    assert tagged == {(7, 7)}  # H8: row 8, column H
    floor = SETTLE_US + hal.costs.wupa_us + hal.timeout_us  # the radio's part of an empty read
    assert all(floor <= r.min_us <= r.max_us < 20000 for r in empty)
    tags = reads(msgs, P.ReadResult.TAG)
    assert all(t.uid == UID_A and t.count == 1 and SETTLE_US + hal.costs.tag_min_us <= t.min_us < 30000 for t in tags)
    # Every reader reads its 15 antennas in turn; with all 19 reading, the CPU is the limit: a
    # cycle takes some 110 ms, so each antenna is read about 9 times a second.
    assert 5 <= len(tags) <= 20
    assert sum(r.count for r in empty) > 19 * 15 * 5


def test_reports_come_at_their_interval(booted: tuple[FakeHal, Scanner, Controller]) -> None:
    hal, sc, ctl = booted
    started(hal, ctl, report_ms=200)
    run(hal, ctl, 2000)
    times = [t for t, _, m in decoded(hal) if isinstance(m, P.SelfTestReport)]
    assert 9 <= len(times) <= 11
    assert all(195 <= b - a <= 215 for a, b in zip(times, times[1:]))


def test_every_readers_health_comes_every_two_seconds_and_a_changed_one_at_once() -> None:
    hal, sc, ctl = rig()
    run(hal, ctl, 1200)
    hal.kill_reader(3)
    decoded(hal)
    started(hal, ctl)
    run(hal, ctl, 4500)
    msgs = decoded(hal)
    full = [rep.elapsed_ms for rep in reports(msgs) if len(rep.health) == 19]
    assert [round(e / 500) * 500 for e in full] == [2000, 4000]
    alone = [rep.elapsed_ms for rep in reports(msgs) if [h.reader for h in rep.health] == [3]]
    assert alone and alone[0] <= 600  # reset after its first 8 reads failed, reported in the next report


# --- while it runs ------------------------------------------------------------------------------


def test_no_changes_or_snapshot_while_it_runs_heartbeats_go_on(booted: tuple[FakeHal, Scanner, Controller]) -> None:
    hal, sc, ctl = booted
    started(hal, ctl)
    hal.place("I8", UID_B)
    hal.remove("H8")
    run(hal, ctl, 1500)
    msgs = decoded(hal)
    assert not [m for _, _, m in msgs if isinstance(m, (P.Changes, P.Snapshot))]
    beats = [m for _, _, m in msgs if isinstance(m, P.Heartbeat)]
    assert len(beats) == 3 and len({b.sweep for b in beats}) == 1  # no sweep finishes: the scan is paused
    answer = send(hal, ctl, P.RequestSnapshot(), 41)
    assert [m for _, _, m in answer if not isinstance(m, (P.SelfTestReport, P.Heartbeat))] == [
        P.Ack(41, P.AckStatus.OK)]


def test_set_scan_applies_to_the_self_tests_reads(booted: tuple[FakeHal, Scanner, Controller]) -> None:
    hal, sc, ctl = booted
    started(hal, ctl)
    run(hal, ctl, 600)
    decoded(hal)
    (ack, *_) = [m for _, _, m in send(hal, ctl, P.SetScan(0, 0, 5000, 0, 0), 42) if isinstance(m, P.Ack)]
    assert ack == P.Ack(42, P.AckStatus.OK)
    run(hal, ctl, 1100)
    later = reports(decoded(hal))[1:]  # (the first one holds reads started before the SET_SCAN)
    empty = [r for rep in later for r in rep.reads if r.result is P.ReadResult.EMPTY]
    assert empty and min(r.min_us for r in empty) >= SETTLE_US + 5000


def test_the_watchdog_is_fed_while_it_runs(booted: tuple[FakeHal, Scanner, Controller]) -> None:
    hal, sc, ctl = booted
    started(hal, ctl)
    hal.max_feed_gap_us = 0
    run(hal, ctl, 3000)
    assert 0 < hal.max_feed_gap_us < 50_000


# --- ending -------------------------------------------------------------------------------------


def test_selftest_0_ends_it_and_the_board_is_read_afresh(booted: tuple[FakeHal, Scanner, Controller]) -> None:
    hal, sc, ctl = booted
    started(hal, ctl)
    run(hal, ctl, 700)
    hal.place("R2.3", UID_A)  # the test tile is slid from H8 to rack 2 meanwhile
    run(hal, ctl, 700)
    decoded(hal)
    t0 = hal.now_ms
    msgs = send(hal, ctl, P.SelfTest(0, 0), 43, ms=1500)
    assert ctl.selftest is None
    assert msgs[0][2] == P.Ack(43, P.AckStatus.OK)
    last = reports(msgs)[-1]
    assert last.state is P.SelfTestState.STOPPED and len(last.health) == 19
    assert len(reports(msgs)) == 1  # nothing after the last report
    after = [(t, m) for t, _, m in msgs if not isinstance(m, (P.Ack, P.SelfTestReport, P.Heartbeat))]
    (t_snap, snap), *rest = after
    assert isinstance(snap, P.Snapshot) and t_snap - t0 <= 1000  # the re-read's SNAPSHOT, no CHANGES before it
    assert dict(snap.tags) == {P.Loc.slot(1, 2): UID_A}
    assert not [m for _, m in rest if isinstance(m, P.Changes)]
    hal.place("I8", UID_B)  # normal scanning again
    run(hal, ctl, 1000)
    changes = [(lc.name(), uid) for _, _, m in decoded(hal) if isinstance(m, P.Changes) for lc, uid in m.changes]
    assert changes == [("I8", UID_B)]


def test_selftest_0_when_none_runs_is_acked_and_nothing_else(booted: tuple[FakeHal, Scanner, Controller]) -> None:
    hal, sc, ctl = booted
    msgs = send(hal, ctl, P.SelfTest(0, 0), 44, ms=600)
    assert [m for _, _, m in msgs if not isinstance(m, P.Heartbeat)][0] == P.Ack(44, P.AckStatus.OK)
    assert reports(msgs) == [] and ctl.selftest is None


def test_a_second_selftest_at_once_does_not_put_the_first_report_off(
        booted: tuple[FakeHal, Scanner, Controller]) -> None:
    hal, sc, ctl = booted
    hal.host_send(P.encode(P.SelfTest(30, 500), 50) + P.encode(P.SelfTest(30, 500), 51))  # one read, both
    run(hal, ctl, 30)
    msgs = decoded(hal)
    assert [m for _, _, m in msgs if isinstance(m, P.Ack)] == [P.Ack(50, P.AckStatus.OK), P.Ack(51, P.AckStatus.OK)]
    (first,) = reports(msgs)
    assert len(first.health) == 19 and first.elapsed_ms <= 5


def test_the_time_limit_ends_it_and_another_selftest_extends_it(booted: tuple[FakeHal, Scanner, Controller]) -> None:
    hal, sc, ctl = booted
    t0 = hal.now_ms
    started(hal, ctl, seconds=2)
    run(hal, ctl, 1500)
    decoded(hal)
    send(hal, ctl, P.SelfTest(2, 0), 45)  # 2 s from now
    run(hal, ctl, 1400)
    assert ctl.selftest is not None
    run(hal, ctl, 700)
    msgs = decoded(hal)
    assert ctl.selftest is None
    (end,) = [(t, rep) for t, _, rep in msgs if isinstance(rep, P.SelfTestReport) and rep.state is not P.SelfTestState.RUNNING]
    assert end[1].state is P.SelfTestState.TIMED_OUT
    assert 3530 <= end[0] - t0 <= 3600  # 2 s after the second SELFTEST (and the reads in flight)
    assert 3500 <= end[1].elapsed_ms <= 3600


def test_identify_ends_it_before_the_hello(booted: tuple[FakeHal, Scanner, Controller]) -> None:
    hal, sc, ctl = booted
    started(hal, ctl)
    run(hal, ctl, 300)
    msgs = send(hal, ctl, P.Identify(), 46, ms=1200)
    assert kinds(msgs)[:3] == ["Ack", "SelfTestReport", "Hello"]
    assert reports(msgs)[0].state is P.SelfTestState.NEW_HOST
    assert "Snapshot" in kinds(msgs)  # after the re-read, not at once
    assert kinds(msgs)[3] != "Snapshot"


def test_a_host_opening_the_port_ends_it(booted: tuple[FakeHal, Scanner, Controller]) -> None:
    hal, sc, ctl = booted
    started(hal, ctl)
    run(hal, ctl, 300)
    hal.connected = False
    run(hal, ctl, 100)
    hal.connected = True
    run(hal, ctl, 20)
    msgs = decoded(hal)
    assert ctl.selftest is None
    last = kinds(msgs).index("Hello") - 1
    assert isinstance(msgs[last][2], P.SelfTestReport) and msgs[last][2].state is P.SelfTestState.NEW_HOST


def test_selftest_during_the_warm_up_after_boot() -> None:
    hal, sc, ctl = rig()
    hal.place("H8", UID_A)
    run(hal, ctl, 50)  # the warm-up: no SNAPSHOT yet
    msgs = send(hal, ctl, P.SelfTest(30, 500), 1, ms=1600)
    assert "Snapshot" not in kinds(msgs) and "Heartbeat" not in kinds(msgs)
    assert len(reports(msgs)) >= 4  # the reports keep the host's link alive
    msgs = send(hal, ctl, P.SelfTest(0, 0), 2, ms=1200)
    snaps = [m for _, _, m in msgs if isinstance(m, P.Snapshot)]
    assert snaps and dict(snaps[0].tags) == {P.Loc.cell("H8"): UID_A}


# --- readers ------------------------------------------------------------------------------------


def test_a_dead_reader_reads_ff_gets_no_answer_and_is_reset_every_two_seconds() -> None:
    hal, sc, ctl = rig()
    run(hal, ctl, 1200)
    hal.kill_reader(3)
    run(hal, ctl, 500)  # the scan takes it out: FAULT 1
    decoded(hal)
    msgs = started(hal, ctl)
    (first,) = reports(msgs)
    h3 = first.health[3]
    assert (h3.version, h3.flags, h3.faults, h3.resets) == (0xFF, P.HealthFlag.OUT_OF_SCAN, 1, 0)
    run(hal, ctl, 4600)
    msgs = decoded(hal)
    silent = reads(msgs, P.ReadResult.NO_RESPONSE)
    assert {r.reader for r in silent} == {3}
    assert {r.antenna for r in silent} == set(range(15))
    assert not [r for r in reads(msgs, P.ReadResult.EMPTY) if r.reader == 3]
    resets = [h.resets for rep in reports(msgs) for h in rep.health if h.reader == 3]
    assert resets[-1] == 3  # at once after 8 failed reads, then every 2 s
    alone = [rep for rep in reports(msgs) if [h.reader for h in rep.health] == [3]]
    assert alone  # a reset is reported in the next report, without the others
    hal.revive_reader(3)  # its next reset brings it back
    run(hal, ctl, 2500)
    msgs = decoded(hal)
    assert [r for r in reads(msgs, P.ReadResult.EMPTY) if r.reader == 3]
    assert [h.version for rep in reports(msgs) for h in rep.health if h.reader == 3][-1] == 0x92


def test_a_reader_answering_garbage_reads_bad_data() -> None:
    hal, sc, ctl = rig()
    run(hal, ctl, 1200)
    hal.garble_reader(5)
    decoded(hal)
    started(hal, ctl)
    run(hal, ctl, 1000)
    msgs = decoded(hal)
    bad = reads(msgs, P.ReadResult.BAD_DATA)
    assert {r.reader for r in bad} == {5} and sum(r.count for r in bad) >= 15
    assert [h.version for rep in reports(msgs) for h in rep.health if h.reader == 5][-1] == 0x92


def test_an_expander_that_fails_its_address_check_is_flagged_and_not_read() -> None:
    hal, sc, ctl = rig(expander_straps={18: 5})  # rack 4's expander answers at 5, not at 2
    assert [r for r in range(19) if not hal.expander_ok(r)] == [18]
    run(hal, ctl, 1200)
    decoded(hal)
    msgs = started(hal, ctl)
    run(hal, ctl, 1000)
    msgs += decoded(hal)
    health = {h.reader: h for h in reports(msgs)[0].health}
    assert [r for r, h in health.items() if h.flags & P.HealthFlag.EXPANDER_FAILED] == [18]
    every = [r for rep in reports(msgs) for r in rep.reads]
    assert {r.reader for r in every} == set(range(18))


def test_two_expanders_at_one_address_show_as_the_one_missing() -> None:
    # Reader 2's expander strapped as 3: nothing answers at 2 (flagged); at 3 both answer alike,
    # which no register check can tell from one (hardware/README.md, "Bring-up").
    hal, sc, ctl = rig(expander_straps={2: 3})
    assert [r for r in range(19) if not hal.expander_ok(r)] == [2]


# --- the command --------------------------------------------------------------------------------


@pytest.mark.parametrize(("payload", "status"), [
    (b"\x1e\x00\xf4", P.AckStatus.BAD_PAYLOAD),  # under 4 bytes
    (F.selftest_payload(3601, 0), P.AckStatus.UNSUPPORTED_VALUE),
    (F.selftest_payload(30, 50), P.AckStatus.UNSUPPORTED_VALUE),
    (F.selftest_payload(30, 1001), P.AckStatus.UNSUPPORTED_VALUE),
])
def test_a_bad_selftest_is_refused_and_starts_nothing(booted: tuple[FakeHal, Scanner, Controller], payload: bytes,
                                                      status: P.AckStatus) -> None:
    hal, sc, ctl = booted
    decoded(hal)
    hal.host_send(P.encode_frame(P.FrameType.SELFTEST, 47, payload))
    run(hal, ctl, 600)
    msgs = decoded(hal)
    assert [m for _, _, m in msgs if isinstance(m, P.Ack)] == [P.Ack(47, status)]
    assert ctl.selftest is None and reports(msgs) == []


def test_bytes_after_the_fourth_are_ignored(booted: tuple[FakeHal, Scanner, Controller]) -> None:
    hal, sc, ctl = booted
    decoded(hal)
    hal.host_send(P.encode_frame(P.FrameType.SELFTEST, 48, F.selftest_payload(30, 0) + b"\x01\x02"))
    run(hal, ctl, 20)
    assert [m for _, _, m in decoded(hal) if isinstance(m, P.Ack)] == [P.Ack(48, P.AckStatus.OK)]
    assert ctl.selftest is not None and ctl.selftest.report_ms == 500  # 0: the default


def test_a_report_too_long_for_one_frame_goes_out_as_several(booted: tuple[FakeHal, Scanner, Controller],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    hal, sc, ctl = booted
    monkeypatch.setattr(F, "MAX_PAYLOAD", 400)
    started(hal, ctl)
    run(hal, ctl, 600)
    msgs = send(hal, ctl, P.SelfTest(0, 0), 49)
    sizes = [len(P.encode_payload(rep)) for rep in reports(msgs)]
    assert len(sizes) > 3 and max(sizes) <= 400
    states = [rep.state for rep in reports(msgs)]
    assert states[-1] is P.SelfTestState.STOPPED and set(states[:-1]) == {P.SelfTestState.RUNNING}
    assert {h.reader for rep in reports(msgs) for h in rep.health} == set(range(19))  # spread over the frames


def test_tag_reads_piling_up_send_a_report_early(booted: tuple[FakeHal, Scanner, Controller]) -> None:
    hal, sc, ctl = booted
    for row in range(15):  # a tile under every reader's every antenna
        for col in range(15):
            hal.place(F.loc_name(F.cell_loc(row, col)), bytes((4, row, col, 1, 2, 3, 4)))
    started(hal, ctl, report_ms=1000)
    run(hal, ctl, 1000)
    msgs = decoded(hal)
    times = [t for t, _, m in msgs if isinstance(m, P.SelfTestReport)]
    assert len(times) >= 4  # at least every 1024 bytes of tag reads, not once a second
    per = [sum(12 for r in rep.reads if r.result is P.ReadResult.TAG) for rep in reports(msgs)]
    assert max(per) <= fw_selftest.TAG_FLUSH + 12 * 19


# --- the scanner's pause -----------------------------------------------------------------------


def test_the_scan_pauses_with_no_read_in_flight_and_resumes_forgetting() -> None:
    hal, sc, ctl = rig()
    hal.place("H8", UID_A)
    run(hal, ctl, 1200)
    assert sc.busy()
    sc.pause()
    assert not sc.busy() and not any(job is not None for job in hal.jobs)
    assert sc.stable_at(F.parse_loc("H8")) == UID_A
    sc.resume()
    assert sc.stable_at(F.parse_loc("H8")) is not UID_A and not sc.settled()
