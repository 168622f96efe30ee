"""SerialBoard, the transport: a scripted controller behind a pty, unplug and replug, back-off.

The pty tests play the board controller on the master side of a pty and point a symlink (as
udev's /dev/serial/by-id would) at the slave; SerialBoard opens the symlink with pyserial.
The FakeCable tests drive the reconnect loop with an in-memory port and injected time.
"""

from __future__ import annotations

import os
import select
import threading
import time
import tty
from collections.abc import Callable
from pathlib import Path

import pytest

from drivers.board.link import BoardConnected, BoardEvent, BoardLink, SnapshotReceived
from drivers.board.protocol import (
    Ack,
    AckStatus,
    Changes,
    FrameParser,
    Heartbeat,
    Hello,
    Identify,
    Loc,
    Message,
    RequestSnapshot,
    Snapshot,
    decode_payload,
    encode,
)
from drivers.board.serial_link import (
    Backoff,
    BackoffConfigError,
    BoardDisconnected,
    BoardNotFoundError,
    BoardReconnected,
    FakeCable,
    SerialBoard,
    find_port,
)
from drivers.board.snapshot import BoardSnapshot
from drivers.board.stabiliser import Stabiliser
from engine.errors import ScoreboardError

HELLO = Hello((1, 0, 0), (1, 0), 15, 15, 2, 7, 32, bytes.fromhex("E66118604B2D3A2F"))
FAST = Backoff(0.02, 0.1)


def uid(n: int) -> bytes:
    return bytes((0x04, n, 0x11, 0x22, 0x33, 0x44, 0x55))


class PtyController:
    """The board controller on the master side of a fresh pty, holding ``board``.

    Answers IDENTIFY with ACK, HELLO and SNAPSHOT, and REQUEST_SNAPSHOT with ACK and SNAPSHOT;
    :meth:`move` sends CHANGES. ``requests`` lists the host frames it received.
    """

    def __init__(self, board: dict[Loc, bytes]) -> None:
        self.board = dict(board)
        self.master, self._slave = os.openpty()
        tty.setraw(self._slave)
        self.path = os.ttyname(self._slave)
        self.requests: list[Message] = []
        self.sweep = 100
        self._seq = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def send(self, msg: Message) -> None:
        with self._lock:
            os.write(self.master, encode(msg, self._seq))
            self._seq += 1

    def snapshot(self) -> None:
        self.sweep += 1
        self.send(Snapshot(self.sweep, tuple(sorted(self.board.items()))))

    def move(self, board: dict[Loc, bytes]) -> None:
        """The players changed the board to ``board``: send what changed."""
        changes = {loc: b"" for loc in self.board.keys() - board.keys()}
        changes.update({loc: u for loc, u in board.items() if self.board.get(loc) != u})
        self.board = dict(board)
        self.sweep += 1
        self.send(Changes(self.sweep, tuple(sorted(changes.items()))))

    def heartbeat(self) -> None:
        self.sweep += 1
        self.send(Heartbeat(self.sweep, self.sweep * 100, 180, 0))

    def _serve(self) -> None:
        parser = FrameParser()
        while not self._stop.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.02)
            if not ready:
                continue
            try:
                data = os.read(self.master, 4096)
            except OSError:  # no slave open (between the host's close and reopen)
                time.sleep(0.01)
                continue
            for frame in parser.feed(data):
                msg = decode_payload(frame.type, frame.payload)
                self.requests.append(msg)
                self.send(Ack(frame.seq, AckStatus.OK))
                if isinstance(msg, Identify):
                    self.send(HELLO)
                    self.snapshot()
                elif isinstance(msg, RequestSnapshot):
                    self.snapshot()

    def unplug(self) -> None:
        """Pull the cable: the pty goes away."""
        self._stop.set()
        self._thread.join()
        os.close(self.master)
        os.close(self._slave)


def point(link: Path, target: str) -> None:
    """Re-point the symlink ``link`` at ``target`` in one step, as udev does."""
    tmp = link.with_name(link.name + ".new")
    os.symlink(target, tmp)
    os.replace(tmp, link)


class Events:
    """Every event a SerialBoard produced, gathered with a deadline."""

    def __init__(self, board: SerialBoard) -> None:
        self.board = board
        self.seen: list[BoardEvent] = []

    def until(self, done: Callable[[BoardEvent], bool], timeout: float = 2.0) -> BoardEvent:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for event in self.board.read_events(0.02):
                self.seen.append(event)
                if done(event):
                    return event
        raise AssertionError(f"timed out; events so far: {self.seen!r}")

    def boards(self) -> list[dict[Loc, bytes]]:
        """The boards reported, repeats (heartbeats, periodic snapshots) folded."""
        out: list[dict[Loc, bytes]] = []
        for e in self.seen:
            if isinstance(e, SnapshotReceived) and (not out or out[-1] != dict(e.snapshot.tags)):
                out.append(dict(e.snapshot.tags))
        return out


