"""A Mosquitto broker run by the scoreboard itself: for the tests and ``scoreboard bench``.

At a venue the broker is Debian's ``mosquitto`` service with the configuration of
``scoreboard hub setup``; here the same configuration, on a loopback port, as a child process.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from engine.errors import ScoreboardError

from .setup import Setup, write_setup

__all__ = ["MOSQUITTO", "Broker", "BrokerError", "free_port", "mosquitto_path"]

MOSQUITTO = ("/usr/sbin/mosquitto", "/usr/bin/mosquitto")


class BrokerError(ScoreboardError, RuntimeError):
    """The broker could not be started (``why``; its log lines)."""

    def __init__(self, why: str, output: str = "") -> None:
        self.why, self.output = why, output
        super().__init__(f"{why}{': ' + output.strip()[-400:] if output.strip() else ''}")


def mosquitto_path() -> str | None:
    """Where Debian's ``mosquitto`` is, or None."""
    found = shutil.which("mosquitto")
    if found:
        return found
    return next((p for p in MOSQUITTO if Path(p).exists()), None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Broker:
    """Mosquitto on 127.0.0.1:``port`` with a fresh ``hub setup`` of ``tables`` in ``folder``."""

    def __init__(self, folder: Path, event: str, tables: tuple[str, ...], *, port: int | None = None,
                 persistence: bool = False, tls: tuple[Path, Path, Path] | None = None) -> None:
        """``tls``: the broker's certificate, its key and the CA's certificate (a TLS listener)."""
        self.folder = folder
        self.port = port or free_port()
        me = pwd.getpwuid(os.getuid()).pw_name  # (as root Mosquitto would become "mosquitto", who cannot read the files)
        cert, key, ca = tls if tls is not None else (None, None, None)
        self.setup = Setup(event, tables, folder, listen="127.0.0.1", port=self.port,
                           persistence=folder / "persistence" if persistence else None, run_as=me,
                           tls_cert=cert, tls_key=key, tls_ca=ca)
        self.passwords = write_setup(self.setup, force=True)
        self.conf = folder / "mosquitto.conf"
        self.log = folder / "mosquitto.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 10.0) -> None:
        exe = mosquitto_path()
        if exe is None:
            raise BrokerError("no mosquitto: apt-get install mosquitto")
        out = self.log.open("ab")
        self.process = subprocess.Popen([exe, "-c", str(self.conf)], stdout=out, stderr=subprocess.STDOUT)
        out.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise BrokerError(f"mosquitto exited with {self.process.returncode}", self.log.read_text(errors="replace"))
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise BrokerError(f"mosquitto did not listen on port {self.port} within {timeout:.0f} s",
                          self.log.read_text(errors="replace"))

    def kill(self) -> None:
        """SIGKILL: the broker vanishes, as a venue's broker does when its power goes."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)
        self.process = None

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.process = None

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def board_settings(self, table: str) -> list[str]:
        """``--set`` arguments that make a board publish as ``table`` to this broker."""
        return [
            "broadcast.enabled=true", "broadcast.host=127.0.0.1", f"broadcast.port={self.port}",
            f"broadcast.event={self.setup.event}", f"broadcast.table={table}", f"broadcast.username={table}",
            f"broadcast.password={self.passwords[table]}",
        ]
