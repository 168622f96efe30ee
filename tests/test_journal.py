"""Tests of scoreboard.journal: the SQLite game journal, its recovery and its write failures."""

from __future__ import annotations

import errno
import json
import os
import re
import resource
import signal
import sqlite3
import shutil
import subprocess
import sys
import textwrap
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from engine.errors import ScoreboardError
from scoreboard import journal as journal_module
from scoreboard.journal_salvage import Salvage
from scoreboard.journal import (
    JOURNAL_NAME,
    SCHEMA_VERSION,
    Damage,
    Journal,
    JournalCopyError,
    JournalCorruptError,
    JournalDataError,
    JournalVersionError,
    JournalWriteError,
    Kept,
    NoJournalError,
    NoSuchGameError,
    WriteFailure,
)

META = {"rules": "de rack=9", "players": ["Jürgen", "Zoë Ørsted"], "first": 1}
MOMENT = datetime(2026, 5, 9, 14, 30, 15, tzinfo=UTC)
STAMP = "20260509T143015"


def fixed_now() -> datetime:
    return MOMENT


class FlakyConnection(sqlite3.Connection):
    """A connection whose next commit fails like a full disk (or with ``fail_with``)."""

    last: FlakyConnection | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fail_with: BaseException | None = None
        self.commits = 0
        FlakyConnection.last = self

    def commit(self) -> None:
        failure, self.fail_with = self.fail_with, None
        if failure is not None:
            raise failure
        self.commits += 1
        super().commit()


@pytest.fixture
def flaky(tmp_path: Path) -> tuple[Journal, FlakyConnection]:
    journal = Journal.open(tmp_path, connection_factory=FlakyConnection)
    conn = FlakyConnection.last
    assert conn is not None
    return journal, conn


def raw(tmp_path: Path) -> sqlite3.Connection:
    """An independent connection to the journal file, as another process would have."""
    return sqlite3.connect(tmp_path / JOURNAL_NAME)


# --- the file -----------------------------------------------------------------------------


