"""The simulated board's control socket and lockstep clock, with the simulator in its own
process (``python -m scoreboard.sim --link ... --control ... --lockstep``), talked to by
:class:`scoreboard.sim.client.SimControl`; the server's requests also in process.

The test is the host (the pty opened through the link) and the control client at once.
Real-time limits are generous and only guard against a hang: nothing here depends on how
fast the machine is.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from drivers.board import protocol as P
from scoreboard.sim.board import SimulatedBoard
from scoreboard.sim.client import Reply, SimControl, SimControlError, parse_reply
from scoreboard.sim.commands import CommandError, Garbage, Move, Place, Problem, Remove, Unplug, location
from scoreboard.sim.control import MAX_ADVANCE_S, MAX_CLIENTS, MAX_REQUEST, Advance, ControlServer, Ping, Tags, parse_request

ROOT = Path(__file__).resolve().parent.parent
PATIENCE = 60.0  # seconds of real time before a wait counts as a hang

UID_A = bytes.fromhex("04A1B2C3D4E5F6")
UID_B = bytes.fromhex("04112233445566")


class Host:
    """The service's side of the link: the pty opened through the symlink, bytes counted."""

    def __init__(self, link: Path, speak: bool = True) -> None:
        self.fd: int | None = os.open(link, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        self.parser = P.FrameParser()
        self.received = 0
        self.messages: list[P.Message] = []
        self.sent = 0
        if speak:  # as the service's link does on opening: IDENTIFY (a lockstep board waits for it)
            self.send(P.Identify(), 0)

    def read_exactly(self, total: int) -> list[P.Message]:
        """Read until ``total`` bytes came since the port was opened; the new messages."""
        assert self.fd is not None
        new: list[P.Message] = []
        deadline = time.monotonic() + PATIENCE
        while self.received < total:
            assert time.monotonic() < deadline, f"only {self.received} of {total} bytes came"
            select.select([self.fd], [], [], 0.5)
            try:
                data = os.read(self.fd, total - self.received)
            except BlockingIOError:
                continue
            self.received += len(data)
            new += [P.decode_payload(f.type, f.payload) for f in self.parser.feed(data)]
        self.messages += new
        return new

    def nothing_more(self) -> bool:
        """True when no byte beyond those counted is waiting (a pty read is immediate)."""
        assert self.fd is not None
        try:
            return os.read(self.fd, 1) == b""
        except BlockingIOError:
            return True

    def send(self, msg: P.Message, seq: int) -> None:
        assert self.fd is not None
        os.write(self.fd, P.encode(msg, seq))
        self.sent += 1

    def hung_up(self) -> bool:
        assert self.fd is not None
        poller = select.poll()
        poller.register(self.fd, select.POLLIN)
        return any(ev & select.POLLHUP for _, ev in poller.poll(0))

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def board_state(messages: list[P.Message]) -> dict[str, bytes]:
    """The host's picture: the last SNAPSHOT plus the CHANGES after it."""
    board: dict[str, bytes] = {}
    for m in messages:
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
def where() -> Iterator[Path]:
    """A short folder: a unix socket's path has at most 107 bytes, pytest's tmp_path may be longer."""
    folder = Path(tempfile.mkdtemp(prefix="simctl-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


Simulator = Callable[..., tuple[SimControl, Path]]


@pytest.fixture()
def simulator(where: Path) -> Iterator[Simulator]:
    """Start the simulator process; a connected client and the link's path."""
    procs: list[subprocess.Popen[str]] = []
    clients: list[SimControl] = []

    def start(*extra: str, script: str | None = None, lockstep: bool = True) -> tuple[SimControl, Path]:
        link, control = where / "ttyBOARD", where / "control"
        argv = [sys.executable, "-m", "scoreboard.sim", "--link", str(link), "--control", str(control)]
        if lockstep:
            argv.append("--lockstep")
        if script is not None:
            (where / "board.txt").write_text(script)
            argv += ["--script", str(where / "board.txt")]
        proc = subprocess.Popen([*argv, *extra], stderr=subprocess.PIPE, text=True, cwd=ROOT)
        procs.append(proc)
        try:
            client = SimControl.connect(control, timeout=PATIENCE)
        except SimControlError:
            proc.kill()
            raise AssertionError(proc.communicate()[1]) from None
        clients.append(client)
        assert link.is_symlink()  # the link is made before the socket
        return client, link

    yield start
    for c in clients:
        c.close()
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=PATIENCE)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()


# --- requests ------------------------------------------------------------------------------------


def test_place_remove_move_and_tags_round_trip(simulator: Simulator) -> None:
    sim, _ = simulator()
    assert sim.tags() == {}
    first = sim.request("place H8 04A1B2C3D4E5F6")
    assert first.now == 0.0 and first.pty is not None and first.data is None
    assert sim.tags() == {"H8": UID_A}
    sim.request("place H8 04A1B2C3D4E5F6")  # the same tag on the same cell: nothing happens
    assert sim.tags() == {"H8": UID_A}
    sim.request("place r1.3 04a1b2c3d4e5f6")  # a tag is in one place: lifted off H8 first
    assert sim.tags() == {"R1.3": UID_A}
    sim.request("place O15 04112233445566")
    sim.request("move O15 A1")
    assert sim.tags() == {"A1": UID_B, "R1.3": UID_A}
    sim.request("move O15 B2")  # nothing on O15: a warning on stderr, the answer is ok
    sim.request("remove C3")  # nothing there: nothing happens
    assert sim.tags() == {"A1": UID_B, "R1.3": UID_A}
    sim.request("remove A1")
    data = sim.request("tags").data
    assert data == {"R1.3": "04A1B2C3D4E5F6"}
    assert sim.ping().now == 0.0  # no advance, no time, however long all that took


def test_typed_commands_are_sent_as_their_lines(simulator: Simulator) -> None:
    sim, _ = simulator()
    h8, i8 = location("H8"), location("I8")
    assert sim.send(Place(h8, UID_A)).now == 0.0
    sim.send(Move(h8, i8))
    assert sim.tags() == {"I8": UID_A}
    sim.send(Remove(i8))
    assert sim.tags() == {}
    assert sim.send(Unplug(0.5)).pty is None
    assert sim.advance(0.5).pty is not None


def test_advance_moves_the_clock_by_exactly_the_time_and_the_host_reads_what_was_written(
        simulator: Simulator) -> None:
    sim, link = simulator()
    sim.request("place H8 04A1B2C3D4E5F6")
    host = Host(link)
    start = sim.ping()
    assert (start.written, start.now) == (0, 0.0)  # nothing is sent before the clock moves

    first = sim.advance(1.5)
    assert first.now == 1.5 and first.written > 0 and first.pty == start.pty
    messages = host.read_exactly(first.written)
    assert host.nothing_more()
    shown = [m for m in messages if not isinstance(m, P.Ack)]  # the IDENTIFY is acknowledged
    assert isinstance(shown[0], P.Hello) and any(isinstance(m, P.Snapshot) for m in shown)
    assert board_state(messages) == {"H8": UID_A}

    still = sim.ping()
    assert (still.now, still.written) == (1.5, first.written)  # between requests time stands

    second = sim.advance(0.25)
    assert second.now == 1.75
    for _ in range(3):
        second = sim.advance(1.0)
    assert second.now == 4.75 and second.written > first.written  # heartbeats
    messages = host.read_exactly(second.written)
    assert host.nothing_more()
    assert sum(isinstance(m, P.Heartbeat) for m in messages) >= 4
    assert host.parser.stats.crc_errors == 0 and host.parser.stats.malformed == 0

    sim.request("move H8 I8")
    third = sim.advance(0.5)
    new = host.read_exactly(third.written)
    assert host.nothing_more()
    assert board_state(host.messages) == {"I8": UID_A}
    assert any(isinstance(m, P.Changes) for m in new)
    host.close()


def test_the_hosts_bytes_wait_between_requests_and_are_answered_in_the_advance(simulator: Simulator) -> None:
    sim, link = simulator(script="place R2.7 04112233445566\n")
    host = Host(link)
    host.read_exactly(sim.advance(1.2).written)
    host.send(P.RequestSnapshot(), 7)
    time.sleep(0.2)  # the simulator reads it now or at the next request: either way before the advance
    assert sim.ping().now == 1.2
    reply = sim.advance(0.02)
    new = [m for m in host.read_exactly(reply.written) if not isinstance(m, P.Heartbeat)]
    assert new[0] == P.Ack(7, P.AckStatus.OK)
    assert isinstance(new[1], P.Snapshot) and board_state(new) == {"rack 2 slot 7": UID_B}
    host.close()


def test_script_steps_run_when_the_advance_reaches_their_time(simulator: Simulator) -> None:
    sim, _ = simulator(script="place R1.1 04A1B2C3D4E5F6\nat 1.0 move R1.1 H8\n")
    assert sim.tags() == {"R1.1": UID_A}  # the steps at 0 before any advance
    sim.advance(0.999)
    assert sim.tags() == {"R1.1": UID_A}
    sim.advance(0.001)
    assert sim.tags() == {"H8": UID_A}


def test_a_slide_lasts_its_time_on_the_lockstep_clock(simulator: Simulator) -> None:
    sim, _ = simulator(script="place H8 04A1B2C3D4E5F6\n")
    sim.advance(1.0)
    sim.request("slide H8 I8 0.1")
    assert sim.tags() == {"H8": UID_A, "I8": UID_A}  # between the two cells: read on both
    sim.advance(0.05)  # (the controller may run a few ms past NOW to finish its step: a margin)
    assert sim.tags() == {"H8": UID_A, "I8": UID_A}
    sim.advance(0.05)  # the slide's end is NOW: the tile has left H8
    assert sim.tags() == {"I8": UID_A}


def test_unplug_in_lockstep_then_a_new_pty_after_the_time(simulator: Simulator) -> None:
    sim, link = simulator()
    sim.request("place H8 04A1B2C3D4E5F6")
    host = Host(link)
    host.read_exactly(sim.advance(1.0).written)

    out = sim.request("unplug 0.5")
    assert out.pty is None and out.written == 0 and out.now == 1.0
    assert not os.path.lexists(link) and host.hung_up()
    host.close()
    sim.request("place I8 04112233445566")  # the board is powered: tiles can change meanwhile
    assert sim.advance(0.4).pty is None  # the cable stays out until the time has passed
    back = sim.advance(0.1)
    assert back.pty is not None and back.now == 1.5 and back.written == 0  # nobody has it open
    assert os.readlink(link) == back.pty

    host = Host(link)
    reply = sim.advance(0.5)
    assert reply.written > 0 and reply.pty == back.pty
    messages = host.read_exactly(reply.written)
    assert host.nothing_more()
    shown = [m for m in messages if not isinstance(m, P.Ack)]  # the IDENTIFY is acknowledged
    assert isinstance(shown[0], P.Hello) and any(isinstance(m, P.Snapshot) for m in shown)
    assert board_state(messages) == {"H8": UID_A, "I8": UID_B}  # the board kept its tiles
    host.close()


def test_a_host_going_away_ends_the_back_pressure_and_leaves_nothing_stale(simulator: Simulator) -> None:
    sim, link = simulator()
    host = Host(link)
    host.read_exactly(sim.advance(1.0).written)
    full = sim.request("garbage 100000")  # more than the pty holds: the rest waits in the simulator
    assert full.written < host.received + 100000

    answer: list[Reply | BaseException] = []

    def advance() -> None:
        try:
            answer.append(sim.advance(0.1, timeout=PATIENCE))
        except BaseException as e:  # noqa: BLE001 - handed to the test's thread
            answer.append(e)

    waiting = threading.Thread(target=advance)
    waiting.start()
    waiting.join(1.0)
    assert not answer  # the host holds the port and does not read: the board waits for it
    host.close()  # the service is killed
    waiting.join(PATIENCE)
    assert len(answer) == 1 and isinstance(answer[0], Reply), answer
    assert answer[0].now == 1.1

    host = Host(link)  # the restarted service
    base = sim.ping().written
    assert host.nothing_more()  # no stale byte of the old connection
    reply = sim.advance(1.0)
    messages = host.read_exactly(reply.written - base)
    assert host.nothing_more()
    assert isinstance(messages[0], P.Hello) and host.parser.stats.malformed == 0
    host.close()


def test_the_host_reading_during_the_advance_gets_every_written_byte(simulator: Simulator) -> None:
    sim, link = simulator()
    host = Host(link)
    sim.request("garbage 50000")
    answer: list[Reply] = []
    waiting = threading.Thread(target=lambda: answer.append(sim.advance(2.0, timeout=PATIENCE)))
    waiting.start()
    deadline = time.monotonic() + PATIENCE
    while not answer:
        assert time.monotonic() < deadline
        assert host.fd is not None
        select.select([host.fd], [], [], 0.1)
        try:
            host.received += len(os.read(host.fd, 65536))
        except BlockingIOError:
            pass
    waiting.join(PATIENCE)
    reply = answer[0]
    assert reply.written >= 50000
    host.read_exactly(reply.written)
    assert host.received == reply.written and host.nothing_more()
    host.close()


# --- errors and clients --------------------------------------------------------------------------------


@pytest.mark.parametrize(("line", "message"), [
    ("jump H8", "unknown request 'jump'"),
    ("place Z9 04A1B2C3D4E5F6", "not a location"),
    ("place H8 04A1", "4, 7 or 10 bytes"),
    ("remove", "takes 1 arguments"),
    ("at 1 place H8 04A1B2C3D4E5F6", "applies at once"),
    ("advance", "takes 1 arguments"),
    ("advance -1", "0 or more"),
    ("advance soon", "not a number"),
    ("tags H8", "takes 0 arguments"),
    ("", "empty"),
])
def test_a_bad_request_is_an_error_and_the_simulator_serves_on(simulator: Simulator, line: str,
                                                             message: str) -> None:
    sim, _ = simulator()
    with pytest.raises(SimControlError, match=message) as err:
        sim.request(line)
    assert repr(line.strip()) in str(err.value)
    assert sim.request("place H8 04A1B2C3D4E5F6").now == 0.0
    assert sim.tags() == {"H8": UID_A}


def test_the_raw_protocol_one_line_in_one_line_out(simulator: Simulator, where: Path) -> None:
    sim, _ = simulator()
    sim.close()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as raw:
        raw.settimeout(PATIENCE)
        raw.connect(str(where / "control"))
        raw.sendall(b"ping\nplace H8 04A1B2C3D4E5F6\n\xff\xfe\ntags\nadvance 0.5\r\n")
        # too long a line is answered once, skipped to its end, and the connection goes on
        raw.sendall(b"#" * (MAX_REQUEST + 1) + b"\n")
        for _ in range(3):
            raw.sendall(b"remove H8 " * 10_000)  # without a newline yet: answered once it is too long
        raw.sendall(b"\nping\n")
        received = b""
        while received.count(b"\n") < 8:
            chunk = raw.recv(65536)
            assert chunk, received
            received += chunk
    lines = received.decode().splitlines()
    assert lines[0].startswith("ok /dev/") and lines[0].endswith(" 0 0.000000")
    assert lines[1] == lines[0]
    assert lines[2].startswith("error ") and "UTF-8" in lines[2]
    assert lines[3] == lines[0] + ' {"H8":"04A1B2C3D4E5F6"}'
    assert lines[4].startswith("ok /dev/") and lines[4].endswith(" 0.500000")
    assert lines[5].startswith("error b'####") and f"more than {MAX_REQUEST} bytes" in lines[5]
    assert lines[6].startswith("error b'remove H8") and f"more than {MAX_REQUEST} bytes" in lines[6]
    assert lines[7] == lines[4] and len(lines) == 8
    assert stat.S_IMODE(os.stat(where / "control").st_mode) == 0o600  # its owner's only


def test_clients_side_by_side_and_a_new_one_takes_over_from_the_oldest(simulator: Simulator, where: Path) -> None:
    first, _ = simulator()
    first.request("place H8 04A1B2C3D4E5F6")
    first.advance(0.5)
    first.close()  # a killed service's connection closes
    second = SimControl.connect(where / "control", timeout=PATIENCE)
    assert second.tags() == {"H8": UID_A} and second.ping().now == 0.5
    third = SimControl.connect(where / "control", timeout=PATIENCE)  # while the second is connected
    assert third.advance(0.5).now == 1.0
    assert second.ping().now == 1.0  # both are served, each on its own connection
    assert second.request("place I8 04112233445566").now == 1.0
    assert third.tags() == {"H8": UID_A, "I8": UID_B}
    more = [SimControl.connect(where / "control", timeout=PATIENCE) for _ in range(MAX_CLIENTS - 1)]
    assert all(c.ping().now == 1.0 for c in more)  # the newest took over from the oldest
    with pytest.raises(SimControlError):
        second.ping()
    assert second.closed
    with pytest.raises(SimControlError, match="closed"):
        second.ping()
    assert third.ping().now == 1.0
    for c in (third, *more):
        c.close()


def test_advance_needs_lockstep_and_actions_apply_on_the_running_clock(simulator: Simulator) -> None:
    sim, _ = simulator(lockstep=False)
    with pytest.raises(SimControlError, match="needs --lockstep"):
        sim.advance(1.0)
    sim.request("place H8 04A1B2C3D4E5F6")
    assert sim.tags() == {"H8": UID_A}
    deadline = time.monotonic() + PATIENCE
    while sim.ping().now == 0.0:  # real time: the clock runs by itself
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_exit_stops_the_simulator_and_removes_socket_and_link(where: Path) -> None:
    link, control = where / "ttyBOARD", where / "control"
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(control))  # a dead simulator's socket file
    stale.close()
    proc = subprocess.Popen(
        [sys.executable, "-m", "scoreboard.sim", "--link", str(link), "--control", str(control),
         "--lockstep"], stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        with SimControl.connect(control, timeout=PATIENCE) as sim:
            assert sim.request("exit").pty is not None
        assert proc.wait(timeout=PATIENCE) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        _, err = proc.communicate()
    assert not os.path.lexists(control) and not os.path.lexists(link), err


def test_lockstep_needs_control_and_a_file_at_the_control_path_is_kept(where: Path) -> None:
    base = [sys.executable, "-m", "scoreboard.sim", "--link", str(where / "ttyBOARD")]
    done = subprocess.run([*base, "--lockstep"], capture_output=True, text=True, cwd=ROOT, timeout=PATIENCE,
                          check=False)
    assert done.returncode == 2 and "--lockstep needs --control" in done.stderr
    taken = where / "control"
    taken.write_text("mine")
    done = subprocess.run([*base, "--control", str(taken)], capture_output=True, text=True, cwd=ROOT, check=False,
                          timeout=PATIENCE)
    assert done.returncode == 2 and "not a socket" in done.stderr
    assert taken.read_text() == "mine" and not os.path.lexists(where / "ttyBOARD")
    done = subprocess.run([*base, "--parent-pipe", "99"], capture_output=True, text=True, cwd=ROOT, check=False,
                          timeout=PATIENCE)
    assert done.returncode == 2 and "no parent pipe at file descriptor 99" in done.stderr


def test_connect_names_the_path_when_nobody_listens(where: Path) -> None:
    with pytest.raises(SimControlError, match=str(where / "nothing")) as err:
        SimControl.connect(where / "nothing", timeout=0.2)
    assert isinstance(err.value, ConnectionError)


# --- the requests, in process ----------------------------------------------------------------------


def test_requests_parse_into_typed_ones_and_back() -> None:
    assert parse_request("advance 0.25") == Advance(0.25) and str(Advance(0.25)) == "advance 0.25"
    assert parse_request("PING  # hello") == Ping() and parse_request("tags") == Tags()
    assert parse_request("place h8 04a1b2c3d4e5f6") == Place(location("H8"), UID_A)
    for line, problem in [("jump", Problem.UNKNOWN), ("", Problem.EMPTY), ("at 1 exit", Problem.MISPLACED),
                          ("advance 1 2", Problem.ARITY), ("advance -1", Problem.NUMBER),
                          ("remove Z0", Problem.LOCATION), ("place H8 04", Problem.UID)]:
        with pytest.raises(CommandError) as err:
            parse_request(line)
        assert err.value.problem is problem and err.value.text == line and err.value.number is None
        assert str(err.value).startswith(f"{line!r}: ")


def test_the_server_answers_error_for_a_bad_request_and_goes_on(tmp_path: Path) -> None:
    board = SimulatedBoard(tmp_path / "link", lockstep=True)
    server = ControlServer(board, tmp_path / "unused")  # answer() needs no socket
    board.start()
    try:
        bad = [b"jump H8", b"place Z9 04A1B2C3D4E5F6", b"remove", b"place H8 04A1", b"garbage many", b"\xff",
               b"advance", b"at 1 remove H8", b"advance 10.5", b"advance 1e6", b"unplug 1e308", b"garbage 100000000",
               b"place R4.8 04A1B2C3", b"fault reader 19", b"slide H8 R5.1"]
        for raw in bad:
            answer = server.answer(raw)
            assert answer.startswith("error "), (raw, answer)
            with pytest.raises(SimControlError):
                parse_reply(answer)
        assert "at most 10 s" in server.answer(b"advance 10.5") and "readers 0-18" in server.answer(b"fault reader 19")
        ok = parse_reply(server.answer(b"place H8 04A1B2C3D4E5F6"))
        assert ok.pty == board.port.name and ok.now == 0.0
        assert parse_reply(server.answer(b"tags")).data == {"H8": "04A1B2C3D4E5F6"}
        assert parse_reply(server.answer(b"advance 0.5\r")).now == 0.5
        assert parse_request(f"advance {MAX_ADVANCE_S:g}") == Advance(MAX_ADVANCE_S)  # the bound itself is taken
        assert server.requests == len(bad) + 5 and not board.stopped
        assert parse_reply(server.answer(b"exit")).pty is not None and board.stopped
    finally:
        board.close()


def test_the_socket_is_its_owners_only_whatever_the_umask(where: Path) -> None:
    board = SimulatedBoard(where / "link", lockstep=True)
    old = os.umask(0)
    try:
        with ControlServer(board, where / "control"):
            assert stat.S_IMODE(os.stat(where / "control").st_mode) == 0o600
    finally:
        os.umask(old)


def test_a_host_that_holds_the_port_and_reads_nothing_is_waited_for_a_bounded_time(
        where: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("scoreboard.sim.pty.HOST_STALL_S", 0.3)
    board = SimulatedBoard(where / "link", lockstep=True)
    board.start()
    host = Host(where / "link")  # opens the port, speaks once, then never reads
    try:
        board.pump()
        board.act(Garbage(100_000))
        stalled: list[bool] = []  # each look at the host while bytes wait: False, wait on; True, give up
        look = board.port._stalled

        def counted() -> bool:
            stalled.append(look())
            return stalled[-1]

        monkeypatch.setattr(board.port, "_stalled", counted)
        board.run_for(1.0)  # waits for the host 0.3 s, then no more while it reads nothing
        assert False in stalled and stalled[-1] is True  # (it waited, then gave up)
        del stalled[:]
        board.run_for(1.0)
        assert False not in stalled and board.clock == 2.0  # (no wait again while it reads nothing)
        assert board.port.pending > 0  # the bytes wait on for the host
        host.read_exactly(4096)  # it reads again: it is waited for again
        board.run_for(0.1)
        assert board.port.written > 4096
    finally:
        host.close()
        board.close()
