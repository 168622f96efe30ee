"""Where a scripted run goes on after a kill (:func:`scoreboard.scripted.resume_point`)."""

from __future__ import annotations

from pathlib import Path

from scoreboard.journal import Journal
from scoreboard.journal_format import MOMENT_KIND
from scoreboard.scripted import SCRIPT_KIND, resume_point

META = {"rules": "de", "players": ["Anna", "Ben"], "first": 0, "draws": ["EA"]}


def mark(line: int, until: float, at: float) -> tuple[str, dict[str, object], float]:
    return SCRIPT_KIND, {"line": line, "until": until}, at


def test_a_fresh_journal_starts_the_script_from_its_first_line(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as journal:
        point = resume_point(journal)
    assert (point.game, point.line) == (None, None)


def test_the_script_goes_on_where_its_last_line_ended_not_at_a_later_clock_save(tmp_path: Path) -> None:
    """A clock saved by time alone while the next line's button was held carries the last
    line done; the run must go on from that line's end, or every later line (and the clock
    of the player to move) would come later than without the kill."""
    with Journal.open(tmp_path) as journal:
        game = journal.start_game(META, [mark(92, 39.1, 39.15)])
        journal.append_many(game, [("clock", {"used": [15.05, 2.0]}, 41.05), mark(93, 39.4, 41.05)])
        point = resume_point(journal)
    assert (point.game, point.line, point.until, point.at) == (game, 93, 39.4, 41.05)
    assert point.start == 39.4


def test_without_a_line_the_script_goes_on_at_the_last_entry(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as journal:
        game = journal.start_game(META, [("clock", {"used": [0.0, 0.0]}, 7.5)])
        point = resume_point(journal)
    assert (point.game, point.line, point.start) == (game, None, 7.5)


def test_a_finished_game_is_resumed_for_the_script_lines_after_the_end(tmp_path: Path) -> None:
    """A score corrected after the end: the script goes on at the tally."""
    with Journal.open(tmp_path) as journal:
        game = journal.start_game(META, [mark(106, 44.65, 44.55)])
        journal.finish(game, {"termination": "ended", "rows": [], "winners": []})
        point = resume_point(journal)
    assert (point.game, point.line) == (game, 106)


def test_a_game_the_script_left_for_a_new_one_goes_on_with_a_new_game(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as journal:
        game = journal.start_game(META, [mark(106, 44.65, 44.55)])
        journal.finish(game, {"termination": "ended", "rows": [], "winners": []})
        journal.append_many(game, [(MOMENT_KIND, {"$": "Moment", "mode": {"$": "Idle"}, "left": True}, 50.0),
                                   mark(110, 50.1, 50.0)])
        point = resume_point(journal)
    assert (point.game, point.line, point.start) == (None, 110, 50.1)


def test_an_abandoned_game_is_not_resumed_and_another_run_starts_afresh(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as journal:
        game = journal.start_game(META)
        journal.finish(game, {"abandoned": "could not be resumed"})
        point = resume_point(journal)
    assert (point.game, point.line) == (None, None)
