"""Benchmarks behind ``scoreboard bench``: each module's ``run()`` returns named figures.

Benchmarks print figures; tests never assert on timing (the machines are shared).
"""

from __future__ import annotations

import json
import platform
import sys
from collections.abc import Callable

from . import (
    core_bench,
    count_bench,
    engine_bench,
    hub_bench,
    idle_bench,
    journal_bench,
    lexicon_bench,
    link_bench,
    long_game_bench,
    play_bench,
    press_bench,
    scan_model,
    service_bench,
)

# (name, what it measures, runner) in the order they are printed.
BENCHMARKS: list[tuple[str, str, Callable[[], dict[str, float]]]] = [
    ("engine", "validate, score and apply one play; replay whole GCG games", engine_bench.run),
    ("lexicon", "load (mmap), memory added, lookup and prefix query per language", lexicon_bench.run),
    ("link", "board link frames parsed and decoded per second, 5% corrupted", link_bench.run),
    ("core", "undo at move 5 and 50 of a 4-player game, restore with 26 undos, --help against bare python", core_bench.run),
    ("journal", "journal start (open, the game to resume read) with 1,000 finished games against 10; a Done's"
     " append with its fsync", journal_bench.run),
    ("press", "Done press to rendered frame (turn controller + render), with and without the journal's fsync", press_bench.run),
    ("scan", "board controller scan model: full sweep and latency next to tiles", scan_model.run),
    ("service", "peak RSS of scoreboard run --simulate playing the demo game with PNG capture", service_bench.run),
    ("play", "scoreboard play: a frame the service shows to that frame on the page (Chromium where installed,"
     " else a plain WebSocket client), Menu pressed from the page", play_bench.run),
    ("idle", "an idle 4-seat table: wakeups and CPU of scoreboard run --simulate over 30 s from /proc; start to"
     " first frame, warm and cold bytecode", idle_bench.run),
    ("counts", "machine instructions (valgrind) per Done, two-blank Done, lookup, frame, idle second, start to"
     " first frame; projected onto a Pi Zero 2 W", count_bench.run),
    ("hub", "scoreboard hub with 50 and 200 boards (lightweight publishers replaying a journal at table speed and"
     " 2 real board services) on one Mosquitto: a record's journal commit on a board to the venue page in"
     " Chromium (p50, p99 ms), the hub's CPU and peak memory, the broker's peak memory; the hub's memory"
     " at a 900 s delay (its core on a virtual clock)", hub_bench.run),
    ("long", "RSS of scoreboard run --simulate over a 4-player game of 2 virtual hours, tiles sliding,"
     " the game clock running: at the start, the end and the peak (the GIF at exit included)", long_game_bench.run),
]


NAMES = tuple(name for name, _, _ in BENCHMARKS)


class UnknownBenchmarkError(ValueError):
    """A benchmark name that is not one of :data:`NAMES`."""

    def __init__(self, name: str) -> None:
        super().__init__(f"no benchmark {name!r}; there are: {', '.join(NAMES)}")
        self.name = name


def chosen(only: str | None = None, skip: str | None = None) -> list[str]:
    """The benchmarks to run: ``only`` those (comma-separated), all but ``skip``'s."""
    def names(text: str | None) -> list[str]:
        out = [n.strip() for n in (text or "").split(",") if n.strip()]
        for n in out:
            if n not in NAMES:
                raise UnknownBenchmarkError(n)
        return out

    wanted, skipped = names(only), names(skip)
    return [n for n in NAMES if (not wanted or n in wanted) and n not in skipped]


def run_all(json_output: bool = False, names: list[str] | None = None) -> int:
    """Run the benchmarks ``names`` (default: every one), print the figures (and one JSON
    line with ``json_output``)."""
    figures: dict[str, float] = {}
    print(f"# {platform.python_implementation()} {platform.python_version()} on "
          f"{platform.machine()}, {platform.system()} {platform.release()}")
    for name, what, runner in BENCHMARKS:
        if names is not None and name not in names:
            continue
        print(f"[{name}] {what}")
        result = runner()
        for key, value in result.items():
            print(f"  {key:24s} {value:12.2f}")
        figures.update(result)
        sys.stdout.flush()
    if json_output:
        print(json.dumps({k: round(v, 3) for k, v in figures.items()}))
    return 0


def cmd_bench(args: object) -> int:
    """``scoreboard bench [--json] [--only A,B] [--skip C]``: the benchmarks' figures."""
    try:
        names = chosen(getattr(args, "only", None), getattr(args, "skip", None))
    except UnknownBenchmarkError as e:
        print(f"scoreboard bench: {e}", file=sys.stderr)
        return 2
    return run_all(json_output=bool(getattr(args, "json", False)), names=names)
