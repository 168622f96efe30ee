"""The instruction-count and idle benchmarks' parts, without valgrind and without timing."""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from scoreboard.bench import count_bench, counted, idle_bench
from scoreboard.controller import BlankPick


@pytest.mark.parametrize("op", ["lookup", "frame", "blank2", "blank2worst"])
def test_each_counted_operation_runs(op: str) -> None:
    counted.setup(op)(3)  # (the same set-up runs under valgrind with N and with 0)


def test_the_counted_blank_plays_are_judged_by_inference() -> None:
    """The two-blank Done asks the player to name the first blank among the letters found
    (a bench that timed a refusal would time something else)."""
    for play in (counted.BLANK_PLAY, counted.WORST_BLANK_PLAY):
        table, state, press = counted.blank_state(play)
        after, _ = table.step(state, press)  # type: ignore[attr-defined]
        assert isinstance(after.mode, BlankPick) and after.mode.candidates, play


def test_sample_reads_every_thread_of_a_process() -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        tasks = idle_bench.sample(os.getpid())
    finally:
        stop.set()
        thread.join()
    assert len(tasks) >= 2 and all(switches >= 0 and ns > 0 for switches, ns in tasks.values())


def test_callgrind_dumps_are_read_in_order(tmp_path: Path) -> None:
    for n, total in ((2, 300), (1, 200), (10, 900)):
        (tmp_path / f"cg.out.{n}").write_text(f"events: Ir\nsummary: {total}\ntotals: {total}\n")
    (tmp_path / "cg.out.3").write_text("events: Ir\n")  # a dump cut short: no total
    assert count_bench._dumped(tmp_path) == [200, 300, 900]


def test_the_pi_projection_is_instructions_over_clock_and_ipc() -> None:
    assert count_bench.pi_ms(count_bench.PI_HZ * count_bench.PI_IPC) == pytest.approx(1000.0)


def test_a_counted_process_writes_no_bytecode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cold start is counted twice in one copy without bytecode: the first probe must not
    leave .pyc files for the second (review r18, finding 7), wherever the variable is unset."""
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    seen: list[dict[str, str]] = []

    def run(argv: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        seen.append(kwargs["env"])
        return subprocess.CompletedProcess(argv, 0, None, "==1== I   refs:      1,234\n")

    monkeypatch.setattr(subprocess, "run", run)
    assert count_bench.count(["python", "-c", "pass"], tmp_path) == 1234
    assert seen[0]["PYTHONDONTWRITEBYTECODE"] == "1" and seen[0]["PYTHONPATH"] == str(tmp_path)
