"""The board link's transport: a serial port, a reader thread, and reconnection.

:class:`SerialBoard` opens the controller's port (an explicit path or symlink, else the first
``/dev/serial/by-id`` entry matching a pattern), feeds what it reads to a
:class:`~drivers.board.link.BoardLink`, writes what the link wants sent and puts the link's
events on a queue. When the port fails or the link goes silent it closes the port, reports
:class:`BoardDisconnected` and opens the path again (resolved anew each time, so a replugged
board or a re-pointed symlink is found) with a doubling back-off, then reports
:class:`BoardReconnected` and asks for HELLO. I/O errors never leave the loop; the game state
lives elsewhere and is untouched. :class:`FakeCable` is an in-memory stand-in for the port.
"""

from __future__ import annotations

import glob
import logging
import os
import queue
import select
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Protocol, Self, TypeAlias

import serial

from engine.errors import ScoreboardError

from .link import (
    BoardConnected,
    BoardEvent,
    BoardLink,
    CommandRefused,
    LinkLost,
    ReaderFault,
    SelfTestReported,
    SnapshotReceived,
    UnsupportedBoard,
    VersionMismatch,
)
from .protocol import Loc, Message
from .snapshot import BoardSnapshot
from .stabiliser import Stabiliser, StableBoard

log = logging.getLogger(__name__)

BY_ID_DIR = "/dev/serial/by-id"
DEFAULT_PATTERN = "*"
DEFAULT_BAUDRATE = 115200
MIN_WAIT_S = 0.001  # the reader's shortest sleep before a deadline of the link


class BoardNotFoundError(ScoreboardError, FileNotFoundError):
    """No serial port matches the configured pattern (the pattern is quoted)."""


class BackoffConfigError(ScoreboardError, ValueError):
    """A reconnect back-off that is not ``0 < initial <= maximum`` (the values are quoted)."""


# --- events ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class BoardDisconnected(BoardEvent):
    """The board is away: the port failed, could not be opened, or the link went silent."""

    reason: str
    at: float


@dataclass(frozen=True)
class BoardReconnected(BoardEvent):
    """The port is open (again) at ``path`` (``device``: where the path led); HELLO was asked for."""

    path: str
    device: str
    at: float


SerialEvent: TypeAlias = (
    BoardConnected
    | SnapshotReceived
    | ReaderFault
    | VersionMismatch
    | UnsupportedBoard
    | LinkLost
    | SelfTestReported
    | CommandRefused
    | BoardDisconnected
    | BoardReconnected
)
"""Every event a :class:`SerialBoard` puts on its queue (the link's and its own)."""


# --- ports ----------------------------------------------------------------------------------


class Port(Protocol):
    """What :class:`SerialBoard` needs of a port (:class:`SerialPort` around pyserial).

    ``wait`` blocks until bytes can be read (True), :meth:`wake` is called from another
    thread or ``timeout`` seconds pass (None: no limit); ``read`` then returns what is
    there without waiting (a port that reports bytes and gives none has failed: it raises).
    """

    @property
    def in_waiting(self) -> int: ...

    def wait(self, timeout: float | None) -> bool: ...

    def wake(self) -> None: ...

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes, /) -> int | None: ...

    def close(self) -> None: ...


def find_port(path: str | None = None, pattern: str = DEFAULT_PATTERN, directory: str = BY_ID_DIR) -> str:
    """``path`` if given, else the first entry of ``directory`` matching ``pattern`` (sorted)."""
    if path:
        return path
    full = os.path.join(directory, pattern)
    matches = sorted(glob.glob(full))
    if not matches:
        raise BoardNotFoundError(f"no serial port matches {full!r}")
    return matches[0]


class SerialPort:
    """A pyserial port read without waiting (``timeout=0``), waited on with ``select`` on its
    file descriptor and a pipe that :meth:`wake` writes to: the reader sleeps in the kernel
    until the board writes, its link has a deadline, or another thread wants it."""

    def __init__(self, port: serial.Serial) -> None:
        self.port = port
        self._woken, self._waker = os.pipe()
        os.set_blocking(self._woken, False)
        os.set_blocking(self._waker, False)

    @property
    def in_waiting(self) -> int:
        return int(self.port.in_waiting)

    def wait(self, timeout: float | None) -> bool:
        readable, _, _ = select.select([self.port.fileno(), self._woken], [], [], timeout)
        if self._woken in readable:
            try:
                os.read(self._woken, 512)
            except BlockingIOError:
                pass
        return self.port.fileno() in readable

    def wake(self) -> None:
        try:
            os.write(self._waker, b"w")
        except (BlockingIOError, OSError):
            pass  # (already woken, or closed)

    def read(self, size: int = 1) -> bytes:
        return bytes(self.port.read(size))

    def write(self, data: bytes, /) -> int | None:
        written: int | None = self.port.write(data)
        return written

    def close(self) -> None:
        try:
            self.port.close()
        finally:
            for fd in (self._woken, self._waker):
                try:
                    os.close(fd)
                except OSError:
                    pass


