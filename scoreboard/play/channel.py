"""The service's control socket in simulation (``scoreboard run --simulate --control PATH``).

A simulated table's seat buttons are gpiozero mock pins inside the service process; this
socket lets another process press them, and watch what the service shows. It is what
``scoreboard play`` talks to; it exists only with ``--simulate`` (a real table's buttons are
pressed by fingers). Like the simulated board's control socket
(:mod:`scoreboard.sim.control`) it is a unix stream socket at PATH, its owner's only (mode
0600; a stale socket file there is replaced, anything else refused), removed on exit, and
every request is bounded.

Requests, one line each (UTF-8, at most :data:`MAX_REQUEST` bytes)::

    press 1 done        seat 1's Done closed (the pin driven low) until released
    release 1 done      and opened again; a long press is a press held long enough
    press menu          the shared Menu button (release menu)
    watch               from now on, every frame and the table's summary (the current ones first)
    ping                just the answer

Every line the service writes is one JSON object: the answer to a request, in order
(``{"kind": "ok", "request": "press 1 done"}`` or ``{"kind": "error", "request": ...,
"problem": "seat", "message": "no seat 3 at this table: seats 1-2"}``), or, to a client
that asked to watch, an event: ``{"kind": "frame", "panel": null, "at": T, "seq": N,
"width": 256, "height": 64, "png": BASE64}`` (each frame a display shows, as the 1-bit image
the panel got, ``panel`` None for the shared display or the seat's index; ``at`` the wall
clock when it was shown) or ``{"kind": "table", "view": {...}}`` (:mod:`scoreboard.play.view`,
when it changes).

Bounds: at most :data:`MAX_CLIENTS` clients (a newer one takes over from the oldest); a
button held at most :data:`MAX_HOLD_S` (then it is released, as a finger would be);
a client's buttons are released when it hangs up; a watcher that does not read and falls
:data:`MAX_BACKLOG` bytes behind is hung up on (it connects again and gets the current
frames). A bad line is answered with an error naming the problem and the connection goes on.
"""

from __future__ import annotations

import asyncio
import base64
import collections
import enum
import io
import json
import logging
import os
import selectors
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol

from PIL import Image

from drivers.buttons.logic import ButtonId, Role
from engine.errors import ScoreboardError
from scoreboard.private_socket import listen_private, remove_if_ours

__all__ = [
    "MAX_BACKLOG", "MAX_CLIENTS", "MAX_HOLD_S", "MAX_REQUEST", "MIN_PRESS_S", "ChannelClient", "ChannelError", "ChannelPathError",
    "ChannelProblem", "Pin", "Ping", "Press", "Request", "TableChannel", "Watch", "parse_request",
]

log = logging.getLogger(__name__)

MAX_REQUEST: Final = 256
"""Bytes in a request line, its newline left out (the longest request has some 20)."""
MAX_CLIENTS: Final = 4
"""Clients at once; a newer one takes over from the oldest."""
MAX_HOLD_S: Final = 60.0
"""A button held longer is released (past any stuck-button time, ``buttons.stuck_ms``)."""
MIN_PRESS_S: Final = 0.1
"""The shortest press a pin is closed for: a release that arrives sooner (a click whose press was
held up on a loaded machine or network) is carried out then, so a press is never taken as a
bounce (the service passes its ``buttons.debounce_ms`` plus a margin)."""
MAX_BACKLOG: Final = 4 << 20
"""Bytes a client may fall behind before it is hung up on (some thousands of frames)."""


class ChannelProblem(enum.Enum):
    """What is wrong with a request line."""

    EMPTY = "empty"
    UNKNOWN = "unknown"  # no such request
    ARITY = "arity"
    SEAT = "seat"  # not a seat of this table
    BUTTON = "button"  # not done, challenge or menu
    TOO_LONG = "too long"
    ENCODING = "encoding"


class ChannelError(ScoreboardError, ValueError):
    """A request line that is not one: the :class:`ChannelProblem`, the reason and the line."""

    def __init__(self, problem: ChannelProblem, reason: str, line: str = "") -> None:
        self.problem = problem
        self.reason = reason
        self.line = line
        super().__init__(f"{line!r}: {reason}" if line else reason)


