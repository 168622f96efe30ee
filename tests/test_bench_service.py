"""The service benchmark, run once: both figures present and positive, no timing or size asserted."""

from __future__ import annotations

import signal

import pytest

from scoreboard.bench import BENCHMARKS, service_bench


def test_registered() -> None:
    assert ("service", service_bench.run) in [(name, runner) for name, _, runner in BENCHMARKS]


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs os.wait4 and SIGKILL (POSIX)")
def test_one_game_reports_peak_rss_and_wall_time() -> None:
    figures = service_bench.run()
    assert set(figures) == {"service_rss_mib", "service_game_s"}
    for key, value in figures.items():
        assert value > 0, key
