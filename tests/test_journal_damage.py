"""Damaged journals: the original files are kept byte for byte, the damage is told, what can
be read is kept, and nothing ever escapes as a traceback (seeded fuzzing of the files)."""

from __future__ import annotations

import errno
import json
import logging
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from scoreboard.journal import (
    JOURNAL_NAME,
    UNVERIFIED_KEPT,
    Damage,
    Journal,
    JournalCorruptError,
    JournalOpenError,
    JournalRecoveryError,
    JournalWriteError,
    Kept,
    NoSuchGameError,
    WriteFailure,
)
from scoreboard.journal_wal import read_frames, unverified, wal_damage

META = {"rules": "de", "players": ["Anna", "Ben"], "first": 0}
STAMP = "20260509T143015"
SIDES = ("", "-wal", "-shm")
RECORDS = 60


def fixed_now() -> datetime:
    return datetime(2026, 5, 9, 14, 30, 15, tzinfo=UTC)


def killed_journal(folder: Path, records: int = RECORDS) -> tuple[dict[str, bytes], bytes]:
    """The files of a journal as a killed service leaves them: ``records`` entries of one
    unfinished game, most of them still in the write-ahead log; and its wal-index as it was
    half way (stale, as a power cut can leave it on the card: it is never synced)."""
    folder.mkdir(parents=True, exist_ok=True)
    journal = Journal.open(folder)
    game = journal.start_game(META)
    stale = b""
    for n in range(records):
        journal.append(game, "k", {"n": n, "pad": "x" * 150}, float(n))
        if n == records // 2:
            stale = (folder / f"{JOURNAL_NAME}-shm").read_bytes()
    files = {s: (folder / (JOURNAL_NAME + s)).read_bytes() for s in SIDES}
    journal.close()
    return files, stale


def lay_out(folder: Path, files: dict[str, bytes | None]) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for suffix, data in files.items():
        if data is not None:
            (folder / (JOURNAL_NAME + suffix)).write_bytes(data)


def kept_files(journal: Journal) -> dict[str, bytes | None]:
    assert journal.recovered_from is not None
    return files_of(journal.recovered_from)


def files_of(kept: Path) -> dict[str, bytes | None]:
    """The bytes of the journal files kept as ``kept`` (None: not there)."""
    return {s: Path(f"{kept}{s}").read_bytes() if Path(f"{kept}{s}").exists() else None for s in SIDES}


def readable(journal: Journal) -> list[int]:
    """The ``n`` of every entry of the journal's one game (none when it has no game)."""
    games = journal.games()
    assert len(games) <= 1
    return [e.payload["n"] for e in journal.entries(games[0].id)] if games else []


@pytest.fixture(scope="module")
def killed_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, bytes], bytes]:
    return killed_journal(tmp_path_factory.mktemp("killed"))


@pytest.fixture(scope="module")
def killed(killed_run: tuple[dict[str, bytes], bytes]) -> dict[str, bytes]:
    return killed_run[0]


@pytest.fixture(scope="module")
def stale_shm(killed_run: tuple[dict[str, bytes], bytes]) -> bytes:
    return killed_run[1]


def test_a_killed_services_journal_is_whole_and_resumes_with_every_record(tmp_path: Path, killed: dict[str, bytes]) -> None:
    frames = read_frames(killed["-wal"])
    assert frames is not None and frames.recovered == frames.complete > 10 and not frames.lost
    assert wal_damage(killed["-wal"], killed["-shm"]) is None
    assert wal_damage(killed["-wal"], None) is None
    lay_out(tmp_path / "s", dict(killed))
    with Journal.open(tmp_path / "s") as journal:
        assert journal.recovered_from is None
        assert readable(journal) == list(range(RECORDS))


def test_a_killed_services_journal_without_its_shm_is_whole(tmp_path: Path, killed: dict[str, bytes]) -> None:
    found = {"": killed[""], "-wal": killed["-wal"]}
    lay_out(tmp_path / "s", dict(found))
    with Journal.open(tmp_path / "s", now=fixed_now) as journal:
        assert journal.recovered_from is None
        assert readable(journal) == list(range(RECORDS))
        assert journal.unverified is not None and journal.unverified.kept is not None  # (it could not be told)
        assert files_of(journal.unverified.kept.path) == {**found, "-shm": None}


def header_mark(db: Path) -> int:
    """The header's application_id: the journal's open mark."""
    return int.from_bytes(db.read_bytes()[68:72], "big")


def test_the_open_mark_is_in_the_file_while_open_and_cleared_by_a_clean_close(tmp_path: Path) -> None:
    from scoreboard.journal import OPEN_MARK

    db = tmp_path / JOURNAL_NAME
    with Journal.open(tmp_path) as journal:
        journal.start_game(META)
        assert header_mark(db) == OPEN_MARK  # in the file itself, not only in its log
    assert header_mark(db) == 0 and not (tmp_path / f"{JOURNAL_NAME}-wal").exists()
    with Journal.open(tmp_path) as journal:
        assert journal.log_missing is None


def test_a_killed_journal_keeps_its_mark_and_its_log_says_nothing_is_missing(tmp_path: Path, killed: dict[str, bytes]) -> None:
    from scoreboard.journal import OPEN_MARK

    lay_out(tmp_path / "s", dict(killed))
    assert header_mark(tmp_path / "s" / JOURNAL_NAME) == OPEN_MARK
    with Journal.open(tmp_path / "s") as journal:
        assert journal.log_missing is None and readable(journal) == list(range(RECORDS))


def test_side_files_deleted_after_a_kill_are_told_not_passed_as_a_clean_stop(
    tmp_path: Path, killed: dict[str, bytes], caplog: pytest.LogCaptureFixture
) -> None:
    """Without its -wal and -shm the file is older but self-consistent: what the log held is
    lost whatever is done, but the start says so (and checks the file whole) instead of
    taking it for a clean stop (r18 finding 8)."""
    from scoreboard import journal as journal_module

    lay_out(tmp_path / "s", {"": killed[""]})
    assert not journal_module._closed_cleanly(tmp_path / "s" / JOURNAL_NAME)  # the full check, not the bounded one
    with caplog.at_level(logging.WARNING, logger="scoreboard.journal"), Journal.open(tmp_path / "s") as journal:
        assert journal.recovered_from is None
        assert journal.log_missing is not None and "may be missing" in journal.log_missing
        assert len(readable(journal)) < RECORDS  # (the log's records are gone: nothing can bring them back)
    assert "write-ahead log" in caplog.text
    with Journal.open(tmp_path / "s") as journal:  # closed cleanly since: nothing more to say
        assert journal.log_missing is None


