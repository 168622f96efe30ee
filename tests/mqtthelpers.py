"""A real Mosquitto on a loopback port, the hub in this process, a TCP cut between a board and the broker.

The broker is Debian's ``mosquitto`` (``.ci/run`` installs it) with the configuration
``scoreboard hub setup`` writes: users, passwords, ACL; tests that need it are skipped with
the reason where it is missing. :class:`HubRig` runs the hub's core and its broker connection
(and, on demand, its web server) in this process; :class:`Cut` is a TCP relay a test can
take down and bring back: a board's Wi-Fi.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from scoreboard.broadcast.messages import Topics
from scoreboard.config import BroadcastConfig, HubConfig
from scoreboard.hub.broker import Broker, free_port, mosquitto_path
from scoreboard.hub.core import Hub
from scoreboard.hub.ingest import Ingest

EVENT = "open"
TABLES = ("t1", "t2")


def need_mosquitto() -> None:
    if mosquitto_path() is None:
        pytest.skip("no mosquitto: apt-get install mosquitto (.ci/run does)")


@contextlib.contextmanager
def running_broker(folder: Path, tables: tuple[str, ...] = TABLES) -> Iterator[Broker]:
    need_mosquitto()
    broker = Broker(folder, EVENT, tables)
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


@contextlib.contextmanager
def running_tls_broker(folder: Path, tls: tuple[Path, Path, Path]) -> Iterator[Broker]:
    need_mosquitto()
    broker = Broker(folder, EVENT, TABLES, tls=tls)
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


def wait_for(what: Callable[[], object], timeout: float = 15.0, why: str = "") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if what():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out after {timeout:g} s waiting for {why or what}")


def board_config(broker: Broker, table: str, *, port: int | None = None, user: str | None = None,
                 password: str | None = None, flush_s: int = 5) -> BroadcastConfig:
    user = table if user is None else user
    return BroadcastConfig(
        enabled=True, host="127.0.0.1", port=port or broker.port, event=EVENT, table=table, username=user,
        password=broker.passwords.get(user, "") if password is None else password, flush_s=flush_s, keepalive_s=5,
    )


class HubRig:
    """The hub's core and its broker connection, here; ``changes`` counts the tables' changes."""

    def __init__(self, broker: Broker, folder: Path, *, delay: float = 0.0, racks: str = "end", tls_ca: str = "",
                 tables: tuple[str, ...] = ()) -> None:
        self.config = HubConfig(host="127.0.0.1", port=broker.port, event=EVENT, username="hub",
                                password=broker.passwords["hub"], delay_s=int(delay), racks=racks, tls_ca=tls_ca,
                                tables=tables)
        self.hub = Hub(Topics("scoreboard", EVENT), folder, delay=delay, racks=racks, tables=tables)
        self.changes: list[tuple[str, float]] = []
        self._listeners: list[Callable[[str, float], None]] = [lambda t, at: self.changes.append((t, at))]
        self.ingest = Ingest(self.hub, self.config, self._changed)
        self.server: object | None = None
        self._thread: threading.Thread | None = None

    def _changed(self, table: str, at: float) -> None:
        for listener in list(self._listeners):
            listener(table, at)

    def start(self) -> HubRig:
        self.ingest.start()
        wait_for(self.ingest.connected.is_set, why="the hub to connect")
        return self

    def serve(self) -> str:
        """The hub's pages on a free port (a thread with its own event loop); their address."""
        from scoreboard.hub.web import Pusher, make_app
        from scoreboard.play.web import Server

        pusher = Pusher(self.hub)
        self._listeners.append(pusher.changed)
        sock = socket.create_server(("127.0.0.1", 0))
        server = Server(make_app(pusher))
        self.server = server
        ready = threading.Event()

        async def main() -> None:
            pusher.loop = asyncio.get_running_loop()
            ready.set()
            await server.serve(sockets=[sock])

        self._thread = threading.Thread(target=lambda: asyncio.run(main()), daemon=True)
        self._thread.start()
        ready.wait(10)
        return f"http://127.0.0.1:{sock.getsockname()[1]}"

    def stop(self) -> None:
        self.ingest.stop()
        if self.server is not None:
            self.server.stop()  # type: ignore[attr-defined]
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.hub.close()


class Cut:
    """A TCP relay from a free local port to ``target``: :meth:`down` drops every connection
    and refuses new ones until :meth:`up`."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.port = free_port()
        self._live = threading.Event()
        self._conns: list[socket.socket] = []
        self._lock = threading.Lock()
        self._server = socket.create_server(("127.0.0.1", self.port))
        self._server.settimeout(0.1)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._live.set()
        self._thread.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self._server.accept()
            except (TimeoutError, OSError):
                continue
            if not self._live.is_set():
                client.close()
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target), timeout=2)
            except OSError:
                client.close()
                continue
            for s in (client, upstream):  # (blocking: an idle MQTT connection is no error)
                s.settimeout(None)
            with self._lock:
                self._conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, a: socket.socket, b: socket.socket) -> None:
        try:
            while True:
                data = a.recv(65536)
                if not data:
                    break
                b.sendall(data)
        except OSError:
            pass
        finally:
            for s in (a, b):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def down(self) -> None:
        self._live.clear()
        with self._lock:
            for s in self._conns:
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                with contextlib.suppress(OSError):
                    s.close()
            self._conns.clear()

    def up(self) -> None:
        self._live.set()

    def close(self) -> None:
        self.down()
        self._stop.set()
        self._thread.join(timeout=2)
        self._server.close()
