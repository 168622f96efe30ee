"""The simulated board's control socket (``simulate-board --control PATH``).

A unix stream socket at PATH, its owner's only (mode 0600; a stale socket file there is
replaced, anything else is refused; it is made after the link and removed on exit). Up to
:data:`MAX_CLIENTS` clients at once (the service stepping a lockstep board, and the browser
table of ``scoreboard play`` moving tiles); a client beyond them takes over from the oldest,
so a restarted service never waits behind a predecessor that hangs. Each client's requests
are answered on its own connection, in its order. UTF-8, one request line in, one answer
line out, for every line::

    ok PTY WRITTEN NOW [JSON]    # PTY: the pty's device, '-' while unplugged; WRITTEN: bytes
                                 # written to that pty since its host opened it (0 while
                                 # out or while no host has it open);
                                 # NOW: the board's time in seconds, 6 decimals
    error MESSAGE                # the message quotes the bad line; the simulator goes on

Requests: any command of :mod:`scoreboard.sim.commands` without a time (``place H8
04A1B2C3D4E5F6``, ``unplug 2``, ``exit`` ...), parsed like a script line and carried out at
NOW, its output then written; ``place`` is physical (a tag already there: nothing; a tag
elsewhere: lifted from there first), ``remove`` of an empty location does nothing,
``move`` from one warns on stderr (the answer is ``ok``). ``advance SECONDS`` runs the
board that long (``--lockstep`` only): the scripted steps it reaches, the controller, and
every frame written, waiting for a host that has the port open to read them (so a host
must read while it waits for the answer); a host that closes the port ends the waiting,
and so does one that reads nothing for :data:`~scoreboard.sim.pty.HOST_STALL_S` (10 s; its
bytes wait on).
``tags`` answers with the locations holding a tag now, physically
(``{"H8":"045C...","R1.3":"..."}``); ``ping`` just answers. Before each request the host's
bytes are read: what the host wrote before asking reaches the controller before the clock
moves. :mod:`scoreboard.sim.client` is a client.

Every request is bounded in size and time, so that every one is answered: a line is at
most :data:`MAX_REQUEST` bytes (1 KiB; a longer one is answered ``error`` once and skipped
to its end, the connection goes on), the numbers are those of
:mod:`scoreboard.sim.commands` (an unplug at most an hour, ``garbage`` at most 128 KiB ...),
a rack slot or reader the board lacks is an error, and ``advance`` is at most
:data:`MAX_ADVANCE_S` (10 s of board time) a request. The simulator serves one request at
a time and answers nobody while it runs one, so a longer time is several requests, as the
service's 50 ms steps are (a bound rather than a background run: a lockstep board's time
moves only when its client says so, and every answer says where it stands).

``--lockstep`` (needs ``--control``; implies a virtual clock): the clock moves only on
``advance``, by exactly the time asked (the controller may run a few milliseconds past it
to finish its step; NOW does not show that). Between requests the host's bytes are read
and wait for the controller; steps at time 0 are applied before the first request. A host
that has read WRITTEN bytes since it opened the port has every frame written so far
(nothing is written to a port nobody has open; a new host starts the count at 0, as seen
at the simulator's next look at the port). ``unplug S`` shows PTY
``-`` until an ``advance`` reaches NOW + S; the new pty (WRITTEN 0 again) may get the old
one's device name. Without ``--lockstep`` the board keeps its own clock (real or
``--virtual-clock``) and requests apply at its NOW; ``advance`` is an error.
"""

from __future__ import annotations

import json
import os
import select
import socket
import traceback
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from engine.errors import ScoreboardError
from scoreboard.private_socket import listen_private, remove_if_ours
from scoreboard.sim.board import SimulatedBoard
from scoreboard.sim.commands import (
    USAGE,
    Command,
    CommandError,
    Geometry,
    Problem,
    check_arity,
    command_from_words,
    number_text,
    seconds,
    shown,
    words_of,
)

