"""``scoreboard bench --only journal``: the figures come out named, the power cut is a real one."""

from __future__ import annotations

from pathlib import Path

from scoreboard.bench import journal_bench
from scoreboard.journal import JOURNAL_NAME, Journal


def test_the_journal_figures_are_all_there() -> None:
    figures = journal_bench.run(rounds=1, sizes=(1, 3))
    assert set(figures) == {
        "journal_open_ms_1games", "journal_open_ms_3games", "journal_open_3_vs_1_ratio",
        "journal_open_ms_3games_unclean", "journal_open_unclean_3_vs_1_ratio", "journal_append_ms_p50",
    }
    assert all(v > 0 for v in figures.values())


def test_the_power_cut_leaves_the_side_files_and_the_next_start_reads_the_append(tmp_path: Path) -> None:
    journal_bench.build(tmp_path, 2)
    left = journal_bench.power_cut(tmp_path)
    assert set(left) == {"", "-wal", "-shm"} and left["-wal"]
    with Journal.open(tmp_path) as journal:
        info = journal.unfinished()
        assert info is not None and journal.game(info.id).entries == 31  # the 30 built and the killed one's
    assert not (tmp_path / (JOURNAL_NAME + "-wal")).exists()
