"""Machine instructions per operation, counted by valgrind: figures that do not move with load.

Each operation of :mod:`scoreboard.bench.counted` runs under valgrind's cachegrind
(``--cache-sim=no``: instructions only) twice, ``N`` times and not at all; the difference
of the two counts divided by ``N`` is one operation. ``PYTHONHASHSEED=0`` keeps the runs
alike. An idle second of the service is counted with callgrind on the running service
(``callgrind_control --dump`` at the start and the end of :data:`IDLE_S` seconds, nobody at
the table); the start to the first frame is one whole process, the bare interpreter's
count beside it. Where valgrind is missing (``apt install valgrind``) these figures are
left out and a line says so; ``perf stat`` is no alternative here (a virtual machine
without a PMU counts nothing).

- ``instr_done``: one Done press through the controller, frame rendered.
- ``instr_blank2_done``: the Done of a two-blank play (``??IELEN``), blanks inferred;
  ``instr_blank2_worst_done``: the worst two-blank play found (``??EN``).
- ``instr_lookup``: one lexicon lookup.
- ``instr_frame``: one board-link frame parsed and decoded.
- ``instr_idle_second``: one second of the idle 4-seat service, all its threads.
- ``instr_start_to_frame_warm``: ``scoreboard run --simulate`` from the process's start to
  its first frame shown (the starting frame, :mod:`scoreboard.starting`), the project's
  bytecode compiled beforehand (as an install does); ``instr_start_to_frame_cold``: the same
  without it (every module compiled on the way); ``instr_bare_python``: ``python -c pass``.
- ``instr_start_to_game_frame_warm``, ``instr_start_to_game_frame_cold``: the same to the
  game's first frame (the process exits where the devices would start). Both are counted
  through :mod:`scoreboard.start_probe`, outside this package (which loads every benchmark).

Each ``*_pi_ms`` figure projects a count onto a Pi Zero 2 W: :data:`PI_HZ` instructions
per second at :data:`PI_IPC` (see the README's performance section for the source).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scoreboard.bench.idle_bench import (
    SETTLE_S,
    service_command,
    source_copy,
    start_board,
    start_service,
    wait_game_frame,
)
from scoreboard.bench.service_bench import HERE, BenchError, stop_board

__all__ = ["available", "count", "run"]

OPS: dict[str, tuple[str, int]] = {
    "instr_done": ("done", 34),
    "instr_blank2_done": ("blank2", 20),
    "instr_blank2_worst_done": ("blank2worst", 20),
    "instr_lookup": ("lookup", 20_000),
    "instr_frame": ("frame", 2_000),
}
"""Figure -> (operation of :mod:`.counted`, N)."""

IDLE_S = 10.0
PI_HZ = 1.0e9  # a Pi Zero 2 W's Cortex-A53 cores run at 1 GHz
PI_IPC = 0.5  # instructions per cycle assumed for CPython on a Cortex-A53 (README: the source)
_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")
_TOTALS = re.compile(r"^(?:summary|totals):\s+(\d+)", re.MULTILINE)


def available() -> bool:
    """True when valgrind is installed."""
    return shutil.which("valgrind") is not None and shutil.which("callgrind_control") is not None


def _env() -> dict[str, str]:
    """The counted processes' environment: runs alike, and no bytecode written (a cold copy is
    counted twice: the first probe must not compile modules for the second)."""
    return dict(os.environ, PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")


def count(argv: list[str], source: Path = HERE) -> int:
    """Instructions executed by the process ``argv`` (all its threads), per cachegrind,
    with the project's packages from ``source``."""
    env = _env()
    if source != HERE:
        env["PYTHONPATH"] = str(source)
    done = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", *argv],
        cwd=source, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True, check=False,
    )
    found = _REFS.findall(done.stderr)
    if done.returncode != 0 or not found:
        raise BenchError(f"valgrind on {argv[3:]} failed ({done.returncode}): {done.stderr[-1500:]}")
    return int(found[-1].replace(",", ""))


