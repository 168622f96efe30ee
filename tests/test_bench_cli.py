"""``scoreboard bench --only/--skip``: which benchmarks run, and a name that is none."""

from __future__ import annotations

import json

import pytest

import scoreboard.bench as bench
from scoreboard.cli import main


def test_all_by_default_and_in_their_order() -> None:
    assert bench.chosen() == list(bench.NAMES)
    assert bench.chosen(only="long,engine") == ["engine", "long"]
    assert bench.chosen(skip="long") == [n for n in bench.NAMES if n != "long"]
    assert bench.chosen(only="engine, press", skip="press") == ["engine"]


def test_an_unknown_name_is_refused_with_the_names_there_are(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(bench.UnknownBenchmarkError) as e:
        bench.chosen(skip="engine,lnog")
    assert e.value.name == "lnog"
    assert main(["bench", "--only", "lnog"]) == 2
    err = capsys.readouterr().err
    assert "'lnog'" in err and "long" in err


def test_only_the_chosen_ones_run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    ran: list[str] = []

    def runner(name: str) -> bench.Callable[[], dict[str, float]]:
        def run() -> dict[str, float]:
            ran.append(name)
            return {f"{name}_figure": 1.5}
        return run

    monkeypatch.setattr(bench, "BENCHMARKS", [(n, n, runner(n)) for n in bench.NAMES])
    assert main(["bench", "--skip", "long,service", "--only", "engine,service,scan", "--json"]) == 0
    assert ran == ["engine", "scan"]
    assert json.loads(capsys.readouterr().out.splitlines()[-1]) == {"engine_figure": 1.5, "scan_figure": 1.5}