def test_open_creates_a_wal_journal_with_full_sync_and_the_schema_version(tmp_path: Path) -> None:
    state = tmp_path / "state" / "sub"
    with Journal.open(state, connection_factory=FlakyConnection) as journal:
        assert journal.path == state / JOURNAL_NAME
        assert journal.recovered_from is None and journal.recovery is None
        conn = FlakyConnection.last
        assert conn is not None
        assert conn.execute("PRAGMA synchronous").fetchone() == (2,)  # FULL
        assert conn.execute("PRAGMA foreign_keys").fetchone() == (1,)
        with sqlite3.connect(journal.path) as other:
            assert other.execute("PRAGMA journal_mode").fetchone() == ("wal",)
            assert other.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
            tables = {r[0] for r in other.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            # the publish cursor per event and the journal's identity (schema 4)
            assert tables == {"games", "entries", "identity", "broadcast_events", "broadcast_cursor"}
            assert re.fullmatch(r"[0-9a-f]{32}", journal.identity())


def test_games_and_entries_round_trip_and_survive_a_reopen(tmp_path: Path) -> None:
    payload = {
        "type": "play",
        "player": 1,
        "placement": [{"square": "H8", "letter": "Ä"}],
        "x": [1.5, None, True],
    }
    with Journal.open(tmp_path, now=fixed_now) as journal:
        game = journal.start_game(META)
        assert journal.append(game, "command", payload, 1715265015.123456789) == 1
        assert journal.append_many(game, [("clock", {"left": [600.0, 599.5]}, 2.0), ("note", {}, 3)]) == [
            2,
            3,
        ]
    with Journal.open(tmp_path) as journal:
        (info,) = journal.games()
        assert info.id == game
        assert info.started == "2026-05-09T14:30:15+00:00"
        assert info.meta == META
        assert (info.finished, info.result, info.entries) == (None, None, 3)
        entries = journal.entries(game)
        assert [(e.seq, e.kind, e.payload, e.at) for e in entries] == [
            (1, "command", payload, 1715265015.123456789),
            (2, "clock", {"left": [600.0, 599.5]}, 2.0),
            (3, "note", {}, 3.0),
        ]


def test_seq_counts_per_game(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as journal:
        a = journal.start_game(META)
        b = journal.start_game({"players": ["x", "y"]})
        assert b != a
        assert journal.append(a, "k", {}, 0) == 1
        assert journal.append(b, "k", {}, 0) == 1
        assert journal.append(a, "k", {}, 0) == 2
        assert [e.seq for e in journal.entries(a)] == [1, 2]
        assert [e.seq for e in journal.entries(b)] == [1]


def test_an_append_is_committed_before_it_returns(tmp_path: Path) -> None:
    journal = Journal.open(tmp_path)
    game = journal.start_game(META)
    journal.append(game, "command", {"type": "pass", "player": 0}, 1.0)
    with raw(tmp_path) as other:  # another connection sees it while the journal is still open
        assert other.execute("SELECT kind, payload FROM entries").fetchall() == [
            ("command", '{"type":"pass","player":0}')
        ]
    journal.close()


def test_latest_unfinished_and_finish(tmp_path: Path) -> None:
    with Journal.open(tmp_path, now=fixed_now) as journal:
        assert journal.latest() is None and journal.unfinished() is None and journal.games() == []
        a = journal.start_game({"n": 1})
        b = journal.start_game({"n": 2})
        journal.append(a, "k", {}, 0)
        journal.finish(b, {"scores": [300, 250], "termination": "went-out"})
        latest = journal.latest()
        assert latest is not None and latest.id == b
        assert latest.finished == "2026-05-09T14:30:15+00:00"
        assert latest.result == {"scores": [300, 250], "termination": "went-out"}
        unfinished = journal.unfinished()
        assert unfinished is not None and (unfinished.id, unfinished.entries) == (a, 1)
        journal.finish(a, {})
        assert journal.unfinished() is None
        assert [g.id for g in journal.games()] == [a, b]


def test_unknown_game_ids_are_typed_errors(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as journal:
        game = journal.start_game(META)
        for call in (
            lambda: journal.append(game + 1, "k", {}, 0),
            lambda: journal.finish(game + 1, {}),
            lambda: journal.entries(game + 1),
            lambda: journal.game(game + 1),
        ):
            with pytest.raises(NoSuchGameError, match=f"no game {game + 1} in the journal .*{JOURNAL_NAME}"):
                call()
        assert isinstance(NoSuchGameError("x"), LookupError)
        assert journal.entries(game) == []


@pytest.mark.parametrize(
    "payload", [{"tiles": {"A", "B"}}, {"at": float("nan")}, ["not", "an", "object"], None]
)
def test_payloads_that_are_not_json_objects_are_refused_before_anything_is_written(
    tmp_path: Path, payload: Any
) -> None:
    with Journal.open(tmp_path) as journal:
        game = journal.start_game(META)
        with pytest.raises(JournalDataError, match="payload"):
            journal.append_many(game, [("ok", {"a": 1}, 0), ("bad", payload, 1)])
        assert journal.entries(game) == []
        with pytest.raises(JournalDataError):
            journal.start_game(payload)
        with pytest.raises(JournalDataError):
            journal.append(game, "", {}, 0)
        with pytest.raises(JournalDataError):
            journal.append(game, "k", {}, float("inf"))
        assert len(journal.games()) == 1 and journal.entries(game) == []


def test_append_many_is_one_transaction(flaky: tuple[Journal, FlakyConnection]) -> None:
    journal, conn = flaky
    game = journal.start_game(META)
    before = conn.commits
    assert journal.append_many(game, [("a", {}, 0), ("b", {}, 1), ("c", {}, 2)]) == [1, 2, 3]
    assert conn.commits == before + 1
    assert journal.append_many(game, []) == []
    journal.close()


# --- write failures -----------------------------------------------------------------------


def sqlite_error(message: str, code: int) -> sqlite3.OperationalError:
    """An SQLite error as the sqlite3 module raises it: its message and its result code."""
    e = sqlite3.OperationalError(message)
    e.sqlite_errorcode = code  # type: ignore[attr-defined]
    return e


@pytest.mark.parametrize(
    ("failure", "reason", "kind"),
    [
        (sqlite_error("database or disk is full", sqlite3.SQLITE_FULL), "disk full", WriteFailure.DISK_FULL),
        (sqlite_error("disk I/O error", sqlite3.SQLITE_IOERR | 0x0A00), "disk I/O error", WriteFailure.IO_ERROR),
        (OSError(28, "No space left on device"), "No space left on device", WriteFailure.DISK_FULL),
        (OSError(5, "Input/output error"), "Input/output error", WriteFailure.IO_ERROR),
        (sqlite_error("attempt to write a readonly database", sqlite3.SQLITE_READONLY), "attempt to write a readonly database", WriteFailure.OTHER),
    ],
)
def test_a_failed_commit_keeps_nothing_and_a_retry_works(
    flaky: tuple[Journal, FlakyConnection], failure: BaseException, reason: str, kind: WriteFailure
) -> None:
    journal, conn = flaky
    game = journal.start_game(META)
    journal.append(game, "command", {"n": 1}, 1.0)
    conn.fail_with = failure
    with pytest.raises(JournalWriteError) as info:
        journal.append_many(game, [("command", {"n": 2}, 2.0), ("command", {"n": 3}, 3.0)])
    assert str(info.value) == f"could not save the game record: {reason} ({journal.path})"
    assert info.value.failure is kind  # what the display says comes from here, not from the text
    assert isinstance(info.value, OSError) and isinstance(info.value, ScoreboardError)
    assert info.value.__cause__ is failure
    assert [e.payload for e in journal.entries(game)] == [{"n": 1}]
    with raw(journal.path.parent) as other:
        assert other.execute("SELECT COUNT(*) FROM entries").fetchone() == (1,)
    # space is back: the same call goes through, with the seq the failed one would have had
    assert journal.append_many(game, [("command", {"n": 2}, 2.0), ("command", {"n": 3}, 3.0)]) == [2, 3]
    assert [e.payload for e in journal.entries(game)] == [{"n": 1}, {"n": 2}, {"n": 3}]
    journal.close()


def test_failed_start_and_finish_keep_nothing(flaky: tuple[Journal, FlakyConnection]) -> None:
    journal, conn = flaky
    conn.fail_with = sqlite_error("database or disk is full", sqlite3.SQLITE_FULL)
    with pytest.raises(JournalWriteError, match="disk full"):
        journal.start_game(META)
    assert journal.games() == []
    game = journal.start_game(META)
    conn.fail_with = sqlite_error("disk I/O error", sqlite3.SQLITE_IOERR)
    with pytest.raises(JournalWriteError, match="disk I/O error"):
        journal.finish(game, {"scores": [1, 2]})
    assert journal.unfinished() is not None
    journal.close()


def test_a_real_sqlite_full_error_rolls_back(flaky: tuple[Journal, FlakyConnection]) -> None:
    """SQLite's own SQLITE_FULL: the file may not grow beyond its current pages."""
    journal, conn = flaky
    game = journal.start_game(META)
    journal.append(game, "small", {"n": 1}, 0)
    (pages,) = conn.execute("PRAGMA page_count").fetchone()
    conn.execute(f"PRAGMA max_page_count = {pages}")
    big = {"blob": "x" * 200_000}
    with pytest.raises(JournalWriteError, match=r"^could not save the game record: disk full \(") as info:
        journal.append(game, "big", big, 1)
    assert info.value.failure is WriteFailure.DISK_FULL
    assert [e.kind for e in journal.entries(game)] == ["small"]
    conn.execute("PRAGMA max_page_count = 1073741823")
    assert journal.append(game, "big", big, 1) == 2
    assert journal.entries(game)[-1].payload == big
    journal.close()


_FSIZE_SCRIPT = textwrap.dedent(
    """
    import json, resource, signal, sys
    from pathlib import Path
    from scoreboard.journal import Journal, JournalWriteError

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
    state = Path(sys.argv[1])
    journal = Journal.open(state)
    game = journal.latest().id
    journal.entries(game)  # the -wal and -shm files exist and are sized now
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    largest = max(p.stat().st_size for p in state.iterdir())
    resource.setrlimit(resource.RLIMIT_FSIZE, (largest + 8192, hard))
    big = {"blob": "x" * 300_000}
    result = {}
    try:
        journal.append(game, "big", big, 1.0)
    except JournalWriteError as e:
        result["error"] = str(e)
    result["after_failure"] = [e.kind for e in journal.entries(game)]
    resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))  # space is back
    result["retry_seq"] = journal.append(game, "big", big, 1.0)
    journal.close()
    print(json.dumps(result))
    """
)


def test_a_real_file_size_limit_fails_cleanly_and_a_retry_works(tmp_path: Path) -> None:
    """A real EFBIG from the kernel (RLIMIT_FSIZE) in a child process: no root needed."""
    if not hasattr(resource, "RLIMIT_FSIZE") or not hasattr(signal, "SIGXFSZ"):
        pytest.skip("this system has no RLIMIT_FSIZE/SIGXFSZ to simulate a full disk with")
    hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
    if hard != resource.RLIM_INFINITY and hard < 10_000_000:
        pytest.skip(f"the hard file size limit ({hard} bytes) leaves no room for the retry")
    with Journal.open(tmp_path) as journal:
        game = journal.start_game(META)
        journal.append(game, "small", {"n": 1}, 0)
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-c", _FSIZE_SCRIPT, str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["error"].startswith("could not save the game record: ")
    assert result["error"].endswith(f"({tmp_path / JOURNAL_NAME})")
    assert any(reason in result["error"] for reason in ("disk full", "disk I/O error")), result["error"]
    assert result["after_failure"] == ["small"]
    assert result["retry_seq"] == 2
    with Journal.open(tmp_path) as journal:
        assert journal.recovered_from is None
        assert [(e.seq, e.kind) for e in journal.entries(game)] == [(1, "small"), (2, "big")]
        assert journal.entries(game)[1].payload == {"blob": "x" * 300_000}


# --- unusable files -----------------------------------------------------------------------


def test_a_file_that_is_not_sqlite_is_set_aside_with_its_wal(tmp_path: Path) -> None:
    db = tmp_path / JOURNAL_NAME
    db.write_bytes(b"this is no database, just some text\n" * 200)
    (tmp_path / (JOURNAL_NAME + "-wal")).write_bytes(b"stale wal")
    (tmp_path / (JOURNAL_NAME + "-shm")).write_bytes(b"stale shm")
    with Journal.open(tmp_path, now=fixed_now) as journal:
        moved = tmp_path / f"{JOURNAL_NAME}.corrupt-{STAMP}"
        assert journal.recovered_from == moved
        assert moved.read_bytes() == b"this is no database, just some text\n" * 200
        assert (tmp_path / f"{JOURNAL_NAME}.corrupt-{STAMP}-wal").read_bytes() == b"stale wal"
        assert (tmp_path / f"{JOURNAL_NAME}.corrupt-{STAMP}-shm").read_bytes() == b"stale shm"
        recovery = journal.recovery
        assert recovery is not None and recovery.journal == db
        assert recovery.kept == Kept(Damage.NOT_SQLITE, moved, STAMP) and recovery.salvage == Salvage(())
        assert journal.games() == []
        game = journal.start_game(META)
        assert journal.append(game, "k", {}, 0) == 1
    with Journal.open(tmp_path) as again:
        assert again.recovered_from is None and len(again.games()) == 1


def _quick_check(db: Path) -> list[str] | str:
    """The rows of ``PRAGMA quick_check``, or the message of the error it raises."""
    conn = sqlite3.connect(db)
    try:
        return [row[0] for row in conn.execute("PRAGMA quick_check")]
    except sqlite3.DatabaseError as e:
        return str(e)
    finally:
        conn.close()


def _damaged_copies(tmp_path: Path) -> tuple[bytes, bytes]:
    """A journal file damaged two ways: quick_check raises, and quick_check lists problems."""
    with Journal.open(tmp_path / "good") as journal:
        game = journal.start_game(META)
        journal.append_many(game, [("k", {"blob": "y" * 3000}, i) for i in range(40)])
    data = (tmp_path / "good" / JOURNAL_NAME).read_bytes()
    page = int.from_bytes(data[16:18], "big")
    probe = tmp_path / "probe.db"
    raising = listing = None
    for n in range(2, len(data) // page + 1):  # mangle each page's header until both kinds turn up
        damaged = bytearray(data)
        damaged[(n - 1) * page + 3 : (n - 1) * page + 5] = b"\xff\xff"
        probe.write_bytes(bytes(damaged))
        result = _quick_check(probe)
        if isinstance(result, str) and raising is None:
            raising = bytes(damaged)
        elif isinstance(result, list) and result != ["ok"] and listing is None:
            listing = bytes(damaged)
    assert raising is not None and listing is not None
    return raising, listing


@pytest.mark.parametrize("how", ["quick_check raises", "quick_check lists problems"])
def test_a_damaged_sqlite_file_fails_quick_check_and_is_set_aside(tmp_path: Path, how: str) -> None:
    raising, listing = _damaged_copies(tmp_path)
    data = raising if how == "quick_check raises" else listing
    state = tmp_path / "state"
    state.mkdir()
    (state / JOURNAL_NAME).write_bytes(data)
    with Journal.open(state, now=fixed_now) as journal:
        assert journal.recovered_from == state / f"{JOURNAL_NAME}.corrupt-{STAMP}"
        assert journal.recovered_from.read_bytes() == data
        recovery = journal.recovery
        assert recovery is not None and recovery.kept == Kept(Damage.CORRUPT, journal.recovered_from, STAMP)
        assert recovery.salvage is not None
        for info in journal.games():  # what could be read is kept: a prefix of each game
            assert info.id == 1 and info.meta == META
            entries = journal.entries(info.id)
            assert [(e.seq, e.at, e.payload) for e in entries] == [
                (i + 1, float(i), {"blob": "y" * 3000}) for i in range(len(entries))
            ]


def test_a_journal_of_a_newer_schema_is_set_aside_untouched(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as journal:
        journal.start_game(META)
    with raw(tmp_path) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with Journal.open(tmp_path, now=fixed_now) as journal:
        moved = tmp_path / f"{JOURNAL_NAME}.newer-{STAMP}"
        assert journal.recovered_from == moved
        assert journal.recovery is not None and journal.recovery.kept.damage is Damage.NEWER
        assert journal.recovery.salvage is None  # (nothing of it is copied)
        assert journal.games() == []
    with sqlite3.connect(moved) as old:
        assert old.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION + 1,)
        assert old.execute("SELECT COUNT(*) FROM games").fetchone() == (1,)


def test_setting_aside_never_overwrites(tmp_path: Path) -> None:
    taken = tmp_path / f"{JOURNAL_NAME}.corrupt-{STAMP}"
    taken.write_bytes(b"first")
    (tmp_path / f"{JOURNAL_NAME}.corrupt-{STAMP}-2-wal").write_bytes(b"second's wal")
    (tmp_path / JOURNAL_NAME).write_bytes(b"garbage " * 100)
    with Journal.open(tmp_path, now=fixed_now) as journal:
        assert journal.recovered_from == tmp_path / f"{JOURNAL_NAME}.corrupt-{STAMP}-3"
    assert taken.read_bytes() == b"first"
    assert (tmp_path / f"{JOURNAL_NAME}.corrupt-{STAMP}-2-wal").read_bytes() == b"second's wal"
    assert (tmp_path / f"{JOURNAL_NAME}.corrupt-{STAMP}-3").read_bytes() == b"garbage " * 100


def test_open_existing_never_creates_or_moves(tmp_path: Path) -> None:
    with pytest.raises(NoJournalError, match=str(tmp_path / JOURNAL_NAME)):
        Journal.open_existing(tmp_path)
    assert list(tmp_path.iterdir()) == []
    (tmp_path / JOURNAL_NAME).write_bytes(b"garbage " * 100)
    with pytest.raises(JournalCorruptError) as refused:
        Journal.open_existing(tmp_path)
    assert (refused.value.path, refused.value.damage) == (tmp_path / JOURNAL_NAME, Damage.NOT_SQLITE)
    assert sorted(p.name for p in tmp_path.iterdir()) == [JOURNAL_NAME]
    (tmp_path / JOURNAL_NAME).unlink()
    with Journal.open(tmp_path) as journal:
        journal.start_game(META)
    with Journal.open_existing(tmp_path) as journal:
        assert len(journal.games()) == 1
    with raw(tmp_path) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    with pytest.raises(JournalVersionError) as newer:
        Journal.open_existing(tmp_path)
    assert (newer.value.damage, newer.value.version) == (Damage.NEWER, SCHEMA_VERSION + 5)


# --- migrations ---------------------------------------------------------------------------


def test_a_new_schema_version_is_one_migration_function(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Journal.open(tmp_path) as journal:
        game = journal.start_game(META)
        journal.append(game, "k", {"n": 1}, 0)
    calls: list[int] = []

    def v2(conn: sqlite3.Connection) -> None:
        if conn.execute("PRAGMA database_list").fetchone()[2]:  # (not the schema check's database in memory)
            calls.append(1)
        conn.execute("ALTER TABLE games ADD COLUMN label TEXT")

    monkeypatch.setattr(journal_module, "MIGRATIONS", (*journal_module.MIGRATIONS, v2))
    with Journal.open(tmp_path) as journal:
        assert journal.recovered_from is None
        assert [e.payload for e in journal.entries(game)] == [{"n": 1}]
    with Journal.open(tmp_path) as journal:  # already migrated: not again
        pass
    assert calls == [1]
    with raw(tmp_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION + 1,)
        assert "label" in [r[1] for r in conn.execute("PRAGMA table_info(games)")]


def test_schema_4_gives_a_journal_of_schema_3_an_identity_and_keeps_its_cursor_as_of_no_event(tmp_path: Path) -> None:
    """A journal that published before schema 4: it gets a random identity, and its cursor
    (which knew no event) is kept as the event ``''``'s, taken as published."""
    with sqlite3.connect(tmp_path / JOURNAL_NAME) as conn:
        for migration in journal_module.MIGRATIONS[:3]:
            migration(conn)
        conn.execute("PRAGMA user_version = 3")
        conn.execute("INSERT INTO games (id, started, meta, finished, result) VALUES (1, '2026-01-01T00:00:00+00:00',"
                     " '{}', '2026-01-01T01:00:00+00:00', '{}')")
        conn.execute("INSERT INTO broadcast (game_id, seq, finished) VALUES (1, 0, '2026-01-01T01:00:00+00:00')")
    conn.close()
    with Journal.open(tmp_path) as journal:
        assert journal.recovered_from is None
        identity = journal.identity()
    assert re.fullmatch(r"[0-9a-f]{32}", identity)
    with raw(tmp_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        assert conn.execute("SELECT * FROM broadcast_cursor").fetchall() == [("", 1, 0, "2026-01-01T01:00:00+00:00", 1)]
    with Journal.open(tmp_path) as journal:
        assert journal.identity() == identity  # (made once)
    with Journal.open(tmp_path / "other") as other:
        assert other.identity() != identity


@pytest.mark.parametrize("bad", ["DELETE FROM identity", "UPDATE identity SET id = 'x'",
                                 "INSERT INTO identity (id) SELECT id FROM identity"])
def test_a_journal_without_one_identity_is_set_aside_and_its_games_kept(tmp_path: Path, bad: str) -> None:
    with Journal.open(tmp_path) as journal:
        journal.append(journal.start_game(META), "k", {"n": 1}, 0)
        identity = journal.identity()
    with raw(tmp_path) as conn:
        conn.execute(bad)
    with Journal.open(tmp_path, now=fixed_now) as journal:
        assert journal.recovery is not None and journal.recovery.kept.damage is Damage.CORRUPT
        assert "identity" in journal.recovery.detail
        assert [e.payload for e in journal.entries(1)] == [{"n": 1}]  # (salvaged)
        assert journal.identity() != identity  # (a new journal: the hub takes it for another)


@pytest.mark.parametrize("bad", ["'[1, 2'", "CAST(x'7b22223aff7d' AS TEXT)"], ids=["not JSON", "not UTF-8"])
def test_a_bad_entry_of_an_old_game_is_a_typed_error_when_read(tmp_path: Path, bad: str) -> None:
    with Journal.open(tmp_path) as journal:
        old = journal.start_game(META)
        journal.append(old, "k", {}, 0)
        journal.finish(old, {"done": True})
        journal.append(journal.start_game(META), "k", {}, 0)
    with raw(tmp_path) as conn:
        conn.execute(f"UPDATE entries SET payload = {bad} WHERE game_id = ?", (old,))
    with Journal.open(tmp_path) as journal:  # a start reads only the latest games: it opens
        assert journal.recovered_from is None
        with pytest.raises(JournalCorruptError) as damaged:
            journal.entries(old)
        assert (damaged.value.damage, damaged.value.game, damaged.value.entry) == (Damage.CORRUPT, old, 1)


@pytest.mark.parametrize("bad", ["'[1, 2'", "CAST(x'7b22223aff7d' AS TEXT)"], ids=["not JSON", "not UTF-8"])
def test_a_bad_entry_of_the_game_to_resume_sets_the_journal_aside_and_keeps_what_comes_before(
    tmp_path: Path, bad: str
) -> None:
    with Journal.open(tmp_path) as journal:
        game = journal.start_game(META)
        for n in range(5):
            journal.append(game, "k", {"n": n}, n)
    with raw(tmp_path) as conn:
        conn.execute(f"UPDATE entries SET payload = {bad} WHERE seq = 4")
    original = (tmp_path / JOURNAL_NAME).read_bytes()
    with Journal.open(tmp_path, now=fixed_now) as journal:
        assert journal.recovered_from == tmp_path / f"{JOURNAL_NAME}.corrupt-{STAMP}"
        assert journal.recovered_from.read_bytes() == original
        assert journal.recovery is not None and journal.recovery.salvage is not None
        [kept] = journal.recovery.salvage.games
        assert (len(kept.entries), kept.of) == (3, 5)
        assert [e.payload for e in journal.entries(game)] == [{"n": 0}, {"n": 1}, {"n": 2}]
        assert journal.unfinished() is not None


@pytest.mark.parametrize(
    ("damaged", "kept", "left_out", "cut_at", "words"),
    [
        ((5,), [1, 2, 3, 4, 6, 7, 8, 9], (5,), None, "game 1 kept 8 of 9 records: all but the moment at entry 5"),
        ((3, 7), [1, 2, 4, 5, 6], (3,), 7, "game 1 kept 5 of 9 records: entries 1 to 6 but the moment at entry 3"),
        ((7,), [1, 2, 3, 4, 5, 6], (), 7, "game 1 kept its first 6 of 9 records"),
    ],
    ids=["a moment in the middle", "a moment, then a play", "a play"],
)
def test_the_salvage_says_which_records_were_kept(
    tmp_path: Path, damaged: tuple[int, ...], kept: list[int], left_out: tuple[int, ...], cut_at: int | None, words: str
) -> None:
    """A moment that cannot be read is left out and the game goes on past it: the summary
    says so, not that the game was kept up to it."""
    with Journal.open(tmp_path) as journal:
        game = journal.start_game(META)
        journal.append_many(game, [("moment" if n in (3, 5) else "k", {"n": n}, n) for n in range(1, 10)])
    with raw(tmp_path) as conn:  # (the checksums stay: the rows no longer match them)
        for seq in damaged:
            conn.execute("UPDATE entries SET payload = '{\"n\": 0}' WHERE seq = ?", (seq,))
    with Journal.open(tmp_path, now=fixed_now) as journal:
        assert journal.recovery is not None and journal.recovery.salvage is not None
        [salvaged] = journal.recovery.salvage.games
        assert (salvaged.of, salvaged.left_out, salvaged.cut_at) == (9, left_out, cut_at)
        assert [e.seq for e in journal.entries(game)] == kept
        assert salvaged.kept() == words
        assert journal.recovery.salvage.summary() == f"1 games with {len(kept)} records were copied into a new journal; {words}"


def test_a_copy_that_fails_leaves_nothing_under_the_kept_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A disk that fills while the journal's files are copied aside: no part of the copy is
    left to pass for the original, and the error says why and where it was to go."""
    real = shutil.copyfile

    def fills_up(source: Any, target: Any) -> Any:
        if str(source).endswith("-wal"):  # (the database is copied whole, then the disk is full)
            Path(target).write_bytes(Path(source).read_bytes()[:100])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(source, target)

    with Journal.open(tmp_path, now=fixed_now) as journal:
        journal.append(journal.start_game(META), "k", {"n": 1}, 0)
        before = sorted(p.name for p in tmp_path.iterdir())
        monkeypatch.setattr(journal_module.shutil, "copyfile", fills_up)
        with pytest.raises(JournalCopyError) as failed:
            journal.keep_copy(Damage.GAME_UNREADABLE)
        assert failed.value.failure is WriteFailure.DISK_FULL
        assert failed.value.kept == Kept(Damage.GAME_UNREADABLE, tmp_path / f"{JOURNAL_NAME}.unreadable-{STAMP}", STAMP)
        assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing of the copy
        monkeypatch.setattr(journal_module.shutil, "copyfile", real)
        kept = journal.keep_copy(Damage.GAME_UNREADABLE)  # room again: whole
        assert kept.path.read_bytes() == (tmp_path / JOURNAL_NAME).read_bytes()
        assert Path(f"{kept.path}-wal").read_bytes() == (tmp_path / f"{JOURNAL_NAME}-wal").read_bytes()