def showing(board: dict[Loc, bytes]) -> Callable[[BoardEvent], bool]:
    return lambda e: isinstance(e, SnapshotReceived) and dict(e.snapshot.tags) == board


def scripted_game() -> list[dict[Loc, bytes]]:
    """Boards of a short game: racks filled, words laid tile by tile, a tile slid back."""
    racks = {Loc.slot(r, s): uid(r * 16 + s) for r in range(2) for s in range(7)}
    boards = [dict(racks)]

    def step(**moves: tuple[Loc, Loc]) -> None:
        board = dict(boards[-1])
        for src, dst in moves.values():
            board[dst] = board.pop(src)
        boards.append(board)

    for i, cell in enumerate(("G8", "H8", "I8")):
        step(m=(Loc.slot(0, i), Loc.cell(cell)))
    step(m=(Loc.cell("I8"), Loc.slot(0, 2)))  # taken back
    for i, cell in enumerate(("H9", "H10")):
        step(m=(Loc.slot(1, i), Loc.cell(cell)))
    step(a=(Loc.slot(1, 5), Loc.cell("H11")), b=(Loc.slot(1, 6), Loc.cell("H12")))
    return boards


@pytest.fixture
def by_id(tmp_path: Path) -> Path:
    return tmp_path / "usb-Scoreboard_Board_E66118604B2D3A2F-if00"


def test_a_scripted_game_arrives_as_exactly_the_snapshots_sent(by_id: Path) -> None:
    game = scripted_game()
    ctrl = PtyController(game[0])
    point(by_id, ctrl.path)
    try:
        with SerialBoard(str(by_id), backoff=FAST) as board:
            events = Events(board)
            events.until(showing(game[0]))
            for i, state in enumerate(game[1:]):
                ctrl.move(state)
                if i % 3 == 0:
                    ctrl.heartbeat()
                if i % 4 == 0:
                    ctrl.snapshot()  # the periodic safety-net snapshot
            events.until(showing(game[-1]))
            ctrl.heartbeat()
            events.until(lambda e: isinstance(e, SnapshotReceived) and e.snapshot.sweep == ctrl.sweep)
            assert events.boards() == game
            assert [type(e) for e in events.seen[:2]] == [BoardReconnected, BoardConnected]
            assert events.seen[0] == BoardReconnected(str(by_id), os.path.realpath(ctrl.path), events.seen[0].at)
            assert not any(isinstance(e, BoardDisconnected) for e in events.seen)
            assert board.link.stats.sequence_errors == 0 and board.link.stats.crc_errors == 0
            assert ctrl.requests[0] == Identify()
    finally:
        ctrl.unplug()


def test_unplug_and_replug_through_a_re_pointed_symlink(by_id: Path) -> None:
    before = {Loc.cell("H8"): uid(1), Loc.cell("I8"): uid(2), Loc.slot(0, 0): uid(3)}
    ctrl = PtyController(before)
    point(by_id, ctrl.path)
    stab = Stabiliser(reports=2, seconds=0.0)

    def stabilise(events: list[BoardEvent]) -> None:
        for e in events:
            if isinstance(e, SnapshotReceived):
                stab.update(e.snapshot, e.at)

    with SerialBoard(str(by_id), backoff=FAST) as board:
        events = Events(board)
        events.until(showing(before))
        ctrl.heartbeat()
        events.until(lambda e: isinstance(e, SnapshotReceived) and e.snapshot.sweep == ctrl.sweep)
        stabilise(events.seen)
        assert stab.stable == BoardSnapshot(before)
        frames = board.link.stats.frames

        ctrl.unplug()
        events.until(lambda e: isinstance(e, BoardDisconnected))
        mark = len(events.seen)
        # while the board is away a player lays a tile; the board then comes back on a new pty
        after = {**before, Loc.cell("J8"): uid(3)}
        del after[Loc.slot(0, 0)]
        ctrl = PtyController(after)
        point(by_id, ctrl.path)
        try:
            events.until(showing(after))
            ctrl.heartbeat()
            events.until(lambda e: isinstance(e, SnapshotReceived) and e.snapshot.sweep == ctrl.sweep)
        finally:
            ctrl.unplug()
        away = events.seen[mark:]
        assert type(away[0]) is BoardReconnected and away[0].device == os.path.realpath(ctrl.path)
        assert type(away[1]) is BoardConnected
        assert Identify() in ctrl.requests  # the state was asked for again
        assert [e for e in away if isinstance(e, BoardDisconnected)] == []
        # nothing lost: the stable board stayed through the outage and follows the new reading
        assert stab.stable == BoardSnapshot(before)
        stabilise(away)
        assert stab.stable == BoardSnapshot(after)
        assert board.link.stats.frames > frames  # counters carried over


