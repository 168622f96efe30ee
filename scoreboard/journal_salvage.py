"""What can still be read from a damaged journal, to go on with in a new one.

:func:`salvage` works on a copy (in a temporary folder beside the original), so the original
files stay exactly as they were found. It keeps every game whose start and meta data can be
read, and of each game its entries from the first on, up to the first one that is missing
or cannot be read: a game is never given a hole in the middle (but for a moment, where the
table was, which the one before stands in for).
"""

from __future__ import annotations

import json
import math
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

from engine.errors import ScoreboardError
from scoreboard.journal_crc import entry_crc, game_crc

__all__ = ["ENVIRONMENT", "Salvage", "SalvageIOError", "SalvagedGame", "salvage", "sqlite_code"]

ENVIRONMENT = {  # what SQLite can fail on that is not the file's fault (primary result codes)
    getattr(sqlite3, name)
    for name in (
        "SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_IOERR", "SQLITE_CANTOPEN", "SQLITE_PERM",
        "SQLITE_READONLY", "SQLITE_NOMEM", "SQLITE_FULL", "SQLITE_AUTH", "SQLITE_PROTOCOL",
    )
}


def sqlite_code(e: BaseException) -> int | None:
    """SQLite's primary result code of an error (``SQLITE_FULL``...), None when it has none."""
    code = getattr(e, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


class SalvageIOError(ScoreboardError, OSError):
    """The journal ``path`` could not be copied or read for a reason that is not its own
    (``error``: a full disk, an I/O error...): nothing was read, and it may be tried again."""

    def __init__(self, path: Path, error: OSError | sqlite3.Error) -> None:
        super().__init__(f"cannot read {path} to salvage it: {error}")
        self.path = path
        self.error = error

MOMENT = "moment"  # (journal_format.MOMENT_KIND: a moment changed is dropped, the game kept)

Row = tuple[int, str, str, float]  # an entry as stored: seq, kind, payload (JSON text), at


@dataclass(frozen=True)
class SalvagedGame:
    """A game read from a damaged journal, as stored (JSON as text); ``of``: how many entries
    it had, when fewer could be read; ``left_out``: the moments left out (their seqs);
    ``cut_at``: the first entry that could not be read, when nothing from it on was kept."""

    id: int
    started: str
    meta: str
    finished: str | None
    result: str | None
    entries: tuple[Row, ...]
    of: int | None = None
    left_out: tuple[int, ...] = ()
    cut_at: int | None = None

    def kept(self) -> str | None:
        """What of the game was kept, in words; None when all of it."""
        if self.cut_at is None and not self.left_out:
            return None
        n = len(self.entries)
        total = f" of {self.of}" if self.of is not None else ""
        if not self.left_out:
            return f"game {self.id} kept its first {n}{total} records"
        moments = (
            f"the moment at entry {self.left_out[0]}" if len(self.left_out) == 1
            else f"the moments at entries {', '.join(map(str, self.left_out))}"
        )
        if self.cut_at is None:
            return f"game {self.id} kept {n}{total} records: all but {moments}"
        return f"game {self.id} kept {n}{total} records: entries 1 to {self.cut_at - 1} but {moments}"


@dataclass(frozen=True)
class Salvage:
    """Everything read from a damaged journal: its games, and how many could not be read."""

    games: tuple[SalvagedGame, ...]
    unreadable_games: int = 0

    def summary(self) -> str:
        """What was kept, in words for the log and the players' helper."""
        if not self.games:
            lost = f" ({self.unreadable_games} games could not be read)" if self.unreadable_games else ""
            return f"nothing could be read from it{lost}"
        entries = sum(len(g.entries) for g in self.games)
        words = [f"{len(self.games)} games with {entries} records were copied into a new journal"]
        words += [kept for g in self.games if (kept := g.kept()) is not None]
        if self.unreadable_games:
            words.append(f"{self.unreadable_games} games could not be read")
        return "; ".join(words)


def salvage(db: Path) -> Salvage:
    """What can be read from the journal ``db`` (and its ``-wal``), from a copy of them.
    :class:`SalvageIOError` when the copy cannot be made or read for a reason that is not
    the file's (a full disk): "nothing readable" is only ever said of the file."""
    try:
        with _copy(db) as copy, closing(sqlite3.connect(copy, timeout=10.0)) as conn:
            conn.text_factory = bytes
            games: list[SalvagedGame] = []
            unreadable = 0
            for row in _games(conn):
                game = _game(conn, row)
                if game is None:
                    unreadable += 1
                else:
                    games.append(game)
            return Salvage(tuple(games), unreadable)
    except OSError as e:
        raise SalvageIOError(db, e) from e
    except sqlite3.Error as e:
        if sqlite_code(e) in ENVIRONMENT:
            raise SalvageIOError(db, e) from e
        return Salvage(())
    except UnicodeDecodeError:
        return Salvage(())


def _damage_only(e: Exception) -> None:
    """Raise ``e`` again unless the file's damage caused it (then what failed is skipped)."""
    if sqlite_code(e) in ENVIRONMENT:
        raise e


@contextmanager
def _copy(db: Path) -> Iterator[Path]:
    """A copy of ``db`` and its ``-wal`` (not the ``-shm``: SQLite rebuilds it from the log)."""
    folder = Path(tempfile.mkdtemp(prefix=".salvage-", dir=db.parent))
    try:
        copy = folder / db.name
        if db.exists():
            shutil.copyfile(db, copy)
        wal = Path(f"{db}-wal")
        if wal.exists():
            shutil.copyfile(wal, f"{copy}-wal")
        yield copy
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _games(conn: sqlite3.Connection) -> list[tuple[object, ...]]:
    """The rows of ``games``; one by one when the table cannot be read whole."""
    query = f"SELECT id, started, meta, finished, result, {_crc(conn, 'games')}, {_count(conn)} FROM games"
    try:
        return conn.execute(query + " ORDER BY id").fetchall()
    except (sqlite3.DatabaseError, UnicodeDecodeError) as e:
        _damage_only(e)
    try:
        ids = [i for (i,) in conn.execute("SELECT id FROM games ORDER BY id").fetchall()]
    except (sqlite3.DatabaseError, UnicodeDecodeError) as e:
        _damage_only(e)
        return []
    rows = []
    for game_id in ids:
        try:
            rows += conn.execute(query + " WHERE id = ?", (game_id,)).fetchall()
        except (sqlite3.DatabaseError, UnicodeDecodeError) as e:
            _damage_only(e)
    return rows


def _crc(conn: sqlite3.Connection, table: str) -> str:
    """The checksum column of ``table`` to select (``NULL`` in a journal from before schema 2)."""
    try:
        columns = {row[1] for row in conn.execute(f"PRAGMA table_info({table})").fetchall()}
    except (sqlite3.DatabaseError, UnicodeDecodeError) as e:
        _damage_only(e)
        return "NULL"
    return "crc" if "crc" in columns or b"crc" in columns else "NULL"


def _count(conn: sqlite3.Connection) -> str:
    """The column of the games' count of entries to select (``NULL`` before schema 5)."""
    try:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(games)").fetchall()}
    except (sqlite3.DatabaseError, UnicodeDecodeError) as e:
        _damage_only(e)
        return "NULL"
    return "entry_count" if "entry_count" in columns or b"entry_count" in columns else "NULL"


def _game(conn: sqlite3.Connection, row: tuple[object, ...]) -> SalvagedGame | None:
    game_id, started, meta, finished, result, crc, count = row
    started_text, meta_text = _text(started), _json(meta)
    if not isinstance(game_id, int) or started_text is None or meta_text is None:
        return None
    if crc is not None and crc != game_crc(game_id, started_text, meta_text, _text(finished), _text(result)):
        return None  # its row was changed: nothing of it can be trusted
    finished_text = None if finished is None else _text(finished)
    result_text = None if result is None else _json(result)
    if finished_text is not None and result_text is None:
        result_text = json.dumps({"abandoned": "its result could not be read from a damaged journal"})
    entries, total, left_out, cut_at = _entries(conn, game_id)
    if isinstance(count, int) and not isinstance(count, bool) and count > total:  # rows the reads no longer find
        total = count
        if cut_at is None:
            cut_at = max([seq for seq, *_ in entries] + left_out, default=0) + 1
    return SalvagedGame(
        game_id, started_text, meta_text, finished_text, result_text if finished_text else None,
        tuple(entries), total if total != len(entries) else None, tuple(left_out), cut_at,
    )


def _entries(conn: sqlite3.Connection, game_id: int) -> tuple[list[Row], int, list[int], int | None]:
    """The readable entries of a game from seq 1 up to the first gap or damaged one; how
    many it seems to hold; the moments left out; the entry it was cut at (None: not cut)."""
    query = f"SELECT seq, kind, payload, at, {_crc(conn, 'entries')} FROM entries WHERE game_id = ?"
    cut_at: int | None = None
    try:
        rows = conn.execute(query + " ORDER BY seq", (game_id,)).fetchall()
    except (sqlite3.DatabaseError, UnicodeDecodeError) as e:
        _damage_only(e)
        rows = []
        while True:  # one at a time, until one cannot be read
            try:
                found = conn.execute(query + " AND seq = ?", (game_id, len(rows) + 1)).fetchall()
            except (sqlite3.DatabaseError, UnicodeDecodeError) as again:
                _damage_only(again)
                cut_at = len(rows) + 1
                break
            if not found:
                break
            rows += found
    kept: list[Row] = []
    left_out: list[int] = []
    expected = 1
    for seq, kind, payload, at, crc in rows:
        kind_text, payload_text = _text(kind), _json(payload)
        if seq != expected or not kind_text or not isinstance(at, (int, float)) or not math.isfinite(at):
            cut_at = expected
            break
        expected += 1
        whole = payload_text is not None and (
            crc is None or crc == entry_crc(game_id, seq, kind_text, payload_text, float(at))
        )
        if not whole and kind_text == MOMENT:
            left_out.append(seq)  # where the table was, not the game: the one before does instead
            continue
        if not whole:
            cut_at = seq
            break
        assert payload_text is not None
        kept.append((seq, kind_text, payload_text, float(at)))
    return kept, max(len(rows), len(kept)), left_out, cut_at


def _text(value: object) -> str | None:
    """Stored text, None when it is not UTF-8 (or not text at all)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return None


def _json(value: object) -> str | None:
    """Stored JSON object text, None when it is not one."""
    text = _text(value)
    if text is None:
        return None
    try:
        return text if isinstance(json.loads(text), dict) else None
    except ValueError:
        return None
