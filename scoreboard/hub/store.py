"""The hub's copy of one game: its own SQLite file, ``DATA/EVENT/TABLE/game-N.sqlite``.

``N`` is the hub's number of the table's game (in the order the hub first heard of it); the
file's ``origin`` says which it is: the journal's identity and the board's game number.
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

__all__ = ["GameStore", "StoreError", "StoredRecord", "Writer"]

log = logging.getLogger(__name__)


class StoreError(ScoreboardError, OSError):
    """A game's file that cannot be opened, read or written (``path``, SQLite's reason)."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path, self.reason = path, reason
        super().__init__(f"the hub's game file {path}: {reason}")


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


class GameStore:
    """One game's file; writes through ``writer`` (None: at once, in the caller's thread)."""

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
            conn.execute("CREATE TABLE IF NOT EXISTS game (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS records (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, payload TEXT NOT NULL,"
                " at REAL NOT NULL, received REAL NOT NULL, committed REAL)"
            )
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

    def add(self, seq: int, kind: str, payload: dict[str, Any], at: float, received: float,
            committed: float | None) -> None:
        """Keep a record (one already held is left as it is)."""
        self._write(
            "INSERT OR IGNORE INTO records (seq, kind, payload, at, received, committed) VALUES (?, ?, ?, ?, ?, ?)",
            (seq, kind, json.dumps(payload, ensure_ascii=False), at, received, committed),
        )

    def put(self, key: str, value: Any) -> None:
        """Keep the game's ``origin``, ``start`` or ``result`` (JSON)."""
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