def open_serial(path: str, baudrate: int = DEFAULT_BAUDRATE) -> SerialPort:
    """``path`` opened with pyserial, exclusively (another process holding it is an error)."""
    return SerialPort(serial.Serial(path, baudrate, timeout=0, write_timeout=1.0, exclusive=True))


@dataclass(frozen=True)
class Backoff:
    """Reconnect delays: ``initial`` seconds, doubling up to ``maximum``."""

    initial: float = 0.5
    maximum: float = 5.0

    def __post_init__(self) -> None:
        if not 0 < self.initial <= self.maximum:
            raise BackoffConfigError(f"back-off needs 0 < initial <= maximum, got {self.initial!r} and {self.maximum!r}")

    def next(self, delay: float) -> float:
        """The delay after ``delay``."""
        return min(delay * 2, self.maximum)


# --- the transport --------------------------------------------------------------------------


class SerialBoard:
    """The board controller on a serial port, read by a thread; events go to ``events``.

    ``path``: a port or symlink (else :func:`find_port` with ``pattern`` in ``directory``);
    ``opener``: opens a path (:func:`open_serial`, or :meth:`FakeCable.open`); ``link``: the
    protocol engine (its counters survive reconnects); ``clock`` and ``sleep``: time, injectable
    (the default sleep wakes up on :meth:`close`). Use as a context manager, or call
    :meth:`start` and :meth:`close`.

    ``lockstep``: the board runs in steps on a virtual clock; the reader thread then never
    looks at the time by itself: the link's timers run when :meth:`tick` is called, between
    two steps, so what the host writes of its own accord reaches the board at the same step
    in every run.
    """

    def __init__(
        self,
        path: str | None = None,
        *,
        pattern: str = DEFAULT_PATTERN,
        directory: str = BY_ID_DIR,
        baudrate: int = DEFAULT_BAUDRATE,
        link: BoardLink | None = None,
        events: queue.Queue[BoardEvent] | None = None,
        backoff: Backoff = Backoff(),
        opener: Callable[[str], Port] | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] | None = None,
        lockstep: bool = False,
    ) -> None:
        self.path = path
        self.pattern = pattern
        self.directory = directory
        self.link = link if link is not None else BoardLink()
        self.events: queue.Queue[BoardEvent] = events if events is not None else queue.Queue()
        self.backoff = backoff
        self._opener: Callable[[str], Port] = opener or (lambda p: open_serial(p, baudrate))
        self._clock = clock
        self._stop = threading.Event()
        self._sleep = sleep or self._stop.wait
        self._thread: threading.Thread | None = None
        self._port: Port | None = None
        self._away = False  # a BoardDisconnected was sent and no BoardReconnected since
        self._position: tuple[str | None, int] = (None, 0)
        self.lockstep = lockstep
        self._lock = threading.Lock()  # the link and the port: the reader thread and tick()
        self._lost: str | None = None  # a LinkLost that tick() saw: the reader reconnects
        self._device: str | None = None  # the device opened last (the path resolved)
        self._commands: queue.Queue[Message] = queue.Queue()
        # the quiet board (:meth:`quiet`): an unchanged reading kept back instead of queued
        self._hold = False
        self._held: SnapshotReceived | None = None
        self._last_tags: Mapping[Loc, bytes] | None = None  # of the last reading queued
        self._held_lock = threading.Lock()

    # --- lifecycle ---

    def start(self) -> None:
        """Start the reader thread (once)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="board-link", daemon=True)
            self._thread.start()

    def close(self) -> None:
        """Stop the reader thread and close the port."""
        self._stop.set()
        self._wake()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    @property
    def is_running(self) -> bool:
        """True while the reader thread runs."""
        return self._thread is not None and self._thread.is_alive()

    @property
    def is_connected(self) -> bool:
        """True while the port is open."""
        return self._port is not None

    def position(self) -> tuple[str | None, int]:
        """The device open now (the path resolved) and how many bytes were read from it.

        Counted after the events those bytes gave are on the queue: once the count reaches
        what the controller wrote, every event of it can be read (a lockstep barrier).
        """
        return self._position

    def tick(self, now: float) -> None:
        """Lockstep: run the link's timers at ``now`` (resent requests, a lost link) and write
        what they send, before the board's next step. Nothing while the port is closed."""
        with self._lock:
            port = self._port
            if port is None or self._lost is not None:
                return
            events = self.link.tick(now)
            out = self.link.outgoing()
            if out:
                port.write(out)
            for event in events:
                if isinstance(event, LinkLost):
                    self._lost = f"no frame from the board for {event.silent_for:.1f} s"
                    port.wake()  # (the reader reconnects)
                    return
                self._put(event)

    def send(self, msg: Message) -> None:
        """Have ``msg`` (a host command) sent to the controller; safe from any thread.

        It goes out at once while the port is open (the reader thread is woken); a command
        given while it is not waits for the next open.
        """
        self._commands.put(msg)
        self._wake()

    def _wake(self) -> None:
        """Wake the reader thread from its wait on the port (if one is open)."""
        port = self._port
        if port is not None:
            port.wake()

    def read_events(self, timeout: float) -> list[BoardEvent]:
        """The events waiting, after blocking up to ``timeout`` seconds for the first one."""
        try:
            out = [self.events.get(timeout=timeout)]
        except queue.Empty:
            return []
        while True:
            try:
                out.append(self.events.get_nowait())
            except queue.Empty:
                return out

    # --- the loop ---

    def _run(self) -> None:
        try:
            self._loop()
        except BaseException as e:  # a bug, not I/O: say the board is away, then fail loudly
            self._down(f"board reader stopped: {e!r}")
            raise
        finally:
            self._close_port()

    def _loop(self) -> None:
        delay = self.backoff.initial
        while not self._stop.is_set():
            target = self.path or f"{self.directory}/{self.pattern}"
            try:
                target = find_port(self.path, self.pattern, self.directory)
                self._port = self._opener(target)
            except OSError as e:  # serial.SerialException is one
                self._down(f"cannot open {target!r}: {e}")
                self._sleep(delay)
                delay = self.backoff.next(delay)
                continue
            now = self._clock()
            self.link.reset(now)
            self._away = False
            self._lost = None
            self._device = os.path.realpath(target)  # (counted in position() once IDENTIFY is out)
            self._put(BoardReconnected(target, os.path.realpath(target), now))
            log.info("board port %s open", target)
            frames_before = self.link.stats.frames
            try:
                reason = self._pump(self._port)
            except OSError as e:
                reason = f"port error: {e}"
            self._close_port()
            if self._stop.is_set():
                return
            self._down(reason)
            if self.link.stats.frames > frames_before:  # the board answered: start again quickly
                delay = self.backoff.initial
            self._sleep(delay)
            delay = self.backoff.next(delay)

    def _pump(self, port: Port) -> str:
        """Read, feed, write until stopped or the link goes silent; raises on port errors."""
        with self._lock:
            out = self.link.outgoing()
            if out:
                port.write(out)  # (IDENTIFY: written before a lockstep barrier can count this port read)
            self._position = (self._device, 0)
        while not self._stop.is_set():
            # Asleep until the board writes, the link has a deadline (never in lockstep: the
            # timers run in tick()), or another thread wakes it (send, tick, close).
            due = None if self.lockstep else self.link.next_due()
            readable = port.wait(None if due is None else max(due - self._clock(), MIN_WAIT_S))
            data = port.read(max(1, port.in_waiting)) if readable else b""
            with self._lock:
                if self._lost is not None:
                    return self._lost
                now = self._clock()
                events = self.link.feed(data, now) if data else []
                if not self.lockstep:
                    events += self.link.tick(now)
                while True:
                    try:
                        self.link.send(self._commands.get_nowait())
                    except queue.Empty:
                        break
                out = self.link.outgoing()
                if out:
                    port.write(out)
                for event in events:
                    if isinstance(event, LinkLost):
                        return f"no frame from the board for {event.silent_for:.1f} s"
                    self._put(event)
                if data:
                    device, count = self._position
                    self._position = (device, count + len(data))
        return "closed"

    def _down(self, reason: str) -> None:
        if not self._away:
            self._away = True
            log.warning("board disconnected: %s", reason)
            self._put(BoardDisconnected(reason, self._clock()))

    def quiet(self, on: bool) -> None:
        """While ``on``, a reading whose tags are those of the last reading queued is kept back
        (the latest one only, :meth:`take_held`) instead of waking the consumer: at rest the
        board's HEARTBEAT and SNAPSHOT frames confirm what is known. Any other event, or a
        changed reading, is queued after the one kept back. The consumer turns it on only
        while an unchanged reading can change nothing for it, and takes the one kept back
        before any other input (so a Done finds the latest reading as if it had been queued)."""
        with self._held_lock:
            self._hold = on

    def take_held(self) -> SnapshotReceived | None:
        """The reading kept back while quiet (None: none), which is then no longer kept."""
        with self._held_lock:
            held, self._held = self._held, None
            return held

    def _put(self, event: BoardEvent) -> None:
        with self._held_lock:
            if isinstance(event, SnapshotReceived):
                if self._hold and self._last_tags is not None and event.snapshot.tags == self._last_tags:
                    self._held = event
                    return
                self._last_tags = event.snapshot.tags
            if self._held is not None:  # (in the order they came)
                self.events.put(self._held)
                self._held = None
            self.events.put(event)

    def _close_port(self) -> None:
        with self._lock:
            self._position = (None, 0)
            port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except OSError:
                pass


