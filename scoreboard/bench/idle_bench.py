"""The service at rest and at its start: wakeups and CPU of an idle table, the first frame.

An idle table: the simulated board in real time (its own process, 4 racks of 7: it sends
its HEARTBEATs and SNAPSHOTs as a real controller does) and ``scoreboard run --simulate``
with 4 players and PNG capture, nobody at the table. Once the game's first frame is shown
(the start is over) and :data:`SETTLE_S` seconds have passed (the board's HELLO and first reads taken), the
service's threads are read from ``/proc/PID/task/*`` at the start and the end of
:data:`IDLE_S` seconds: context switches (``voluntary_ctxt_switches`` plus
``nonvoluntary_ctxt_switches`` of ``status``: each is one time a thread went to sleep or was
put off the CPU, so one wakeup) and CPU time (``schedstat``'s nanoseconds on the CPU).

- ``idle_wakeups_per_s``: the service's wakeups per second, all its threads.
- ``idle_cpu_percent``: its CPU time over the wall time, percent of one core.
- ``idle_board_bytes_per_s``: bytes the board sent meanwhile (its HEARTBEATs and SNAPSHOTs:
  wakeups the service cannot avoid).
- ``first_frame_s_warm``: wall seconds from starting the service's process to its first
  frame written (``screens.txt``'s first line: the starting frame, "Starting…", drawn and
  written to the emulated panel's PNG before the line; :mod:`scoreboard.starting`), the
  project's bytecode compiled beforehand (a copy of its sources, ``compileall``, as an
  install does); median of :data:`START_ROUNDS`.
- ``first_frame_s_cold``: the same with no bytecode of the project's own modules (a copy
  without ``__pycache__``, none written: ``PYTHONDONTWRITEBYTECODE``).
- ``first_frame_vs_bare_python``: the warm figure over ``python -c pass``'s wall time
  measured alternately in the same run (the machine's load mostly cancels out).
- ``game_frame_s_warm``, ``game_frame_s_cold``: the same runs, to the game's first frame
  (the first line that is not the starting frame: the draw for the first player here, the
  journal opened and read, the board link and the buttons made).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from scoreboard.bench.service_bench import HERE, BenchError, stop_board
from scoreboard.sim.client import SimControl

__all__ = [
    "run",
    "sample",
    "service_command",
    "source_copy",
    "start_board",
    "start_service",
    "wait_first_frame",
    "wait_game_frame",
]

PLAYERS = ("Anna", "Ben", "Cleo", "Dirk")
IDLE_S = 30.0
SETTLE_S = 3.0
START_ROUNDS = 5
PATIENCE_S = 60.0


def start_board(link: Path, racks: int = 4) -> subprocess.Popen[bytes]:
    """The simulated board in real time (not lockstep), ``racks`` racks of 7, answering."""
    board = subprocess.Popen(
        [sys.executable, "-m", "scoreboard.sim", "--link", str(link), "--control", f"{link}.control",
         "--racks", str(racks), "--slots", "7"],
        cwd=HERE, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    SimControl.connect(f"{link}.control", timeout=30).close()
    return board


def service_command(folder: Path, link: Path, players: Sequence[str] = PLAYERS) -> list[str]:
    """``scoreboard run --simulate`` on ``link``, real time, state and frames in ``folder``."""
    names = ", ".join(f'"{p}"' for p in players)
    return [
        sys.executable, "-m", "scoreboard.run_cli", "--simulate", "--link", str(link),
        "--out", str(folder / "out"), "--set", f"paths.state_dir={folder / 'state'}",
        "--set", "game.rules=de", "--set", f"game.players=[{names}]", "--set", "ui.language=de",
    ]


def start_service(command: list[str], env: Mapping[str, str] | None = None,
                  cwd: Path = HERE) -> subprocess.Popen[bytes]:
    """The service's process (its output discarded)."""
    return subprocess.Popen(command, cwd=cwd, env=dict(env) if env is not None else None, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def wait_first_frame(shown: Path, proc: subprocess.Popen[bytes], patience: float = PATIENCE_S) -> float:
    """Wait for the first line of ``shown`` (``screens.txt``); the monotonic time it was seen."""
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        try:
            if shown.stat().st_size > 0:
                return time.monotonic()
        except FileNotFoundError:
            pass
        if proc.poll() is not None:
            raise BenchError(f"the service exited ({proc.returncode}) before its first frame")
        time.sleep(0.001)
    raise BenchError(f"no frame from the service in {patience:.0f} s")


STARTING = "StartingScreen("


def wait_game_frame(shown: Path, proc: subprocess.Popen[bytes], patience: float = PATIENCE_S) -> float:
    """Wait for the first line of ``shown`` that is not the starting frame (the game's first
    screen); the monotonic time it was seen."""
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        try:
            lines = shown.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            lines = []
        if any(line.partition("\t")[2] and not line.partition("\t")[2].startswith(STARTING) for line in lines):
            return time.monotonic()
        if proc.poll() is not None:
            raise BenchError(f"the service exited ({proc.returncode}) before the game's first frame")
        time.sleep(0.002)
    raise BenchError(f"no game frame from the service in {patience:.0f} s")


def sample(pid: int) -> dict[int, tuple[int, int]]:
    """Per thread of ``pid``: (context switches, nanoseconds on the CPU)."""
    out: dict[int, tuple[int, int]] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            switches = 0
            for line in (task / "status").read_text().splitlines():
                if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                    switches += int(line.split()[1])
            ns = int((task / "schedstat").read_text().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            continue  # (a thread that ended meanwhile)
        out[int(task.name)] = (switches, ns)
    return out


def idle(seconds: float = IDLE_S) -> dict[str, float]:
    """The wakeups and CPU of an idle 4-seat table over ``seconds``."""
    folder = Path(tempfile.mkdtemp(prefix="idle-"))
    try:
        link = folder / "board"
        board = start_board(link)
        try:
            proc = start_service(service_command(folder, link))
            try:
                wait_game_frame(folder / "out" / "screens.txt", proc)  # (the start over)
                time.sleep(SETTLE_S)
                with SimControl.connect(f"{link}.control", timeout=10) as sim:
                    written_before = sim.ping().written
                    before, t0 = sample(proc.pid), time.monotonic()
                    time.sleep(seconds)
                    after, t1 = sample(proc.pid), time.monotonic()
                    written_after = sim.ping().written
                if proc.poll() is not None:
                    raise BenchError(f"the service exited ({proc.returncode}) while idle")
            finally:
                stop_board(proc)
        finally:
            stop_board(board)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    wall = t1 - t0
    switches = sum(after[t][0] - before.get(t, (0, 0))[0] for t in after)
    cpu_ns = sum(after[t][1] - before.get(t, (0, 0))[1] for t in after)
    return {
        "idle_wakeups_per_s": switches / wall,
        "idle_cpu_percent": cpu_ns / 1e9 / wall * 100,
        "idle_board_bytes_per_s": (written_after - written_before) / wall,
    }


def source_copy(into: Path, compiled: bool) -> Path:
    """The project's packages copied into ``into`` without their bytecode, then (``compiled``)
    compiled as an install does (``python -m compileall``); the folder to run in."""
    for package in ("engine", "drivers", "scoreboard", "firmware"):
        shutil.copytree(HERE / package, into / package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    if compiled:
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(into)], check=True,
                       env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"})
    return into


def first_frame(rounds: int = START_ROUNDS) -> dict[str, float]:
    """Start to first frame, warm and cold, and a bare interpreter, alternately."""
    folder = Path(tempfile.mkdtemp(prefix="start-"))
    try:
        link = folder / "board"
        board = start_board(link)
        sources = {"warm": source_copy(folder / "warm", True), "cold": source_copy(folder / "cold", False)}
        times: dict[str, list[float]] = {"bare": [], "warm": [], "cold": [], "game-warm": [], "game-cold": []}
        try:
            for number in range(rounds + 1):  # the first round warms the page cache up: not counted
                for kind in ("bare", "warm", "cold"):
                    t0 = time.monotonic()
                    if kind == "bare":
                        subprocess.run([sys.executable, "-c", "pass"], check=True)
                        seconds = time.monotonic() - t0
                    else:
                        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=str(sources[kind]))
                        run_dir = folder / f"run-{number}-{kind}"
                        proc = start_service(service_command(run_dir, link), env, sources[kind])
                        try:
                            seconds = wait_first_frame(run_dir / "out" / "screens.txt", proc) - t0
                            game = wait_game_frame(run_dir / "out" / "screens.txt", proc) - t0
                        finally:
                            stop_board(proc)
                        if number:
                            times[f"game-{kind}"].append(game)
                    if number:
                        times[kind].append(seconds)
        finally:
            stop_board(board)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    warm, cold, bare, game_warm, game_cold = (
        statistics.median(times[k]) for k in ("warm", "cold", "bare", "game-warm", "game-cold")
    )
    return {"first_frame_s_warm": warm, "first_frame_s_cold": cold, "first_frame_vs_bare_python": warm / bare,
            "game_frame_s_warm": game_warm, "game_frame_s_cold": game_cold}


def run() -> dict[str, float]:
    """The figures."""
    return {**idle(), **first_frame()}


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:28s} {value:12.4f}")