def test_a_missing_port_is_retried_until_it_appears(by_id: Path) -> None:
    ctrl = PtyController({Loc.cell("H8"): uid(1)})
    try:
        with SerialBoard(str(by_id), backoff=FAST) as board:
            events = Events(board)
            down = events.until(lambda e: isinstance(e, BoardDisconnected))
            assert isinstance(down, BoardDisconnected) and repr(str(by_id)) in down.reason
            point(by_id, ctrl.path)
            events.until(showing({Loc.cell("H8"): uid(1)}))
            assert sum(isinstance(e, BoardDisconnected) for e in events.seen) == 1
    finally:
        ctrl.unplug()


# --- the reconnect loop on an in-memory cable ---------------------------------------------------


class Sleeps:
    """An injected sleep that records the delays and returns at once."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, delay: float) -> None:
        self.delays.append(delay)
        time.sleep(0.002)


def test_back_off_doubles_to_the_maximum_and_one_disconnect_is_reported() -> None:
    cable = FakeCable()
    cable.unplug()
    sleeps = Sleeps()
    with SerialBoard("/dev/serial/by-id/fake", opener=cable.open, sleep=sleeps) as board:
        events = Events(board)
        events.until(lambda e: isinstance(e, BoardDisconnected))
        deadline = time.monotonic() + 2
        while len(sleeps.delays) < 7 and time.monotonic() < deadline:
            time.sleep(0.005)
        assert sleeps.delays[:7] == [0.5, 1.0, 2.0, 4.0, 5.0, 5.0, 5.0]
        cable.replug()
        events.until(lambda e: isinstance(e, BoardReconnected))
        assert sum(isinstance(e, BoardDisconnected) for e in events.seen) == 1
        assert cable.opens == 1


def test_the_host_asks_for_hello_on_every_open() -> None:
    cable = FakeCable()
    with SerialBoard("fake", opener=cable.open, sleep=Sleeps()) as board:
        events = Events(board)
        events.until(lambda e: isinstance(e, BoardReconnected))
        got = b""
        deadline = time.monotonic() + 2
        while not got and time.monotonic() < deadline:
            got = cable.received()
        assert [decode_payload(f.type, f.payload) for f in FrameParser().feed(got)] == [Identify()]
        cable.send(encode(HELLO, 0) + encode(Snapshot(1, ((Loc.cell("H8"), uid(1)),)), 1))
        events.until(showing({Loc.cell("H8"): uid(1)}))
        cable.unplug()
        events.until(lambda e: isinstance(e, BoardDisconnected))
        cable.replug()
        events.until(lambda e: isinstance(e, BoardReconnected))
        assert cable.opens == 2


def test_a_silent_board_is_dropped_and_reopened() -> None:
    cable = FakeCable()
    now = [0.0]
    with SerialBoard("fake", opener=cable.open, clock=lambda: now[0], sleep=Sleeps(), link=BoardLink(timeout=1.5)) as board:
        events = Events(board)
        events.until(lambda e: isinstance(e, BoardReconnected))
        cable.send(encode(HELLO, 0) + encode(Snapshot(1, ()), 1))
        events.until(lambda e: isinstance(e, SnapshotReceived))
        now[0] = 10.0  # the controller says nothing for 10 s (it hung)
        down = events.until(lambda e: isinstance(e, BoardDisconnected))
        assert isinstance(down, BoardDisconnected) and "no frame" in down.reason
        events.until(lambda e: isinstance(e, BoardReconnected))
        assert cable.opens == 2 and board.link.stats.link_losses == 1


def test_close_stops_a_board_waiting_to_reconnect() -> None:
    cable = FakeCable()
    cable.unplug()
    board = SerialBoard("fake", opener=cable.open, backoff=Backoff(60.0, 60.0))
    board.start()
    Events(board).until(lambda e: isinstance(e, BoardDisconnected))
    board.close()
    assert not board.is_running and not board.is_connected


# --- finding the port ---------------------------------------------------------------------------


def test_find_port(tmp_path: Path) -> None:
    for name in ("usb-Other_Thing_1-if00", "usb-Scoreboard_Board_B-if00", "usb-Scoreboard_Board_A-if00"):
        (tmp_path / name).touch()
    assert find_port(None, "usb-Scoreboard*", str(tmp_path)) == str(tmp_path / "usb-Scoreboard_Board_A-if00")
    assert find_port("/dev/ttyACM0", "usb-Scoreboard*", str(tmp_path)) == "/dev/ttyACM0"
    with pytest.raises(BoardNotFoundError, match="usb-Nothing") as info:
        find_port(None, "usb-Nothing*", str(tmp_path))
    assert isinstance(info.value, ScoreboardError) and isinstance(info.value, FileNotFoundError)


def test_backoff_settings() -> None:
    assert [Backoff().next(d) for d in (0.5, 1.0, 4.0, 5.0)] == [1.0, 2.0, 5.0, 5.0]
    with pytest.raises(BackoffConfigError, match="3.0") as info:
        Backoff(3.0, 1.0)
    assert isinstance(info.value, ScoreboardError) and isinstance(info.value, ValueError)


# --- asleep between deadlines ---------------------------------------------------------------------


def test_the_link_says_when_its_watchdog_is_next_due() -> None:
    link = BoardLink(timeout=1.5, retry=0.5)
    assert link.next_due() is None  # never opened: nothing to watch
    link.reset(10.0)
    link.outgoing()
    assert link.next_due() == pytest.approx(10.5)  # the IDENTIFY is due again
    assert link.tick(10.49) == [] and link.outgoing() == b""  # nothing before it
    link.tick(10.5)
    assert [decode_payload(f.type, f.payload) for f in FrameParser().feed(link.outgoing())] == [Identify()]
    assert link.next_due() == pytest.approx(11.0)
    link.feed(encode(HELLO, 0) + encode(Snapshot(1, ()), 1), 10.8)
    assert link.next_due() == pytest.approx(12.3)  # synced: only the silence is watched
    assert link.tick(12.2) == []
    assert [type(e).__name__ for e in link.tick(12.3)] == ["LinkLost"]


def test_a_command_goes_out_at_once_while_the_reader_sleeps() -> None:
    """No deadline for a long time (a patient link): the reader sleeps in its wait until the
    board writes; a command sent from another thread wakes it and is written at once."""
    cable = FakeCable(timeout=60.0)
    link = BoardLink(timeout=3600.0, retry=3600.0)
    with SerialBoard("fake", opener=cable.open, sleep=Sleeps(), link=link) as board:
        events = Events(board)
        events.until(lambda e: isinstance(e, BoardReconnected))
        cable.send(encode(HELLO, 0) + encode(Snapshot(1, ()), 1))
        events.until(lambda e: isinstance(e, SnapshotReceived))
        cable.received()
        time.sleep(0.05)
        board.send(RequestSnapshot())
        got = b""
        deadline = time.monotonic() + 20  # (a third of the cable's 60 s wait a command not woken for sits behind)
        while not got and time.monotonic() < deadline:
            got = cable.received()
            time.sleep(0.001)
        assert [decode_payload(f.type, f.payload) for f in FrameParser().feed(got)] == [RequestSnapshot()]


# --- the board at rest: unchanged readings held back ------------------------------------------------


def _reading(tags: dict[Loc, bytes], at: float, sweep: int) -> SnapshotReceived:
    from drivers.board.protocol import FrameType

    return SnapshotReceived(BoardSnapshot(tags, sweep), FrameType.HEARTBEAT, at)


def _queued(board: SerialBoard) -> list[BoardEvent]:
    out = []
    while not board.events.empty():
        out.append(board.events.get_nowait())
    return out


def test_a_quiet_board_holds_back_unchanged_readings_and_keeps_the_latest() -> None:
    board = SerialBoard("fake", opener=FakeCable().open)  # (not started: the reader's _put is fed by hand)
    a = {Loc.cell("H8"): uid(1)}
    first = _reading(a, 1.0, 1)
    board._put(first)
    board.quiet(True)
    board._put(_reading(a, 1.5, 2))
    board._put(latest := _reading(a, 2.0, 3))
    assert _queued(board) == [first]  # the unchanged ones did not wake anybody
    assert board.take_held() == latest and board.take_held() is None


def test_a_change_or_another_event_comes_after_the_reading_held_back() -> None:
    board = SerialBoard("fake", opener=FakeCable().open)
    a, b = {Loc.cell("H8"): uid(1)}, {Loc.cell("H8"): uid(1), Loc.cell("I8"): uid(2)}
    board._put(_reading(a, 1.0, 1))
    board.quiet(True)
    board._put(held := _reading(a, 1.5, 2))
    board._put(changed := _reading(b, 2.0, 3))  # a tile laid: queued, after the one held back
    assert _queued(board)[-2:] == [held, changed]
    board._put(held2 := _reading(b, 2.5, 4))
    board._put(other := BoardDisconnected("cable", 3.0))
    assert _queued(board) == [held2, other] and board.take_held() is None


def test_a_board_not_quiet_queues_every_reading() -> None:
    board = SerialBoard("fake", opener=FakeCable().open)
    a = {Loc.cell("H8"): uid(1)}
    readings = [_reading(a, 1.0 + i / 2, i) for i in range(4)]
    board.quiet(True)
    board.quiet(False)
    for r in readings:
        board._put(r)
    assert _queued(board) == readings and board.take_held() is None
