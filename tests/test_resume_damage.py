"""A game in the journal that cannot be read back: kept aside before anything is written,
told, and a new game; a damaged moment costs only where the table was."""

from __future__ import annotations

import errno
import logging
import os
import sqlite3
from pathlib import Path

import pytest
from tablehelpers import Rig
from test_service_review import Clock
from test_tally_resume import cut, on_service, one_play, state  # noqa: F401  (state: the fixture)

from scoreboard.controller import FirstDraw, Lobby, Playing
from scoreboard.journal import JOURNAL_NAME, Damage, Journal, JournalWriteError, WriteFailure
from scoreboard.journal_crc import chain_crc, entry_crc
from scoreboard.journal_format import ABANDONED_KEY, OTHER_KINDS
from scoreboard.scripted import SCRIPT_KIND


def played_and_cut(state: Path, clock: Clock) -> tuple[Rig, int]:
    """Anna's HAUS played on a service on ``state``, then the power cut; the rig and the game."""
    r, service = one_play(state, clock)
    game = service.game_id
    assert game is not None
    cut(service)
    return r, game


def damage(folder: Path, sql: str, *, checksums: bool = False) -> dict[str, bytes]:
    """Change the cut journal behind SQLite's checks; its files' bytes after. Without
    ``checksums`` the rows have none and the games' chains are taken over them as changed,
    as in a journal written before schema 2 that was changed before it was brought up to
    date (schema 5 chains the rows as it finds them): the change is then only found when
    the game is read back."""
    conn = sqlite3.connect(folder / JOURNAL_NAME)
    try:
        conn.execute(sql)
        if not checksums:
            conn.execute("UPDATE entries SET crc = NULL")
            conn.execute("UPDATE games SET crc = NULL")
            chains: dict[int, int] = {}
            for game_id, seq, kind, payload, at in conn.execute(
                "SELECT game_id, seq, kind, payload, at FROM entries ORDER BY game_id, seq"
            ).fetchall():
                chains[game_id] = chain_crc(chains.get(game_id, 0), entry_crc(game_id, seq, kind, payload, at))
            conn.executemany("UPDATE games SET entry_chain = ? WHERE id = ?", [(c, g) for g, c in chains.items()])
        conn.commit()
    finally:
        conn.close()
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.name.startswith(JOURNAL_NAME)}


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE entries SET payload = replace(payload, '\"type\":\"play\"', '\"type\":\"plax\"') WHERE kind = 'command'",
        "UPDATE entries SET kind = 'commanc' WHERE kind = 'command'",
    ],
    ids=["a command changed", "a kind changed"],
)
def test_a_game_that_cannot_be_rebuilt_is_kept_aside_byte_for_byte_told_and_a_new_game_starts(
    state: Path, sql: str  # noqa: F811
) -> None:
    clock = Clock(0.0)
    r, game = played_and_cut(state, clock)
    before = damage(state, sql)

    again = on_service(r, state, clock)
    assert isinstance(r.state.phase, (Lobby, FirstDraw))
    kept = again.kept_copy
    assert kept is not None and kept.damage is Damage.GAME_UNREADABLE
    assert kept.path.name == f"{JOURNAL_NAME}.unreadable-{kept.stamp}"
    assert kept.path.read_bytes() == before[JOURNAL_NAME]  # as found, before the game was marked
    info = again.journal.game(game)
    assert info.result is not None and ABANDONED_KEY in info.result
    again.close()


def test_a_damaged_moment_costs_only_where_the_table_was(state: Path, caplog: pytest.LogCaptureFixture) -> None:  # noqa: F811
    clock = Clock(0.0)
    r, game = played_and_cut(state, clock)
    damage(state, "UPDATE entries SET payload = replace(payload, '\"Idle\"', '\"Idlf\"') WHERE kind = 'moment'")

    with caplog.at_level(logging.WARNING):
        again = on_service(r, state, clock)
    assert again.game_id == game and isinstance(r.state.phase, Playing)
    assert again.kept_copy is None
    assert "a moment could not be read" in caplog.text
    again.close()


