"""The board cable pulled at random moments of scripted games: the game never changes and no
press is lost (issue 12, "Done when": link faults at random points).

Each run takes a soak game's script and pulls the cable (``unplug SECONDS``) at random
points: half of them right after a Done, Challenge or Menu press (0 to 60 ms after its
release: "a press released just before the link drops"), the others after any line. An
unplug is put only where the board is back, and has been read again, before the script's
next press (a press while the board is away is not taken, by design, and the display says
so); the line after it waits that much less, so the script's timeline is the original's.
The service plays each script through the simulated board in lockstep; its journal must
hold the uninterrupted run's game: the same moves in the same order, the same draws, the
same tally and result. ``make test`` runs a few games; ``make soak`` many more
(``LINK_FAULT_RUNS``, ``LINK_FAULT_SEED``).
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import faultlog
import pytest
from soakgames import SoakGame, demo_game, soak_games
from soakharness import (
    PATIENCE,
    Journaled,
    Launcher,
    board,
    copy_journal,
    in_parallel,
    jobs,
    launcher,
    log_tail,
    read_journal,
    service_args,
    tally,
)

from scoreboard.table_script import Press, parse

SEED = int(os.environ.get("LINK_FAULT_SEED", "20261202"))
BACK_S = 1.5  # after the replug: the link's handshake, a snapshot and the stabiliser's reports
PRESS_GAP_S = 0.06  # an unplug this soon after a press's release, at most
GAP_S = 0.3  # after any other line, at most
OUT_S = (0.2, 1.5)  # how long the cable stays out
SHORT = [("demo-de", 4)]  # (game, unplugs) in make test; make soak plays every game


@dataclass(frozen=True)
class Unplug:
    """An unplug put after script line ``after`` (1-based), ``gap`` s after it ends, ``out`` s long."""

    after: int
    gap: float
    out: float
    after_press: bool


def with_unplugs(script: str, rng: random.Random, count: int) -> tuple[str, list[Unplug]]:
    """``script`` with ``count`` unplugs at random points (see the module doc), and where."""
    lines = script.splitlines()
    parsed = parse(script)
    by_number = {line.number: line for line in parsed}
    ends: dict[int, float] = {}
    starts: dict[int, float] = {}
    t = 0.0
    for line in parsed:
        begin = max(t, line.at) if line.at is not None else t + line.wait
        starts[line.number] = begin
        t = begin + (line.step.seconds if isinstance(line.step, Press) else 0.0)
        ends[line.number] = t
    presses = [line.number for line in parsed if isinstance(line.step, Press)]
    numbers = [line.number for line in parsed][:-1]  # (not after the end)
    chosen: list[Unplug] = []
    busy: list[tuple[float, float]] = []
    tries = 0
    while len(chosen) < count and tries < 2000:
        tries += 1
        after_press = rng.random() < 0.5
        pool = [n for n in numbers if (n in presses) == after_press]
        n = rng.choice(pool)
        nxt = next((m for m in numbers[numbers.index(n) + 1:] + [parsed[-1].number] if m > n), None)
        if nxt is None or n in {u.after for u in chosen}:
            continue
        slack = by_number[nxt].wait if by_number[nxt].at is None else 0.0  # (the next line waits this much less)
        gap = rng.uniform(0.0, min(PRESS_GAP_S if after_press else GAP_S, slack))
        out = rng.uniform(*OUT_S)
        begin = ends[n] + gap
        next_press = min((starts[p] for p in presses if p > n), default=float("inf"))
        if begin + out + BACK_S > next_press or any(b < begin + out + BACK_S and begin < e for b, e in busy):
            continue
        busy.append((begin, begin + out + BACK_S))
        chosen.append(Unplug(n, gap, out, after_press))
    assert len(chosen) == count, f"room for {len(chosen)} of {count} unplugs"
    out_lines: list[str] = []
    shortened: dict[int, float] = {}
    for u in chosen:
        nxt = next(m for m in sorted(by_number) if m > u.after)
        shortened[nxt] = shortened.get(nxt, 0.0) + u.gap
    at = {u.after: u for u in chosen}
    for number, text in enumerate(lines, 1):
        if number in shortened:
            line = by_number[number]
            body = text.split(maxsplit=2)[2] if text.split()[:1] == ["after"] else text
            text = f"after {line.wait - shortened[number]:.4f} {body}"
        out_lines.append(text)
        if number in at:
            u = at[number]
            out_lines.append(f"after {u.gap:.4f} unplug {u.out:.3f}")
    return "\n".join(out_lines) + "\n", chosen


def play(game: SoakGame, folder: Path, launch: Launcher) -> Journaled:
    """``game`` played once through the service; its journal."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "script.txt"
    script.write_text(game.script, encoding="utf-8")
    state, out, log = folder / "state", folder / "out", folder / "service.log"
    with board(folder / "board", len(game.players)) as link:
        pid = launch.start(service_args(game, link, script, state, out), {}, log)
        code = launch.wait(pid, PATIENCE)
        if code is None:
            launch.kill(pid)
            launch.wait(pid, 30)
            raise AssertionError(f"{game.name}: the run did not end in {PATIENCE:g} s:\n{log_tail(log)}")
    assert code == 0, f"{game.name}: the run exited {code}:\n{log_tail(log)}"
    return read_journal(copy_journal(state, folder / "read"))