__all__ = [
    "MAX_ADVANCE_S", "MAX_CLIENTS", "MAX_REQUEST", "Advance", "ControlPathError", "ControlServer", "Ping", "Request", "Tags",
    "parse_request", "respond", "status",
]

MAX_REQUEST = 1024
"""Bytes in a request line, its newline left out (the longest command is some 60)."""
MAX_ADVANCE_S = 10.0
"""``advance``: at most 10 s of board time a request (about a second of real time here)."""
MAX_CLIENTS = 4
"""Clients served at once; a newer one takes over from the oldest."""


class ControlPathError(ScoreboardError, OSError):
    """The control socket path is taken by something that is not a socket, or cannot be bound."""


# --- requests ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Advance:
    """``advance SECONDS``: run a lockstep board that long."""

    seconds: float

    def __str__(self) -> str:
        return f"advance {number_text(self.seconds)}"


@dataclass(frozen=True)
class Tags:
    """``tags``: where the tags lie now."""

    def __str__(self) -> str:
        return "tags"


@dataclass(frozen=True)
class Ping:
    """``ping``: just the answer."""

    def __str__(self) -> str:
        return "ping"


Request = Command | Advance | Tags | Ping
_OWN = ("advance", "ping", "tags")


def parse_request(line: str, geometry: Geometry | None = None) -> Request:
    """The request on ``line`` (for a board of ``geometry``, when given);
    :class:`~scoreboard.sim.commands.CommandError` quotes the line."""
    words = words_of(line)
    try:
        if not words:
            raise CommandError(Problem.EMPTY, "an empty request")
        name, args = words[0].lower(), words[1:]
        if name == "advance":
            check_arity(name, args, 1, 1)
            return Advance(seconds(args[0], MAX_ADVANCE_S))
        if name in ("ping", "tags"):
            check_arity(name, args, 0, 0)
            return Ping() if name == "ping" else Tags()
        if name in ("at", "after"):
            raise CommandError(Problem.MISPLACED, f"no {name!r} here: an action applies at once (then 'advance')")
        if name not in USAGE:
            known = ", ".join(sorted([*USAGE, *_OWN]))
            raise CommandError(Problem.UNKNOWN, f"unknown request {shown(name)!r} (known: {known})")
        command = command_from_words(words)
        if geometry is not None:
            geometry.check(command)
        return command
    except CommandError as e:
        raise e.on(line.strip()) from None


def status(board: SimulatedBoard, data: object = None) -> str:
    """``ok PTY WRITTEN NOW`` (and `` JSON`` when ``data`` is not None)."""
    line = f"ok {board.port.name or '-'} {board.port.written} {board.clock:.6f}"
    if data is not None:
        line += " " + json.dumps(data, separators=(",", ":"))
    return line


def respond(board: SimulatedBoard, line: str) -> str:
    """Carry out one request line on ``board``; its answer, ``ok ...`` or ``error ...``."""
    try:
        request = parse_request(line, board.geometry)
    except CommandError as e:
        return f"error {e}"
    board.pump()  # what the host wrote before asking comes first
    data: object = None
    match request:
        case Ping():
            pass
        case Tags():
            data = {name: uid.hex().upper() for name, uid in board.tag_names().items()}
        case Advance(time):
            if not board.lockstep:
                return f"error {line.strip()!r}: advance needs --lockstep (this board runs on its own clock)"
            board.run_for(time)
        case _:
            board.act(request)
    return status(board, data)


# --- the server ------------------------------------------------------------------------------