def test_a_full_disk_when_marking_the_unreadable_game_does_not_stop_the_start(state: Path) -> None:  # noqa: F811
    clock = Clock(0.0)
    r, service = one_play(state, clock)
    cut(service)
    damage(state, "UPDATE entries SET kind = 'commanc' WHERE kind = 'command'")

    def full(*args: object, **kw: object) -> None:
        raise JournalWriteError("disk full", WriteFailure.DISK_FULL)

    original = Journal.finish
    Journal.finish = full  # type: ignore[method-assign, assignment]
    try:
        again = on_service(r, state, clock)
    finally:
        Journal.finish = original  # type: ignore[method-assign]
    assert isinstance(r.state.phase, (Lobby, FirstDraw))
    again.close()


@pytest.mark.parametrize("what", ["command", "moment"])
def test_with_checksums_a_changed_record_is_found_at_the_open_and_what_comes_before_is_kept(
    state: Path, what: str  # noqa: F811
) -> None:
    clock = Clock(0.0)
    r, game = played_and_cut(state, clock)
    if what == "command":
        sql = "UPDATE entries SET payload = payload || ' ' WHERE seq = (SELECT MAX(seq) FROM entries WHERE kind = 'command')"
    else:
        sql = "UPDATE entries SET payload = replace(payload, '\"Idle\"', '\"Idlf\"') WHERE kind = 'moment'"
    damage(state, sql, checksums=True)

    again = on_service(r, state, clock)
    journal = again.journal
    assert isinstance(journal, Journal) and journal.recovered_from is not None  # set aside, told
    if what == "moment":  # a moment changed costs nothing of the game
        assert again.game_id == game and isinstance(r.state.phase, Playing)
    again.close()


def test_the_scripted_runs_marks_are_a_kind_the_journal_format_leaves_alone() -> None:
    assert SCRIPT_KIND in OTHER_KINDS


def test_a_finished_game_that_cannot_be_read_keeps_its_result_and_nothing_is_written(state: Path) -> None:  # noqa: F811
    from test_tally_resume import played_to_the_end

    clock = Clock(0.0)
    r, service = played_to_the_end(state, clock)
    game = service.game_id
    assert game is not None
    result = service.journal.game(game).result
    cut(service)
    damage(state, "UPDATE entries SET kind = 'commanc' WHERE kind = 'command'")

    for _ in range(2):  # every start alike: no copy piling up, the tally kept
        again = on_service(r, state, clock)
        assert isinstance(r.state.phase, (Lobby, FirstDraw)) and again.kept_copy is None
        assert again.journal.game(game).result == result
        cut(again)


def test_when_no_copy_can_be_kept_nothing_is_written_and_the_next_start_tries_again(
    state: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    import scoreboard.journal as journal_module

    clock = Clock(0.0)
    r, game = played_and_cut(state, clock)
    before = damage(state, "UPDATE entries SET kind = 'commanc' WHERE kind = 'command'")

    def full(source: object, target: object) -> None:
        Path(str(target)).write_bytes(b"part of it")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(journal_module.shutil, "copyfile", full)
    with caplog.at_level(logging.ERROR):
        again = on_service(r, state, clock)
    assert isinstance(r.state.phase, (Lobby, FirstDraw)) and again.kept_copy is None
    assert again.journal.game(game).finished is None  # not marked: nothing written without a copy
    again.close()
    assert {p.name: p.read_bytes() for p in state.iterdir() if p.name.startswith(JOURNAL_NAME)} == before
    assert "the next start tries again" in caplog.text

    monkeypatch.undo()  # room again
    later = on_service(r, state, clock)
    assert later.kept_copy is not None and later.kept_copy.path.read_bytes() == before[JOURNAL_NAME]
    result = later.journal.game(game).result
    assert result is not None and ABANDONED_KEY in result
    later.close()
