"""The press benchmark's driver, in a reduced run: figures present and sane, no timing asserted."""

from __future__ import annotations

from pathlib import Path

from engine.events import Play
from engine.rules import get_profile
from scoreboard import lexicons
from scoreboard.bench import BENCHMARKS, press_bench
from scoreboard.controller import Committed
from scoreboard.journal import Journal
from scoreboard.journal_format import decode_entry

KEYS = (
    "press_to_frame_ms_p50",
    "press_to_frame_ms_p99",
    "press_to_frame_nojournal_ms_p50",
    "press_to_frame_nojournal_ms_p99",
)


def test_reduced_run_reports_the_four_figures(tmp_path: Path) -> None:
    figures = press_bench.run(samples=5, journal_parent=str(tmp_path))
    assert set(figures) == set(KEYS)
    for key in KEYS:
        assert figures[key] > 0, key
    assert figures["press_to_frame_ms_p99"] >= figures["press_to_frame_ms_p50"]
    assert figures["press_to_frame_nojournal_ms_p99"] >= figures["press_to_frame_nojournal_ms_p50"]
    assert list(tmp_path.iterdir()) == []  # the journal's temporary directory is gone


def test_registered() -> None:
    assert ("press", press_bench.run) in [(name, runner) for name, _, runner in BENCHMARKS]


def test_the_scripted_game_is_played_and_journaled(tmp_path: Path) -> None:
    profile = get_profile(press_bench.PROFILE)
    lexicon = lexicons.load(lexicons.shipped_path("de"), "de")
    words = press_bench.check_words(lexicon, profile)
    assert "BAUEN" in words and "STUNDE" in words
    with Journal.open(tmp_path) as journal:
        driver = press_bench.Driver(profile, press_bench.Registry(profile.tile_set), lexicon, journal)
        driver.start()
        for index in range(len(press_bench.PLAYS)):
            assert driver.turn(index) > 0
        game = driver.state.game
        assert game is not None
        assert sum(1 for _ in game.board.tiles()) == 58
        assert all(len(game.racks[seat]) == profile.rack_size for seat in range(press_bench.SEATS))
        assert driver.game_id is not None
        entries = journal.entries(driver.game_id)
    records = [decode_entry(e.kind, e.payload, profile.tile_set) for e in entries]
    plays = [r for r in records if isinstance(r, Committed) and isinstance(r.command, Play)]
    assert len(plays) == len(press_bench.PLAYS)
    for r in plays:
        assert isinstance(r.command, Play) and len(r.laid) == len(r.command.placement)  # tags journaled
