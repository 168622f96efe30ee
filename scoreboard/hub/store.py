"""The hub's copy of one game: its own SQLite file, ``DATA/EVENT/TABLE/game-N.sqlite``; and
each table's presence and states over the broadcast delay, ``DATA/EVENT/TABLE/table.sqlite``.

A game's file is named by its key at the hub (``game-N`` for ``TABLE-N``, ``game-TAG-N`` for
``TABLE.TAG-N``: see :mod:`scoreboard.hub.core`); it keeps the key and its ``origin``: the
journal's identity and the board's game number.
Everything the board published of the game, as received: its start (meta data), every record
by seq (with when the hub received it and when the board committed it) and its result. A
record already held is not written again (the hub drops doubles by journal, game and seq). The file
runs in WAL mode with ``synchronous=NORMAL``: the boards keep the originals, and a record
lost here in a power cut is asked for again. Writes go through one :class:`Writer` thread
for the hub: making a game's file costs tens of milliseconds (its syncs), and a hundred games
starting at once must not hold up the records of the others on their way to the pages.
"""

from __future__ import annotations

import json
import logging
import queue
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import ScoreboardError

__all__ = ["GameStore", "StoreError", "StoredRecord", "TableStore", "Writer"]

log = logging.getLogger(__name__)


class StoreError(ScoreboardError, OSError):
    """A file of the hub that cannot be opened, read or written (``path``, SQLite's reason)."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path, self.reason = path, reason
        super().__init__(f"the hub's file {path}: {reason}")


@dataclass(frozen=True)
class StoredRecord:
    seq: int
    kind: str
    payload: dict[str, Any]
    at: float
    received: float
    committed: float | None


class Writer:
    """The hub's one writing thread: the stores' writes, in the order given."""

    def __init__(self) -> None:
        self._queue: queue.Queue[Callable[[], None] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="hub-store", daemon=True)
        self._thread.start()

    def submit(self, work: Callable[[], None]) -> None:
        self._queue.put(work)

    def _run(self) -> None:
        while (work := self._queue.get()) is not None:
            try:
                work()
            except StoreError as e:  # (the boards keep the records; a restarted hub asks for what it lacks)
                log.error("%s", e)
            except Exception:
                log.exception("the hub's store failed")

    def stop(self) -> None:
        """Write what is queued, then stop."""
        self._queue.put(None)
        self._thread.join(timeout=60)


class _Store:
    """A SQLite file of the hub made with ``SCHEMA``; writes through ``writer`` (None: at once,
    in the caller's thread). Read when the hub starts, before any write is queued."""

    SCHEMA: tuple[str, ...] = ()

    def __init__(self, path: Path, writer: Writer | None = None) -> None:
        self.path = path
        self.writer = writer
        self._conn: sqlite3.Connection | None = None
        self.existed = path.exists()
        if self.existed or writer is None:
            self._open()

    def _open(self) -> sqlite3.Connection:
        if self._conn is not None:
            return self._conn
        path = self.path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=10.0)
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            for sql in self.SCHEMA:
                conn.execute(sql)
        except (sqlite3.Error, OSError) as e:
            raise StoreError(path, str(e)) from None
        self._conn = conn
        return conn

    def _write(self, sql: str, params: tuple[Any, ...]) -> None:
        def work() -> None:
            self._run(sql, params)

        if self.writer is None:
            work()
        else:
            self.writer.submit(work)

    def close(self) -> None:
        def work() -> None:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

        if self.writer is None:
            work()
        else:
            self.writer.submit(work)

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        try:
            return self._open().execute(sql, params)
        except sqlite3.Error as e:
            raise StoreError(self.path, str(e)) from None



class GameStore(_Store):
    """One game's file."""

    SCHEMA = (
        "CREATE TABLE IF NOT EXISTS game (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        ("CREATE TABLE IF NOT EXISTS records (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, payload TEXT NOT NULL,"
         " at REAL NOT NULL, received REAL NOT NULL, committed REAL)"),
    )

    def add(self, seq: int, kind: str, payload: dict[str, Any], at: float, received: float,
            committed: float | None) -> None:
        """Keep a record (one already held is left as it is)."""
        self._write(
            "INSERT OR IGNORE INTO records (seq, kind, payload, at, received, committed) VALUES (?, ?, ?, ?, ?, ?)",
            (seq, kind, json.dumps(payload, ensure_ascii=False), at, received, committed),
        )

    def put(self, key: str, value: Any) -> None:
        """Keep the game's ``key``, ``origin``, ``start`` or ``result`` (JSON)."""
        self._write("INSERT OR REPLACE INTO game (key, value) VALUES (?, ?)", (key, json.dumps(value, ensure_ascii=False)))

    def get(self, key: str) -> Any:
        """(Read when the hub starts: before any write is queued.)"""
        if not self.existed:
            return None
        row = self._run("SELECT value FROM game WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def records(self) -> list[StoredRecord]:
        if not self.existed:
            return []
        return [
            StoredRecord(seq, kind, json.loads(payload), at, received, committed)
            for seq, kind, payload, at, received, committed in self._run(
                "SELECT seq, kind, payload, at, received, committed FROM records ORDER BY seq"
            )
        ]


class TableStore(_Store):
    """A table's presence and states as they arrived, as far back as the pages may still be
    shown (pruned with the hub's memory): a restarted hub shows them as it would have."""

    SCHEMA = (
        "PRAGMA cache_size = -64",  # (KiB: written and read once, a table's file needs no page cache of 2 MiB)
        "CREATE TABLE IF NOT EXISTS online (id INTEGER PRIMARY KEY, at REAL NOT NULL, online INTEGER NOT NULL)",
        "CREATE TABLE IF NOT EXISTS states (id INTEGER PRIMARY KEY, at REAL NOT NULL, view TEXT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS heard (id INTEGER PRIMARY KEY CHECK (id = 1), at REAL NOT NULL)",
    )

    def add_online(self, at: float, online: bool) -> None:
        self._write("INSERT INTO online (at, online) VALUES (?, ?)", (at, int(online)))

    def add_state(self, at: float, view: dict[str, Any]) -> None:
        self._write("INSERT INTO states (at, view) VALUES (?, ?)", (at, json.dumps(view, ensure_ascii=False)))

    def put_heard(self, at: float) -> None:
        """When the hub first heard of the table (kept once)."""
        self._write("INSERT OR IGNORE INTO heard (id, at) VALUES (1, ?)", (at,))

    def prune(self, online_from: float | None, states_from: float | None) -> None:
        """Forget the entries older than ``*_from`` (None: keep them all)."""
        if online_from is not None:
            self._write("DELETE FROM online WHERE at < ?", (online_from,))
        if states_from is not None:
            self._write("DELETE FROM states WHERE at < ?", (states_from,))

    def load(self) -> tuple[float | None, list[tuple[float, bool]], list[tuple[float, dict[str, Any]]]]:
        """When the table was first heard of, its presence and its states, in order."""
        if not self.existed:
            return None, [], []
        row = self._run("SELECT at FROM heard").fetchone()
        online = [(at, bool(v)) for at, v in self._run("SELECT at, online FROM online ORDER BY id")]
        states = [(at, json.loads(view)) for at, view in self._run("SELECT at, view FROM states ORDER BY id")]
        return (None if row is None else float(row[0])), online, states