def commit_ends(wal: bytes) -> list[int]:
    """Where each transaction of the log ``wal`` ends (the byte after its commit frame)."""
    frames = read_frames(wal)
    assert frames is not None
    size = 24 + frames.page_size
    return [32 + (k + 1) * size for k in range(frames.complete) if wal[32 + k * size + 4 : 32 + k * size + 8] != bytes(4)]


@pytest.mark.parametrize("index", ["missing", "stale", "not valid"])
def test_a_log_cut_at_a_transactions_end_without_an_index_that_vouches_is_kept_before_sqlite_opens_it(
    tmp_path: Path, killed: dict[str, bytes], stale_shm: bytes, index: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Such a log reads as a shorter whole one, and SQLite would checkpoint it away: its files
    as found are copied aside first, and the log says so and where."""
    ends = commit_ends(killed["-wal"])
    shm = {"missing": None, "stale": stale_shm, "not valid": b"\xff" * len(stale_shm)}[index]
    found = {"": killed[""], "-wal": killed["-wal"][: ends[len(ends) * 3 // 4]], "-shm": shm}
    assert wal_damage(found["-wal"], shm) is None  # (no damage its bytes show)
    assert unverified(found["-wal"], shm) is not None
    lay_out(tmp_path / "s", found)
    with caplog.at_level(logging.WARNING, logger="scoreboard.journal"), Journal.open(tmp_path / "s", now=fixed_now) as journal:
        assert journal.recovered_from is None and len(readable(journal)) < RECORDS  # (what it cannot tell)
        kept = journal.unverified.kept if journal.unverified is not None else None
        assert kept == Kept(Damage.LOG_UNVERIFIED, tmp_path / "s" / f"{JOURNAL_NAME}.unverified-{STAMP}", STAMP)
        assert files_of(kept.path) == found  # as found, before SQLite opened it
    assert str(kept.path) in caplog.text


def test_copies_of_unverified_logs_are_bounded_the_latest_kept(tmp_path: Path, killed: dict[str, bytes]) -> None:
    kept: list[Path] = []
    (tmp_path / "s").mkdir()
    for n in range(UNVERIFIED_KEPT + 2):
        for suffix in SIDES:  # (the journal as after a power cut again; the copies stay)
            (tmp_path / "s" / f"{JOURNAL_NAME}{suffix}").unlink(missing_ok=True)
        (tmp_path / "s" / JOURNAL_NAME).write_bytes(killed[""])
        (tmp_path / "s" / f"{JOURNAL_NAME}-wal").write_bytes(killed["-wal"])
        with Journal.open(tmp_path / "s", now=lambda n=n: fixed_now() + timedelta(minutes=n)) as journal:
            assert journal.unverified is not None and journal.unverified.kept is not None
            kept.append(journal.unverified.kept.path)
            assert journal.unverified.pruned == tuple(reversed(kept[: max(0, len(kept) - UNVERIFIED_KEPT)]))[:1]
    left = sorted(p.name for p in (tmp_path / "s").iterdir() if ".unverified-" in p.name)
    assert left == sorted(f"{p.name}{s}" for p in kept[-UNVERIFIED_KEPT:] for s in ("", "-wal"))


def test_when_no_copy_of_an_unverified_log_can_be_made_it_is_told_and_opened(
    tmp_path: Path, killed: dict[str, bytes], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import scoreboard.journal as journal_module

    def full(source: Any, target: Any) -> None:
        Path(target).write_bytes(b"part")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(journal_module.shutil, "copyfile", full)
    lay_out(tmp_path / "s", {"": killed[""], "-wal": killed["-wal"]})
    with caplog.at_level(logging.WARNING, logger="scoreboard.journal"), Journal.open(tmp_path / "s") as journal:
        assert readable(journal) == list(range(RECORDS))
        assert journal.unverified is not None and journal.unverified.kept is None
        assert journal.unverified.failed == os.strerror(errno.ENOSPC)
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == [JOURNAL_NAME]  # nothing of a copy
    assert "no copy of its files could be kept" in caplog.text


def test_an_unverified_copy_is_told_when_the_journal_then_cannot_be_opened(
    tmp_path: Path, killed: dict[str, bytes], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import scoreboard.journal as journal_module

    def busy(db: Path) -> None:
        raise JournalOpenError(f"cannot open the game journal {db}: database is locked", db, "database is locked")

    monkeypatch.setattr(journal_module, "_check", busy)
    lay_out(tmp_path / "s", {"": killed[""], "-wal": killed["-wal"]})
    with caplog.at_level(logging.WARNING, logger="scoreboard.journal"), pytest.raises(JournalOpenError):
        Journal.open(tmp_path / "s", now=fixed_now)
    kept = tmp_path / "s" / f"{JOURNAL_NAME}.unverified-{STAMP}"
    assert kept.read_bytes() == killed[""] and str(kept) in caplog.text


def test_an_export_keeps_an_unverified_log_too_but_not_a_live_one(tmp_path: Path, killed: dict[str, bytes]) -> None:
    found = {"": killed[""], "-wal": killed["-wal"]}
    lay_out(tmp_path / "s", dict(found))
    with Journal.open_existing(tmp_path / "s") as journal:  # (its close checkpoints the log away)
        assert readable(journal) == list(range(RECORDS))
        assert journal.unverified is not None and journal.unverified.kept is not None
        assert files_of(journal.unverified.kept.path) == {**found, "-shm": None}
    live = Journal.open(tmp_path / "live")
    try:
        game = live.start_game(META)
        live.append_many(game, [("k", {"n": n}, float(n)) for n in range(5)])
        with Journal.open_existing(tmp_path / "live") as journal:
            assert journal.unverified is None and len(journal.entries(game)) == 5
    finally:
        live.close()
    assert not list((tmp_path / "live").glob("*.unverified-*"))


def test_a_wal_index_vouches_only_for_its_own_whole_log(killed: dict[str, bytes], stale_shm: bytes) -> None:
    wal, shm = killed["-wal"], killed["-shm"]
    assert unverified(None, None) is None and unverified(None, shm) is None  # no log
    assert unverified(wal, shm) is None
    assert unverified(wal, None) == "it has no wal-index"
    assert unverified(wal, shm[:50]) == unverified(wal, b"\x00" * len(shm)) == "its wal-index is not valid"
    frames = read_frames(wal)
    assert frames is not None
    stale = re.fullmatch(r"its wal-index knows (\d+) of its (\d+) saved frames", unverified(wal, stale_shm) or "")
    assert stale is not None and 0 < int(stale[1]) < int(stale[2]) == frames.recovered
    other = bytearray(wal)
    other[16:24] = bytes(8)  # another log's salt (its frames no longer match it either)
    assert unverified(bytes(other), shm) is not None
    frame = 24 + frames.page_size
    assert unverified(wal + wal[32 : 32 + 30], shm) == f"it goes on past the {frames.recovered} frames its wal-index knows"
    earlier = bytearray(wal[32 : 32 + frame])
    earlier[8:16] = bytes(8)  # a frame of an earlier log, which SQLite writes over from its start
    assert unverified(wal + bytes(earlier), shm) is None
    assert unverified(wal[:20], shm) == "its header cannot be read (20 bytes)"
    assert unverified(b"", shm) == "its header cannot be read (0 bytes)"  # frames the index knows, none in the log




@pytest.mark.parametrize("where", ["header", "first frame", "middle", "last frame"])
def test_a_bit_flipped_wal_is_told_kept_byte_for_byte_and_its_readable_part_kept(
    tmp_path: Path, killed: dict[str, bytes], where: str
) -> None:
    wal = bytearray(killed["-wal"])
    frames = read_frames(bytes(wal))
    assert frames is not None
    size = 24 + frames.page_size
    at = {"header": 20, "first frame": 32 + 100, "middle": 32 + (frames.complete // 2) * size + 900,
          "last frame": len(wal) - 10}[where]
    wal[at] ^= 0x10
    damaged = {**killed, "-wal": bytes(wal)}
    lay_out(tmp_path / "s", dict(damaged))
    with Journal.open(tmp_path / "s", now=fixed_now) as journal:
        assert journal.recovered_from == tmp_path / "s" / f"{JOURNAL_NAME}.damaged-{STAMP}"
        assert kept_files(journal) == damaged  # not checkpointed, not rebuilt: as found
        assert journal.recovery is not None and journal.recovery.kept.damage is Damage.LOG_DAMAGED
        kept = readable(journal)
        assert kept == list(range(len(kept))) and len(kept) < RECORDS  # a prefix, and told so
        assert journal.unfinished() is not None or not kept


@pytest.mark.parametrize("cut", [0.1, 0.5, 0.97])
def test_a_truncated_wal_is_told_and_kept(tmp_path: Path, killed: dict[str, bytes], cut: float) -> None:
    damaged = {**killed, "-wal": killed["-wal"][: int(len(killed["-wal"]) * cut)]}
    lay_out(tmp_path / "s", dict(damaged))
    with Journal.open(tmp_path / "s", now=fixed_now) as journal:
        assert journal.recovered_from is not None and "damaged" in journal.recovered_from.name
        assert kept_files(journal) == damaged
        kept = readable(journal)
        assert kept == list(range(len(kept))) and len(kept) < RECORDS


def test_a_missing_wal_that_held_saved_records_is_told(tmp_path: Path, killed: dict[str, bytes]) -> None:
    lay_out(tmp_path / "s", {"": killed[""], "-shm": killed["-shm"]})
    with Journal.open(tmp_path / "s", now=fixed_now) as journal:
        assert journal.recovery is not None and journal.recovery.kept.damage is Damage.LOG_DAMAGED


def test_an_empty_journal_file_is_kept_and_told_not_silently_replaced(tmp_path: Path) -> None:
    (tmp_path / JOURNAL_NAME).write_bytes(b"")
    with Journal.open(tmp_path, now=fixed_now) as journal:
        assert journal.recovered_from == tmp_path / f"{JOURNAL_NAME}.empty-{STAMP}"
        assert journal.recovered_from.read_bytes() == b""
        assert journal.recovery is not None and journal.recovery.kept == Kept(Damage.EMPTY, journal.recovered_from, STAMP)
        assert journal.games() == []


def test_an_unreadable_journal_is_a_clean_open_error_and_nothing_is_moved(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every file: an unreadable journal cannot be made")
    with Journal.open(tmp_path) as journal:
        journal.start_game(META)
    (tmp_path / JOURNAL_NAME).chmod(0)
    try:
        with pytest.raises(JournalOpenError) as refused:
            Journal.open(tmp_path)
        assert refused.value.path == tmp_path / JOURNAL_NAME and refused.value.damage is None
        assert sorted(p.name for p in tmp_path.iterdir()) == [JOURNAL_NAME]
    finally:
        (tmp_path / JOURNAL_NAME).chmod(0o600)


def test_an_export_of_a_damaged_wal_is_refused_and_touches_nothing(tmp_path: Path, killed: dict[str, bytes]) -> None:
    damaged = {**killed, "-wal": killed["-wal"][: len(killed["-wal"]) // 2]}
    lay_out(tmp_path / "s", dict(damaged))
    with pytest.raises(JournalCorruptError) as refused:
        Journal.open_existing(tmp_path / "s")
    assert refused.value.damage is Damage.LOG_DAMAGED
    assert {s: (tmp_path / "s" / (JOURNAL_NAME + s)).read_bytes() for s in SIDES} == damaged


def fuzz_files(
    tmp_path: Path, base: dict[str, bytes], trials: int, seed: int, stale_shm: bytes | None = None
) -> dict[str, int]:
    """Damage ``base`` at random (bit flips, zeroed runs, cuts, in every file; its wal-index,
    if it has one, as written, missing or ``stale_shm``, as a power cut leaves it) and open
    it each time: never an exception but :class:`JournalOpenError`, the damaged files kept
    byte for byte whenever they are set aside or kept as unverified, and what is read always
    a prefix of the game. Records lost silently: fewer read with neither."""
    rng = random.Random(seed)
    outcome = {
        "opened": 0, "kept unverified": 0, "set aside": 0, "fewer records, kept unverified": 0,
        "records lost silently": 0, "records changed silently": 0,
    }
    records = _payloads(base)
    for trial in range(trials):
        files: dict[str, bytes | None] = dict(base)
        if "-shm" in base:
            files["-shm"] = rng.choice((base["-shm"], None, stale_shm or None))
        for _ in range(rng.choice((1, 1, 2, 3))):
            suffix = rng.choice(SIDES)
            data = files.get(suffix)
            if not data:
                continue
            b = bytearray(data)
            how = rng.random()
            if how < 0.6:
                b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
            elif how < 0.8:
                at, n = rng.randrange(len(b)), rng.randint(1, 64)
                b[at : at + n] = bytes(len(b[at : at + n]))
            else:
                del b[rng.randrange(len(b)) :]
            files[suffix] = bytes(b)
        folder = tmp_path / f"t{trial % 3}"
        lay_out(folder, files)
        found = {s: v for s, v in files.items() if v is not None}
        with Journal.open(folder, now=fixed_now) as journal:
            kept = readable(journal)
            assert kept == list(range(len(kept))), f"trial {trial}: not a prefix"
            if journal.recovered_from is not None:
                outcome["set aside"] += 1
                assert {s: v for s, v in kept_files(journal).items() if v is not None} == found, (
                    f"trial {trial}: the damaged files were not kept as found"
                )
            elif journal.unverified is not None:
                outcome["kept unverified"] += 1
                assert journal.unverified.kept is not None, f"trial {trial}: {journal.unverified.note}"
                assert {s: v for s, v in files_of(journal.unverified.kept.path).items() if v is not None} == found, (
                    f"trial {trial}: the unverified files were not kept as found"
                )
                if len(kept) < len(records):
                    outcome["fewer records, kept unverified"] += 1
            else:
                outcome["opened"] += 1
                if len(kept) < len(records):
                    outcome["records lost silently"] += 1
            games = journal.games()
            got = [(e.kind, e.payload) for e in journal.entries(games[0].id)] if games else []
            if got != records[: len(got)] and journal.recovered_from is None:
                outcome["records changed silently"] += 1
    return outcome


def _payloads(files: dict[str, bytes]) -> list[tuple[str, dict[str, object]]]:
    """The entries the undamaged ``files`` hold (one game)."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        lay_out(Path(folder) / "j", dict(files))
        with Journal.open(Path(folder) / "j") as journal:
            [game] = journal.games()
            return [(e.kind, e.payload) for e in journal.entries(game.id)]


@pytest.fixture(scope="module")
def closed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The files of a journal closed cleanly: every record checkpointed into ``journal.db``
    (a device's journal after any clean stop, or after SQLite's automatic checkpoint)."""
    folder = tmp_path_factory.mktemp("closed")
    with Journal.open(folder) as journal:
        game = journal.start_game(META)
        journal.append_many(game, [("k", {"n": n, "pad": "x" * 150}, float(n)) for n in range(RECORDS)])
    assert not (folder / f"{JOURNAL_NAME}-wal").exists()
    return {"": (folder / JOURNAL_NAME).read_bytes()}


@pytest.mark.parametrize("base", ["killed", "closed"])
def test_fuzzed_journal_files_never_escape_and_are_kept_as_found(
    tmp_path: Path, base: str, request: pytest.FixtureRequest, stale_shm: bytes
) -> None:
    outcome = fuzz_files(tmp_path, request.getfixturevalue(base), 60, seed=20261201, stale_shm=stale_shm)
    assert outcome["set aside"] > 0 and outcome["opened"] > 0, outcome
    assert outcome["kept unverified"] > 0 or base == "closed", outcome  # (a closed journal has no log)
    assert outcome["records lost silently"] == 0 and outcome["records changed silently"] == 0, outcome


@pytest.mark.soak
@pytest.mark.parametrize("base", ["killed", "closed"])
def test_fuzzed_journal_files_long(tmp_path: Path, base: str, request: pytest.FixtureRequest, stale_shm: bytes) -> None:
    trials = int(os.environ.get("FUZZ_TRIALS", "3000"))
    outcome = fuzz_files(
        tmp_path, request.getfixturevalue(base), trials, seed=int(os.environ.get("FUZZ_SEED", "1")), stale_shm=stale_shm
    )
    print(f"\njournal file fuzz ({base}, {trials} trials): {outcome}")
    assert outcome["records lost silently"] == 0 and outcome["records changed silently"] == 0, outcome


# --- finished games: a start after a clean stop reads only the last; a read finds the rest -------

DONES = 40  # Dones journaled after the damage: enough to split the live game's last leaves
FINISHED = 5  # finished games of RECORDS entries each, then an unfinished one of RECORDS // 2


def _games_written(folder: Path) -> dict[int, list[tuple[str, dict[str, object]]]]:
    with Journal.open(folder) as journal:
        return {g.id: [(e.kind, e.payload) for e in journal.entries(g.id)] for g in journal.games()}


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """A journal closed cleanly with :data:`FINISHED` finished games and an unfinished one."""
    folder = tmp_path_factory.mktemp("finished")
    with Journal.open(folder) as journal:
        for g in range(FINISHED + 1):
            game = journal.start_game({**META, "g": g})
            n = RECORDS if g < FINISHED else RECORDS // 2
            journal.append_many(game, [("k", {"g": g, "n": n, "pad": "x" * 150}, float(n)) for n in range(n)])
            if g < FINISHED:
                journal.finish(game, {"scores": [g, 1]})
    assert not (folder / f"{JOURNAL_NAME}-wal").exists()
    return {"": (folder / JOURNAL_NAME).read_bytes()}


def _read_all(journal: Journal, written: dict[int, list[tuple[str, dict[str, object]]]]) -> tuple[int, int, int]:
    """Every game of ``journal`` read against ``written``: (games as written, games found
    damaged by the read, games lost or changed silently)."""
    whole = found = silent = 0
    try:
        listed = {g.id for g in journal.games()}
    except JournalCorruptError:
        listed = None
        found += 1
    for game_id, records in written.items():
        if listed is not None and game_id not in listed:
            silent += 1  # a game gone from the list, and nothing said
            continue
        try:
            got = [(e.kind, e.payload) for e in journal.entries(game_id)]
        except JournalCorruptError:
            found += 1
            continue
        except NoSuchGameError:
            silent += 1
            continue
        if got == records:
            whole += 1
        else:
            silent += 1
    return whole, found, silent


def fuzz_games(tmp_path: Path, base: dict[str, bytes], trials: int, seed: int) -> dict[str, int]:
    """Damage the cleanly closed ``base`` (bit flips, zeroed runs, cuts) and start on it as
    the service does: the journal is set aside (files kept as found), or it opens with its
    unfinished game whole; then :data:`DONES` Dones are journaled (a write that meets damage
    says so, as damage), the journal closed, opened again, and
    every game read: each as written, or found damaged by its read, and then the next
    start sets the journal aside. Never a game lost or changed silently."""
    rng = random.Random(seed)
    outcome = {
        "set aside": 0, "opened, every game whole": 0, "opened, a finished game found damaged when read": 0,
        "games lost or changed silently": 0, "found on read but not set aside at the next start": 0,
        "a write found the journal damaged": 0, "a write found damage and the next start did not set it aside": 0,
    }
    written = _games_written_from(base)
    last = max(written)
    leaves = _entry_leaves(base[""])
    for trial in range(trials):
        b = bytearray(base[""])
        for _ in range(rng.choice((1, 1, 2, 3))):
            how = rng.random()
            if how < 0.45:
                b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
            elif how < 0.6:  # a leaf header of the entries, the last ones most: what the Dones' writes meet
                at = leaves[max(0, len(leaves) - 1 - int(rng.expovariate(0.5)))] + rng.randrange(8)
                if at < len(b):  # (not cut off already)
                    b[at] ^= 1 << rng.randrange(8)
            elif how < 0.8:
                at, n = rng.randrange(len(b)), rng.randint(1, 64)
                b[at : at + n] = bytes(len(b[at : at + n]))
            else:
                del b[rng.randrange(len(b)) :]
        folder = tmp_path / f"g{trial % 3}"
        lay_out(folder, {"": bytes(b)})
        with Journal.open(folder, now=fixed_now) as journal:
            if journal.recovered_from is not None:
                outcome["set aside"] += 1
                assert kept_files(journal)[""] == bytes(b), f"trial {trial}: the damaged file was not kept as found"
                continue
            resumed = journal.unfinished()
            assert resumed is not None and resumed.id == last, f"trial {trial}: the unfinished game is not found"
            mine = [(e.kind, e.payload) for e in journal.entries(last)]  # (checked whole by the start)
            assert mine == written[last], f"trial {trial}: the unfinished game was not read as written"
            dones: list[tuple[str, dict[str, object]]] = []
            for n in range(DONES):  # (enough to split the last leaves: a write then meets their neighbours)
                done: dict[str, object] = {"n": "done", "i": n, "pad": "d" * 150}
                try:
                    journal.append(last, "k", done, 99.0)
                except JournalWriteError as e:
                    assert e.failure is WriteFailure.DAMAGED, f"trial {trial}: a write failed as {e.failure}: {e}"
                    outcome["a write found the journal damaged"] += 1
                    break
                dones.append(("k", done))
        expected: dict[int, list[tuple[str, dict[str, object]]]] = {**written, last: [*written[last], *dones]}
        with Journal.open(folder, now=fixed_now) as journal:
            if journal.recovered_from is not None:  # (a write found what the first start did not: set aside)
                outcome["set aside"] += 1
                continue
            if len(dones) < DONES:
                outcome["a write found damage and the next start did not set it aside"] += 1
            _, found, silent = _read_all(journal, expected)
        outcome["games lost or changed silently"] += silent
        if found:
            outcome["opened, a finished game found damaged when read"] += 1
            with Journal.open(folder, now=fixed_now) as journal:
                if journal.recovered_from is None:
                    outcome["found on read but not set aside at the next start"] += 1
        else:
            outcome["opened, every game whole"] += 1
    return outcome


def _entry_leaves(data: bytes) -> list[int]:
    """The offsets of the entries' leaf pages in the journal file ``data``, in key order."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / JOURNAL_NAME).write_bytes(data)
        conn = sqlite3.connect(Path(folder) / JOURNAL_NAME)
        try:
            (size,) = conn.execute("PRAGMA page_size").fetchone()
            rows = conn.execute("SELECT pageno FROM dbstat WHERE name = 'entries' AND pagetype = 'leaf' ORDER BY path")
            return [(pageno - 1) * size for (pageno,) in rows.fetchall()]
        finally:
            conn.close()


def _games_written_from(files: dict[str, bytes]) -> dict[int, list[tuple[str, dict[str, object]]]]:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        lay_out(Path(folder) / "j", dict(files))
        return _games_written(Path(folder) / "j")


def test_fuzzed_finished_games_are_whole_or_told_when_read(tmp_path: Path, finished: dict[str, bytes]) -> None:
    outcome = fuzz_games(tmp_path, finished, 60, seed=20261202)
    assert outcome["set aside"] > 0 and outcome["opened, every game whole"] > 0, outcome
    assert outcome["a write found the journal damaged"] > 0, outcome  # (the case the fuzz is for: 3 with this seed)
    assert outcome["games lost or changed silently"] == 0, outcome
    assert outcome["found on read but not set aside at the next start"] == 0, outcome
    assert outcome["a write found damage and the next start did not set it aside"] == 0, outcome


@pytest.mark.soak
def test_fuzzed_finished_games_long(tmp_path: Path, finished: dict[str, bytes]) -> None:
    trials = int(os.environ.get("FUZZ_TRIALS", "3000"))
    outcome = fuzz_games(tmp_path, finished, trials, seed=int(os.environ.get("FUZZ_SEED", "1")))
    print(f"\njournal file fuzz (finished games, {trials} trials): {outcome}")
    assert outcome["games lost or changed silently"] == 0, outcome
    assert outcome["found on read but not set aside at the next start"] == 0, outcome
    assert outcome["a write found damage and the next start did not set it aside"] == 0, outcome


def test_a_byte_changed_in_the_schema_never_escapes(tmp_path: Path) -> None:
    """One byte of page 1 (``sqlite_master``) changed, each byte value at many places: the
    journal opens or is set aside; quick_check's report in any bytes is no traceback."""
    with Journal.open(tmp_path / "good") as journal:
        journal.append(journal.start_game(META), "k", {"n": 0}, 0)
    data = (tmp_path / "good" / JOURNAL_NAME).read_bytes()
    page = int.from_bytes(data[16:18], "big")
    rng = random.Random(7)
    for trial in range(120):
        b = bytearray(data)
        b[rng.randrange(100, page)] = rng.randrange(256)
        lay_out(tmp_path / "s", {"": bytes(b)})
        try:
            with Journal.open_existing(tmp_path / "s") as journal:
                journal.games()
        except JournalCorruptError:
            pass
        lay_out(tmp_path / "s", {"": bytes(b)})
        with Journal.open(tmp_path / "s") as journal:
            journal.games()
        assert sqlite3.sqlite_version  # (each trial got here: no other exception escaped)


# --- damage that reads as a database: the schema, its version, the games' times -------------


def closed_journal(folder: Path, records: int = 5) -> int:
    """A journal closed cleanly (its records checkpointed into ``journal.db``); its game."""
    with Journal.open(folder, now=fixed_now) as journal:
        game = journal.start_game({"rules": "de", "players": ["A", "B"], "first": 0, "draws": []})
        journal.append_many(game, [("k", {"n": n}, float(n)) for n in range(records)])
    return game


def edit(folder: Path, *sql: str) -> bytes:
    """Run ``sql`` on the closed journal behind SQLite's checks; the file's bytes after."""
    conn = sqlite3.connect(folder / JOURNAL_NAME)
    try:
        for statement in sql:
            conn.execute(statement)
        conn.commit()
    finally:
        conn.close()
    return (folder / JOURNAL_NAME).read_bytes()


@pytest.mark.parametrize(
    ("sql", "damage"),
    [
        (("PRAGMA user_version = 0",), Damage.CORRUPT),
        (("PRAGMA writable_schema = ON",
          "UPDATE sqlite_master SET sql = replace(sql, 'PRIMARY KEY', 'PRAMARY KEY') WHERE name = 'games'"), Damage.CORRUPT),
        (("UPDATE games SET started = CAST(x'32303236ff' AS TEXT)",), Damage.CORRUPT),
        (("UPDATE games SET finished = 'yesterday'",), Damage.CORRUPT),
    ],
    ids=["version lost", "schema text", "start time not UTF-8", "end time not a time"],
)
def test_a_journal_damaged_where_sqlite_does_not_look_is_set_aside_and_salvaged(
    tmp_path: Path, sql: tuple[str, ...], damage: Damage
) -> None:
    closed_journal(tmp_path)
    damaged = edit(tmp_path, *sql)
    with Journal.open(tmp_path, now=fixed_now) as journal:
        assert journal.recovery is not None and journal.recovery.kept.damage is damage
        assert journal.recovered_from == tmp_path / f"{JOURNAL_NAME}.{damage.tag}-{STAMP}"
        assert journal.recovered_from.read_bytes() == damaged  # kept byte for byte
        journal.games()  # the new journal reads: no exit on every start


def two_games(folder: Path) -> None:
    """A journal closed cleanly: game 1 finished (5 entries), game 2 unfinished (5 entries)."""
    with Journal.open(folder, now=fixed_now) as journal:
        for g in (1, 2):
            game = journal.start_game({**META, "g": g})
            journal.append_many(game, [("k", {"n": n}, float(n)) for n in range(5)])
            if g == 1:
                journal.finish(game, {"scores": [1, 2]})


def test_a_finished_game_damaged_where_a_start_does_not_look_is_told_when_read_then_set_aside(tmp_path: Path) -> None:
    """A row of a finished game gone (as a cut page leaves it): the start after a clean stop
    checks the game it resumes, not this one; the read of it says so, never serves four
    records for five, and the next start checks every game and sets the journal aside."""
    two_games(tmp_path)
    damaged = edit(tmp_path, "DELETE FROM entries WHERE game_id = 1 AND seq = 5")
    with Journal.open(tmp_path, now=fixed_now) as journal:
        assert journal.recovery is None
        assert [e.payload["n"] for e in journal.entries(2)] == list(range(5))
        with pytest.raises(JournalCorruptError) as found:
            journal.entries(1)
        assert found.value.game == 1 and "written with 5 entries, and 4 are found" in found.value.detail
    assert (tmp_path / f"{JOURNAL_NAME}.check").exists()
    assert (tmp_path / JOURNAL_NAME).read_bytes()[100:] == damaged[100:]  # (its open mark came and went in the header)
    found_then = (tmp_path / JOURNAL_NAME).read_bytes()
    with Journal.open(tmp_path, now=fixed_now) as journal:
        assert journal.recovery is not None and "game 1 was written with 5 entries, and 4 are found" in journal.recovery.detail
        assert journal.recovered_from is not None and journal.recovered_from.read_bytes() == found_then
        assert "game 1 kept its first 4 of 5 records" in journal.recovery.note
        assert [e.payload["n"] for e in journal.entries(2)] == list(range(5))
    assert not (tmp_path / f"{JOURNAL_NAME}.check").exists()


def test_after_an_unclean_stop_every_games_count_is_checked_at_the_start(tmp_path: Path) -> None:
    """The same damage with the journal's log and index beside it (a killed service): the
    start checks the whole file and every game's count, and sets it aside at once."""
    two_games(tmp_path / "good")
    conn = sqlite3.connect(tmp_path / "good" / JOURNAL_NAME, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("DELETE FROM entries WHERE game_id = 1 AND seq = 5")
        files = {s: (tmp_path / "good" / (JOURNAL_NAME + s)).read_bytes() for s in SIDES}  # (open: as if killed)
    finally:
        conn.close()
    lay_out(tmp_path / "s", dict(files))
    with Journal.open(tmp_path / "s", now=fixed_now) as journal:
        assert journal.recovery is not None and "game 1 was written with 5 entries, and 4 are found" in journal.recovery.detail


def test_a_journal_from_before_the_counts_gets_each_games_count_and_chain(tmp_path: Path) -> None:
    """A journal of the schema before the counts (3): its games are counted and chained when it
    is brought up to date, and read whole after."""
    from scoreboard.journal import COUNTED_FROM, MIGRATIONS
    from scoreboard.journal_crc import entry_crc, game_crc

    conn = sqlite3.connect(tmp_path / JOURNAL_NAME, isolation_level=None)
    try:
        for migration in MIGRATIONS[: COUNTED_FROM - 1]:
            migration(conn)
        conn.execute(f"PRAGMA user_version = {COUNTED_FROM - 1}")
        for game_id, n in ((1, 4), (2, 0), (3, 2)):
            started, meta = "2026-05-09T14:30:15+00:00", json.dumps({**META, "g": game_id})
            conn.execute(
                "INSERT INTO games (id, started, meta, crc) VALUES (?, ?, ?, ?)",
                (game_id, started, meta, game_crc(game_id, started, meta, None, None)),
            )
            for seq in range(1, n + 1):
                payload = json.dumps({"n": seq})
                conn.execute(
                    "INSERT INTO entries (game_id, seq, kind, payload, at, crc) VALUES (?, ?, 'k', ?, 1.0, ?)",
                    (game_id, seq, payload, entry_crc(game_id, seq, "k", payload, 1.0)),
                )
    finally:
        conn.close()
    with Journal.open(tmp_path, now=fixed_now) as journal:
        assert journal.recovery is None
        assert [(g.id, g.entries) for g in journal.games()] == [(1, 4), (2, 0), (3, 2)]
        assert [[e.payload["n"] for e in journal.entries(g)] for g in (1, 2, 3)] == [[1, 2, 3, 4], [], [1, 2]]
        assert journal.append(3, "k", {"n": 3}, 2.0) == 3
    with Journal.open(tmp_path, now=fixed_now) as journal:  # (closed cleanly: the bounded check, game 3 whole)
        assert journal.recovery is None and [e.payload["n"] for e in journal.entries(3)] == [1, 2, 3]


def test_a_foreign_sqlite_file_is_set_aside_not_filled_with_the_journals_tables(tmp_path: Path) -> None:
    edit(tmp_path, "CREATE TABLE photos (name TEXT)", "INSERT INTO photos VALUES ('Anna.jpg')")
    foreign = (tmp_path / JOURNAL_NAME).read_bytes()
    with Journal.open(tmp_path, now=fixed_now) as journal:
        assert journal.recovery is not None and journal.recovery.kept == Kept(Damage.FOREIGN, journal.recovered_from, STAMP)
        assert journal.recovered_from.read_bytes() == foreign
        assert journal.games() == []
    (tmp_path / "other").mkdir()
    edit(tmp_path / "other", "CREATE TABLE photos (name TEXT)")
    with pytest.raises(JournalCorruptError) as refused:  # an export neither
        Journal.open_existing(tmp_path / "other")
    assert refused.value.damage is Damage.FOREIGN


def test_a_journal_that_cannot_be_opened_stays_told_on_the_panel_after_the_service_stops(tmp_path: Path) -> None:
    """The service ends with exit 3 (not restarted): the panel must keep saying why, not go
    dark as luma's cleanup would switch it off."""
    from scoreboard.config import load_config
    from scoreboard.hardware import Simulation, build_hardware
    from scoreboard.run_cli import UNREADABLE_HINT, run
    from scoreboard.screens import ErrorKind, ErrorScreen, render

    state = tmp_path / "state"
    (state / JOURNAL_NAME).mkdir(parents=True)  # a directory where the file should be: no journal can be opened
    config = load_config(None, ['game.players=["Anna", "Ben"]', "ui.language=fr", f"paths.state_dir={state}"])
    with build_hardware(config, state, Simulation(tmp_path / "out", virtual_clock=True)) as hardware:
        [display] = hardware.displays
        with pytest.raises(JournalOpenError):
            run(config, state, hardware, [])
        assert display.device.persist  # luma leaves the frame on the panel at cleanup
    shown = display.image
    assert shown is not None
    expected = render(ErrorScreen(ErrorKind.JOURNAL_UNREADABLE, UNREADABLE_HINT), "fr", display.panel)
    assert shown.tobytes() == expected.tobytes()


class _Cut(BaseException):
    """The power goes (where a test puts it)."""


def test_a_recovery_cut_short_is_done_again_at_the_next_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import scoreboard.journal as journal_module

    closed_journal(tmp_path, records=7)
    damaged = edit(tmp_path, "PRAGMA user_version = 0")
    real = journal_module.salvage

    def cut(db: Path) -> object:
        (tmp_path / ".salvage-left").mkdir()  # the copy it was reading from stays behind
        raise _Cut

    monkeypatch.setattr(journal_module, "salvage", cut)
    with pytest.raises(_Cut):
        Journal.open(tmp_path, now=fixed_now)
    monkeypatch.setattr(journal_module, "salvage", real)

    with Journal.open(tmp_path, now=fixed_now) as journal:
        assert journal.recovered_from is not None and journal.recovered_from.read_bytes() == damaged
        assert journal.recovery is not None and journal.recovery.kept.damage is Damage.CORRUPT
        [game] = journal.games()
        assert [e.payload["n"] for e in journal.entries(game.id)] == list(range(7))  # salvaged after all
    left = sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(f"{JOURNAL_NAME}.corrupt-"))
    assert left == [JOURNAL_NAME], left  # no marker, no copy left behind
    with Journal.open(tmp_path, now=fixed_now) as journal:  # done: not again
        assert journal.recovered_from is None


def _salvage_fails(error: BaseException) -> type[sqlite3.Connection]:
    """A connection class whose every statement fails with ``error`` (an SQLite error)."""

    class Failing(sqlite3.Connection):
        def execute(self, *args: Any, **kwargs: Any) -> sqlite3.Cursor:
            raise error

    return Failing


def _sqlite_error(code: int, message: str) -> sqlite3.OperationalError:
    error = sqlite3.OperationalError(message)
    error.sqlite_errorcode = code  # type: ignore[attr-defined]  # (as SQLite sets it)
    return error


def _assert_retried(folder: Path, damaged: bytes, failed: JournalRecoveryError, failure: WriteFailure) -> None:
    """``failed`` kept the damaged journal and its marker; the next start finishes the recovery."""
    assert failed.failure is failure and failed.kept.damage is Damage.CORRUPT
    assert failed.kept.path.read_bytes() == damaged
    assert (folder / f"{JOURNAL_NAME}.recovering").exists()  # the marker stays: the next start does it again
    with Journal.open(folder, now=fixed_now) as journal:
        assert journal.recovery is not None and journal.recovery.kept == failed.kept
        assert journal.recovery.salvage is not None
        [game] = journal.recovery.salvage.games
        assert (len(game.entries), game.cut_at) == (3, 4)
        assert [e.payload["n"] for e in journal.entries(game.id)] == [0, 1, 2]
    assert not (folder / f"{JOURNAL_NAME}.recovering").exists()


@pytest.mark.parametrize(
    "error",
    [
        OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)),
        _sqlite_error(sqlite3.SQLITE_FULL, "database or disk is full"),
        _sqlite_error(sqlite3.SQLITE_IOERR, "disk I/O error"),
    ],
    ids=["ENOSPC copying", "SQLITE_FULL reading", "SQLITE_IOERR reading"],
)
def test_a_full_disk_during_the_salvage_is_not_nothing_readable_and_the_next_start_does_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: BaseException
) -> None:
    import scoreboard.journal_salvage as salvage_module

    closed_journal(tmp_path, records=7)
    damaged = edit(tmp_path, "UPDATE entries SET payload = '{\"n\": 9}' WHERE seq = 4")
    if isinstance(error, OSError):
        def copy(source: Any, target: Any) -> None:
            raise error
        monkeypatch.setattr(salvage_module.shutil, "copyfile", copy)
        failure = WriteFailure.DISK_FULL
    else:
        real = salvage_module.sqlite3.connect
        def connect(path: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
            if ".salvage-" in str(path):  # (the salvage's copy; not the checks, not the new journal)
                kwargs["factory"] = _salvage_fails(error)
            return real(path, *args, **kwargs)
        monkeypatch.setattr(salvage_module.sqlite3, "connect", connect)
        failure = WriteFailure.DISK_FULL if "full" in str(error) else WriteFailure.IO_ERROR
    with pytest.raises(JournalRecoveryError) as failed:
        Journal.open(tmp_path, now=fixed_now)
    monkeypatch.undo()
    assert isinstance(failed.value, JournalOpenError)  # (the service stops, the display says so)
    _assert_retried(tmp_path, damaged, failed.value, failure)


def test_a_full_disk_writing_what_was_salvaged_is_done_again_at_the_next_start(tmp_path: Path) -> None:
    class FullOnInsert(sqlite3.Connection):  # (the new journal's rows: its tables are made)
        def executemany(self, *args: Any, **kwargs: Any) -> sqlite3.Cursor:
            raise _sqlite_error(sqlite3.SQLITE_FULL, "database or disk is full")

    closed_journal(tmp_path, records=7)
    damaged = edit(tmp_path, "UPDATE entries SET payload = '{\"n\": 9}' WHERE seq = 4")
    with pytest.raises(JournalRecoveryError) as failed:
        Journal.open(tmp_path, now=fixed_now, connection_factory=FullOnInsert)
    _assert_retried(tmp_path, damaged, failed.value, WriteFailure.DISK_FULL)


_FSIZE_CHILD = textwrap.dedent(
    """
    import json, resource, signal, sys
    from pathlib import Path
    from scoreboard.journal import Journal, JournalRecoveryError

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[2]), resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
    try:
        Journal.open(Path(sys.argv[1]))
    except JournalRecoveryError as e:
        print(json.dumps({"failure": e.failure.name, "kept": str(e.kept.path), "stamp": e.kept.stamp}))
    """
)


@pytest.mark.parametrize("room", ["for no copy", "for the copy, not for SQLite's index"])
def test_a_real_full_disk_during_the_salvage_through_the_file_size_limit(tmp_path: Path, room: str) -> None:
    """The kernel refuses the salvage's writes (RLIMIT_FSIZE, in a child process): copying
    the damaged journal, or SQLite's wal-index (32 KiB) of the copy."""
    resource = pytest.importorskip("resource")
    if not hasattr(resource, "RLIMIT_FSIZE") or not hasattr(signal, "SIGXFSZ"):
        pytest.skip("no RLIMIT_FSIZE/SIGXFSZ here to fill the disk with")
    closed_journal(tmp_path, records=7)
    damaged = edit(tmp_path, "UPDATE entries SET payload = '{\"n\": 9}' WHERE seq = 4")
    limit = len(damaged) // 2 if room == "for no copy" else len(damaged) + 1024
    assert limit < 32768
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", _FSIZE_CHILD, str(tmp_path), str(limit)], capture_output=True,
                          text=True, env=env, timeout=120, check=False)
    assert done.returncode == 0 and done.stdout, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    kept = Kept(Damage.CORRUPT, Path(result["kept"]), result["stamp"])
    failure = WriteFailure[result["failure"]]
    assert failure is (WriteFailure.DISK_FULL if room == "for no copy" else WriteFailure.IO_ERROR)
    failed = JournalRecoveryError(tmp_path / JOURNAL_NAME, "", kept, failure, "")
    _assert_retried(tmp_path, damaged, failed, failure)