class _Client:
    """One connection: its socket, the bytes of a request line not complete yet."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buf = bytearray()
        self.skipping = False  # in a line too long: its bytes are dropped up to its newline


class ControlServer:
    """The control socket of a :class:`SimulatedBoard`: one request line, one answer line.

    Up to :data:`MAX_CLIENTS` clients; a newer one takes over from the oldest (which is
    closed), so a restarted service never waits behind its killed or hung predecessor.
    """

    def __init__(self, board: SimulatedBoard, path: str | os.PathLike[str]) -> None:
        self.board = board
        self.path = Path(path)
        self.listener: socket.socket | None = None
        self.connected: list[_Client] = []  # oldest first
        self.clients = 0  # connections accepted so far
        self.requests = 0
        self._inode = -1

    @property
    def client(self) -> socket.socket | None:
        """The newest client's socket (None: nobody is connected)."""
        return self.connected[-1].sock if self.connected else None

    def open(self) -> None:
        """Listen on :attr:`path` (a stale socket file there is removed first)."""
        self.listener, self._inode = listen_private(self.path, ControlPathError)

    def close(self) -> None:
        """Stop listening, hang up on the clients and remove the socket file."""
        for client in list(self.connected):
            self._drop(client)
        if self.listener is not None:
            self.listener.close()
            self.listener = None
            remove_if_ours(self.path, self._inode)  # (not a newer simulator's)

    def __enter__(self) -> ControlServer:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def register(self, poller: select.poll) -> None:
        """Have ``poller`` watch the listening socket and the clients."""
        if self.listener is not None:
            poller.register(self.listener, select.POLLIN)
        for client in self.connected:
            poller.register(client.sock, select.POLLIN)

    def handle(self, events: Iterable[tuple[int, int]]) -> None:
        """Serve what ``events`` (from the poller) say is ready: requests, then new clients."""
        ready = {fd for fd, _ in events}
        for client in list(self.connected):
            if client in self.connected and client.sock.fileno() in ready:
                self._receive(client)
        if self.listener is not None and self.listener.fileno() in ready:
            self._accept()

    def _accept(self) -> None:
        assert self.listener is not None
        try:
            sock, _ = self.listener.accept()
        except (BlockingIOError, InterruptedError, ConnectionAbortedError):
            return
        while len(self.connected) >= MAX_CLIENTS:
            self._drop(self.connected[0])
        sock.settimeout(10.0)  # for sending; it is read only when the poller says so
        self.connected.append(_Client(sock))
        self.clients += 1

    def _drop(self, client: _Client) -> None:
        if client in self.connected:
            self.connected.remove(client)
        client.sock.close()
        client.buf.clear()

    def _receive(self, client: _Client) -> None:
        try:
            data = client.sock.recv(65536)
        except OSError:
            data = b""
        if not data:
            self._drop(client)
            return
        buf = client.buf
        buf += data
        while client in self.connected and not self.board.stopped:
            end = buf.find(b"\n")
            if client.skipping:  # the rest of a line already answered
                del buf[: len(buf) if end < 0 else end + 1]
                client.skipping = end < 0
                if end < 0:
                    break
                continue
            if end < 0 and len(buf) <= MAX_REQUEST:
                break
            if end < 0 or end > MAX_REQUEST:
                self.requests += 1
                head = bytes(buf[:40])
                self._send(client, f"error {head!r}...: a request line of more than {MAX_REQUEST} bytes (skipped)")
                del buf[: len(buf) if end < 0 else end + 1]
                client.skipping = end < 0
                continue
            raw = bytes(buf[:end])
            del buf[: end + 1]
            self._send(client, self.answer(raw))

    def answer(self, raw: bytes) -> str:
        """The answer line to one request line (without its newline)."""
        self.requests += 1
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            return f"error {raw!r}: not UTF-8"
        try:
            return respond(self.board, line.rstrip("\r"))
        except Exception as e:  # noqa: BLE001 - a bad line never stops the simulator
            traceback.print_exc()
            return f"error {line.strip()!r}: {type(e).__name__}: {e}"

    def _send(self, client: _Client, answer: str) -> None:
        try:
            client.sock.sendall(answer.encode("utf-8") + b"\n")
        except OSError:  # gone, or not reading for 10 s
            self._drop(client)