def per_op(op: str, n: int) -> float:
    """Instructions of one ``op``: (``n`` of them - none) / ``n``."""
    base = [sys.executable, "-m", "scoreboard.bench.counted", op]
    return (count([*base, str(n)]) - count([*base, "0"])) / n


def _dumped(folder: Path) -> list[int]:
    """The instruction totals of callgrind's dumps in ``folder``, in dump order."""
    out = []
    for path in sorted(folder.glob("cg.out.*"), key=lambda p: int(p.suffix[1:])):
        found = _TOTALS.findall(path.read_text(errors="replace"))
        if found:
            out.append(int(found[-1]))
    return out


def idle_second(seconds: float = IDLE_S) -> float:
    """Instructions of one idle second of the 4-seat service (callgrind, dumps around it)."""
    folder = Path(tempfile.mkdtemp(prefix="count-idle-"))
    try:
        link = folder / "board"
        board = start_board(link)
        try:
            command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={folder}/cg.out",
                       *service_command(folder, link)]
            proc = start_service(command, _env())
            try:
                wait_game_frame(folder / "out" / "screens.txt", proc, patience=600)  # (the start over)
                time.sleep(SETTLE_S * 5)  # (valgrind is slow: the board's HELLO and first reads taken)
                _control(proc.pid)
                t0 = time.monotonic()
                time.sleep(seconds)
                _control(proc.pid)
                wall = time.monotonic() - t0
            finally:
                stop_board(proc)
        finally:
            stop_board(board)
        totals = _dumped(folder)
        if len(totals) < 2:
            raise BenchError(f"callgrind wrote {len(totals)} dumps, not 2")
        return totals[1] / wall
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _control(pid: int) -> None:
    done = subprocess.run(["callgrind_control", "--dump", str(pid)], capture_output=True, text=True, timeout=120,
                          check=False)
    if done.returncode != 0:
        raise BenchError(f"callgrind_control failed: {done.stdout[-500:]} {done.stderr[-500:]}")


def start_to_frame() -> dict[str, float]:
    """Instructions of ``scoreboard run --simulate`` to its first frame, the project's
    bytecode compiled (warm, as installed) and not (cold), and of ``python -c pass``."""
    folder = Path(tempfile.mkdtemp(prefix="count-start-"))
    try:
        link = folder / "board"
        board = start_board(link)
        out: dict[str, float] = {}
        try:
            for kind in ("warm", "cold"):
                source = source_copy(folder / f"src-{kind}", compiled=kind == "warm")
                run_dir = folder / kind
                service = service_command(run_dir, link)
                args = service[service.index("scoreboard.run_cli") + 1:]
                for probe, key in (("first", f"instr_start_to_frame_{kind}"), ("game", f"instr_start_to_game_frame_{kind}")):
                    shown = run_dir / "out" / "screens.txt"
                    before = shown.read_text(encoding="utf-8").count("\n") if shown.exists() else 0
                    out[key] = count([sys.executable, "-m", "scoreboard.start_probe", probe, *args], source)
                    if shown.read_text(encoding="utf-8").count("\n") <= before:
                        raise BenchError(f"the counted start ({probe}) showed no frame")
        finally:
            stop_board(board)
        out["instr_bare_python"] = count([sys.executable, "-c", "pass"])
        return out
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def pi_ms(instructions: float) -> float:
    """Milliseconds ``instructions`` take on a Pi Zero 2 W core (:data:`PI_HZ`, :data:`PI_IPC`)."""
    return instructions / (PI_HZ * PI_IPC) * 1000


def run() -> dict[str, float]:
    """The figures (none without valgrind)."""
    if not available():
        print("  (valgrind is not installed: no instruction counts; apt install valgrind)")
        return {}
    figures: dict[str, float] = {}
    for key, (op, n) in OPS.items():
        figures[key] = per_op(op, n)
    figures["instr_idle_second"] = idle_second()
    figures.update(start_to_frame())
    for key in list(figures):
        if key != "instr_bare_python":
            figures[f"{key}_pi_ms"] = pi_ms(figures[key])
    return figures


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:28s} {value:16.1f}")
