"""The game journal: every accepted event, appended to SQLite before anyone sees its effect.

``journal.db`` in the state directory holds the games (when started, their meta data, when
finished and their result) and each game's entries: ``(seq, kind, payload, at)``, the payload
a JSON object; what the kinds and payloads mean is :mod:`scoreboard.journal_format`'s.

The file runs in WAL mode with ``synchronous=FULL``; every write is one transaction,
committed before the call returns. A file that is not a whole, readable journal (not SQLite,
empty, a write-ahead log that would lose saved records (:mod:`scoreboard.journal_wal`), a
failed ``PRAGMA quick_check``, text that is not UTF-8 JSON, or a schema newer than this code)
is found before SQLite writes to it (the checks read the bytes, then a read-only connection),
set aside byte for byte under a new name, and a fresh journal started with every game and
entry that can still be read from a copy of it (:mod:`scoreboard.journal_salvage`);
:attr:`Journal.recovery` tells why, where the old one went and what was kept. A write-ahead
log that no wal-index vouches for (after a power cut) is copied aside as found before SQLite
opens it, the latest few copies kept (:attr:`Journal.unverified`). The schema
version lives in ``PRAGMA user_version``; :data:`MIGRATIONS` brings an older file up to
date, one function per version.
"""

from __future__ import annotations

import enum
import errno
import functools
import json
import logging
import math
import os
import re
import shutil
import sqlite3
import threading
import uuid
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from engine.errors import ScoreboardError
from scoreboard.journal_crc import chain_crc, entry_crc, game_crc
from scoreboard.journal_salvage import ENVIRONMENT, Salvage, SalvagedGame, SalvageIOError, salvage, sqlite_code
from scoreboard.journal_wal import read_frames, unverified, wal_damage

JOURNAL_NAME = "journal.db"
UNVERIFIED_KEPT = 3  # copies of a journal whose write-ahead log could not be checked: the latest are kept

log = logging.getLogger(__name__)

_SIDE_FILES = ("-wal", "-shm")  # SQLite's companions of a WAL database, moved with it
_SQLITE_HEADER = b"SQLite format 3\x00"
_IDENTITY = re.compile(r"[0-9a-f]{32}")


# --- errors -------------------------------------------------------------------------------


class Damage(enum.Enum):
    """Why a journal's files were not used as found, or were kept aside byte for byte;
    :attr:`tag` names the copy kept (``journal.db.TAG-STAMP``)."""

    NOT_SQLITE = "not-sqlite"  # not an SQLite database at all
    LOG_DAMAGED = "log-damaged"  # its write-ahead log would lose saved records
    LOG_ORPHANED = "log-orphaned"  # a write-ahead log without its database
    EMPTY = "empty"  # 0 bytes
    CORRUPT = "corrupt"  # SQLite, but damaged (quick_check, checksums, types, text, schema)
    FOREIGN = "foreign"  # an SQLite database that is no game journal
    NEWER = "newer"  # a journal of a newer schema than this code knows
    GAME_UNREADABLE = "game-unreadable"  # whole, but a game in it cannot be rebuilt (a copy is kept)
    LOG_UNVERIFIED = "log-unverified"  # a write-ahead log no wal-index vouches for (a copy is kept)

    @property
    def tag(self) -> str:
        """The word in the name of the files kept."""
        return _TAGS[self]

    @property
    def salvageable(self) -> bool:
        """Whether games may be read from such a file into a new journal."""
        return self not in (Damage.EMPTY, Damage.FOREIGN, Damage.NEWER)


_TAGS = {
    Damage.NOT_SQLITE: "corrupt",
    Damage.LOG_DAMAGED: "damaged",
    Damage.LOG_ORPHANED: "orphan",
    Damage.EMPTY: "empty",
    Damage.CORRUPT: "corrupt",
    Damage.FOREIGN: "foreign",
    Damage.NEWER: "newer",
    Damage.GAME_UNREADABLE: "unreadable",
    Damage.LOG_UNVERIFIED: "unverified",
}


class WriteFailure(enum.Enum):
    """Why a write did not reach the disk."""

    DISK_FULL = "disk full"
    IO_ERROR = "disk I/O error"
    DAMAGED = "the journal is damaged"  # (the next start checks it whole, sets it aside and salvages it)
    OTHER = "other"


class JournalOpenError(ScoreboardError, OSError):
    """The journal file cannot be opened or created (permissions, a missing disk...):
    ``path`` (the journal, or the state directory that cannot be made), ``reason`` in the
    system's words, ``failure`` its kind, and ``damage`` when the file was found unusable
    but could not be moved aside."""

    def __init__(
        self, message: str, path: Path, reason: str, damage: Damage | None = None,
        failure: WriteFailure = WriteFailure.OTHER,
    ) -> None:
        super().__init__(message)
        self.path = path
        self.reason = reason
        self.damage = damage
        self.failure = failure


class JournalRecoveryError(JournalOpenError):
    """An unusable journal was set aside (``kept``), but what can be read of it could not be
    copied into a new journal (``failure``: a full disk...): the next start does it again."""

    def __init__(self, path: Path, detail: str, kept: Kept, failure: WriteFailure, reason: str) -> None:
        super().__init__(
            f"The game journal {path} {detail}. Its original files are kept unchanged as {kept.path}"
            f" (with any -wal and -shm); the recovery could not be finished ({reason}): it will be done again"
            " at the next start.",
            path, reason, kept.damage, failure,
        )
        self.detail = detail
        self.kept = kept


class NoJournalError(ScoreboardError, FileNotFoundError):
    """No journal file where one is expected (:meth:`Journal.open_existing`)."""


class JournalCorruptError(ScoreboardError, ValueError):
    """A file that is not a readable journal: not SQLite, damaged, or unreadable JSON in it.
    ``path``: the journal; ``damage``: what kind; ``detail``: what was found, in words;
    ``game`` and ``entry`` where it is, when known."""

    def __init__(
        self, path: Path, damage: Damage, detail: str, *, game: int | None = None, entry: int | None = None
    ) -> None:
        super().__init__(f"{path}: {detail}")
        self.path = path
        self.damage = damage
        self.detail = detail
        self.game = game
        self.entry = entry


class JournalVersionError(JournalCorruptError):
    """A journal written by a newer version of the scoreboard (its schema ``version`` is
    unknown here)."""

    def __init__(self, path: Path, detail: str, version: int) -> None:
        super().__init__(path, Damage.NEWER, detail)
        self.version = version


class JournalWriteError(ScoreboardError, OSError):
    """A write that did not reach the disk (``failure``: why); nothing of it was kept."""

    def __init__(self, message: str, failure: WriteFailure = WriteFailure.OTHER) -> None:
        super().__init__(message)
        self.failure = failure


class JournalCopyError(JournalWriteError):
    """A copy of the journal's files that could not be made (``kept``: where it was to go;
    ``failure``: why); nothing of it is left."""

    def __init__(self, message: str, kept: Kept, failure: WriteFailure) -> None:
        super().__init__(message, failure)
        self.kept = kept


class JournalReadError(ScoreboardError, OSError):
    """A read of the journal that failed (I/O error)."""


class JournalDataError(ScoreboardError, ValueError):
    """Meta data, a payload or a result that cannot be stored as a JSON object."""


class ArchiveRefusedError(ScoreboardError, ValueError):
    """A game that stays in the journal: unfinished, or the latest (``why``)."""

    def __init__(self, game_id: int, why: str) -> None:
        super().__init__(f"game {game_id} stays in the journal: {why}")
        self.game_id = game_id
        self.why = why


class NoSuchGameError(ScoreboardError, LookupError):
    """A game id that is not in the journal."""

    def __str__(self) -> str:  # LookupError would quote the message
        return str(self.args[0])


# --- records ------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameInfo:
    """A game of the journal: ``started``/``finished`` are ISO 8601 UTC, ``entries`` a count."""

    id: int
    started: str
    meta: dict[str, Any]
    finished: str | None
    result: dict[str, Any] | None
    entries: int


@dataclass(frozen=True)
class Entry:
    """One journaled entry of a game: its number (from 1), kind, JSON payload and time."""

    seq: int
    kind: str
    payload: dict[str, Any]
    at: float


@dataclass(frozen=True)
class Kept:
    """Journal files kept aside byte for byte: why (``damage``), where (``path``:
    ``journal.db.TAG-STAMP``, its ``-wal`` and ``-shm`` beside it when there were any) and
    the ``stamp`` in that name (UTC, ``-2``, ``-3``... when taken), which the display shows."""

    damage: Damage
    path: Path
    stamp: str


