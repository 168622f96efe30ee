"""The simulated board controller on a pty, read through its symlink like a by-id path.

The board (:mod:`scoreboard.sim.board`) runs on a virtual clock driven by the test
(``SimulatedBoard.advance``); one test starts ``python -m scoreboard.sim`` as its own process
and stops it with SIGTERM. The commands themselves: tests/test_sim_commands.py.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from drivers.board import protocol as P
from engine.tiles import ENGLISH, FRENCH, GERMAN
from scoreboard.sim.board import SimulatedBoard
from scoreboard.sim.commands import CommandError, Flicker, Garbage, Geometry, Place, Problem, Remove, location
from scoreboard.sim.faults import OutputFaults, corrupt_frame
from scoreboard.sim.pty import LinkPathError
from scoreboard.sim.script import Step, parse_script
from scoreboard.sim.tags import tile_set_uids, tile_uid

UID_A = bytes.fromhex("04A1B2C3D4E5F6")
UID_B = bytes.fromhex("04112233445566")
UID_C = bytes.fromhex("0477889900AABB")


class Host:
    """The test's side of the link: the pty opened by the symlink, frames parsed."""

    def __init__(self, link: Path) -> None:
        self.fd = os.open(link, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        self.parser = P.FrameParser()
        self.seq = P.SequenceTracker()
        self.messages: list[tuple[int, P.Message]] = []

    def read(self) -> list[tuple[int, P.Message]]:
        new = []
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                break
            if not data:
                break
            for f in self.parser.feed(data):
                msg = P.decode_payload(f.type, f.payload)
                if isinstance(msg, P.Hello):
                    self.seq.reset(f.seq)
                else:
                    self.seq.check(f.seq)
                new.append((f.seq, msg))
        self.messages += new
        return new

    def send(self, msg: P.Message, seq: int) -> None:
        os.write(self.fd, P.encode(msg, seq))

    def close(self) -> None:
        os.close(self.fd)


def run(board: SimulatedBoard, host: Host | None, seconds: float) -> None:
    """Advance the board in small steps, reading as a host would."""
    end = board.now + seconds
    while board.now < end - 1e-9:
        board.advance(min(0.05, end - board.now))
        if host is not None:
            host.read()


def state(messages: list[tuple[int, P.Message]]) -> dict[str, bytes]:
    """The host's picture: the last SNAPSHOT plus the CHANGES after it."""
    board: dict[str, bytes] = {}
    for _, m in messages:
        if isinstance(m, P.Snapshot):
            board = {lc.name(): uid for lc, uid in m.tags}
        elif isinstance(m, P.Changes):
            for lc, uid in m.changes:
                if uid:
                    board[lc.name()] = uid
                else:
                    board.pop(lc.name(), None)
    return board


@pytest.fixture()
def link(tmp_path: Path) -> Path:
    return tmp_path / "board-link"


@pytest.fixture()
def board_factory(link: Path) -> Iterator[list[SimulatedBoard]]:
    boards: list[SimulatedBoard] = []
    yield boards
    for b in boards:
        b.close()


def start(boards: list[SimulatedBoard], link: Path, script: str = "", **kw: object) -> SimulatedBoard:
    board = SimulatedBoard(link, parse_script(script), virtual=True, **kw)  # type: ignore[arg-type]
    boards.append(board)
    board.start()
    return board


# --- the script -------------------------------------------------------------------------------


def test_script_times_absolute_relative_and_implicit() -> None:
    steps = parse_script("""
        # a comment
        at 1.5 place H8 04A1B2C3D4E5F6
        after 0.5 remove H8   # at 2.0
        place R1.3 04112233445566
        at 0.2 garbage 10
        flicker H8 alternate
    """)
    h8, r13 = location("H8"), location("R1.3")
    assert [(s.at, s.command) for s in steps] == [
        (0.2, Garbage(10)),
        (0.2, Flicker(h8, "alternate")),
        (1.5, Place(h8, UID_A)),
        (2.0, Remove(h8)),
        (2.0, Place(r13, UID_B)),
    ]
    assert [s.line for s in steps] == [6, 7, 3, 4, 5]
    assert [str(s) for s in steps] == [
        "at 0.2 garbage 10", "at 0.2 flicker H8 alternate", "at 1.5 place H8 04A1B2C3D4E5F6",
        "at 2 remove H8", "at 2 place R1.3 04112233445566",
    ]
    assert parse_script("\n".join(str(s) for s in steps)) == [
        Step(s.at, s.command, n) for n, s in enumerate(steps, 1)
    ]


@pytest.mark.parametrize(("line", "message", "problem"), [
    ("at 1 place Z9 04A1B2C3D4E5F6", "not a location", Problem.LOCATION),
    ("place H8 04A1", "4, 7 or 10 bytes", Problem.UID),
    ("place H8 nothex", "not a hex UID", Problem.UID),
    ("jump H8", "unknown command 'jump'", Problem.UNKNOWN),
    ("remove", "takes 1 arguments", Problem.ARITY),
    ("flicker H8 1.5", "probability", Problem.NUMBER),
    ("unplug 2 forever", "reboot", Problem.WORD),
    ("fault sensor 3", "fault reader N", Problem.WORD),
    ("at x place H8 04A1B2C3D4E5F6", "not a number: 'x'", Problem.NUMBER),
    ("after -1 remove H8", "0 or more", Problem.NUMBER),
    ("at 1", "at TIME COMMAND", Problem.ARITY),
    ("at 1e308 remove H8", "at most 21600 s", Problem.NUMBER),
    ("after 21600 remove H8", "later than 21600 s", Problem.NUMBER),
    ("place R3.1 04A1B2C3", "no R3.1 on this board: racks R1-R2", Problem.TABLE),
    ("fault reader 17", "readers 0-16", Problem.TABLE),
])
def test_script_errors_name_the_line(line: str, message: str, problem: Problem) -> None:
    with pytest.raises(CommandError, match=message) as err:
        parse_script("at 0.5 place H8 04A1B2C3D4E5F6\n" + line + "  # why", Geometry.of(2, 7))
    assert str(err.value).startswith("line 2: ")
    assert line in str(err.value)
    assert (err.value.number, err.value.text, err.value.problem) == (2, line + "  # why", problem)


def test_tile_uids_are_deterministic_and_unique_across_sets() -> None:
    assert tile_uid("E", 2) == bytes.fromhex("045C004502011E")
    assert tile_uid("E", 2) == tile_uid("E", 2, "English")
    every = [uid for ts in (ENGLISH, GERMAN, FRENCH) for _, uid in tile_set_uids(ts)]
    assert len(every) == len(set(every)) == ENGLISH.size + GERMAN.size + FRENCH.size
    assert all(len(u) == 7 and u[0] == 0x04 and u[3] != 0x88 for u in every)
    tiles = tile_set_uids(GERMAN)
    assert [t.letter for t, _ in tiles].count("Ä") == 1 and tiles[0][0].letter == "?"


def test_a_corrupted_frame_is_a_crc_error_not_garbage() -> None:
    import random

    parser = P.FrameParser()
    frame = P.encode(P.Heartbeat(1, 2, 3, 0), 4)
    assert parser.feed(corrupt_frame(frame, random.Random(1))) == []
    assert parser.stats.crc_errors == 1 and parser.stats.malformed == 0


def test_output_faults_spend_their_counts_frame_by_frame() -> None:
    from scoreboard.sim.commands import Corrupt, Drop, Duplicate, Reorder

    faults = OutputFaults(seed=3)
    a, b, c, d, e = (P.encode(P.Heartbeat(n, 0, 0, 0), n) for n in range(5))
    faults.arm(Drop(1))
    faults.arm(Duplicate(1))
    assert faults.send(a) == b"" and faults.send(b) == b + b and faults.send(c) == c
    faults.arm(Reorder(1))
    assert faults.send(d) == b"" and faults.send(e) == e + d  # the pair goes out swapped
    faults.arm(Reorder(1))
    assert faults.send(a) == b"" and faults.forget() == len(a)  # nobody reads: the held frame goes
    faults.arm(Corrupt(1))
    parser = P.FrameParser()
    assert parser.feed(faults.send(a)) == [] and parser.stats.crc_errors == 1
    assert (faults.sent, faults.dropped, faults.duplicated, faults.reordered, faults.corrupted) == (6, 1, 1, 1, 1)
    assert OutputFaults(seed=3).garbage(8) == OutputFaults(seed=3).garbage(8)  # a seed replays the faults


# --- the board on a pty ---------------------------------------------------------------------------


def test_scripted_placements_arrive_as_snapshots_and_changes(board_factory: list[SimulatedBoard], link: Path) -> None:
    board = start(board_factory, link, """
        place R1.1 04A1B2C3D4E5F6
        place R1.2 04112233445566
        at 1.5 move R1.1 H8
        at 2.5 move R1.2 I8
        at 3.5 remove H8
    """)
    assert link.is_symlink() and os.readlink(link) == board.port.name
    host = Host(link)
    run(board, host, 1.2)
    assert state(host.messages) == {"rack 1 slot 1": UID_A, "rack 1 slot 2": UID_B}
    first = [m for _, m in host.messages if not isinstance(m, P.Heartbeat)]
    assert isinstance(first[0], P.Hello) and isinstance(first[1], P.Snapshot)
    run(board, host, 3.3)
    assert state(host.messages) == {"I8": UID_B}
    changes = [(lc.name(), uid) for _, m in host.messages if isinstance(m, P.Changes) for lc, uid in m.changes]
    # A move's two halves come in either order (or one frame), as the scan reaches them.
    assert [set(changes[0:2]), set(changes[2:4]), changes[4:]] == [
        {("H8", UID_A), ("rack 1 slot 1", b"")},
        {("I8", UID_B), ("rack 1 slot 2", b"")},
        [("H8", b"")],
    ]
    assert host.seq.gaps == 0 and host.parser.stats.crc_errors == 0
    host.close()


def test_link_faults_are_survived_by_the_parser(board_factory: list[SimulatedBoard], link: Path) -> None:
    board = start(board_factory, link, """
        at 1.2 garbage 200
        at 1.3 corrupt 1
        at 1.9 drop 1
        at 2.5 place H8 04A1B2C3D4E5F6
    """)
    host = Host(link)
    run(board, host, 4.0)
    stats = host.parser.stats
    assert stats.crc_errors >= 1 and stats.malformed + stats.crc_errors >= 2
    assert host.seq.gaps >= 2  # the corrupted and the dropped frame: the host would resync
    assert board.faults.corrupted == 1 and board.faults.dropped == 1
    assert state(host.messages) == {"H8": UID_A}
    after = [m for _, m in host.messages[-5:]]
    assert any(isinstance(m, P.Heartbeat) for m in after)


def test_the_board_answers_host_commands_over_the_pty(board_factory: list[SimulatedBoard], link: Path) -> None:
    board = start(board_factory, link, "place H8 04A1B2C3D4E5F6")
    host = Host(link)
    run(board, host, 1.2)
    host.messages.clear()
    host.send(P.RequestSnapshot(), 5)
    host.send(P.SetScan(3, 0, 0, 0, 0), 6)
    run(board, host, 0.05)
    replies = [m for _, m in host.messages if not isinstance(m, P.Heartbeat)]
    assert replies[0] == P.Ack(5, P.AckStatus.OK)
    assert isinstance(replies[1], P.Snapshot) and dict(replies[1].tags) == {P.Loc.cell("H8"): UID_A}
    assert replies[2] == P.Ack(6, P.AckStatus.OK)
    assert board.controller.scanner.stable_reads == 3


def test_unplug_removes_the_link_and_replug_points_it_at_a_new_pty(board_factory: list[SimulatedBoard],
                                                                  link: Path) -> None:
    board = start(board_factory, link, """
        place H8 04A1B2C3D4E5F6
        at 1.5 unplug 1.0
        at 2.0 place I8 04112233445566
    """)
    host = Host(link)
    run(board, host, 1.6)
    assert not os.path.lexists(link) and board.port.name is None
    poller = select.poll()  # the old port hangs up, as after a pulled cable
    poller.register(host.fd, select.POLLIN)
    assert any(ev & select.POLLHUP for _, ev in poller.poll(0))
    host.close()
    run(board, None, 1.0)
    assert link.is_symlink() and board.replugs == 1
    assert os.readlink(link) == board.port.name and board.port.name is not None
    host = Host(link)
    run(board, host, 0.3)
    kinds = [type(m).__name__ for _, m in host.messages]
    assert kinds[:2] == ["Hello", "Snapshot"]  # on opening the port
    assert state(host.messages) == {"H8": UID_A, "I8": UID_B}  # the board kept its tiles
    host.close()


def test_unplug_with_reboot_restarts_the_controller(board_factory: list[SimulatedBoard], link: Path) -> None:
    board = start(board_factory, link, "place H8 04A1B2C3D4E5F6\nat 1.5 unplug 0.5 reboot")
    host = Host(link)
    run(board, host, 1.6)
    host.close()
    run(board, None, 0.5)
    host = Host(link)
    run(board, host, 1.5)
    hellos = [seq for seq, m in host.messages if isinstance(m, P.Hello)]
    assert hellos and hellos[-1] <= 1  # boot HELLO (seq 0) lost, or the reconnect HELLO right after it
    assert state(host.messages) == {"H8": UID_A}
    host.close()


def test_plug_ends_an_unplug_before_its_time(board_factory: list[SimulatedBoard], link: Path) -> None:
    board = start(board_factory, link, """
        place H8 04A1B2C3D4E5F6
        at 1.0 unplug 3600
        at 2.0 plug
        at 3.0 plug
    """)
    host = Host(link)
    run(board, host, 1.5)
    assert not os.path.lexists(link) and board.replugs == 0
    host.close()
    run(board, None, 1.0)
    assert link.is_symlink() and board.replugs == 1  # back at 2.0, not after an hour
    run(board, None, 1.0)
    assert board.replugs == 1  # a plug while plugged in does nothing
    host = Host(link)
    run(board, host, 0.3)
    assert state(host.messages) == {"H8": UID_A}
    host.close()


def test_a_host_restart_gets_hello_and_snapshot_again(board_factory: list[SimulatedBoard], link: Path) -> None:
    board = start(board_factory, link, "place H8 04A1B2C3D4E5F6")
    host = Host(link)
    run(board, host, 1.5)
    host.close()  # the service is killed
    run(board, None, 1.0)
    host = Host(link)
    run(board, host, 0.1)
    kinds = [type(m).__name__ for _, m in host.messages]
    assert kinds[:2] == ["Hello", "Snapshot"]
    assert state(host.messages) == {"H8": UID_A}
    host.close()


def test_reader_faults_from_the_script(board_factory: list[SimulatedBoard], link: Path) -> None:
    board = start(board_factory, link, "at 1.5 fault reader 3\nat 3.0 recover reader 3")
    host = Host(link)
    run(board, host, 6.0)
    codes = [(m.reader, m.code) for _, m in host.messages if isinstance(m, P.Fault)]
    assert codes[0] == (3, P.FaultCode.NO_RESPONSE)
    assert (3, P.FaultCode.RESET) in codes and codes[-1] == (3, P.FaultCode.RECOVERED)
    host.close()


def test_a_regular_file_at_the_link_path_is_not_replaced(tmp_path: Path) -> None:
    path = tmp_path / "taken"
    path.write_text("mine")
    board = SimulatedBoard(path)
    with pytest.raises(LinkPathError, match="not a symlink"):
        board.start()
    assert path.read_text() == "mine"
    board.close()


def test_the_simulator_process_serves_and_stops_on_sigterm(tmp_path: Path) -> None:
    link = tmp_path / "ttyBOARD"
    script = tmp_path / "board.txt"
    script.write_text("place H8 04A1B2C3D4E5F6\nplace R2.7 0477889900AABB\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "scoreboard.sim", "--link", str(link), "--script", str(script)],
        stderr=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parent.parent,
    )
    try:
        deadline = time.monotonic() + 15
        while not link.is_symlink():
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "no link"
            time.sleep(0.02)
        host = Host(link)
        while time.monotonic() < deadline and not any(isinstance(m, P.Snapshot) for _, m in host.messages):
            select.select([host.fd], [], [], 0.1)
            host.read()
        assert state(host.messages) == {"H8": UID_A, "rack 2 slot 7": UID_C}
        host.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
    assert not os.path.lexists(link)
