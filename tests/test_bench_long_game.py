"""The long-game benchmark: its script, and one short run (figures present, nothing timed)."""

from __future__ import annotations

import re
import signal

import pytest

from scoreboard.bench import BENCHMARKS, long_game_bench
from scoreboard.table_script import Press, parse


def test_registered() -> None:
    assert ("long", long_game_bench.run) in [(name, runner) for name, _, runner in BENCHMARKS]


def test_the_script_is_hours_of_four_players_sliding_and_playing() -> None:
    text = long_game_bench.long_game_script(2.0)
    lines = parse(text)
    seconds = long_game_bench.seconds_of(text.splitlines())
    assert 7100 <= seconds <= 7200
    presses = [line for line in lines if isinstance(line.step, Press)]
    assert len(presses) == long_game_bench.MAX_TURNS  # a Done a play (90 s), each accepted by the mirror game
    assert {p.step.seat for p in presses if isinstance(p.step, Press)} == {1, 2, 3, 4}
    slides = [line.text for line in lines if line.action == "slide"]
    assert len(slides) * long_game_bench.SLIDE_EVERY_S / 2 > seconds / 2  # sliding most of the time
    # every slide out is slid back: the racks stay as the plays left them
    outs = [re.fullmatch(r"after \S+ slide (R\d\.\d) (\w+)", s) for s in slides[0::2]]
    backs = [re.fullmatch(r"after \S+ slide (\w+) (R\d\.\d)", s) for s in slides[1::2]]
    assert all(o and b and o.groups() == b.groups()[::-1] for o, b in zip(outs, backs, strict=True))


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs os.wait4 and SIGKILL (POSIX)")
def test_a_short_run_reports_memory_at_start_end_and_peak() -> None:
    figures = long_game_bench.run(hours=0.005)  # 18 s: the draw for the first player, the deal, slides
    assert figures["long_game_frames"] > 10  # the clock of the player to move: a frame a second
    assert 0.004 <= figures["long_game_virtual_h"] <= 0.0051
    for key in ("long_rss_start_mib", "long_rss_end_mib", "long_rss_peak_mib", "long_board_rss_end_mib"):
        assert figures[key] > 0, key
    assert figures["long_rss_peak_mib"] >= figures["long_rss_end_mib"] * 0.99  # the peak is a peak