class ChannelPathError(ScoreboardError, OSError):
    """The socket's path is taken by something that is not a socket, or cannot be bound."""


# --- requests --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Press:
    """``press``/``release``: ``button`` closed (``down``) or opened."""

    button: ButtonId
    down: bool

    def __str__(self) -> str:
        verb = "press" if self.down else "release"
        if self.button.seat is None:
            return f"{verb} menu"
        return f"{verb} {self.button.seat} {self.button.role.value.lower()}"


@dataclass(frozen=True)
class Watch:
    """``watch``: the frames and the table's summary from now on."""

    def __str__(self) -> str:
        return "watch"


@dataclass(frozen=True)
class Ping:
    """``ping``: just the answer."""

    def __str__(self) -> str:
        return "ping"


Request = Press | Watch | Ping
_ROLES = {"done": Role.DONE, "challenge": Role.CHALLENGE}


def parse_request(line: str, seats: int) -> Request:
    """The request on ``line`` at a table of ``seats`` seats; :class:`ChannelError` otherwise."""
    words = line.split()
    text = line.strip()
    if not words:
        raise ChannelError(ChannelProblem.EMPTY, "an empty request", text)
    name, args = words[0].lower(), [w.lower() for w in words[1:]]
    if name in ("watch", "ping"):
        if args:
            raise ChannelError(ChannelProblem.ARITY, f"{name} takes no arguments", text)
        return Watch() if name == "watch" else Ping()
    if name not in ("press", "release"):
        raise ChannelError(ChannelProblem.UNKNOWN, f"unknown request {name[:40]!r} (known: press, release, watch, ping)",
                           text)
    if args == ["menu"]:
        return Press(ButtonId(None, Role.MENU), name == "press")
    if len(args) != 2:
        raise ChannelError(ChannelProblem.ARITY, f"{name} SEAT done|challenge, or {name} menu", text)
    seat_text, role_text = args
    if not seat_text.isdigit() or not 1 <= int(seat_text) <= seats:
        raise ChannelError(ChannelProblem.SEAT, f"no seat {seat_text[:20]!r} at this table: seats 1-{seats}", text)
    if role_text not in _ROLES:
        raise ChannelError(ChannelProblem.BUTTON, f"no button {role_text[:20]!r} at a seat: done or challenge", text)
    return Press(ButtonId(int(seat_text), _ROLES[role_text]), name == "press")


# --- the server (in the service) ---------------------------------------------------------------


class Pin(Protocol):
    """A mock pin (gpiozero's ``MockPin``): the button closes to GND."""

    def drive_low(self) -> None: ...

    def drive_high(self) -> None: ...


class _Client:
    def __init__(self, sock: socket.socket, number: int) -> None:
        self.sock = sock
        self.number = number
        self.inbox = bytearray()
        self.skipping = False
        self.out = bytearray()
        self.watching = False


