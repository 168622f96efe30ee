"""The publisher reads finished games as the journal's reads do: a record that does not match
its checksum, or a game missing rows, is not sent (review r18, finding 3)."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest

from scoreboard.broadcast.cursor import PublishLog
from scoreboard.journal import JOURNAL_NAME, Journal

META = {"rules": "de", "players": ["Anna", "Ben"], "first": 0}


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE entries SET payload = '{\"n\":99}' WHERE game_id = 1 AND seq = 3",  # a changed record
        "DELETE FROM entries WHERE game_id = 1 AND seq = 5",  # a row gone (as a damaged page hides it)
    ],
)
def test_a_damaged_finished_game_is_not_published_and_the_full_check_is_asked(
    tmp_path: Path, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    with Journal.open(tmp_path) as journal:
        for g in (1, 2):
            game = journal.start_game({**META, "g": g})
            journal.append_many(game, [("k", {"n": n}, float(n)) for n in range(1, 6)])
            if g == 1:
                journal.finish(game, {"scores": [1, 2]})
    conn = sqlite3.connect(tmp_path / JOURNAL_NAME, isolation_level=None)
    conn.execute(damage)
    conn.close()
    log = PublishLog(tmp_path / JOURNAL_NAME, "event")
    try:
        with caplog.at_level(logging.ERROR):
            sent = [(i.message.game, i.message.seq) for i in log.pending({}, 100)]
        assert [s for s in sent if s[0] == 1] == []  # nothing of the damaged game
        assert sent == [(2, 0), *((2, n) for n in range(1, 6))]  # the next game goes on
        assert "game 1" in caplog.text
        assert (tmp_path / f"{JOURNAL_NAME}.check").exists()
        assert [(i.message.game, i.message.seq) for i in log.pending({}, 100)] == sent  # (and stays held back)
    finally:
        log.close()


def test_whole_games_are_published_in_full(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as journal:
        game = journal.start_game(META)
        journal.append_many(game, [("k", {"n": n}, float(n)) for n in range(1, 4)])
        journal.finish(game, {"scores": [1, 2]})
    log = PublishLog(tmp_path / JOURNAL_NAME, "event")
    try:
        got = [(i.message.seq, i.message.kind) for i in log.pending({}, 100)]
        assert got[0][0] == 0 and [s for s, _ in got[1:4]] == [1, 2, 3] and got[4][0] is None and len(got) == 5
        assert [(i.message.seq) for i in log.pending({}, 3)] == [0, 1, 2]  # (a limit inside a finished game)
    finally:
        log.close()
    assert not (tmp_path / f"{JOURNAL_NAME}.check").exists()
