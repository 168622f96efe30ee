"""The publish cursor, kept in the journal: what the broker has acknowledged of each game, per event.

The journal's table ``broadcast_cursor`` (schema 4) holds, per event and game, the last
entry the broker acknowledged (0: the game's start, -1: nothing yet) and the finished time of
the result it acknowledged; ``broadcast_events`` the events this journal has published to.
An event covers the games played while its publisher ran: the publisher claims each game of
the journal as it sees it (:meth:`PublishLog.claim`: a row with nothing acknowledged, written
whether or not the broker can be reached), and every time publishing starts
(:meth:`PublishLog.start_here`) the finished games the event has no row for are taken as
published (``taken``, never sent): the home games played with publishing off, between two
days of one event too, and another event's leftovers. A game in progress then is claimed and
published from its start. A Wi-Fi or broker outage with the publisher running loses nothing:
its games were claimed, and the cursor goes on from where the broker stopped taking.

:class:`PublishLog` reads what is still to be published from the journal through its own
connection (the service's is never waited on while the network is) and writes the cursor
with ``synchronous=NORMAL``: a cursor lost in a power cut only sends a few records again,
which the hub drops. Every record carries the journal's identity (schema 4), by which the
hub tells a table's journals apart.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import ScoreboardError
from scoreboard.journal import ask_full_check
from scoreboard.journal_crc import chain_crc, entry_crc

from .messages import RESULT_KIND, START_KIND, RecordMessage

log = logging.getLogger(__name__)

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
        self._claimed = 0  # the last game claimed (start_here claims all there are)
        self._damaged: set[int] = set()  # games found damaged: never published from this log

    def close(self) -> None:
        self._conn.close()

    def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            return self._conn.execute(sql, params).fetchall()
        except sqlite3.Error as e:
            raise CursorError(self.path, str(e)) from None

    def marks(self) -> dict[int, Mark]:
        """The event's cursor: each game's mark (games not in it or only claimed: nothing published)."""
        rows = self._rows("SELECT game_id, seq, finished FROM broadcast_cursor WHERE event = ?", (self.event,))
        return {g: Mark(seq, finished) for g, seq, finished in rows}

    def taken(self) -> set[int]:
        """The games taken as published when publishing started (not the event's: never sent)."""
        return {g for (g,) in self._rows("SELECT game_id FROM broadcast_cursor WHERE event = ? AND taken = 1", (self.event,))}

    def start_here(self) -> None:
        """Publishing starts for the event: the finished games it has no row for are taken as
        published, the others claimed (:meth:`claim`)."""
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.execute(
                "INSERT INTO broadcast_cursor (event, game_id, seq, finished, taken) SELECT ?, g.id,"
                " (SELECT COALESCE(MAX(seq), 0) FROM entries e WHERE e.game_id = g.id), g.finished, 1"
                " FROM games g WHERE g.finished IS NOT NULL"
                " AND g.id NOT IN (SELECT game_id FROM broadcast_cursor WHERE event = ?)",
                (self.event, self.event),
            )
            self._conn.execute(
                "INSERT INTO broadcast_cursor (event, game_id, seq, finished, taken) SELECT ?, g.id, -1, NULL, 0"
                " FROM games g WHERE g.id NOT IN (SELECT game_id FROM broadcast_cursor WHERE event = ?)",
                (self.event, self.event),
            )
            last = self._conn.execute("SELECT MAX(started) FROM broadcast_events").fetchone()[0]
            self._conn.execute(
                "INSERT INTO broadcast_events (event, started) VALUES (?, ?) ON CONFLICT (event) DO UPDATE"
                " SET started = excluded.started", (self.event, (last or 0) + 1),
            )
            self._claimed = self._conn.execute("SELECT COALESCE(MAX(id), 0) FROM games").fetchone()[0]
            self._conn.execute("COMMIT")
        except sqlite3.Error as e:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise CursorError(self.path, str(e)) from None

    def claim(self) -> list[int]:
        """Claim for the event every game started since the last claim (:meth:`start_here` first):
        it is the event's, published even if it ends before anything of it is sent; the games
        claimed now."""
        rows = self._rows("SELECT id FROM games WHERE id > ? ORDER BY id", (self._claimed,))
        if not rows:
            return []
        games = [g for (g,) in rows]
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.executemany(
                "INSERT INTO broadcast_cursor (event, game_id, seq, finished, taken) VALUES (?, ?, -1, NULL, 0)"
                " ON CONFLICT (event, game_id) DO NOTHING", [(self.event, g) for g in games],
            )
            self._conn.execute("COMMIT")
        except sqlite3.Error as e:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise CursorError(self.path, str(e)) from None
        self._claimed = games[-1]
        return games

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
            if game_id in self._damaged or mark.seq >= last and (finished is None or mark.finished == finished):
                continue
            rows = self._checked(game_id, max(mark.seq, 0), max(0, limit - len(out) - (mark.seq < 0)), finished is not None)
            if rows is None:
                continue
            seq = mark.seq
            if seq < 0:
                body = {"meta": _json(meta), "started": started}
                out.append(Item(RecordMessage(game_id, 0, START_KIND, body, 0.0, journal=self.journal), Mark(0, None)))
                seq = 0
            for entry_seq, kind, payload, at in rows:
                out.append(Item(RecordMessage(game_id, entry_seq, kind, _json(payload), at, journal=self.journal), Mark(entry_seq, None)))
                seq = entry_seq
            if seq >= last and finished is not None and mark.finished != finished and len(out) < limit:
                body = {"finished": finished, "result": _json(result)}
                out.append(Item(RecordMessage(game_id, None, RESULT_KIND, body, 0.0, journal=self.journal), Mark(seq, finished)))
            if len(out) >= limit:
                break
        return out[:limit]

    def _checked(self, game_id: int, after: int, limit: int, whole: bool) -> list[tuple[int, str, bytes, float]] | None:
        """Up to ``limit`` entries of ``game_id`` after seq ``after``, each matching its checksum
        and, for a finished game (``whole``: read whole, in one statement), all of them its count
        and chain, as the journal's reads check them; None for a damaged game: it is not
        published (logged, and the next start checks the whole journal)."""
        rows = self._rows(
            "SELECT g.entry_count, g.entry_chain, e.seq, CAST(e.kind AS BLOB), CAST(e.payload AS BLOB), e.at, e.crc"
            " FROM games g LEFT JOIN entries e ON e.game_id = g.id AND e.seq > ? WHERE g.id = ? ORDER BY e.seq"
            + ("" if whole else " LIMIT ?"),
            (0, game_id) if whole else (after, game_id, limit),
        )
        out: list[tuple[int, str, bytes, float]] = []
        found = chain = 0
        for _, _, seq, kind, payload, at, crc in rows:
            if seq is None:  # (a game without entries)
                continue
            try:
                text = bytes(kind).decode("utf-8")
                good = isinstance(at, float) and crc == entry_crc(game_id, seq, text, payload, at)
            except (TypeError, UnicodeDecodeError):
                good = False
            if not good:
                self._damage(game_id, f"game {game_id} entry {seq} does not match its checksum")
                return None
            found, chain = found + 1, chain_crc(chain, crc)
            if seq > after:
                out.append((seq, text, bytes(payload), at))
        if whole and rows and (rows[0][0], rows[0][1]) != (found, chain):
            self._damage(game_id, f"game {game_id} was written with {rows[0][0]} entries, and {found} are found")
            return None
        return out[:limit]

    def _damage(self, game_id: int, detail: str) -> None:
        """``game_id`` found damaged: not published from here on; the next start checks the journal."""
        self._damaged.add(game_id)
        detail = f"the journal is damaged: {detail}; it is not published"
        log.error("%s (%s)", detail, self.path)
        ask_full_check(self.path, detail)


def _json(text: str | bytes) -> dict[str, Any]:
    import json

    value = json.loads(text)
    return value if isinstance(value, dict) else {}
