"""Fuzzing the inputs of a simulated table: table scripts and the simulator's control socket.

Seeded and bounded. Table scripts, good and mutated, go through the checker in process
(each either checked sound or refused naming its bad lines, never another exception), and a
few through the real service (each either plays to its end, exit 0, or is refused before
the game, exit 2, naming the lines the checker named; never a traceback, never a hang).
Control requests, good and mutated, go to a real simulator process with a host on its pty:
each is answered ``ok`` or ``error`` within :data:`ANSWER_S`, the simulator answers ``ping``
afterwards, stops cleanly and wrote no traceback. The ``soak`` versions run many more.
"""

from __future__ import annotations

import os
import random
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import inputfuzz
import pytest

from drivers.board import protocol as P
from scoreboard.sim.commands import MAX_SCRIPT_S, Geometry
from scoreboard.table_script import (
    MAX_HOLD_S, MAX_SHOWN, Line, Press, ScriptRefused, ScriptTable, TableScriptError, check, parse,
)

ROOT = Path(__file__).resolve().parent.parent
TABLE = ScriptTable(inputfuzz.TILE_SET, inputfuzz.SEATS, Geometry.of(inputfuzz.SEATS, 7))  # run's defaults
ANSWER_S = 30.0  # real seconds for any answer (advance 10 s takes 1-4 s here; generous for a loaded machine)
SERVICE_S = 120.0  # real seconds for a short script through the service


# --- table scripts -----------------------------------------------------------------------------


def judge(data: bytes) -> list[Line] | ScriptRefused:
    """What the checker makes of ``data``, verified: sound lines, or every bad one named."""
    try:
        outcome: list[Line] | ScriptRefused = check(data, TABLE, "fuzz.txt")
    except ScriptRefused as e:
        outcome = e
    count = len(data.removesuffix(b"\n").split(b"\n"))
    if isinstance(outcome, ScriptRefused):
        assert outcome.errors and all(isinstance(e, TableScriptError) for e in outcome.errors)
        for e in outcome.errors:
            assert e.number is not None and 1 <= e.number <= count, (e, data)
            assert str(e).startswith(f"line {e.number}: ")
        for e in outcome.errors[:MAX_SHOWN]:
            assert str(e) in str(outcome)
    else:
        for line in outcome:
            if isinstance(line.step, Press):
                assert line.step.seat is None or 1 <= line.step.seat <= TABLE.seats
                assert 0 < line.step.seconds <= MAX_HOLD_S
            elif line.board is not None:
                TABLE.geometry.check(line.board_command(TABLE.tile_set))  # resolves, and fits the table
            assert 0 <= line.wait <= MAX_SCRIPT_S and 0 <= (line.at or 0) <= MAX_SCRIPT_S
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        assert isinstance(outcome, ScriptRefused)
        return outcome
    try:  # the syntax alone: the first bad line parse() finds is among those check() names
        parse(text)
    except TableScriptError as e:
        assert isinstance(outcome, ScriptRefused) and e.number in [x.number for x in outcome.errors]
    return outcome


def fuzz_scripts(seed: int, scripts: int) -> tuple[int, int]:
    """``scripts`` scripts through the checker; (accepted, refused)."""
    rng = random.Random(seed)
    accepted = refused = 0
    for _ in range(scripts):
        outcome = judge(inputfuzz.table_script(rng, rng.randrange(1, 30), rng.choice((0.0, 0.05, 0.3, 1.0))))
        refused += isinstance(outcome, ScriptRefused)
        accepted += not isinstance(outcome, ScriptRefused)
    return accepted, refused


def test_mutated_scripts_are_checked_sound_or_refused_naming_their_lines() -> None:
    accepted, refused = fuzz_scripts(seed=12, scripts=400)
    assert accepted >= 80 and refused >= 80  # both ways taken, often


@pytest.mark.soak
def test_soak_twenty_thousand_scripts_through_the_checker() -> None:
    started = time.monotonic()
    accepted, refused = fuzz_scripts(seed=1212, scripts=20_000)
    print(f"\ntable scripts: {accepted} accepted, {refused} refused in {time.monotonic() - started:.1f} s")
    assert accepted >= 4000 and refused >= 4000


def service_cases(seed: int, each: int) -> list[tuple[bytes, list[Line] | ScriptRefused]]:
    """``each`` scripts the checker accepts and ``each`` it refuses (short ones, in virtual time)."""
    rng = random.Random(seed)
    good: list[tuple[bytes, list[Line] | ScriptRefused]] = []
    bad: list[tuple[bytes, list[Line] | ScriptRefused]] = []
    while len(good) < each or len(bad) < each:
        data = inputfuzz.table_script(rng, rng.randrange(2, 10), rng.choice((0.0, 0.3)))
        outcome = judge(data)
        pile = bad if isinstance(outcome, ScriptRefused) else good
        if len(pile) < each:
            pile.append((data, outcome))
    return good + bad


def run_through_service(cases: list[tuple[bytes, list[Line] | ScriptRefused]], parallel: int) -> None:
    """Each script through ``scoreboard run --simulate --virtual-clock``, ``parallel`` at once."""
    with tempfile.TemporaryDirectory(prefix="fuzz-run-") as tmp:
        folder = Path(tmp)
        for first in range(0, len(cases), parallel):
            running: list[tuple[int, subprocess.Popen[bytes]]] = []
            try:
                for n in range(first, min(first + parallel, len(cases))):
                    (folder / f"{n}.txt").write_bytes(cases[n][0])
                    running.append((n, subprocess.Popen(
                        [sys.executable, "-m", "scoreboard.run_cli", "--simulate", "--virtual-clock",
                         "--script", str(folder / f"{n}.txt"), "--out", str(folder / f"out{n}"),
                         "--set", f"paths.state_dir={folder / f'state{n}'}"],
                        cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)))
                for n, proc in running:
                    _, raw = proc.communicate(timeout=SERVICE_S)  # a hang fails here
                    err = raw.decode(errors="replace")
                    data, outcome = cases[n]
                    assert "Traceback" not in err, (data, err[-3000:])
                    if isinstance(outcome, ScriptRefused):
                        assert proc.returncode == 2, (data, err[-3000:])
                        for e in outcome.errors[:MAX_SHOWN]:
                            assert f"line {e.number}: " in err, (data, err[-3000:])
                    else:
                        assert proc.returncode == 0, (data, err[-3000:])
            finally:
                for _, proc in running:
                    if proc.poll() is None:
                        proc.kill()
                        proc.wait()