def test_a_commit_between_reading_the_index_and_the_log_is_not_damage(tmp_path: Path) -> None:
    """An export reads a live journal: the index first, then the log; a commit in between
    only makes the log longer than the index says (the other order looked like a cut log)."""
    journal = Journal.open(tmp_path)
    try:
        game = journal.start_game(META)
        journal.append_many(game, [("k", {"n": n}, float(n)) for n in range(5)])
        shm = (tmp_path / f"{JOURNAL_NAME}-shm").read_bytes()
        journal.append_many(game, [("k", {"n": n}, float(n)) for n in range(5, 30)])  # the writer goes on
        wal = (tmp_path / f"{JOURNAL_NAME}-wal").read_bytes()
        assert wal_damage(wal, shm) is None
        stale_log = wal[: len(wal) // 2]
        assert wal_damage(stale_log, (tmp_path / f"{JOURNAL_NAME}-shm").read_bytes()) is not None  # (the race the order avoids)
    finally:
        journal.close()


def test_a_changed_key_that_hides_rows_from_the_read_by_game_is_found(tmp_path: Path) -> None:
    """A bit flipped in an interior key of the entries' tree: quick_check passes, and the read
    of a game (a search of the tree) finds 50 of its 60 rows; the game's count of entries
    says 60. The journal is set aside, not opened with rows silently missing (found by the
    soak's fuzz, seed 1, trial 622, once the schema had its third table)."""
    with Journal.open(tmp_path / "good", now=fixed_now) as journal:
        game = journal.start_game(META)
        journal.append_many(game, [("k", {"n": n, "pad": "x" * 150}, float(n)) for n in range(RECORDS)])
    data = bytearray((tmp_path / "good" / JOURNAL_NAME).read_bytes())
    # the byte of that key by the file's layout: 28,672 bytes with schema 3; 36,864 with schema 4,
    # its entries' pages moved by the new tables (the same key, the same 50 of 60 rows found)
    flip = {28672: 25531, 36864: 33723}.get(len(data))
    if flip is None:
        pytest.skip(f"this SQLite lays the journal out in {len(data)} bytes, not as the damage was found in")
    data[flip] ^= 1 << 2
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / JOURNAL_NAME).write_bytes(bytes(data))
    with Journal.open(tmp_path / "bad", now=fixed_now) as journal:
        assert journal.recovery is not None and "written with 60 entries, and 50 are found" in journal.recovery.detail
        assert readable(journal) == list(range(50))
        assert "kept its first 50 of 60 records" in journal.recovery.note  # (the count written says how many)


