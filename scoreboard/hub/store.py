"""The hub's copy of one game: its own SQLite file, ``DATA/EVENT/TABLE/game-N.sqlite``.

Everything the board published of the game, as received: its start (meta data), every record
by seq (with when the hub received it and when the board committed it) and its result. A
record already held is not written again (the hub drops doubles by game and seq). The file
runs in WAL mode with ``synchronous=NORMAL``: the boards keep the originals, and a record
lost here in a power cut is asked for again.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import ScoreboardError

__all__ = ["GameStore", "StoreError", "StoredRecord"]


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


class GameStore:
    """One game's file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=10.0)
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = NORMAL")
            self._conn.execute("CREATE TABLE IF NOT EXISTS game (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS records (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, payload TEXT NOT NULL,"
                " at REAL NOT NULL, received REAL NOT NULL, committed REAL)"
            )
        except (sqlite3.Error, OSError) as e:
            raise StoreError(path, str(e)) from None

    def close(self) -> None:
        self._conn.close()

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        try:
            return self._conn.execute(sql, params)
        except sqlite3.Error as e:
            raise StoreError(self.path, str(e)) from None

    def add(self, seq: int, kind: str, payload: dict[str, Any], at: float, received: float,
            committed: float | None) -> bool:
        """Keep a record; False when the game already holds ``seq`` (a double, dropped)."""
        cursor = self._run(
            "INSERT OR IGNORE INTO records (seq, kind, payload, at, received, committed) VALUES (?, ?, ?, ?, ?, ?)",
            (seq, kind, json.dumps(payload, ensure_ascii=False), at, received, committed),
        )
        return cursor.rowcount == 1

    def put(self, key: str, value: Any) -> None:
        """Keep the game's ``start`` or ``result`` (JSON)."""
        self._run("INSERT OR REPLACE INTO game (key, value) VALUES (?, ?)", (key, json.dumps(value, ensure_ascii=False)))

    def get(self, key: str) -> Any:
        row = self._run("SELECT value FROM game WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def records(self) -> list[StoredRecord]:
        return [
            StoredRecord(seq, kind, json.loads(payload), at, received, committed)
            for seq, kind, payload, at, received, committed in self._run(
                "SELECT seq, kind, payload, at, received, committed FROM records ORDER BY seq"
            )
        ]
