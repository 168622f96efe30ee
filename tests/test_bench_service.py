"""The service benchmark, run once: both figures present and positive, no timing or size asserted."""

from __future__ import annotations

import signal

import pytest

from scoreboard.bench import BENCHMARKS, service_bench


def test_registered() -> None:
    assert ("service", service_bench.run) in [(name, runner) for name, _, runner in BENCHMARKS]


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs os.wait4 and SIGKILL (POSIX)")
def test_one_game_reports_peak_rss_and_wall_time() -> None:
    figures = service_bench.run(short=True)  # (the short game: the whole one takes a minute)
    assert set(figures) == {"service_rss_mib", "service_game_s"}
    for key, value in figures.items():
        assert value > 0, key


@pytest.mark.soak
def test_the_play_benchmark_gives_its_figures() -> None:
    """``scoreboard bench --only play``, a few frames: figures present, none asserted on timing."""
    from scoreboard.bench import play_bench

    figures = play_bench.run(presses=10)
    assert figures["play_frames"] >= 10
    assert figures["play_frame_to_page_ms_p50"] > 0 and figures["play_frame_to_page_ms_p99"] >= figures["play_frame_to_page_ms_p50"]
