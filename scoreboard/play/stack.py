"""The processes of a simulated table: the board controller and the service, each its own.

:class:`TableStack` starts the simulated board (``python -m scoreboard.sim``, real time, its
control socket) and the service on it (``scoreboard run --simulate --link ... --control
...``), in a folder of its own (short: unix socket paths are short). Both stop when this
process ends, however it ends (each watches a pipe only this process holds). The service's
power can be pulled (:meth:`TableStack.pull_power`: SIGKILL, then started again with the
same journal, as a Pi whose plug is pulled and put back); the board keeps its tiles, as a
board controller on its own supply does. Each start of the service is announced to the
``on_service`` callback, each end too (with its exit status). A folder left by a ``play``
that was killed (its owner gone) is removed by the next one.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from scoreboard.sim.client import SimControl

__all__ = ["StackSettings", "TableStack", "remove_stale_folders"]

log = logging.getLogger(__name__)

START_S = 30.0  # seconds a process may take to open its socket


FOLDER_PREFIX = "sb-play-"
OWNER = "owner"  # the folder's file naming the process that made it


def remove_stale_folders(root: Path | None = None) -> list[Path]:
    """Remove the stack folders (their sockets) of ``play`` processes that are gone (a
    ``kill -9`` leaves its folder behind); the folders removed."""
    removed = []
    for folder in (root or Path(tempfile.gettempdir())).glob(FOLDER_PREFIX + "*"):
        try:
            if folder.stat().st_uid != os.getuid():
                continue
            pid = int((folder / OWNER).read_text(encoding="ascii"))
        except (OSError, ValueError):
            continue  # not ours, or still being made
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
        except PermissionError:
            pass  # (alive, someone else's)
    return removed


@dataclass(frozen=True)
class StackSettings:
    """What the service is started with: the journal's folder ``state``, the frames' ``out``,
    ``overrides`` (``--set KEY=VALUE``), a configuration file, the board's ``racks`` and
    ``slots``, and a table ``script`` to play (``--watch``)."""

    state: Path
    out: Path
    overrides: Sequence[str] = ()
    config: str | None = None
    racks: int = 2
    slots: int = 7
    script: Path | None = None
    env: dict[str, str] = field(default_factory=dict)


class TableStack:
    """The simulated board and the service on it (see the module doc)."""

    def __init__(self, settings: StackSettings, on_service: Callable[[str, int | None], None] = lambda what, code: None) -> None:
        self.settings = settings
        self.on_service = on_service
        remove_stale_folders()
        self.folder = Path(tempfile.mkdtemp(prefix=FOLDER_PREFIX))
        (self.folder / OWNER).write_text(str(os.getpid()), encoding="ascii")
        self.link = self.folder / "board"
        self.board_control = self.folder / "board.control"
        self.service_control = self.folder / "service.control"
        self.board: subprocess.Popen[bytes] | None = None
        self.service: asyncio.subprocess.Process | None = None
        self.starts = 0  # the service's starts so far
        self.power_pulls = 0
        self._pulling = False
        self._closing = False
        self._watched, self._held = os.pipe()  # our end (held) keeps both children running
        os.set_inheritable(self._watched, True)
        self._waiter: asyncio.Task[None] | None = None

    # --- the board ---

    def start_board(self) -> SimControl:
        """Start the simulated board; a client of its control socket."""
        s = self.settings
        self.settings.out.mkdir(parents=True, exist_ok=True)
        with open(s.out / "board.log", "ab") as log_file:
            self.board = subprocess.Popen(
                [sys.executable, "-m", "scoreboard.sim", "--link", str(self.link), "--control", str(self.board_control),
                 "--racks", str(s.racks), "--slots", str(s.slots), "--parent-pipe", str(self._watched)],
                stdin=subprocess.DEVNULL, stdout=log_file, stderr=log_file, pass_fds=(self._watched,),
            )
        try:
            return SimControl.connect(self.board_control, timeout=START_S)
        except Exception:
            self.board.kill()
            raise

    # --- the service ---

    def service_command(self) -> list[str]:
        s = self.settings
        command = [
            sys.executable, "-m", "scoreboard.cli", "run", "--simulate", "--link", str(self.link),
            "--control", str(self.service_control), "--out", str(s.out), "--parent-pipe", str(self._watched),
            "--set", f"paths.state_dir={s.state}",
        ]
        if s.config:
            command += ["--config", s.config]
        for override in s.overrides:
            command += ["--set", override]
        if s.script is not None:
            command += ["--script", str(s.script)]
        return command

    async def start_service(self) -> None:
        """Start the service (after a power pull: again, on the same journal)."""
        s = self.settings
        s.state.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, **s.env}
        with open(s.out / "service.log", "ab") as log_file:
            self.service = await asyncio.create_subprocess_exec(
                *self.service_command(), stdin=asyncio.subprocess.DEVNULL, stdout=log_file, stderr=log_file,
                pass_fds=(self._watched,), env=env,
            )
        self.starts += 1
        self.on_service("started", None)
        self._waiter = asyncio.get_running_loop().create_task(self._wait(self.service))

    async def _wait(self, process: asyncio.subprocess.Process) -> None:
        code = await process.wait()
        if self._pulling or self._closing or process is not self.service:
            return
        self.on_service("ended", code)

    def service_alive(self) -> bool:
        """True while the service process runs."""
        return self.service is not None and self.service.returncode is None

    async def pull_power(self, off_s: float = 0.3) -> None:
        """The service's power pulled (SIGKILL) and put back after ``off_s`` seconds."""
        process = self.service
        self._pulling = True
        try:
            if process is not None and process.returncode is None:
                process.send_signal(signal.SIGKILL)
                await process.wait()
            self.power_pulls += 1
            self.on_service("off", None)
            await asyncio.sleep(off_s)
        finally:
            self._pulling = False
        if not self._closing:
            await self.start_service()

    # --- the end ---

    async def close(self) -> None:
        """Stop the service (SIGTERM: it closes its journal), then the board; remove the folder."""
        self._closing = True
        process = self.service
        if process is not None and process.returncode is None:
            process.terminate()
            try:
                await asyncio.wait_for(process.wait(), 15)
            except asyncio.TimeoutError:
                process.kill()
                await process.wait()
        self.close_board()

    def close_board(self) -> None:
        """Stop the board and remove the stack's folder (the service stopped first)."""
        if self.board is not None and self.board.poll() is None:
            self.board.terminate()
            try:
                self.board.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.board.kill()
                self.board.wait()
        for fd in (self._held, self._watched):
            try:
                os.close(fd)
            except OSError:
                pass
        self._held = self._watched = -1
        shutil.rmtree(self.folder, ignore_errors=True)