def differences(got: Journaled, want: Journaled) -> list[str]:
    """How ``got``'s game differs from ``want``'s (nothing: an empty list)."""
    problems = []
    if got.game is None or not got.game.over:
        problems.append("the game did not end")
    if got.moves != want.moves:
        first = next((i for i, (a, b) in enumerate(zip(got.moves, want.moves)) if a != b), min(len(got.moves), len(want.moves)))
        problems.append(f"other moves from move {first + 1}: {got.moves[first:first + 2]} instead of {want.moves[first:first + 2]}")
    if got.draws() != want.draws():
        problems.append(f"other draws: {got.draws()} instead of {want.draws()}")
    if got.game is not None and want.game is not None and tally(got.game) != tally(want.game):
        problems.append(f"another tally: {tally(got.game)} instead of {tally(want.game)}")
    if got.result != want.result:
        problems.append(f"another result: {got.result} instead of {want.result}")
    return problems


def run_game(game: SoakGame, runs: int, unplugs: int, folder: Path, rng: random.Random) -> Callable[[], list[str]]:
    def run() -> list[str]:
        launch = launcher()
        try:
            want = play(game, folder / game.name / "reference", launch)
            problems = []
            for r in range(runs):
                text, where = with_unplugs(game.script, rng, unplugs)
                got = play(replace(game, script=text), folder / game.name / f"unplugged-{r}", launch)
                found = differences(got, want)
                for u in where:
                    label = "unplug right after a press" if u.after_press else "unplug at a random line"
                    faultlog.record(label, not found)
                problems += [f"{game.name} run {r} ({where}): {p}" for p in found]
            return problems
        finally:
            launch.close()
    return run


def games_named() -> dict[str, SoakGame]:
    return {g.name: g for g in [demo_game(), *soak_games()]}


def test_random_unplugs_change_no_game(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    every = games_named()
    tasks = [run_game(every[name], 1, n, tmp_path, random.Random(rng.random())) for name, n in SHORT]
    problems = [p for found in in_parallel(tasks, jobs()) for p in found]
    assert not problems, "\n".join(problems)


@pytest.mark.soak
def test_many_random_unplugs_change_no_game(tmp_path: Path) -> None:
    runs = int(os.environ.get("LINK_FAULT_RUNS", "4"))
    rng = random.Random(SEED + 1)
    tasks = [run_game(g, runs, 4, tmp_path, random.Random(rng.random())) for g in games_named().values()]
    problems = [p for found in in_parallel(tasks, jobs()) for p in found]
    assert not problems, "\n".join(problems)


def test_the_unplugs_keep_the_script_timeline() -> None:
    """Every line of the original script starts when it did (the line after an unplug waits
    what the unplug's gap took), and every unplug ends well before the next press."""
    game = demo_game()
    text, where = with_unplugs(game.script, random.Random(5), 4)

    def starts(script: str) -> list[tuple[str, float]]:
        t, out = 0.0, []
        for line in parse(script):
            t = max(t, line.at) if line.at is not None else t + line.wait
            out.append((line.action, round(t, 6)))
            if isinstance(line.step, Press):
                t += line.step.seconds
        return out

    timeline = starts(text)
    assert [s for s in timeline if s[0] != "unplug"] == starts(game.script)
    unplugs = [(i, t) for i, (action, t) in enumerate(timeline) if action == "unplug"]
    assert len(unplugs) == len(where) == 4
    for (i, t), u in zip(unplugs, sorted(where, key=lambda u: u.after)):
        next_press = next((s for action, s in timeline[i + 1:] if action in ("press", "hold")), float("inf"))
        assert t + u.out + BACK_S <= next_press + 1e-6
