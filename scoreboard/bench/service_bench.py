"""The service's memory: peak RSS of ``scoreboard run --simulate`` playing the demo game.

As the SIGKILL test does (``tests/test_crash_recovery.py``): the demo's German script
(:func:`scoreboard.demo.demo_script`, Anna and Ben) is written to a file, the simulated
board is started as its own process (lockstep, 2 racks of 7), then the service as a child
process with ``--simulate --link --script --virtual-clock --out``: PNG capture of every
frame and ``screens.gif`` at the end, no pygame window, a fresh journal. Its peak resident
memory comes from ``os.wait4`` (``ru_maxrss``), so it covers the service alone: the board
is not its child.

The service is started by a small launcher (:data:`_LAUNCHER`, ``python -S``) that forks it,
prints its pid, waits for it with ``os.wait4`` and prints the figures. Linux keeps the high-water RSS of the
memory a process had before ``exec`` in its ``ru_maxrss``; a child spawned straight from
this (large) process would report this process's peak, not its own.

- ``service_rss_mib``: the service's peak RSS in MiB (``ru_maxrss`` is KiB on Linux).
- ``service_game_s``: wall seconds from starting the service to its exit (the whole game).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import scoreboard
from scoreboard.demo import demo_script, short_demo_script
from scoreboard.journal import Journal
from scoreboard.lexicons import open_lexicon
from scoreboard.sim.client import SimControl

PLAYERS = ("Anna", "Ben")
PATIENCE_S = 180.0  # real seconds for the whole game
HERE = Path(scoreboard.__file__).resolve().parent.parent  # where ``python -m scoreboard...`` resolves


class BenchError(RuntimeError):
    """The service did not play the game to its end."""


# argv: python -S -c LAUNCHER PYTHON ARGS...; forks PYTHON ARGS (stdout to /dev/null), prints
# {"pid": ...}, waits with os.wait4 and prints one JSON line: exit code, ru_maxrss (KiB on
# Linux), wall seconds.
_LAUNCHER = r"""
import json, os, sys, time
started = time.monotonic()
pid = os.fork()
if pid == 0:
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.execv(sys.argv[1], sys.argv[1:])
    finally:
        os._exit(127)
print(json.dumps({"pid": pid}), flush=True)
_, status, usage = os.wait4(pid, 0)
elapsed = time.monotonic() - started
print(json.dumps({"code": os.waitstatus_to_exitcode(status), "max_rss_kib": usage.ru_maxrss, "seconds": elapsed}))
"""


def start_board(link: Path, racks: int = len(PLAYERS)) -> subprocess.Popen[bytes]:
    """The simulated board (lockstep, ``racks`` racks of 7) as its own process, answering."""
    board = subprocess.Popen(
        [sys.executable, "-m", "scoreboard.sim", "--link", str(link), "--control", f"{link}.control",
         "--lockstep", "--racks", str(racks), "--slots", "7"],
        cwd=HERE, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    SimControl.connect(f"{link}.control", timeout=30).close()
    return board


def stop_board(board: subprocess.Popen[bytes]) -> None:
    """Stop the simulated board (killed if it does not end within 10 s)."""
    board.terminate()
    try:
        board.wait(timeout=10)
    except subprocess.TimeoutExpired:
        board.kill()
        board.wait()


def launch(folder: Path, link: Path, script: Path, settings: Sequence[str]) -> tuple[subprocess.Popen[bytes], int]:
    """The service playing ``script`` on ``link`` (``--set`` each of ``settings``) through the
    launcher; the launcher and the service's pid."""
    service = [
        sys.executable, "-m", "scoreboard.run_cli", "--simulate", "--link", str(link),
        "--script", str(script), "--virtual-clock", "--out", str(folder / "out"),
        "--set", f"paths.state_dir={folder / 'state'}",
    ]
    for setting in settings:
        service += ["--set", setting]
    launcher = subprocess.Popen(
        [sys.executable, "-S", "-c", _LAUNCHER, *service],
        cwd=HERE, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True,  # the launcher and the service: one process group to kill
    )
    assert launcher.stdout is not None
    first = launcher.stdout.readline()
    try:
        return launcher, int(json.loads(first)["pid"])
    except (ValueError, KeyError, TypeError):
        os.killpg(launcher.pid, signal.SIGKILL)
        _, err = launcher.communicate()
        raise BenchError(f"the launcher failed ({launcher.returncode}): {err.decode('utf-8', 'replace')[-2000:]}") from None


def finish(launcher: subprocess.Popen[bytes], patience: float) -> dict[str, Any]:
    """Wait for the launched service; its figures (exit code, ru_maxrss, seconds)."""
    try:
        out, err = launcher.communicate(timeout=patience)
    except subprocess.TimeoutExpired:
        os.killpg(launcher.pid, signal.SIGKILL)
        launcher.communicate()
        raise BenchError(f"the service did not finish the game in {patience:.0f} s") from None
    lines = out.decode("utf-8", "replace").splitlines()
    if launcher.returncode != 0 or not lines:
        raise BenchError(f"the launcher failed ({launcher.returncode}): {err.decode('utf-8', 'replace')[-2000:]}")
    figures: dict[str, Any] = json.loads(lines[-1])
    if figures["code"] != 0:
        tail = "\n".join(err.decode("utf-8", "replace").splitlines()[-10:])
        raise BenchError(f"the service exited with {figures['code']}:\n{tail}")
    return figures


def run(patience: float = PATIENCE_S, short: bool = False) -> dict[str, float]:
    """Play the demo game once through the service (``short``: the short one); its peak RSS
    and wall time."""
    write = short_demo_script if short else demo_script
    script_text, _ = write("de", list(PLAYERS), open_lexicon("de"))
    folder = Path(tempfile.mkdtemp(prefix="svc-"))  # short: unix socket paths are <= 107 bytes
    try:
        script = folder / "script.txt"
        script.write_text(script_text, encoding="utf-8")
        link = folder / "board"
        board = start_board(link)
        try:
            settings = ["game.rules=de", f'game.players=["{PLAYERS[0]}", "{PLAYERS[1]}"]', "ui.language=de"]
            launcher, _ = launch(folder, link, script, settings)
            figures = finish(launcher, patience)
        finally:
            stop_board(board)
        if not any((folder / "out" / "screens").glob("*.png")):
            raise BenchError("the service captured no frames")
        with Journal.open(folder / "state") as journal:
            game = journal.latest()
            if game is None or not game.finished:
                raise BenchError("the service stopped before the game ended")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {"service_rss_mib": figures["max_rss_kib"] / 1024, "service_game_s": float(figures["seconds"])}


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:24s} {value:12.2f}")