def test_damage_a_write_meets_beside_the_live_game_asks_for_the_full_check(tmp_path: Path) -> None:
    """A finished game's leaf page beside the unfinished game's (its type byte changed) in a
    cleanly closed journal: the bounded start passes, and the appends that reach that page
    fail as a damaged journal (not a plain storage error), leave ``journal.db.check``, and
    the next start sets the file aside and salvages it (review r18, finding 1)."""
    with Journal.open(tmp_path, now=fixed_now) as journal:
        g1 = journal.start_game(META)
        journal.append_many(g1, [("k", {"n": n, "pad": "x" * 150}, float(n)) for n in range(300)])
        journal.finish(g1, {"scores": [1, 2]})
        g2 = journal.start_game(META)
        journal.append_many(g2, [("k", {"n": n, "pad": "y" * 150}, float(n)) for n in range(3)])
    db = tmp_path / JOURNAL_NAME
    conn = sqlite3.connect(db)
    (page_size,) = conn.execute("PRAGMA page_size").fetchone()
    leaves = conn.execute("SELECT pageno FROM dbstat WHERE name = 'entries' AND pagetype = 'leaf' ORDER BY path").fetchall()
    conn.close()
    data = bytearray(db.read_bytes())
    data[(leaves[-2][0] - 1) * page_size] = 0x0D  # (SQLite finds the page corrupt when it loads it)
    db.write_bytes(bytes(data))
    with Journal.open(tmp_path, now=fixed_now) as journal:
        assert journal.recovered_from is None  # (the bounded start does not look there)
        failures = []
        for n in range(40):
            try:
                journal.append(g2, "k", {"n": 100 + n, "pad": "z" * 150}, 1.0)
            except JournalWriteError as e:
                failures.append(e.failure)
        assert failures and set(failures) == {WriteFailure.DAMAGED}
    assert (tmp_path / f"{JOURNAL_NAME}.check").exists()
    closed = db.read_bytes()  # (the appends before the damaged page was reached are in it)
    with Journal.open(tmp_path, now=fixed_now) as journal:
        assert journal.recovered_from is not None and journal.recovered_from.read_bytes() == closed
        assert [e.payload["n"] for e in journal.entries(journal.unfinished().id)][:3] == [0, 1, 2]  # type: ignore[union-attr]
        journal.append(journal.unfinished().id, "k", {"n": "done"}, 2.0)  # type: ignore[union-attr]


def test_an_export_of_a_live_journal_leaves_the_services_open_mark(tmp_path: Path) -> None:
    """A reader (``scoreboard export``, :meth:`Journal.open_existing`) neither sets the mark
    nor clears it: the service that has the journal open keeps it marked."""
    from scoreboard.journal import OPEN_MARK

    db = tmp_path / JOURNAL_NAME
    with Journal.open(tmp_path) as service:
        service.start_game(META)
        with Journal.open_existing(tmp_path) as export:
            assert len(export.games()) == 1
        service.append_many(1, [("k", {"n": 1}, 1.0)])
        service._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # (whatever the log holds, in the file)
        assert header_mark(db) == OPEN_MARK
    assert header_mark(db) == 0
