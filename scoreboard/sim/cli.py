"""``scoreboard simulate-board`` and ``python -m scoreboard.sim``: a simulated board on a pty.

``--link PATH`` (the symlink to the pty, like a ``/dev/serial/by-id`` name), ``--script
FILE`` (:mod:`scoreboard.sim.script`), ``--virtual-clock``, ``--control PATH``
(:mod:`scoreboard.sim.control`) and ``--lockstep``, ``--racks N``, ``--slots N``, ``--seed
N``, ``--parent-pipe FD``: the read end of a pipe whose write end the starting process
holds; the simulator stops when it reads end-of-file, whatever way that process went
(even SIGKILL; any POSIX system); ``--own-folder``: the link's folder is the simulator's
(a temporary one its parent made), removed when it stops, so that a parent killed before
it could clean up leaves nothing behind. Exit 0 when stopped (SIGTERM, SIGINT, ``exit`` or
the parent gone), 2 when it cannot start.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from scoreboard.sim.board import SimulatedBoard
from scoreboard.sim.commands import CommandError, Geometry
from scoreboard.sim.control import ControlPathError, ControlServer
from scoreboard.sim.pty import LinkPathError
from scoreboard.sim.script import Step, parse_script

__all__ = ["cmd_simulate_board", "main", "watch_parent"]


def cmd_simulate_board(args: argparse.Namespace) -> int:
    """``scoreboard simulate-board --link PATH [--script FILE] [--virtual-clock] [--control PATH [--lockstep]]``."""
    control_path = getattr(args, "control", None)
    lockstep = bool(getattr(args, "lockstep", False))
    if lockstep and not control_path:
        print("scoreboard: --lockstep needs --control PATH: the clock moves only on 'advance' requests",
              file=sys.stderr)
        return 2
    steps: list[Step] = []
    if args.script:
        try:
            steps = parse_script(Path(args.script).read_text(encoding="utf-8"), Geometry.of(args.racks, args.slots))
        except OSError as e:
            print(f"scoreboard: cannot read {args.script}: {e.strerror}", file=sys.stderr)
            return 2
        except UnicodeDecodeError as e:
            print(f"scoreboard: {args.script} is not UTF-8: {e}", file=sys.stderr)
            return 2
        except CommandError as e:
            print(f"scoreboard: {args.script}: {e}", file=sys.stderr)
            return 2
    stop = threading.Event()
    parent = getattr(args, "parent_pipe", None)
    if parent is not None:
        try:
            watch_parent(parent, stop)
        except OSError as e:
            print(f"scoreboard: no parent pipe at file descriptor {parent}: {e.strerror}", file=sys.stderr)
            return 2
    board = SimulatedBoard(args.link, steps, racks=args.racks, slots=args.slots, seed=args.seed,
                           virtual=args.virtual_clock, lockstep=lockstep)
    control = ControlServer(board, control_path) if control_path else None

    def on_signal(signum: int, _frame: object) -> None:
        stop.set()

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        try:
            name = board.start()
            if control is not None:
                control.open()  # after the link: once the socket is there, so is the pty
        except (LinkPathError, ControlPathError) as e:
            print(f"scoreboard: {e}", file=sys.stderr)
            return 2
        where = f", control at {control_path}" + (" (lockstep)" if lockstep else "") if control else ""
        print(f"simulated board on {name}, linked at {args.link}{where}", file=sys.stderr, flush=True)
        board.serve(stop, control)
    finally:
        if control is not None:
            control.close()
        board.close()
        for s, handler in old.items():
            signal.signal(s, handler)
        if getattr(args, "own_folder", False):
            shutil.rmtree(Path(args.link).parent, ignore_errors=True)
    return 0


def watch_parent(fd: int, stop: threading.Event) -> threading.Thread:
    """Set ``stop`` once the pipe ``fd`` reads end-of-file (its writer, the parent, is gone)."""
    os.fstat(fd)  # OSError now when there is no such descriptor

    def watch() -> None:
        try:
            while os.read(fd, 512):
                pass
        except OSError:
            pass
        stop.set()

    thread = threading.Thread(target=watch, name="parent-pipe", daemon=True)
    thread.start()
    return thread


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m scoreboard.sim --link PATH ...`` (the same as simulate-board)."""
    from scoreboard.cli import main as scoreboard

    return scoreboard(["simulate-board", *(sys.argv[1:] if argv is None else argv)])