class TableChannel:
    """The service's control socket at ``path``: presses on ``pins``, frames and the table out.

    :meth:`frame` and :meth:`table` are called by the service's thread (its watcher); the
    socket is served by a thread of its own, which also presses and releases the pins.
    ``view`` makes the table's summary of a state (:func:`scoreboard.play.view.table_view`).
    """

    def __init__(self, path: str | os.PathLike[str], pins: Mapping[ButtonId, Pin], seats: int,
                 view: Callable[[Any], dict[str, Any]], *, clock: Callable[[], float] = time.monotonic,
                 min_press_s: float = MIN_PRESS_S) -> None:
        self.path = Path(path)
        self.pins = dict(pins)
        self.seats = seats
        self.view = view
        self.clock = clock
        self.min_press_s = min_press_s
        self.clients: list[_Client] = []
        self.accepted = 0
        self.requests = 0
        self._listener: socket.socket | None = None
        self._selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._lock = threading.Lock()
        self._frames: collections.deque[tuple[int | None, Image.Image, float]] = collections.deque()
        self._state: Any = None
        self._state_new = False
        self._last_frames: dict[int | None, bytes] = {}  # panel -> its last frame line
        self._last_table: bytes | None = None
        self._last_view: dict[str, Any] | None = None
        self._seq = 0
        self._held: dict[ButtonId, dict[int, float]] = {}  # button -> client number -> release deadline
        self._closed_at: dict[ButtonId, float] = {}  # button -> when its pin was driven low
        self._releasing: set[tuple[ButtonId, int]] = set()  # releases held back to the shortest press
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._inode = -1

    # --- from the service's thread -----------------------------------------------------------

    def frame(self, panel: int | None, image: Image.Image) -> None:
        """A display showed ``image`` (``panel`` None: the shared one; else a seat's index)."""
        at = time.time()
        with self._lock:
            self._frames.append((panel, image, at))
        self._wake()

    def table(self, state: object) -> None:
        """The table's state is now ``state`` (its summary is pushed when it changed)."""
        with self._lock:
            self._state = state
            self._state_new = True
        self._wake()

    # --- the socket ----------------------------------------------------------------------------

    def open(self) -> None:
        """Listen on :attr:`path` and start serving."""
        self._listener, self._inode = listen_private(self.path, ChannelPathError)
        self._selector.register(self._listener, selectors.EVENT_READ, None)
        self._selector.register(self._wake_r, selectors.EVENT_READ, None)
        self._thread = threading.Thread(target=self._serve, name="table-channel", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop serving, release every button held, hang up and remove the socket file."""
        self._stop.set()
        self._wake()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=10)
        self._thread = None
        bye = _line({"kind": "bye", "why": "the service is stopping"})
        for client in list(self.clients):
            if client.watching:  # told first: a watcher tells a stop from a power cut (which says nothing)
                self._send(client, bye)
            self._drop(client)
        if self._listener is not None:
            self._listener.close()
            self._listener = None
            remove_if_ours(self.path, self._inode)
        self._selector.close()
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass

    def __enter__(self) -> TableChannel:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"\0")
        except (BlockingIOError, OSError):
            pass  # (a wake-up is waiting already, or the channel is closed)

    def _serve(self) -> None:
        while not self._stop.is_set():
            timeout = self._next_deadline()
            try:
                events = self._selector.select(timeout)
            except (OSError, ValueError):
                return
            for key, mask in events:
                if key.fileobj is self._listener:
                    self._accept()
                elif key.fileobj == self._wake_r:
                    try:
                        while os.read(self._wake_r, 4096):
                            pass
                    except (BlockingIOError, OSError):
                        pass
                else:
                    client = key.data
                    assert isinstance(client, _Client)
                    if mask & selectors.EVENT_READ and client in self.clients:
                        self._receive(client)
                    if mask & selectors.EVENT_WRITE and client in self.clients:
                        self._flush(client)
            self._publish()
            self._expire_holds()

    def _next_deadline(self) -> float | None:
        deadlines = [d for holders in self._held.values() for d in holders.values()]
        return max(0.0, min(deadlines) - self.clock()) if deadlines else None

    def _accept(self) -> None:
        assert self._listener is not None
        try:
            sock, _ = self._listener.accept()
        except (BlockingIOError, InterruptedError, ConnectionAbortedError):
            return
        while len(self.clients) >= MAX_CLIENTS:
            self._drop(self.clients[0])
        sock.setblocking(False)
        self.accepted += 1
        client = _Client(sock, self.accepted)
        self.clients.append(client)
        self._selector.register(sock, selectors.EVENT_READ, client)

    def _drop(self, client: _Client) -> None:
        if client in self.clients:
            self.clients.remove(client)
        try:
            self._selector.unregister(client.sock)
        except (KeyError, ValueError, OSError):
            pass
        client.sock.close()
        for button in list(self._held):
            if client.number in self._held[button]:
                self._release(button, client.number, "its client hung up")

    def _receive(self, client: _Client) -> None:
        try:
            data = client.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._drop(client)
            return
        buf = client.inbox
        buf += data
        while client in self.clients:
            end = buf.find(b"\n")
            if client.skipping:
                del buf[: len(buf) if end < 0 else end + 1]
                client.skipping = end < 0
                if end < 0:
                    return
                continue
            if end < 0 and len(buf) <= MAX_REQUEST:
                return
            if end < 0 or end > MAX_REQUEST:
                self.requests += 1
                head = bytes(buf[:40]).decode("utf-8", "replace")
                self._send(client, _error(head + "...", ChannelProblem.TOO_LONG,
                                          f"a request line of more than {MAX_REQUEST} bytes (skipped)"))
                del buf[: len(buf) if end < 0 else end + 1]
                client.skipping = end < 0
                continue
            raw = bytes(buf[:end]).rstrip(b"\r")
            del buf[: end + 1]
            self._answer(client, raw)

    def _answer(self, client: _Client, raw: bytes) -> None:
        self.requests += 1
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            self._send(client, _error(repr(raw)[:60], ChannelProblem.ENCODING, "not UTF-8"))
            return
        try:
            request = parse_request(line, self.seats)
        except ChannelError as e:
            self._send(client, _error(e.line, e.problem, e.reason))
            return
        match request:
            case Press(button=button, down=True):
                self._press(button, client.number)
            case Press(button=button, down=False):
                if client.number in self._held.get(button, {}):
                    self._release_after_shortest(button, client.number)
            case Watch():
                client.watching = True
            case Ping():
                pass
        self._send(client, _line({"kind": "ok", "request": str(request)}))
        if isinstance(request, Watch):
            with self._lock:
                frames = list(self._last_frames.values())
                table = self._last_table
            for frame in frames:
                self._send(client, frame)
            if table is not None:
                self._send(client, table)

    def _press(self, button: ButtonId, holder: int) -> None:
        holders = self._held.setdefault(button, {})
        first = not holders
        now = self.clock()
        holders[holder] = now + MAX_HOLD_S
        self._releasing.discard((button, holder))
        if first:
            self._closed_at[button] = now
            pin = self.pins.get(button)
            if pin is not None:
                pin.drive_low()

    def _release_after_shortest(self, button: ButtonId, holder: int) -> None:
        """A client's release: now, or once the pin has been closed :attr:`min_press_s`."""
        due = self._closed_at.get(button, -1e18) + self.min_press_s
        if self.clock() >= due:
            self._release(button, holder)
        else:
            self._held[button][holder] = due
            self._releasing.add((button, holder))

    def _release(self, button: ButtonId, holder: int, why: str | None = None) -> None:
        holders = self._held.get(button, {})
        holders.pop(holder, None)
        self._releasing.discard((button, holder))
        if why is not None:
            log.info("%s released: %s", button.name(), why)
        if not holders:
            self._held.pop(button, None)
            self._closed_at.pop(button, None)
            pin = self.pins.get(button)
            if pin is not None:
                pin.drive_high()

    def _expire_holds(self) -> None:
        now = self.clock()
        for button, holders in list(self._held.items()):
            for holder, deadline in list(holders.items()):
                if deadline <= now:
                    late = (button, holder) not in self._releasing
                    self._release(button, holder, f"held longer than {MAX_HOLD_S:g} s" if late else None)

    def _publish(self) -> None:
        """Encode what the service showed since the last look and send it to the watchers."""
        with self._lock:
            frames = list(self._frames)
            self._frames.clear()
            state, fresh = self._state, self._state_new
            self._state_new = False
        lines: list[bytes] = []
        for panel, image, at in frames:
            self._seq += 1
            lines.append(_frame_line(panel, image, at, self._seq))
            with self._lock:
                self._last_frames[panel] = lines[-1]
        if fresh and state is not None:
            try:
                view = self.view(state)
            except Exception:  # a bug in the summary must not stop the channel
                log.exception("the table's summary failed")
                view = None
            if view is not None and view != self._last_view:
                self._last_view = view
                line = _line({"kind": "table", "view": view})
                with self._lock:
                    self._last_table = line
                lines.append(line)
        if not lines:
            return
        for client in list(self.clients):
            if client.watching:
                for line in lines:
                    self._send(client, line)

    def _send(self, client: _Client, line: bytes) -> None:
        if client not in self.clients:
            return
        if len(client.out) + len(line) > MAX_BACKLOG:
            log.warning("a watcher of the control socket fell %d bytes behind: hung up on", len(client.out))
            self._drop(client)
            return
        client.out += line
        self._flush(client)

    def _flush(self, client: _Client) -> None:
        try:
            while client.out:
                sent = client.sock.send(client.out)
                del client.out[:sent]
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            self._drop(client)
            return
        want = selectors.EVENT_READ | (selectors.EVENT_WRITE if client.out else 0)
        try:
            self._selector.modify(client.sock, want, client)
        except (KeyError, ValueError, OSError):
            pass


def _line(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8") + b"\n"


def _error(request: str, problem: ChannelProblem, reason: str) -> bytes:
    return _line({"kind": "error", "request": request, "problem": problem.value, "message": reason})


def _frame_line(panel: int | None, image: Image.Image, at: float, seq: int) -> bytes:
    buffer = io.BytesIO()
    image.convert("1").save(buffer, format="PNG", optimize=False)
    png = base64.b64encode(buffer.getvalue()).decode("ascii")
    return _line({"kind": "frame", "panel": panel, "at": at, "seq": seq, "width": image.width,
                  "height": image.height, "png": png})


# --- the client (in the web server) -----------------------------------------------------------------


class ChannelClient:
    """An asyncio client of a service's control socket: requests answered in order, events
    (frames, the table) to ``on_event``. Made by :meth:`connect`."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 on_event: Callable[[dict[str, Any]], None]) -> None:
        self._reader = reader
        self._writer = writer
        self._on_event = on_event
        self._waiting: collections.deque[asyncio.Future[dict[str, Any]]] = collections.deque()
        self._task = asyncio.get_running_loop().create_task(self._read())
        self.closed = asyncio.Event()

    @classmethod
    async def connect(cls, path: str | Path, on_event: Callable[[dict[str, Any]], None], timeout: float = 30.0,
                      alive: Callable[[], bool] = lambda: True) -> ChannelClient:
        """Connect to ``path`` as soon as the service listens there (until ``timeout`` or while
        ``alive`` says the service still runs); :class:`ConnectionError` otherwise."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                reader, writer = await asyncio.open_unix_connection(str(path), limit=MAX_BACKLOG)
            except (FileNotFoundError, ConnectionRefusedError) as e:
                if time.monotonic() >= deadline or not alive():
                    raise ConnectionError(f"no service control socket at {path}: {e}") from None
                await asyncio.sleep(0.02)  # (the service is starting: it opens the socket before its game)
                continue
            return cls(reader, writer, on_event)

    async def request(self, line: str, timeout: float = 10.0) -> dict[str, Any]:
        """Send one request line; its answer (``kind`` ``ok`` or ``error``)."""
        if "\n" in line or "\r" in line:
            raise ValueError(f"one line per request, not {line!r}")
        if self.closed.is_set():
            raise ConnectionError("the service's control socket is closed")
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting.append(future)
        self._writer.write(line.encode("utf-8") + b"\n")
        await self._writer.drain()
        return await asyncio.wait_for(future, timeout)

    async def _read(self) -> None:
        try:
            while True:
                raw = await self._reader.readline()
                if not raw:
                    break
                try:
                    message = json.loads(raw)
                except ValueError:
                    log.warning("not a line of the service's control socket: %r", raw[:80])
                    continue
                if not isinstance(message, dict):
                    continue
                if message.get("kind") in ("ok", "error"):
                    if self._waiting:
                        future = self._waiting.popleft()
                        if not future.done():
                            future.set_result(message)
                    continue
                self._on_event(message)
        except (ConnectionError, OSError, asyncio.LimitOverrunError, ValueError):
            pass
        finally:
            while self._waiting:
                future = self._waiting.popleft()
                if not future.done():
                    future.set_exception(ConnectionError("the service hung up"))
            self.closed.set()

    async def close(self) -> None:
        """Hang up."""
        self._writer.close()
        try:
            await self._writer.wait_closed()
        except (ConnectionError, OSError):
            pass
        self._task.cancel()
        self.closed.set()
