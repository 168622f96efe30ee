"""Damaged journals: the original files are kept byte for byte, the damage is told, what can
be read is kept, and nothing ever escapes as a traceback (seeded fuzzing of the files)."""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from scoreboard.journal import JOURNAL_NAME, Journal, JournalCorruptError, JournalOpenError
from scoreboard.journal_wal import read_frames, wal_damage

META = {"rules": "de", "players": ["Anna", "Ben"], "first": 0}
STAMP = "20260509T143015"
SIDES = ("", "-wal", "-shm")
RECORDS = 60


def fixed_now() -> datetime:
    return datetime(2026, 5, 9, 14, 30, 15, tzinfo=UTC)


def killed_journal(folder: Path, records: int = RECORDS) -> dict[str, bytes]:
    """The files of a journal as a killed service leaves them: ``records`` entries of one
    unfinished game, most of them still in the write-ahead log."""
    folder.mkdir(parents=True, exist_ok=True)
    journal = Journal.open(folder)
    game = journal.start_game(META)
    for n in range(records):
        journal.append(game, "k", {"n": n, "pad": "x" * 150}, float(n))
    files = {s: (folder / (JOURNAL_NAME + s)).read_bytes() for s in SIDES}
    journal.close()
    return files


def lay_out(folder: Path, files: dict[str, bytes | None]) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for suffix, data in files.items():
        if data is not None:
            (folder / (JOURNAL_NAME + suffix)).write_bytes(data)


def kept_files(journal: Journal) -> dict[str, bytes | None]:
    assert journal.recovered_from is not None
    return {
        s: Path(f"{journal.recovered_from}{s}").read_bytes() if Path(f"{journal.recovered_from}{s}").exists() else None
        for s in SIDES
    }


def readable(journal: Journal) -> list[int]:
    """The ``n`` of every entry of the journal's one game (none when it has no game)."""
    games = journal.games()
    assert len(games) <= 1
    return [e.payload["n"] for e in journal.entries(games[0].id)] if games else []


@pytest.fixture(scope="module")
def killed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    return killed_journal(tmp_path_factory.mktemp("killed"))


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
    lay_out(tmp_path / "s", {"": killed[""], "-wal": killed["-wal"]})
    with Journal.open(tmp_path / "s") as journal:
        assert journal.recovered_from is None
        assert readable(journal) == list(range(RECORDS))


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
        note = journal.recovery_note
        assert note is not None and "write-ahead log" in note and str(journal.recovered_from) in note
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
        assert journal.recovery_note is not None and "write-ahead log is missing" in journal.recovery_note


def test_an_empty_journal_file_is_kept_and_told_not_silently_replaced(tmp_path: Path) -> None:
    (tmp_path / JOURNAL_NAME).write_bytes(b"")
    with Journal.open(tmp_path, now=fixed_now) as journal:
        assert journal.recovered_from == tmp_path / f"{JOURNAL_NAME}.empty-{STAMP}"
        assert journal.recovered_from.read_bytes() == b""
        assert journal.recovery_note is not None and "empty" in journal.recovery_note
        assert journal.games() == []


