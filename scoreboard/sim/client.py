"""A client of the simulated board's control socket (``simulate-board --control PATH``).

One request line, one answer line (the protocol is in :mod:`scoreboard.sim.control`)::

    with SimControl.connect("/run/scoreboard/board.ctl") as sim:
        sim.request("place H8 045C004502011E")
        sim.send(Remove(location("H8")))  # a typed command (scoreboard.sim.commands)
        reply = sim.advance(0.5)          # --lockstep: the board runs 0.5 s of its time
        reply.written                     # bytes the pty got since it was plugged
        sim.tags()                        # {"H8": b"\\x04\\x5c..."}: where the tags lie

An ``error`` answer raises :class:`SimControlError` with the simulator's message; so does
a socket that is not there in time, or an answer that does not come in time (the
connection is then closed: a late answer would be taken for the next one).
"""

from __future__ import annotations

import json
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from engine.errors import ScoreboardError
from scoreboard.sim.commands import Command

__all__ = ["Reply", "SimControl", "SimControlError", "parse_reply"]


class SimControlError(ScoreboardError, ConnectionError):
    """The control socket is not there, hung up, timed out, or answered ``error``."""


@dataclass(frozen=True)
class Reply:
    """An ``ok`` answer: the pty (None while unplugged), bytes written to it, board time."""

    pty: str | None
    written: int
    now: float
    data: Any | None = None


def parse_reply(line: str) -> Reply:
    """The :class:`Reply` in an answer line; ``error ...`` raises :class:`SimControlError`."""
    if line.startswith("error"):
        raise SimControlError(line[len("error"):].strip() or "error")
    parts = line.split(" ", 4)
    if len(parts) < 4 or parts[0] != "ok":
        raise SimControlError(f"not an answer of the simulator: {line!r}")
    try:
        written, now = int(parts[2]), float(parts[3])
        data = json.loads(parts[4]) if len(parts) == 5 else None
    except ValueError:
        raise SimControlError(f"not an answer of the simulator: {line!r}") from None
    return Reply(None if parts[1] == "-" else parts[1], written, now, data)


class SimControl:
    """A connection to the control socket of a simulated board."""

    def __init__(self, sock: socket.socket, path: str, timeout: float = 5.0) -> None:
        self.path = path
        self.timeout = timeout
        self._sock: socket.socket | None = sock
        self._buf = bytearray()

    @classmethod
    def connect(cls, path: str | Path, timeout: float = 5.0) -> SimControl:
        """Connect to ``path``, retrying until the simulator listens or ``timeout`` passes.

        ``timeout`` is also each request's time limit (see :meth:`request`).
        """
        where = str(path)
        deadline = time.monotonic() + timeout
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.settimeout(max(0.1, deadline - time.monotonic()))
                sock.connect(where)
            except (FileNotFoundError, ConnectionRefusedError, TimeoutError) as e:
                sock.close()
                if time.monotonic() >= deadline:
                    raise SimControlError(
                        f"no simulated board's control socket at {where} after {timeout:g} s: {e}") from None
                time.sleep(0.02)
                continue
            except OSError as e:
                sock.close()
                raise SimControlError(f"cannot connect to the control socket {where}: {e}") from None
            return cls(sock, where, timeout)

    # --- requests ---------------------------------------------------------------------------

    def request(self, line: str, timeout: float | None = None) -> Reply:
        """Send one request line and wait for its answer (``timeout`` seconds, default
        :attr:`timeout`)."""
        if "\n" in line or "\r" in line:
            raise ValueError(f"one line per request, not {line!r}")
        sock = self._sock
        if sock is None:
            raise SimControlError(f"the connection to {self.path} is closed")
        limit = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + limit
        try:
            sock.settimeout(limit)
            sock.sendall(line.encode("utf-8") + b"\n")
            while (end := self._buf.find(b"\n")) < 0:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError()
                sock.settimeout(left)
                chunk = sock.recv(65536)
                if not chunk:
                    self.close()
                    raise SimControlError(f"the simulator at {self.path} hung up (request {line!r})")
                self._buf += chunk
        except TimeoutError:
            self.close()
            raise SimControlError(f"no answer from {self.path} within {limit:g} s to {line!r}") from None
        except OSError as e:
            self.close()
            raise SimControlError(f"the connection to {self.path} failed on {line!r}: {e}") from None
        answer = bytes(self._buf[:end]).decode("utf-8", "replace")
        del self._buf[: end + 1]
        return parse_reply(answer)

    def send(self, command: Command, timeout: float | None = None) -> Reply:
        """Have the board carry out ``command`` now (its text is the request line)."""
        return self.request(str(command), timeout)

    def ping(self) -> Reply:
        """The simulator's state: pty, bytes written, board time."""
        return self.request("ping")

    def advance(self, seconds: float, timeout: float | None = None) -> Reply:
        """Run a ``--lockstep`` board for ``seconds`` of its time (the host must read the pty
        meanwhile: the board waits for it)."""
        return self.request(f"advance {seconds:.6f}", timeout)

    def tags(self) -> dict[str, bytes]:
        """Where the tags lie now: ``{"H8": uid, "R1.3": uid}``."""
        data = self.request("tags").data
        if not isinstance(data, dict):
            raise SimControlError(f"no tags in the answer from {self.path}: {data!r}")
        return {str(loc): bytes.fromhex(uid) for loc, uid in data.items()}

    # --- the connection -----------------------------------------------------------------------

    def close(self) -> None:
        """Hang up (the simulator keeps running and takes the next client)."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        self._buf.clear()

    @property
    def closed(self) -> bool:
        return self._sock is None

    def __enter__(self) -> SimControl:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