# --- an in-memory port for tests ------------------------------------------------------------


class FakeCable:
    """A USB cable between a test, playing the board controller, and :class:`SerialBoard`.

    Pass :meth:`open` as the board's ``opener``. :meth:`send` is what the controller writes,
    :meth:`received` what the host wrote; :meth:`unplug` breaks the open port and makes
    opening fail until :meth:`replug`. ``opens`` counts successful opens.
    """

    def __init__(self, timeout: float = 0.01) -> None:
        self.timeout = timeout
        self.plugged = True
        self.opens = 0
        self.path: str | None = None
        self._cond = threading.Condition()
        self._to_host = bytearray()
        self._to_board = bytearray()
        self._port: _FakePort | None = None

    def open(self, path: str) -> Port:
        """Open the cable's port (``path`` is only recorded); fails while unplugged."""
        with self._cond:
            if not self.plugged:
                raise FileNotFoundError(2, "No such file or directory", path)
            self._to_host.clear()  # opening a port flushes what was waiting
            self._port = _FakePort(self)
            self.opens += 1
            self.path = path
            return self._port

    def send(self, data: bytes) -> None:
        """The controller writes ``data`` (lost while unplugged)."""
        with self._cond:
            if self.plugged:
                self._to_host += data
                self._cond.notify_all()

    def received(self) -> bytes:
        """What the host wrote since the last call."""
        with self._cond:
            out = bytes(self._to_board)
            self._to_board.clear()
            return out

    def unplug(self) -> None:
        """Pull the cable: the open port fails, opening fails."""
        with self._cond:
            self.plugged = False
            if self._port is not None:
                self._port.broken = True
            self._to_host.clear()
            self._cond.notify_all()

    def replug(self) -> None:
        """Put the cable back."""
        with self._cond:
            self.plugged = True