def test_an_unreadable_journal_is_a_clean_open_error_and_nothing_is_moved(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every file: an unreadable journal cannot be made")
    with Journal.open(tmp_path) as journal:
        journal.start_game(META)
    (tmp_path / JOURNAL_NAME).chmod(0)
    try:
        with pytest.raises(JournalOpenError, match="cannot open"):
            Journal.open(tmp_path)
        assert sorted(p.name for p in tmp_path.iterdir()) == [JOURNAL_NAME]
    finally:
        (tmp_path / JOURNAL_NAME).chmod(0o600)


def test_an_export_of_a_damaged_wal_is_refused_and_touches_nothing(tmp_path: Path, killed: dict[str, bytes]) -> None:
    damaged = {**killed, "-wal": killed["-wal"][: len(killed["-wal"]) // 2]}
    lay_out(tmp_path / "s", dict(damaged))
    with pytest.raises(JournalCorruptError, match="write-ahead log"):
        Journal.open_existing(tmp_path / "s")
    assert {s: (tmp_path / "s" / (JOURNAL_NAME + s)).read_bytes() for s in SIDES} == damaged


def fuzz_files(tmp_path: Path, base: dict[str, bytes], trials: int, seed: int) -> dict[str, int]:
    """Damage ``base`` at random (bit flips, zeroed runs, cuts, in every file) and open it each
    time: never an exception but :class:`JournalOpenError`, the damaged files kept byte for
    byte whenever they are set aside, and what is read always a prefix of the game."""
    rng = random.Random(seed)
    outcome = {"opened": 0, "set aside": 0, "records lost silently": 0, "records changed silently": 0}
    records = _payloads(base)
    for trial in range(trials):
        files: dict[str, bytes | None] = dict(base)
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
        with Journal.open(folder, now=fixed_now) as journal:
            kept = readable(journal)
            assert kept == list(range(len(kept))), f"trial {trial}: not a prefix"
            if journal.recovered_from is not None:
                outcome["set aside"] += 1
                assert {s: v for s, v in kept_files(journal).items() if v is not None} == {
                    s: v for s, v in files.items() if v is not None
                }, f"trial {trial}: the damaged files were not kept as found"
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
    tmp_path: Path, base: str, request: pytest.FixtureRequest
) -> None:
    outcome = fuzz_files(tmp_path, request.getfixturevalue(base), 60, seed=20261201)
    assert outcome["set aside"] > 0 and outcome["opened"] > 0, outcome
    assert outcome["records lost silently"] == 0 and outcome["records changed silently"] == 0, outcome


@pytest.mark.soak
@pytest.mark.parametrize("base", ["killed", "closed"])
def test_fuzzed_journal_files_long(tmp_path: Path, base: str, request: pytest.FixtureRequest) -> None:
    outcome = fuzz_files(tmp_path, request.getfixturevalue(base), 3000, seed=int(os.environ.get("FUZZ_SEED", "1")))
    print(f"\njournal file fuzz ({base}): {outcome}")
    assert outcome["records lost silently"] == 0 and outcome["records changed silently"] == 0, outcome


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
    ("sql", "tag"),
    [
        (("PRAGMA user_version = 0",), "corrupt"),
        (("PRAGMA writable_schema = ON",
          "UPDATE sqlite_master SET sql = replace(sql, 'PRIMARY KEY', 'PRAMARY KEY') WHERE name = 'games'"), "corrupt"),
        (("UPDATE games SET started = CAST(x'32303236ff' AS TEXT)",), "corrupt"),
        (("UPDATE games SET finished = 'yesterday'",), "corrupt"),
    ],
    ids=["version lost", "schema text", "start time not UTF-8", "end time not a time"],
)
def test_a_journal_damaged_where_sqlite_does_not_look_is_set_aside_and_salvaged(
    tmp_path: Path, sql: tuple[str, ...], tag: str
) -> None:
    closed_journal(tmp_path)
    damaged = edit(tmp_path, *sql)
    with Journal.open(tmp_path, now=fixed_now) as journal:
        assert journal.recovered_from is not None and journal.recovered_from.name.startswith(f"{JOURNAL_NAME}.{tag}-")
        assert journal.recovered_from.read_bytes() == damaged  # kept byte for byte
        assert journal.recovery_note is not None
        journal.games()  # the new journal reads: no exit on every start


def test_a_foreign_sqlite_file_is_set_aside_not_filled_with_the_journals_tables(tmp_path: Path) -> None:
    edit(tmp_path, "CREATE TABLE photos (name TEXT)", "INSERT INTO photos VALUES ('Anna.jpg')")
    foreign = (tmp_path / JOURNAL_NAME).read_bytes()
    with Journal.open(tmp_path, now=fixed_now) as journal:
        assert journal.recovered_from is not None and journal.recovered_from.name.startswith(f"{JOURNAL_NAME}.foreign-")
        assert journal.recovered_from.read_bytes() == foreign
        assert journal.games() == []
    (tmp_path / "other").mkdir()
    edit(tmp_path / "other", "CREATE TABLE photos (name TEXT)")
    with pytest.raises(JournalCorruptError, match="not a game journal"):  # an export neither
        Journal.open_existing(tmp_path / "other")


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
        assert journal.recovery_note is not None
        [game] = journal.games()
        assert [e.payload["n"] for e in journal.entries(game.id)] == list(range(7))  # salvaged after all
    left = sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(f"{JOURNAL_NAME}.corrupt-"))
    assert left == [JOURNAL_NAME], left  # no marker, no copy left behind
    with Journal.open(tmp_path, now=fixed_now) as journal:  # done: not again
        assert journal.recovered_from is None


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
