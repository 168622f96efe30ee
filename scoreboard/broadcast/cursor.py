"""The publish cursor, kept in the journal: what the broker has acknowledged of each game, per event.

The journal's table ``broadcast_cursor`` (schema 4) holds, per event and game, the last
entry the broker acknowledged (0: the game's start) and the finished time of the result it
acknowledged; ``broadcast_events`` the events this journal has published to. When publishing
starts for an event this journal has not published to, or comes back to one after
publishing to another, the games finished before that have nothing in the event's cursor
are taken as published (``taken``): an event covers the games played for it, not the home
games played with publishing off nor another event's leftovers; a game in progress then is
published from its start. Off and on again within the same event, it goes on from the
cursor: nothing is lost.

:class:`PublishLog` reads what is still to be published from the journal through its own
connection (the service's is never waited on while the network is) and writes the cursor
with ``synchronous=NORMAL``: a cursor lost in a power cut only sends a few records again,
which the hub drops. Every record carries the journal's identity (schema 4), by which the
hub tells a table's journals apart.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import ScoreboardError

from .messages import RESULT_KIND, START_KIND, RecordMessage

__all__ = ["CursorError", "Item", "Mark", "PublishLog"]


class CursorError(ScoreboardError, OSError):
    """The journal could not be read or the cursor not written (``path``, SQLite's reason)."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path, self.reason = path, reason
        super().__init__(f"publish cursor in {path}: {reason}")


@dataclass(frozen=True)
class Mark:
    """How far a game is published: its last seq (0: its start, -1: nothing) and its result."""

    seq: int = -1
    finished: str | None = None


@dataclass(frozen=True)
class Item:
    """One record to publish, and the mark it reaches once the broker has it."""

    message: RecordMessage
    mark: Mark


class PublishLog:
    """The journal ``db`` seen by the publisher to ``event``."""

    def __init__(self, db: Path, event: str) -> None:
        self.path = db
        self.event = event
        try:
            self._conn = sqlite3.connect(db, timeout=10.0, isolation_level=None, check_same_thread=False)
            self._conn.execute("PRAGMA synchronous = NORMAL")
            self._conn.execute("SELECT 1 FROM broadcast_cursor LIMIT 1").fetchall()
            row = self._conn.execute("SELECT id FROM identity LIMIT 1").fetchone()
        except sqlite3.Error as e:
            raise CursorError(db, str(e)) from None
        if row is None or not isinstance(row[0], str):
            raise CursorError(db, "the journal has no identity (schema 4)")
        self.journal: str = row[0]
        """The journal's identity, carried by every message."""

    def close(self) -> None:
        self._conn.close()

    def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            return self._conn.execute(sql, params).fetchall()
        except sqlite3.Error as e:
            raise CursorError(self.path, str(e)) from None

    def marks(self) -> dict[int, Mark]:
        """The event's cursor: each game's mark (games not in it: nothing published)."""
        rows = self._rows("SELECT game_id, seq, finished FROM broadcast_cursor WHERE event = ?", (self.event,))
        return {g: Mark(seq, finished) for g, seq, finished in rows}

    def taken(self) -> set[int]:
        """The games taken as published when the event started (not the event's: never sent)."""
        return {g for (g,) in self._rows("SELECT game_id FROM broadcast_cursor WHERE event = ? AND taken = 1", (self.event,))}

    def start_here(self) -> None:
        """Publishing starts for the event: unless it is the event this journal published to
        last, the games finished before that have nothing in its cursor are taken as published."""
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            last = self._conn.execute("SELECT event, started FROM broadcast_events ORDER BY started DESC LIMIT 1").fetchone()
            if last is None or last[0] != self.event:
                self._conn.execute(
                    "INSERT INTO broadcast_cursor (event, game_id, seq, finished, taken) SELECT ?, g.id,"
                    " (SELECT COALESCE(MAX(seq), 0) FROM entries e WHERE e.game_id = g.id), g.finished, 1"
                    " FROM games g WHERE g.finished IS NOT NULL"
                    " AND g.id NOT IN (SELECT game_id FROM broadcast_cursor WHERE event = ?)",
                    (self.event, self.event),
                )
                self._conn.execute(
                    "INSERT INTO broadcast_events (event, started) VALUES (?, ?) ON CONFLICT (event) DO UPDATE"
                    " SET started = excluded.started", (self.event, 1 if last is None else last[1] + 1),
                )
            self._conn.execute("COMMIT")
        except sqlite3.Error as e:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise CursorError(self.path, str(e)) from None

    def save(self, marks: dict[int, Mark]) -> None:
        """Write the marks of the games in ``marks`` (one transaction)."""
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.executemany(
                "INSERT INTO broadcast_cursor (event, game_id, seq, finished, taken) VALUES (?, ?, ?, ?, 0)"
                " ON CONFLICT (event, game_id) DO UPDATE"
                " SET seq = MAX(seq, excluded.seq), finished = COALESCE(excluded.finished, finished)",
                [(self.event, g, m.seq, m.finished) for g, m in marks.items() if m.seq >= 0],
            )
            self._conn.execute("COMMIT")
        except sqlite3.Error as e:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise CursorError(self.path, str(e)) from None

    def pending(self, sent: dict[int, Mark], limit: int) -> list[Item]:
        """Up to ``limit`` records after ``sent`` (each game's mark), in order: games by id,
        each its start, its entries, then its result."""
        out: list[Item] = []
        games = self._rows(
            "SELECT id, started, meta, finished, result, (SELECT COALESCE(MAX(seq), 0) FROM entries e"
            " WHERE e.game_id = g.id) FROM games g ORDER BY id"
        )
        for game_id, started, meta, finished, result, last in games:
            mark = sent.get(game_id, Mark())
            if mark.seq >= last and (finished is None or mark.finished == finished):
                continue
            seq = mark.seq
            if seq < 0:
                body = {"meta": _json(meta), "started": started}
                out.append(Item(RecordMessage(game_id, 0, START_KIND, body, 0.0, journal=self.journal), Mark(0, None)))
                seq = 0
            rows = self._rows(
                "SELECT seq, kind, payload, at FROM entries WHERE game_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                (game_id, seq, max(0, limit - len(out))),
            )
            for entry_seq, kind, payload, at in rows:
                out.append(Item(RecordMessage(game_id, entry_seq, kind, _json(payload), at, journal=self.journal), Mark(entry_seq, None)))
                seq = entry_seq
            if seq >= last and finished is not None and mark.finished != finished and len(out) < limit:
                body = {"finished": finished, "result": _json(result)}
                out.append(Item(RecordMessage(game_id, None, RESULT_KIND, body, 0.0, journal=self.journal), Mark(seq, finished)))
            if len(out) >= limit:
                break
        return out[:limit]


def _json(text: str | bytes) -> dict[str, Any]:
    import json

    value = json.loads(text)
    return value if isinstance(value, dict) else {}