@dataclass(frozen=True)
class Recovery:
    """An unusable journal found at the open: its path (``journal``), what was wrong with it
    (``detail``, in words), where its original files are (``kept``) and what of it was
    copied into the new journal (``salvage``; None when such a file holds nothing to copy)."""

    journal: Path
    detail: str
    kept: Kept
    salvage: Salvage | None

    @property
    def note(self) -> str:
        """What happened, in words for the log."""
        copied = self.salvage.summary() if self.salvage is not None else "nothing of it was copied"
        return (
            f"The game journal {self.journal} {self.detail}. Its original files are kept unchanged as"
            f" {self.kept.path} (with any -wal and -shm); {copied}; the new journal goes on from there."
        )


@dataclass(frozen=True)
class UnverifiedLog:
    """A write-ahead log found with no wal-index that vouches for all of it (``why``): SQLite
    takes such a log for whole, and one cut at the end of a transaction would lose its last
    records without a trace. Its files as found were copied to ``kept`` before SQLite opened
    them (None when the copy could not be made: ``failed`` says why); ``pruned``: older such
    copies removed (the :data:`UNVERIFIED_KEPT` latest are kept)."""

    journal: Path
    why: str
    kept: Kept | None
    pruned: tuple[Path, ...] = ()
    failed: str | None = None

    @property
    def note(self) -> str:
        """What was done, in words for the log."""
        head = (
            f"The write-ahead log of the game journal {self.journal} cannot be checked ({self.why}; after a power"
            " cut that is common): a log cut short at the end of a transaction would lose its last records"
            " without a trace"
        )
        if self.kept is None:
            return f"{head}, and no copy of its files could be kept ({self.failed}); it is opened as it is."
        pruned = f", {len(self.pruned)} older removed" if self.pruned else ""
        return (
            f"{head}, so its files as found are kept as {self.kept.path} (with its -wal and any -shm) before it is"
            f" opened (the latest {UNVERIFIED_KEPT} such copies are kept{pruned})."
        )


# --- schema -------------------------------------------------------------------------------


def _schema_v1(conn: sqlite3.Connection) -> None:
    conn.execute(
        "CREATE TABLE games ("
        " id INTEGER PRIMARY KEY,"
        " started TEXT NOT NULL,"  # ISO 8601 UTC
        " meta TEXT NOT NULL,"  # JSON object
        " finished TEXT,"
        " result TEXT)"  # JSON object
    )
    conn.execute(
        "CREATE TABLE entries ("
        " game_id INTEGER NOT NULL REFERENCES games(id),"
        " seq INTEGER NOT NULL,"
        " kind TEXT NOT NULL,"
        " payload TEXT NOT NULL,"  # JSON object
        " at REAL NOT NULL,"
        " PRIMARY KEY (game_id, seq)) WITHOUT ROWID"
    )