def test_a_few_mutated_scripts_through_the_service_play_or_are_refused_never_a_traceback() -> None:
    run_through_service(service_cases(seed=7, each=2), parallel=4)


@pytest.mark.soak
def test_soak_sixty_scripts_through_the_service() -> None:
    started = time.monotonic()
    run_through_service(service_cases(seed=77, each=30), parallel=2)
    print(f"\n60 scripts through the service in {time.monotonic() - started:.1f} s")


# --- the control socket --------------------------------------------------------------------------


class PtyHost:
    """A host on the simulated board's pty that reads all the time (and opens it again after
    an unplug), as the service does; in a thread."""

    def __init__(self, link: Path) -> None:
        self.link = link
        self.stop = threading.Event()
        self.received = 0
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            try:
                fd = os.open(self.link, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
            except OSError:  # unplugged
                time.sleep(0.01)
                continue
            try:
                os.write(fd, P.encode(P.Identify(), 0))  # a lockstep board waits for the host to speak
                while not self.stop.is_set():
                    select.select([fd], [], [], 0.05)
                    try:
                        data = os.read(fd, 65536)
                    except BlockingIOError:
                        continue
                    if not data:
                        break
                    self.received += len(data)
            except OSError:  # EIO: the cable is out
                pass
            finally:
                os.close(fd)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)


@dataclass
class Answers:
    count: int = 0
    ok: int = 0
    slowest_s: float = 0.0


def ask(sock: socket.socket, buf: bytearray, line: bytes) -> str:
    """One request line, its answer line (within :data:`ANSWER_S`)."""
    sock.sendall(line + b"\n")
    deadline = time.monotonic() + ANSWER_S
    while (end := buf.find(b"\n")) < 0:
        left = deadline - time.monotonic()
        assert left > 0, f"no answer within {ANSWER_S} s to {line[:80]!r}"
        sock.settimeout(left)
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            chunk = None
        assert chunk is not None, f"no answer within {ANSWER_S} s to {line[:80]!r}"
        assert chunk, f"the simulator hung up on {line[:80]!r}"
        buf += chunk
    answer = bytes(buf[:end]).decode("utf-8")
    del buf[: end + 1]
    return answer


def fuzz_control(seed: int, requests: int, lockstep: bool) -> Answers:
    """``requests`` good and mutated requests to a simulator process; its answers, checked."""
    rng = random.Random(seed)
    answers = Answers()
    with tempfile.TemporaryDirectory(prefix="fuzz-sim-") as tmp:
        folder = Path(tmp)
        link, control, log = folder / "board", folder / "control", folder / "stderr.txt"
        argv = [sys.executable, "-m", "scoreboard.sim", "--link", str(link), "--control", str(control),
                "--racks", "4", "--seed", str(seed)]
        with open(log, "wb") as err:  # a file: warnings never fill a pipe nobody reads
            proc = subprocess.Popen([*argv, *(["--lockstep"] if lockstep else [])], cwd=ROOT,
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
        host: PtyHost | None = None
        try:
            deadline = time.monotonic() + ANSWER_S
            while not control.exists():
                assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
                time.sleep(0.02)
            host = PtyHost(link)
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.connect(str(control))
                buf = bytearray()
                for _ in range(requests):
                    line = inputfuzz.request(rng)
                    started = time.monotonic()
                    answer = ask(sock, buf, line)
                    answers.slowest_s = max(answers.slowest_s, time.monotonic() - started)
                    assert answer.startswith(("ok ", "error ")), (line[:200], answer)
                    answers.count += 1
                    answers.ok += answer.startswith("ok ")
                assert ask(sock, buf, b"ping").startswith("ok ")
                assert proc.poll() is None
        finally:
            if host is not None:
                host.close()
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
            try:
                code: int | None = proc.wait(timeout=ANSWER_S)
            except subprocess.TimeoutExpired:
                code = None  # failed below, unless a failure is already on its way
                proc.kill()
                proc.wait()
        stderr = log.read_text(errors="replace")
        assert code is not None, "the simulator did not stop on SIGTERM"
        assert "Traceback" not in stderr and code == 0, stderr[-3000:]
    return answers


def test_mutated_control_requests_are_each_answered_in_time_and_the_simulator_serves_on() -> None:
    answers = fuzz_control(seed=3, requests=250, lockstep=True)
    assert answers.count == 250 and 25 <= answers.ok <= 225  # both answers, often


@pytest.mark.soak
@pytest.mark.parametrize("lockstep", [True, False], ids=["lockstep", "real-time"])
def test_soak_three_thousand_control_requests(lockstep: bool) -> None:
    started = time.monotonic()
    answers = fuzz_control(seed=33, requests=3000, lockstep=lockstep)
    print(f"\ncontrol requests ({'lockstep' if lockstep else 'real time'}): {answers.count} answered, "
          f"{answers.ok} ok, slowest {answers.slowest_s:.2f} s, all in {time.monotonic() - started:.1f} s")
    assert answers.ok >= 300