class _FakePort:
    def __init__(self, cable: FakeCable) -> None:
        self._cable = cable
        self.broken = False
        self.closed = False
        self._woken = False

    def _check(self) -> None:
        if self.broken or self.closed:
            raise serial.SerialException("device disconnected")

    @property
    def in_waiting(self) -> int:
        with self._cable._cond:
            self._check()
            return len(self._cable._to_host)

    def wait(self, timeout: float | None) -> bool:
        cable = self._cable
        with cable._cond:
            if not self._woken and not cable._to_host and not self.broken and not self.closed:
                cable._cond.wait(timeout)
            self._woken = False
            return bool(cable._to_host) or self.broken or self.closed

    def wake(self) -> None:
        with self._cable._cond:
            self._woken = True
            self._cable._cond.notify_all()

    def read(self, size: int = 1) -> bytes:
        cable = self._cable
        with cable._cond:
            self._check()
            if not cable._to_host:
                cable._cond.wait(cable.timeout)
                self._check()
            out = bytes(cable._to_host[:size])
            del cable._to_host[:size]
            return out

    def write(self, data: bytes, /) -> int:
        with self._cable._cond:
            self._check()
            self._cable._to_board += data
            return len(data)

    def close(self) -> None:
        self.closed = True


def open_board(
    path: str | None = None, *, stabiliser: Stabiliser | None = None, poll: float = 0.5
) -> Iterator[BoardSnapshot]:
    """Stable board snapshots from the board at ``path`` (else the by-id port), as they change.

    The first one comes when the board's first readings have settled (an empty board at
    once); the port closes when the caller stops iterating (``close()`` on the generator, or
    leaving a ``for`` loop).
    """
    stable = stabiliser if stabiliser is not None else Stabiliser()
    first = True
    with SerialBoard(path) as board:
        while True:
            changed = False
            for event in board.read_events(timeout=poll):
                if isinstance(event, SnapshotReceived):
                    changed |= any(isinstance(e, StableBoard) for e in stable.update(event.snapshot, event.at))
                    if first and stable.is_settled:
                        first, changed = False, True
            if changed:
                yield stable.stable