def _schema_v2(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE games ADD COLUMN crc INTEGER")  # journal_crc.game_crc (NULL: written before)
    conn.execute("ALTER TABLE entries ADD COLUMN crc INTEGER")  # journal_crc.entry_crc


def _schema_v3(conn: sqlite3.Connection) -> None:
    conn.execute(
        "CREATE TABLE broadcast ("  # the publish cursor (scoreboard.broadcast.cursor): what the broker has taken
        " game_id INTEGER PRIMARY KEY REFERENCES games(id),"
        " seq INTEGER NOT NULL,"  # the last entry the broker acknowledged (0: the game's start)
        " finished TEXT)"  # the game's finished time whose result it acknowledged
    )


def _schema_v4(conn: sqlite3.Connection) -> None:
    """The journal's identity, and the publish cursor per event (``scoreboard.broadcast.cursor``).

    ``identity`` holds one random id, made with the journal (or at this migration): the hub
    tells journals apart by it (a spare board at a table, a journal set aside, each numbers
    its games from 1). The cursor of schema 3 knew no event: its marks are kept as those of
    the event ``''`` (no configured event has that name), taken as published."""
    conn.execute("CREATE TABLE identity (id TEXT NOT NULL)")  # one row: 32 hex digits
    conn.execute("INSERT INTO identity (id) VALUES (?)", (uuid.uuid4().hex,))
    conn.execute(
        "CREATE TABLE broadcast_events ("  # the events this journal has published to
        " event TEXT PRIMARY KEY,"
        " started INTEGER NOT NULL) WITHOUT ROWID"  # when publishing to it last started, in order (1, 2, ...)
    )
    conn.execute(
        "CREATE TABLE broadcast_cursor ("  # per event and game, what the broker has taken
        " event TEXT NOT NULL,"
        " game_id INTEGER NOT NULL REFERENCES games(id),"
        " seq INTEGER NOT NULL,"  # the last entry the broker acknowledged (0: the game's start)
        " finished TEXT,"  # the game's finished time whose result it acknowledged
        " taken INTEGER NOT NULL,"  # 1: finished before the event's start, taken as published (never sent)
        " PRIMARY KEY (event, game_id)) WITHOUT ROWID"
    )
    conn.execute(
        "INSERT INTO broadcast_cursor (event, game_id, seq, finished, taken) SELECT '', game_id, seq, finished, 1"
        " FROM broadcast"
    )
    conn.execute("DROP TABLE broadcast")


def _schema_v5(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE games ADD COLUMN entry_count INTEGER")  # how many entries the game holds
    conn.execute("ALTER TABLE games ADD COLUMN entry_chain INTEGER")  # journal_crc.chain_crc over them
    # The games there are: their entries as a whole scan finds them, in the tree's order (a
    # search by game could miss rows behind a changed key; a read will then tell).
    tallies: dict[int, tuple[int, int]] = {}
    for game_id, seq, kind, payload, at, crc in conn.execute(
        "SELECT game_id, seq, CAST(kind AS BLOB), CAST(payload AS BLOB), at, crc FROM entries"
    ):
        count, chain = tallies.get(game_id, (0, 0))
        tallies[game_id] = count + 1, chain_crc(chain, _stored_crc(game_id, seq, kind, payload, at, crc))
    conn.execute("UPDATE games SET entry_count = 0, entry_chain = 0")
    conn.executemany(
        "UPDATE games SET entry_count = ?, entry_chain = ? WHERE id = ?",
        [(count, chain, game_id) for game_id, (count, chain) in tallies.items()],
    )


def _stored_crc(game_id: object, seq: object, kind: object, payload: object, at: object, crc: object) -> int:
    """The checksum of an entry as stored (its ``crc`` when its values cannot make one: such a
    row fails its own check when it is read)."""
    if isinstance(game_id, int) and isinstance(seq, int) and isinstance(kind, bytes) and isinstance(payload, bytes) \
            and isinstance(at, (int, float)) and not isinstance(at, bool):
        return entry_crc(game_id, seq, kind, payload, at)
    return crc if isinstance(crc, int) else 0


Migration = Callable[[sqlite3.Connection], None]

MIGRATIONS: tuple[Migration, ...] = (_schema_v1, _schema_v2, _schema_v3, _schema_v4, _schema_v5)
"""``MIGRATIONS[i]`` turns schema version ``i`` into ``i + 1``; add a function for a new version."""

SCHEMA_VERSION = len(MIGRATIONS)

COUNTED_FROM = MIGRATIONS.index(_schema_v5) + 1
"""The first schema whose games keep their entries' count and chain."""


# --- helpers ------------------------------------------------------------------------------

Clock = Callable[[], datetime]
ConnectionFactory = type[sqlite3.Connection]


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds")


def _dumps(value: object, what: str) -> str:
    if not isinstance(value, Mapping):
        raise JournalDataError(f"{what} must be a mapping (a JSON object), not {value!r}")
    try:
        return json.dumps(dict(value), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as e:
        raise JournalDataError(f"{what} {value!r} cannot be stored as JSON: {e}") from None


def _is_corruption(e: sqlite3.DatabaseError) -> bool:
    """True for "not a database" and "disk image is malformed" (not for I/O or access errors)."""
    return sqlite_code(e) in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def _failure(e: BaseException) -> WriteFailure:
    """Why a write failed, from the error's code."""
    if isinstance(e, OSError) and not isinstance(e, ScoreboardError):
        if e.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):  # (EFBIG: past a file-size limit)
            return WriteFailure.DISK_FULL
        return WriteFailure.IO_ERROR if e.errno == errno.EIO else WriteFailure.OTHER
    code = sqlite_code(e)
    if code == sqlite3.SQLITE_FULL:
        return WriteFailure.DISK_FULL
    return WriteFailure.IO_ERROR if code == sqlite3.SQLITE_IOERR else WriteFailure.OTHER


def _reason(e: BaseException) -> str:
    """What went wrong, in words for the players' helper."""
    if isinstance(e, OSError) and not isinstance(e, ScoreboardError) and e.strerror:
        return str(e.strerror)
    failure = _failure(e)
    return str(failure.value) if failure is not WriteFailure.OTHER else str(e)


def _fsync_dir(path: Path) -> None:
    with suppress(OSError):  # best effort: not every file system lets a directory be synced
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _free_name(db: Path, damage: Damage, moment: datetime) -> Kept:
    """Where to keep ``db``'s files: ``NAME.TAG-YYYYmmddTHHMMSS`` (UTC; ``-2``, ``-3``... when
    taken by it or its side files)."""
    stamp = f"{moment.astimezone(UTC):%Y%m%dT%H%M%S}"
    n = 1
    while True:
        marked = stamp if n == 1 else f"{stamp}-{n}"
        name = f"{db.name}.{damage.tag}-{marked}"
        if not any(os.path.lexists(db.with_name(name + s)) for s in ("", *_SIDE_FILES)):
            return Kept(damage, db.with_name(name), marked)
        n += 1


def set_aside(db: Path, target: Path) -> None:
    """Rename ``db`` and its ``-wal``/``-shm`` to ``target`` (a free name, see
    :func:`_free_name`) and its ``-wal``/``-shm``. Never overwrites a file."""
    # the WAL first: a stale WAL must never be replayed into the fresh journal
    for suffix in (*_SIDE_FILES, ""):
        source = db.with_name(db.name + suffix)
        if os.path.lexists(source):
            os.rename(source, target.with_name(target.name + suffix))
    _fsync_dir(db.parent)


PART_SUFFIX = ".part"  # a copy being made; renamed to its name once whole


def copy_aside(db: Path, target: Path) -> None:
    """Copy ``db`` and its ``-wal``/``-shm`` (those there are) byte for byte to ``target``
    (a free name, see :func:`_free_name`) and its ``-wal``/``-shm``: each to a temporary
    name first, synced, then all renamed, so a name of the copy only ever holds a whole
    file. On an :class:`OSError` nothing of the copy is left and the error is raised."""
    names = [
        (db.with_name(db.name + suffix), target.with_name(target.name + suffix))
        for suffix in ("", *_SIDE_FILES)
        if os.path.lexists(db.with_name(db.name + suffix))
    ]
    try:
        for source, to in names:
            part = to.with_name(to.name + PART_SUFFIX)
            shutil.copyfile(source, part)
            with open(part, "rb") as f:
                os.fsync(f.fileno())
        for _, to in names:
            os.rename(to.with_name(to.name + PART_SUFFIX), to)
        _fsync_dir(db.parent)
    except OSError:
        for _, to in names:
            for leftover in (to.with_name(to.name + PART_SUFFIX), to):
                with suppress(FileNotFoundError):
                    os.unlink(leftover)
        raise


RECOVERING_SUFFIX = ".recovering"  # a recovery under way: {"kept": NAME, "stamp": ..., "damage": ..., "message": ...}


def _write_marker(marker: Path, kept: Kept, bad: _Unusable) -> None:
    """The note that a recovery from ``kept`` is under way (written whole, then synced)."""
    part = marker.with_name(marker.name + ".part")
    data = {"kept": kept.path.name, "stamp": kept.stamp, "damage": bad.damage.value, "message": bad.message}
    with open(part, "w", encoding="utf-8") as f:
        json.dump(data, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(part, marker)
    _fsync_dir(marker.parent)


def _interrupted_recovery(db: Path) -> tuple[Kept, _Unusable] | None:
    """The files set aside by a recovery that was cut short, and why; None when none was."""
    marker = db.with_name(db.name + RECOVERING_SUFFIX)
    try:
        data = json.loads(marker.read_text(encoding="utf-8"))
        path = db.with_name(str(data["kept"]))
        if "damage" in data:
            damage = Damage(data["damage"])
            stamp = str(data["stamp"])
        else:  # written by 0.2 (a tag, no stamp): its name is TAG-STAMP
            damage = next(d for d in Damage if d.tag == data["tag"])
            stamp = path.name.removeprefix(f"{db.name}.{damage.tag}-")
        bad = _Unusable(damage, str(data["message"]))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, StopIteration):  # a marker cut short itself: its files are still named
        return None
    if path.parent != db.parent or not path.name.startswith(db.name + ".") or not os.path.lexists(path):
        with suppress(OSError):  # cut before anything was set aside: the journal is where it was
            os.unlink(marker)
        return None
    return Kept(damage, path, stamp), bad


class _Unusable(Exception):
    """Internal: the file is not a journal this code can use (``damage``: why; ``message``:
    what was found, in words; ``version``: a newer schema's)."""

    def __init__(self, damage: Damage, message: str, *, version: int | None = None) -> None:
        super().__init__(message)
        self.damage = damage
        self.message = message
        self.version = version


# --- the journal --------------------------------------------------------------------------


class Journal:
    """The journal in a state directory; use :meth:`open` (or :meth:`open_existing`)."""

    def __init__(self, conn: sqlite3.Connection, path: Path, *, now: Clock = _utc_now) -> None:
        """Wrap an open, checked connection to ``path``; callers use :meth:`open`."""
        self._conn = conn
        self._lock = threading.RLock()
        self._now = now
        self.path = path
        #: an unusable journal file found when this one was opened: where it went, what was kept
        self.recovery: Recovery | None = None
        #: a write-ahead log found unverified when this one was opened, and where its files were copied
        self.unverified: UnverifiedLog | None = None
        self._marks = True  # a writer: its first write sets the open mark, its close clears it (not a reader's)
        self._marked = False  # the open mark is in the file
        #: the file said it was open (no clean stop) but no write-ahead log was beside it: the
        #: records of the last session's latest minutes may be gone (the side files deleted by hand)
        self.log_missing: str | None = None

    @property
    def recovered_from(self) -> Path | None:
        """Where an unusable journal file was moved to when this one was opened, else None."""
        return self.recovery.kept.path if self.recovery is not None else None

    # --- opening ------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        state_dir: Path,
        *,
        now: Clock = _utc_now,
        connection_factory: ConnectionFactory = sqlite3.Connection,
    ) -> Journal:
        """Open (or create) ``state_dir/journal.db``.

        A file that is not a usable journal is moved aside (see :func:`set_aside`) and a new
        journal started; :attr:`recovery` says so. A write-ahead log no wal-index vouches
        for is copied aside first (:attr:`unverified`). ``connection_factory`` (a
        :class:`sqlite3.Connection` subclass) lets tests inject failures. Raises
        :class:`JournalOpenError` when no journal can be opened at all, and
        :class:`JournalRecoveryError` when one was set aside but what it holds could not be
        copied into the new one (the next start does that again).
        """
        state_dir = Path(state_dir)
        db = state_dir / JOURNAL_NAME
        try:
            state_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise JournalOpenError(
                f"cannot create the state directory {state_dir}: {e.strerror or e}", state_dir, _reason(e),
                failure=_failure(e),
            ) from None
        for stale in state_dir.glob(".salvage-*"):  # a copy a cut recovery left behind
            shutil.rmtree(stale, ignore_errors=True)
        for part in state_dir.glob(f"{JOURNAL_NAME}.*{PART_SUFFIX}"):  # a copy (or a marker) cut short
            with suppress(OSError):
                os.unlink(part)
        interrupted = _interrupted_recovery(db)
        if interrupted is not None:
            return cls._recover(db, interrupted[1], now, connection_factory, moved=interrupted[0])
        shm = _read_side(db, "-shm")  # the read-only check rebuilds it: the original is kept
        found = {suffix for suffix in _SIDE_FILES if os.path.lexists(f"{db}{suffix}")}
        was_open = _marked_open(db)
        kept: UnverifiedLog | None = None
        try:
            why = _inspect(db)
            kept = _keep_unverified(db, why, now) if why is not None else None  # before SQLite opens it
            checked_all = _check(db)
            conn = _connect(db, connection_factory)
        except _Unusable as bad:
            if kept is not None:  # the same files are set aside whole
                _remove_copy(kept)
            return cls._recover(db, bad, now, connection_factory, found=(found, shm))
        except JournalOpenError:
            if kept is not None:  # (it stays: told)
                log.warning("%s", kept.note)
            raise
        journal = cls(conn, db, now=now)
        journal.unverified = kept
        journal._marked = was_open  # (a killed service's mark is still in the file)
        if kept is not None:
            log.warning("%s", kept.note)
        if was_open and "-wal" not in found:
            journal.log_missing = (
                f"{db} was not closed cleanly, and its write-ahead log ({JOURNAL_NAME}-wal) is gone: the records"
                " written since its last checkpoint (up to some hours of play) may be missing (were the files"
                " beside it deleted, or could the last close not clear its open mark?); it was checked whole"
            )
            log.warning("%s", journal.log_missing)
        if checked_all:  # (the damage a read found is not there: the file was put right)
            _clear_check(db)
        return journal

    @classmethod
    def _recover(
        cls, db: Path, bad: _Unusable, now: Clock, connection_factory: ConnectionFactory, *,
        found: tuple[Collection[str], bytes | None] = ((), None), moved: Kept | None = None,
    ) -> Journal:
        """Set the unusable ``db`` aside as it was ``found`` (the side files there were, the
        ``-shm``'s bytes before the check), start a new journal, and copy into it what can
        still be read from the old one.

        A marker (``journal.db.recovering``) names the files set aside until the new journal
        holds what was salvaged: a recovery cut short (a power cut, a full disk:
        :class:`JournalRecoveryError`) is done again from them at the next start
        (``moved``), never left as an empty journal."""
        marker = db.with_name(db.name + RECOVERING_SUFFIX)
        try:
            if moved is None:
                moved = _free_name(db, bad.damage, now())
                _write_marker(marker, moved, bad)  # first: a cut from here on is seen
                set_aside(db, moved.path)
                sides, shm = found
                if shm is not None and os.path.lexists(f"{moved.path}-shm"):
                    Path(f"{moved.path}-shm").write_bytes(shm)
                for suffix in set(_SIDE_FILES) - set(sides):  # made by the check, not found: not kept as if found
                    with suppress(FileNotFoundError):
                        os.unlink(f"{moved.path}{suffix}")
            else:  # what the cut recovery had begun is dropped: it is made again
                for suffix in (*_SIDE_FILES, ""):
                    with suppress(FileNotFoundError):
                        os.unlink(db.with_name(db.name + suffix))
        except OSError as e:
            raise JournalOpenError(
                f"{db}: {bad.message}, and it cannot be moved aside: {e.strerror or e}", db, _reason(e), bad.damage,
                _failure(e),
            ) from None
        salvaged = None
        if bad.damage.salvageable:
            try:
                salvaged = salvage(moved.path)
            except SalvageIOError as e:
                raise JournalRecoveryError(db, bad.message, moved, _failure(e.error), _reason(e.error)) from None
        try:
            conn = _connect(db, connection_factory)
        except _Unusable as again:  # pragma: no cover - a fresh file is always usable
            raise JournalOpenError(
                f"{db}: a new journal is unusable too: {again.message}", db, again.message, again.damage
            ) from None
        except JournalOpenError as e:  # (the marker stays: the next start makes it again)
            raise JournalRecoveryError(db, bad.message, moved, e.failure, e.reason) from None
        journal = cls(conn, db, now=now)
        if salvaged is not None:
            try:
                journal._take(salvaged.games)
            except JournalWriteError as e:
                journal.close()
                reason = e.failure.value if e.failure is not WriteFailure.OTHER else str(e)
                raise JournalRecoveryError(db, bad.message, moved, e.failure, reason) from None
        with suppress(FileNotFoundError):
            os.unlink(marker)
        _clear_check(db)  # (a new journal)
        _fsync_dir(db.parent)
        journal.recovery = Recovery(db, bad.message, moved, salvaged)
        return journal

    @classmethod
    def open_existing(
        cls, state_dir: Path, *, connection_factory: ConnectionFactory = sqlite3.Connection
    ) -> Journal:
        """Open ``state_dir/journal.db`` for a reader (an export): never creates it or moves it
        aside (an older schema is still brought up to date; a write-ahead log no wal-index
        vouches for is copied aside first, as :meth:`open` does).

        Raises :class:`NoJournalError`, :class:`JournalCorruptError`,
        :class:`JournalVersionError` or :class:`JournalOpenError`.
        """
        db = Path(state_dir) / JOURNAL_NAME
        if not db.is_file():
            raise NoJournalError(f"no game journal at {db}")
        found = {suffix for suffix in _SIDE_FILES if os.path.lexists(f"{db}{suffix}")}
        immutable = _unused(db)
        kept: UnverifiedLog | None = None
        try:
            why = _inspect(db)
            kept = _keep_unverified(db, why, _utc_now) if why is not None else None
            _check(db)
            journal = cls(_connect(db, connection_factory), db)
            journal._marks = False  # (a reader: the open mark is the writer's)
            journal.unverified = kept
            if kept is not None:
                log.warning("%s", kept.note)
            return journal
        except JournalOpenError:
            if kept is not None:  # (it stays: told)
                log.warning("%s", kept.note)
            raise
        except _Unusable as bad:
            if kept is not None:  # refused: the files stay as found, the copy is not needed
                _remove_copy(kept)
            if not immutable:  # the check's connection made what was not found: not left as the journal's
                for suffix in set(_SIDE_FILES) - found:
                    with suppress(FileNotFoundError):
                        os.unlink(f"{db}{suffix}")
            if bad.version is not None:
                raise JournalVersionError(db, bad.message, bad.version) from None
            raise JournalCorruptError(db, bad.damage, bad.message) from None

    def keep_copy(self, damage: Damage) -> Kept:
        """Copy the journal's files as they are, byte for byte, to ``journal.db.TAG-STAMP``
        (with any ``-wal`` and ``-shm``; :func:`set_aside`'s names) before a write changes
        them (a game that cannot be read is about to be marked so); where they are.
        :class:`JournalCopyError` when the copy cannot be made (nothing is left of it)."""
        with self._lock:
            kept = _free_name(self.path, damage, self._now())
            try:
                copy_aside(self.path, kept.path)
            except OSError as e:
                raise JournalCopyError(
                    f"cannot keep a copy of the game journal {self.path}: {e.strerror or e}", kept, _failure(e)
                ) from None
            return kept

    def close(self) -> None:
        """Close the file (idempotent), its open mark cleared first (:data:`OPEN_MARK`)."""
        with self._lock:
            if self._marks and self._marked:
                with suppress(sqlite3.Error):  # (closed already, or a disk that takes nothing: the mark stays)
                    self._conn.execute("PRAGMA application_id = 0")
                self._marked = False
            self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Journal {str(self.path)!r}>"

    # --- writing ------------------------------------------------------------------------

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One transaction, committed on leaving; any failure rolls it back.

        An SQLite or OS failure becomes :class:`JournalWriteError`; other errors pass as they are.
        """
        with self._lock:
            conn = self._conn
            try:
                if self._marks and not self._marked:  # before the first record only the log would hold
                    self._marked = _mark_open(conn)
                conn.execute("BEGIN IMMEDIATE")
                yield conn
                conn.commit()
            except BaseException as e:
                if conn.in_transaction:
                    with suppress(sqlite3.Error):
                        conn.rollback()
                if isinstance(e, (sqlite3.ProgrammingError, sqlite3.InterfaceError, ScoreboardError)):
                    raise
                if isinstance(e, (UnicodeDecodeError, sqlite3.IntegrityError)) or (
                    isinstance(e, sqlite3.DatabaseError) and _is_corruption(e)
                ):
                    # damage the bounded start did not look at (a finished game's page beside
                    # the live one): the next start checks every page and sets the file aside.
                    # (A constraint that fails is damage too: the writes take their keys from
                    # the file itself, e.g. seq after MAX(seq), which a damaged tree answers wrong.)
                    detail = f"the journal is damaged: {e}"
                    ask_full_check(self.path, detail)
                    raise JournalWriteError(
                        f"could not save the game record: {detail} ({self.path}); the next start repairs it",
                        WriteFailure.DAMAGED,
                    ) from e
                if isinstance(e, (sqlite3.Error, OSError)):
                    raise JournalWriteError(
                        f"could not save the game record: {_reason(e)} ({self.path})", _failure(e)
                    ) from e
                raise

    def _check_game(self, conn: sqlite3.Connection, game_id: int) -> None:
        if conn.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is None:
            raise NoSuchGameError(f"no game {game_id!r} in the journal {self.path}")

    def start_game(self, meta: Mapping[str, Any], items: Iterable[tuple[str, Mapping[str, Any], float]] = ()) -> int:
        """Record a new game with ``meta`` (a JSON object, stored as given) and its first
        entries ``items`` (as :meth:`append_many`), all in one transaction; returns its id."""
        text = _dumps(meta, "game meta data")
        rows = [_entry_row(kind, payload, at) for kind, payload, at in items]
        started = _iso(self._now())
        with self._write() as conn:
            cursor = conn.execute("INSERT INTO games (started, meta) VALUES (?, ?)", (started, text))
            game_id = cursor.lastrowid
            assert game_id is not None
            conn.execute("UPDATE games SET crc = ? WHERE id = ?", (game_crc(game_id, started, text, None, None), game_id))
            _insert_entries(conn, game_id, enumerate(rows, 1))
        return game_id

    def append(self, game_id: int, kind: str, payload: Mapping[str, Any], at: float) -> int:
        """Append one entry to ``game_id`` in its own transaction; returns its seq.

        Committed (synchronously) before it returns; on :class:`JournalWriteError` nothing
        was kept and the same call may be retried.
        """
        return self.append_many(game_id, [(kind, payload, at)])[0]

    def append_many(self, game_id: int, items: Iterable[tuple[str, Mapping[str, Any], float]]) -> list[int]:
        """Append ``(kind, payload, at)`` entries in order, all in one transaction; their seqs."""
        rows = [_entry_row(kind, payload, at) for kind, payload, at in items]
        with self._write() as conn:
            found = conn.execute(
                "SELECT entry_count, entry_chain, (SELECT COALESCE(MAX(seq), 0) FROM entries WHERE game_id = ?1)"
                " FROM games WHERE id = ?1", (game_id,)
            ).fetchone()
            if found is None:
                raise NoSuchGameError(f"no game {game_id!r} in the journal {self.path}")
            count, chain, last = found
            if not isinstance(count, int) or not isinstance(chain, int):
                raise JournalCorruptError(
                    self.path, Damage.CORRUPT, f"the journal is damaged: game {game_id} has lost its count of entries",
                    game=game_id,
                )
            seqs = list(range(last + 1, last + 1 + len(rows)))
            _insert_entries(conn, game_id, zip(seqs, rows), count, chain)
        return seqs

    def finish(self, game_id: int, result: Mapping[str, Any]) -> None:
        """Mark ``game_id`` finished now with ``result`` (a JSON object; again: replaces it)."""
        text = _dumps(result, "game result")
        finished = _iso(self._now())
        with self._write() as conn:
            self._check_game(conn, game_id)
            started, meta = conn.execute(
                "SELECT started, CAST(meta AS BLOB) FROM games WHERE id = ?", (game_id,)
            ).fetchone()
            conn.execute(
                "UPDATE games SET finished = ?, result = ?, crc = ? WHERE id = ?",
                (finished, text, game_crc(game_id, started, meta, finished, text), game_id),
            )

    def remove_games(self, game_ids: Collection[int]) -> None:
        """Remove the finished games ``game_ids`` and their entries (archived elsewhere: ``scoreboard
        export --archive``), in one transaction, then give their room back (``VACUUM``).
        :class:`ArchiveRefusedError` for a game that is unfinished or the latest (a start reads
        those: the tally on show stays), :class:`NoSuchGameError` for one that is not there;
        nothing is removed then."""
        ids = sorted(set(game_ids))
        if not ids:
            return
        with self._write() as conn:
            marks = ",".join("?" * len(ids))
            rows = dict(conn.execute(f"SELECT id, finished FROM games WHERE id IN ({marks})", ids).fetchall())
            (latest,) = conn.execute("SELECT MAX(id) FROM games").fetchone()
            for game_id in ids:
                if game_id not in rows:
                    raise NoSuchGameError(f"no game {game_id!r} in the journal {self.path}")
                if rows[game_id] is None or game_id == latest:
                    raise ArchiveRefusedError(game_id, "unfinished" if rows[game_id] is None else "the latest game")
            conn.execute(f"DELETE FROM entries WHERE game_id IN ({marks})", ids)
            conn.execute(f"DELETE FROM broadcast_cursor WHERE game_id IN ({marks})", ids)  # their publish cursor
            conn.execute(f"DELETE FROM games WHERE id IN ({marks})", ids)
        with self._lock:
            try:
                self._conn.execute("VACUUM")
            except sqlite3.Error as e:  # (removed all the same: the room comes back at a later VACUUM)
                log.warning("the journal keeps the room of the removed games for now: %s", e)

    # --- reading ------------------------------------------------------------------------

    def _read(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except UnicodeDecodeError as e:  # SQLite's own message quotes damaged bytes
                detail = f"the journal is damaged: {e.object[:40]!r}"
                ask_full_check(self.path, detail)
                raise JournalCorruptError(self.path, Damage.CORRUPT, detail) from None
            except sqlite3.DatabaseError as e:
                if _is_corruption(e):
                    ask_full_check(self.path, f"the journal is damaged: {e}")
                    raise JournalCorruptError(self.path, Damage.CORRUPT, f"the journal is damaged: {e}") from e
                if isinstance(e, sqlite3.OperationalError):
                    raise JournalReadError(
                        f"could not read the game record: {_reason(e)} ({self.path})"
                    ) from e
                raise

    _GAME_SQL = (  # JSON as bytes: text that is not UTF-8 is told as damage, with where it is
        "SELECT g.id, CAST(g.started AS BLOB), CAST(g.meta AS BLOB), CAST(g.finished AS BLOB), CAST(g.result AS BLOB),"
        " g.entry_count, g.crc, typeof(g.started) || typeof(g.finished) FROM games g"
    )

    def _game(self, row: tuple[Any, ...]) -> GameInfo:
        game_id, started, meta, finished, result, count, crc, types = row
        if crc is not None and crc != game_crc(game_id, started, meta, finished, result):
            raise self._damaged(game_id, f"the journal is damaged: game {game_id} does not match its checksum")
        if not isinstance(count, int) or types not in ("texttext", "textnull"):
            raise self._damaged(game_id, f"the journal is damaged: game {game_id} holds values of the wrong type")
        return GameInfo(
            game_id,
            self._decode(started, game_id, "start time"),
            self._loads(meta, game_id, "meta data"),
            None if finished is None else self._decode(finished, game_id, "end time"),
            None if result is None else self._loads(result, game_id, "result"),
            count,
        )

    def _decode(self, data: bytes, game_id: int, what: str, entry: int | None = None) -> str:
        """The UTF-8 text ``data`` (``what`` of game ``game_id``, or of its ``entry``)."""
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            where = f"game {game_id} {what}" if entry is None else f"game {game_id} entry {entry}"
            raise self._damaged(game_id, f"{where} is not UTF-8 text: {data[:60]!r}", entry) from None

    def _loads(self, data: bytes | str, game_id: int, what: str, entry: int | None = None) -> dict[str, Any]:
        """The JSON object ``data`` (``what`` of game ``game_id``, or its ``entry``)."""
        where = f"game {game_id} {what}" if entry is None else f"game {game_id} entry {entry}"
        try:
            text = data.decode("utf-8") if isinstance(data, bytes) else data
        except UnicodeDecodeError:
            raise self._damaged(game_id, f"{where} is not UTF-8 text: {data[:60]!r}", entry) from None
        try:
            value = json.loads(text)
        except (TypeError, ValueError):
            value = None
        if not isinstance(value, dict):
            raise self._damaged(game_id, f"{where} is not a JSON object: {text!r}", entry)
        return value

    def games(self) -> list[GameInfo]:
        """Every game, oldest first."""
        return [self._game(r) for r in self._read(self._GAME_SQL + " ORDER BY g.id")]

    def game(self, game_id: int) -> GameInfo:
        """The game ``game_id``; :class:`NoSuchGameError` if there is none."""
        rows = self._read(self._GAME_SQL + " WHERE g.id = ?", (game_id,))
        if not rows:
            raise NoSuchGameError(f"no game {game_id!r} in the journal {self.path}")
        return self._game(rows[0])

    def identity(self) -> str:
        """This journal's id (32 hex digits, random, made with the journal: schema 4)."""
        rows = self._read("SELECT id FROM identity LIMIT 1")
        if not rows or not isinstance(rows[0][0], str):
            raise JournalCorruptError(self.path, Damage.CORRUPT, "the journal is damaged: it has no identity")
        return str(rows[0][0])

    def latest(self) -> GameInfo | None:
        """The game started last, or None."""
        rows = self._read(self._GAME_SQL + " ORDER BY g.id DESC LIMIT 1")
        return self._game(rows[0]) if rows else None

    def unfinished(self) -> GameInfo | None:
        """The latest game not finished (the one to resume), or None."""
        rows = self._read(self._GAME_SQL + " WHERE g.finished IS NULL ORDER BY g.id DESC LIMIT 1")
        return self._game(rows[0]) if rows else None

    def entries(self, game_id: int) -> list[Entry]:
        """The entries of ``game_id`` in order; :class:`NoSuchGameError` if there is no such game.

        Each entry must match its checksum, and all of them the game's count and chain
        (:func:`~scoreboard.journal_crc.chain_crc`, read in the same statement): a game
        damaged where a start does not look is told here (:class:`JournalCorruptError`,
        and the next start checks the whole journal), never read with records missing."""
        self.game(game_id)
        rows = self._read(
            "SELECT g.entry_count, g.entry_chain, e.seq, CAST(e.kind AS BLOB), CAST(e.payload AS BLOB), e.at, e.crc,"
            " typeof(e.kind) FROM games g LEFT JOIN entries e ON e.game_id = g.id WHERE g.id = ? ORDER BY e.seq",
            (game_id,),
        )
        if not rows:  # (removed since: an archive between the two reads)
            raise NoSuchGameError(f"no game {game_id!r} in the journal {self.path}")
        count, chain = rows[0][:2]
        entries = []
        found = 0
        for seq, kind, payload, at, crc, kind_type in (row[2:] for row in rows if row[2] is not None):
            computed = entry_crc(game_id, seq, kind, payload, at) if kind_type == "text" and isinstance(at, float) else None
            if computed is None or (crc is not None and crc != computed):
                raise self._damaged(
                    game_id, f"the journal is damaged: game {game_id} entry {seq} does not match its checksum", seq
                )
            found = chain_crc(found, computed)
            entries.append((seq, self._decode(kind, game_id, "kind", seq), payload, at, crc))
        if (count, chain) != (len(entries), found):
            raise self._damaged(
                game_id,
                f"the journal is damaged: game {game_id} was written with {count} entries, and {len(entries)}"
                f" {'is' if len(entries) == 1 else 'are'} found{'' if count != len(entries) else ', not all as written'}",
            )
        return [
            Entry(seq, kind, self._loads(payload, game_id, "entry", seq), at)
            for seq, kind, payload, at, _ in entries
        ]

    def _damaged(self, game_id: int, detail: str, entry: int | None = None) -> JournalCorruptError:
        """The error for a game found damaged by a read; the next start checks the whole
        journal (:data:`CHECK_SUFFIX`)."""
        ask_full_check(self.path, detail)
        return JournalCorruptError(self.path, Damage.CORRUPT, detail, game=game_id, entry=entry)


    def _take(self, games: Sequence[SalvagedGame]) -> None:
        """Copy ``games`` (read from a damaged journal) into this new one, ids and all, in
        one transaction."""
        with self._write() as conn:
            for game in games:
                conn.execute(
                    "INSERT INTO games (id, started, meta, finished, result, crc) VALUES (?, ?, ?, ?, ?, ?)",
                    (game.id, game.started, game.meta, game.finished, game.result,
                     game_crc(game.id, game.started, game.meta, game.finished, game.result)),
                )
                _insert_entries(conn, game.id, ((seq, (kind, payload, at)) for seq, kind, payload, at in game.entries))


def _insert_entries(
    conn: sqlite3.Connection, game_id: int, rows: Iterable[tuple[int, tuple[str, str, float]]],
    count: int = 0, chain: int = 0,
) -> None:
    """Insert ``rows`` (seq, entry) into ``game_id``, which held ``count`` entries of that
    ``chain``, and write its new count and chain (in the caller's transaction)."""
    values = []
    for seq, (kind, payload, at) in rows:
        crc = entry_crc(game_id, seq, kind, payload, at)
        chain = chain_crc(chain, crc)
        values.append((game_id, seq, kind, payload, at, crc))
    conn.executemany("INSERT INTO entries (game_id, seq, kind, payload, at, crc) VALUES (?, ?, ?, ?, ?, ?)", values)
    conn.execute(
        "UPDATE games SET entry_count = ?, entry_chain = ? WHERE id = ?", (count + len(values), chain, game_id)
    )


def _entry_row(kind: str, payload: Mapping[str, Any], at: float) -> tuple[str, str, float]:
    if not isinstance(kind, str) or not kind:
        raise JournalDataError(f"an entry kind is a non-empty string, not {kind!r}")
    if isinstance(at, bool) or not isinstance(at, (int, float)) or not math.isfinite(at):
        raise JournalDataError(f"an entry time is a finite number, not {at!r}")
    return kind, _dumps(payload, f"the {kind!r} payload"), float(at)


def _read_side(db: Path, suffix: str) -> bytes | None:
    """The bytes of ``db``'s ``-wal`` or ``-shm``, None when there is none (or unreadable:
    SQLite will say so when it opens the journal)."""
    try:
        return Path(f"{db}{suffix}").read_bytes()
    except OSError:
        return None


def _inspect(db: Path) -> str | None:
    """What the files' bytes say, before SQLite opens them: :class:`_Unusable` for a file that
    is not SQLite, an empty journal, or a write-ahead log that would lose saved records; else
    why no wal-index vouches for the whole write-ahead log (:func:`unverified`), or None."""
    try:
        with open(db, "rb") as f:
            header = f.read(len(_SQLITE_HEADER))
    except FileNotFoundError:
        header = None
    except OSError as e:
        raise JournalOpenError(
            f"cannot open the game journal {db}: {e.strerror or e}", db, _reason(e), failure=_failure(e)
        ) from None
    shm = _read_side(db, "-shm")  # the index before the log: a writer's commit in between
    wal = _read_side(db, "-wal")  # only lengthens the log past what the index says
    if header is None and not wal:
        return None  # no journal yet (a -shm alone holds nothing)
    if header and header != _SQLITE_HEADER:
        # not opened by SQLite at all: it would delete a -wal it cannot use when closing
        raise _Unusable(Damage.NOT_SQLITE, f"is not an SQLite database (it starts with {header[:16]!r})")
    damage = wal_damage(wal, shm)
    if damage is not None:
        raise _Unusable(Damage.LOG_DAMAGED, f"is damaged: {damage}")
    if header is None:
        raise _Unusable(Damage.LOG_ORPHANED, "is missing, but its write-ahead log is there")
    if not header and not wal:
        raise _Unusable(Damage.EMPTY, "is empty (0 bytes)")
    why = unverified(wal, shm)
    read_frames.cache_clear()  # (the log was read once for both questions; its bytes are not kept)
    if why is not None and _read_side(db, "-shm") != shm:
        return None  # the index changed meanwhile: a writer has it open (an export reads a live journal)
    return why


def _keep_unverified(db: Path, why: str, now: Clock) -> UnverifiedLog:
    """Copy ``db``'s files byte for byte to ``journal.db.unverified-STAMP`` (``why``: what its
    wal-index lacks) and keep the :data:`UNVERIFIED_KEPT` latest such copies."""
    kept = _free_name(db, Damage.LOG_UNVERIFIED, now())
    try:
        copy_aside(db, kept.path)
    except OSError as e:
        return UnverifiedLog(db, why, None, failed=_reason(e))
    return UnverifiedLog(db, why, kept, _prune_unverified(db, kept.path))


def _prune_unverified(db: Path, newest: Path) -> tuple[Path, ...]:
    """Remove all but the :data:`UNVERIFIED_KEPT` latest copies of ``db``'s files kept as
    unverified (by when they were made; ``newest``, just made, always stays); the removed."""
    prefix = f"{db.name}.{Damage.LOG_UNVERIFIED.tag}-"

    def made(path: Path) -> tuple[int, str]:
        try:
            return path.stat().st_mtime_ns, path.name
        except OSError:
            return 0, path.name

    copies = [
        p for p in db.parent.iterdir()
        if p.name.startswith(prefix) and not p.name.endswith((*_SIDE_FILES, PART_SUFFIX)) and p != newest
    ]
    pruned = sorted(copies, key=made, reverse=True)[UNVERIFIED_KEPT - 1 :]
    for path in pruned:
        _remove_files(path)
    return tuple(pruned)


def _remove_files(path: Path) -> None:
    """Remove ``path`` and its ``-wal`` and ``-shm`` (those there are)."""
    for suffix in ("", *_SIDE_FILES):
        with suppress(OSError):
            os.unlink(f"{path}{suffix}")


def _remove_copy(found: UnverifiedLog) -> None:
    """Remove the copy kept of an unverified log (the files are kept otherwise)."""
    if found.kept is not None:
        _remove_files(found.kept.path)


OPEN_MARK = 0x53424F50  # "SBOP": the header's application_id while a writer has the journal open


def _marked_open(db: Path) -> bool:
    """Whether ``db``'s header carries :data:`OPEN_MARK`: a writer opened it and did not close
    it. The mark is written into the file itself (checkpointed) before a writer's first write,
    so a kill leaves it there with the write-ahead log beside it (a writer killed before it
    wrote anything leaves nothing to lose); a file with the mark and no log
    lost its log (side files deleted by hand), which the log's absence alone cannot tell from
    a clean stop."""
    try:
        with open(db, "rb") as f:
            header = f.read(72)
    except OSError:
        return False
    return len(header) == 72 and int.from_bytes(header[68:72], "big") == OPEN_MARK


def _mark_open(conn: sqlite3.Connection) -> bool:
    """Put :data:`OPEN_MARK` into the file's header and checkpoint it there (not only in the
    write-ahead log); whether it reached the file (a reader's snapshot can hold the
    checkpoint back: the next write tries again). SQLite's errors go to the caller."""
    conn.execute(f"PRAGMA application_id = {OPEN_MARK}")
    (busy, _, _) = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    return not busy


def _unused(db: Path) -> bool:
    """Whether ``db`` has no side files, so is open nowhere (SQLite keeps a ``-wal`` and a
    ``-shm`` while it is): :func:`_check` then reads it as immutable, which makes neither (a
    read-only connection would leave both)."""
    return not any(os.path.lexists(f"{db}{suffix}") for suffix in (*_SIDE_FILES, "-journal"))


CHECK_SUFFIX = ".check"  # a read found a game damaged: the next start checks every game (what was found, in words)


def ask_full_check(db: Path, detail: str) -> None:
    """Leave ``journal.db.check`` beside ``db`` (best effort): a read found a game damaged
    where a start's bounded check does not look, so the next start checks every game, and
    sets the file aside as for any damage."""
    with suppress(OSError):
        Path(f"{db}{CHECK_SUFFIX}").write_text(detail + "\n", encoding="utf-8")


def _clear_check(db: Path) -> None:
    with suppress(OSError):
        os.unlink(f"{db}{CHECK_SUFFIX}")


def _closed_cleanly(db: Path) -> bool:
    """Whether ``db`` was closed cleanly and is laid out as its header says: no side files
    (SQLite removes its log and wal-index when the last connection closes: a killed
    service leaves them), no open mark in the header (:func:`_marked_open`: side files
    deleted after a kill), no ``journal.db.check``, the file as long as the header's page
    count times its page size, and no free pages (the next write could take one that a
    damaged list gives twice)."""
    if not _unused(db) or os.path.lexists(f"{db}{CHECK_SUFFIX}") or _marked_open(db):
        return False
    try:
        with open(db, "rb") as f:
            header = f.read(100)
            size = os.fstat(f.fileno()).st_size
    except OSError:
        return False
    if len(header) < 100:
        return False
    page = int.from_bytes(header[16:18], "big")
    page = 65536 if page == 1 else page
    counter, pages, trunk, free = (int.from_bytes(header[i : i + 4], "big") for i in (24, 28, 32, 36))
    valid_for = int.from_bytes(header[92:96], "big")
    return valid_for == counter and pages > 0 and size == pages * page and trunk == free == 0


def _check(db: Path) -> bool:
    """Check ``db`` through a read-only connection, which writes to neither the file nor its
    log: the schema version and text, and the games a start reads (the latest, the latest
    unfinished): their meta data and result UTF-8 JSON objects, their times times, each of
    their entries matching its checksum and all of them the game's count and chain.
    :class:`_Unusable` when not.

    A journal of the current schema closed cleanly (:func:`_closed_cleanly`) gets the
    bounded check: ``PRAGMA quick_check`` of every table but the entries' (a row per game,
    or less) and the rows of those games alone, so a start costs the same with 10 finished
    games or 1,000. A finished game damaged where it does not look is found when the game
    is read (:meth:`Journal.entries`), which asks the next start for the full check. Any
    other journal gets that: ``PRAGMA quick_check`` of the whole file, every game's row,
    every game's count of entries against a whole scan; and after a read found a game
    damaged (``journal.db.check``) every game's entries too: then True."""
    if not db.exists():
        return False
    bounded = _closed_cleanly(db)
    deep = os.path.lexists(f"{db}{CHECK_SUFFIX}")
    try:
        conn = sqlite3.connect(
            f"{db.absolute().as_uri()}?mode=ro{'&immutable=1' if _unused(db) else ''}", uri=True, timeout=10.0
        )
    except sqlite3.Error as e:
        raise JournalOpenError(f"cannot open the game journal {db}: {e}", db, _reason(e), failure=_failure(e)) from None
    conn.text_factory = bytes  # a damaged file may hold any bytes, even in quick_check's report
    try:
        (version,) = conn.execute("PRAGMA user_version").fetchone()
        if version > len(MIGRATIONS):
            raise _Unusable(
                Damage.NEWER,
                f"was written by a newer version of the scoreboard (schema {version}; "
                f"this one knows up to {len(MIGRATIONS)})",
                version=version,
            )
        bounded = bounded and version == len(MIGRATIONS)
        if not bounded:
            _quick_check(conn, "")
        schema = _schema_of(conn)
        if version == 0:
            if not schema:
                return deep  # no tables yet
            names = sorted({_text(row[1]) for row in schema if row[0] == b"table"})
            if {"games", "entries"} <= set(names):  # a journal whose version number was lost
                raise _Unusable(Damage.CORRUPT, "is damaged: it holds a journal's tables but no schema version")
            raise _Unusable(Damage.FOREIGN, f"is not a game journal (it holds the tables {', '.join(names)})")
        if schema != _expected_schema(version):
            raise _Unusable(Damage.CORRUPT, "is damaged: its tables are not the journal's (the schema text differs)")
        if version >= 4:
            identity = conn.execute("SELECT id, typeof(id) FROM identity").fetchall()
            if len(identity) != 1 or identity[0][1] != b"text" or not _IDENTITY.fullmatch(_text(identity[0][0])):
                raise _Unusable(Damage.CORRUPT, "is damaged: its identity is not one id of 32 hex digits")
        if bounded:
            for table in sorted({_text(row[1]) for row in schema if row[0] == b"table"} - {"entries"}):
                _quick_check(conn, table)  # (a name of the schema just compared: no quoting needed)
        _check_games(conn, version, bounded, deep)
        return deep
    except UnicodeDecodeError as e:  # SQLite's own message quotes damaged bytes
        raise _Unusable(Damage.CORRUPT, f"is damaged (its schema is not readable text: {e.object[:40]!r})") from None
    except sqlite3.DatabaseError as e:
        if sqlite_code(e) in ENVIRONMENT:
            raise JournalOpenError(f"cannot open the game journal {db}: {e}", db, _reason(e), failure=_failure(e)) from None
        raise _Unusable(Damage.CORRUPT, f"is not a readable journal ({e})") from None
    finally:
        conn.close()


def _quick_check(conn: sqlite3.Connection, table: str) -> None:
    """``PRAGMA quick_check`` of ``table`` (its tree and indexes), or of the whole file ("")."""
    problems = [_text(row[0]) for row in conn.execute(f"PRAGMA quick_check{f'({table})' if table else ''}").fetchall()]
    if problems != ["ok"]:
        raise _Unusable(Damage.CORRUPT, f"is damaged ({'; '.join(problems[:3])})")


def _check_games(conn: sqlite3.Connection, version: int, bounded: bool, deep: bool) -> None:
    """The games' rows (of the games a start reads when ``bounded``, else all) and the
    entries of the games a start reads (of all with ``deep``); see :func:`_check`."""
    checked = version >= 2  # (rows carry checksums from schema 2 on)
    counted = version >= COUNTED_FROM
    where, params = "", []
    if bounded:
        (latest,) = conn.execute("SELECT MAX(id) FROM games").fetchone()
        unfinished = {i for (i,) in conn.execute("SELECT id FROM games WHERE finished IS NULL").fetchall()}
        params = sorted(({latest} if latest is not None else set()) | unfinished)[-2:]
        where = f" WHERE id IN ({','.join('?' * len(params))})"
    games = conn.execute(
        f"SELECT id, meta, result, started, finished, {'crc' if checked else 'NULL'},"
        f" {'entry_count, entry_chain' if counted else 'NULL, NULL'},"
        " typeof(id) || typeof(meta) || typeof(started) || iif(finished IS NULL, '', typeof(finished))"
        f" {'|| typeof(entry_count) || typeof(entry_chain)' if counted else ''}"
        f" FROM games{where} ORDER BY id", params
    ).fetchall()
    counts = b"integerinteger" if counted else b""
    for game_id, meta, result, started, finished, crc, _count, _chain, types in games:
        if types != b"integertexttext" + (b"" if finished is None else b"text") + counts:
            raise _Unusable(Damage.CORRUPT, f"is damaged: game {game_id!r} holds values of the wrong type")
        if crc is not None and crc != game_crc(game_id, started, meta, finished, result):
            raise _Unusable(Damage.CORRUPT, f"is damaged: game {game_id} does not match its checksum")
        _object(meta, f"game {game_id} meta data")
        if result is not None:
            _object(result, f"game {game_id} result")
        for value, what in ((started, "start"), (finished, "end")):
            if value is not None and not _is_time(_text(value, strict=f"game {game_id}'s {what} time")):
                raise _Unusable(Damage.CORRUPT, f"is damaged: game {game_id}'s {what} time is {value[:40]!r}")
    tallies = {g[0]: (g[6], g[7]) for g in games}
    if counted and not bounded:  # every game's count against a whole scan (a cut page, a key that hides rows)
        scanned = dict(conn.execute("SELECT game_id, COUNT(*) FROM entries GROUP BY game_id").fetchall())
        for game_id, (count, _) in tallies.items():
            if scanned.get(game_id, 0) != count:
                raise _Unusable(
                    Damage.CORRUPT,
                    f"is damaged: game {game_id} was written with {count} entries, and {scanned.get(game_id, 0)} are found",
                )
    ids = {games[-1][0]} if games else set()
    ids |= {g[0] for g in games if g[4] is None}
    for game_id in sorted(tallies) if deep else sorted(ids)[-2:]:
        _check_entries(conn, game_id, checked, tallies[game_id] if counted else None)


def _check_entries(conn: sqlite3.Connection, game_id: int, checked: bool, tally: tuple[int, int] | None) -> None:
    """Each entry of ``game_id`` as written, and all of them its ``tally`` (count, chain);
    without one (before schema 5), as many as a whole scan finds."""
    rows = conn.execute(
        f"SELECT seq, kind, payload, at, {'crc' if checked else 'NULL'},"
        " typeof(kind) || typeof(payload) || typeof(at) FROM entries"
        " WHERE game_id = ? ORDER BY seq", (game_id,)
    ).fetchall()
    chain = 0
    for seq, kind, payload, at, crc, types in rows:
        if types != b"texttextreal":  # (a bit of a value's type changed: text read as a blob)
            raise _Unusable(Damage.CORRUPT, f"is damaged: game {game_id} entry {seq} holds values of the wrong type")
        computed = entry_crc(game_id, seq, kind, payload, at)
        if crc is not None and crc != computed:
            raise _Unusable(Damage.CORRUPT, f"is damaged: game {game_id} entry {seq} does not match its checksum")
        chain = chain_crc(chain, computed)
        _text(kind, strict=f"game {game_id} entry {seq}")
        _object(payload, f"game {game_id} entry {seq}")
    if tally is not None:
        count, stored = tally
        if count != len(rows):
            raise _Unusable(
                Damage.CORRUPT, f"is damaged: game {game_id} was written with {count} entries, and {len(rows)} are found"
            )
        if stored != chain:
            raise _Unusable(Damage.CORRUPT, f"is damaged: game {game_id}'s entries are not all as written (its chain differs)")
        return
    # A key changed on the card: quick_check does not check the order of keys, and the
    # read by game above (a search of the tree) then misses rows a whole scan finds.
    (scanned,) = conn.execute("SELECT COUNT(*) FROM entries WHERE +game_id = ?", (game_id,)).fetchone()
    if scanned != len(rows):
        raise _Unusable(
            Damage.CORRUPT, f"is damaged: game {game_id} has {scanned} entries, of which {len(rows)} can be found"
        )


def _schema_of(conn: sqlite3.Connection) -> list[tuple[Any, ...]]:
    """What a database's ``sqlite_master`` says of its tables and indexes, in order."""
    return conn.execute(
        "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_stat%' ORDER BY type, name"
    ).fetchall()


@functools.cache
def _schema_made_by(migrations: tuple[Migration, ...]) -> list[tuple[Any, ...]]:
    """``sqlite_master`` of a journal that ``migrations`` made, in a database in memory."""
    conn = sqlite3.connect(":memory:")
    conn.text_factory = bytes
    try:
        for migration in migrations:
            migration(conn)
        return _schema_of(conn)
    finally:
        conn.close()


def _expected_schema(version: int) -> list[tuple[Any, ...]]:
    """``sqlite_master`` of a journal at schema ``version``, as the migrations make it."""
    return _schema_made_by(MIGRATIONS[:version])


def _is_time(text: str) -> bool:
    """Whether ``text`` is an ISO 8601 time, as the journal writes them."""
    try:
        datetime.fromisoformat(text)
    except ValueError:
        return False
    return True


def _text(value: object, strict: str | None = None) -> str:
    """``value`` (bytes from a :attr:`~sqlite3.Connection.text_factory` of bytes) as text;
    with ``strict`` (what it is), bytes that are not UTF-8 make the file :class:`_Unusable`."""
    if not isinstance(value, bytes):
        return str(value)
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        if strict is None:
            return value.decode("utf-8", errors="replace")
        raise _Unusable(Damage.CORRUPT, f"is damaged: {strict} is not UTF-8 text ({value[:40]!r})") from None


def _object(value: object, what: str) -> None:
    """Make sure ``value`` is a UTF-8 JSON object, else the file is :class:`_Unusable`."""
    text = _text(value, strict=what)
    try:
        decoded = json.loads(text)
    except ValueError:
        decoded = None
    if not isinstance(decoded, dict):
        raise _Unusable(Damage.CORRUPT, f"is damaged: {what} is not a JSON object ({text[:40]!r})")


def _connect(db: Path, factory: ConnectionFactory) -> sqlite3.Connection:
    """Open ``db`` (checked by then), set WAL and ``synchronous=FULL``, migrate it to the
    current schema. :class:`JournalOpenError` when it cannot be opened at all."""
    try:
        conn = sqlite3.connect(
            db, timeout=10.0, isolation_level=None, check_same_thread=False, factory=factory
        )
    except sqlite3.Error as e:
        raise JournalOpenError(f"cannot open the game journal {db}: {e}", db, _reason(e), failure=_failure(e)) from None
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
        _migrate(conn)
    except sqlite3.DatabaseError as e:
        conn.close()
        if _is_corruption(e):
            raise _Unusable(Damage.CORRUPT, f"is not a readable SQLite database ({e})") from None
        raise JournalOpenError(f"cannot open the game journal {db}: {e}", db, _reason(e), failure=_failure(e)) from None
    except BaseException:
        conn.close()
        raise
    return conn


def _migrate(conn: sqlite3.Connection) -> None:
    """Apply the missing migrations, each with its version bump in one transaction; then give
    back the pages a migration freed (schema 4 drops a table), so the file is laid out as a
    clean stop's bounded check wants it (no free pages)."""
    migrated = False
    while True:
        conn.execute("BEGIN IMMEDIATE")
        try:
            (version,) = conn.execute("PRAGMA user_version").fetchone()  # again, under the lock
            if version >= len(MIGRATIONS):
                conn.rollback()
                if migrated and conn.execute("PRAGMA freelist_count").fetchone()[0]:
                    conn.execute("VACUUM")
                return
            migrated = True
            MIGRATIONS[version](conn)
            conn.execute(f"PRAGMA user_version = {int(version) + 1}")
            conn.commit()
        except BaseException:
            if conn.in_transaction:
                conn.rollback()
            raise


__all__ = [
    "COUNTED_FROM",
    "JOURNAL_NAME",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "UNVERIFIED_KEPT",
    "ArchiveRefusedError",
    "Damage",
    "Entry",
    "GameInfo",
    "Journal",
    "JournalCopyError",
    "JournalCorruptError",
    "JournalDataError",
    "JournalOpenError",
    "JournalReadError",
    "JournalRecoveryError",
    "JournalVersionError",
    "JournalWriteError",
    "Kept",
    "NoJournalError",
    "NoSuchGameError",
    "Recovery",
    "UnverifiedLog",
    "WriteFailure",
    "ask_full_check",
    "copy_aside",
    "set_aside",
]
