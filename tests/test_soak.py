"""The soak: scripted games through the real service, SIGKILLed again and again (issue 12).

The games are in ``tests/soakgames.py`` (2 to 4 players; de, fr, en; challenges, a withdrawn
phony, exchanges, undo, every menu correction, the game clock in some), the harness in
``tests/soakharness.py``. ``make test`` plays each game once uninterrupted (the tally must be
the one the script's engine mirror computed) and then a short soak: one round per game with
a few kills (``SOAK_SHORT_KILLS`` per game, seeded by ``SOAK_SEED``). ``make soak`` runs the
long one: at least ``SOAK_KILLS`` (1,000) kills across the games, at random moments, inside
the journal's transaction, between a record and its screen and before a screen, with torn
copies of the journal taken meanwhile; it prints kills, divergences, lost and doubled
records per game and in total, and fails when any divergence, lost or doubled record was
found. ``SOAK_REPORT=FILE`` writes the same report to a file; ``SOAK_GAMES=a,b`` runs only
those games; ``SOAK_JOBS`` games run at once (2: one per core of the Pi-sized test machine);
``SOAK_FORK=0`` starts every service as a fresh interpreter (slower: the imports each time);
``SOAK_KEEP=1`` keeps the runs that found something (the long soak keeps them anyway);
``SOAK_SPARE_START=1``: no kill before a game's first entry (to look past the draw for the
first player while a kill there makes most rounds diverge).
"""

from __future__ import annotations

import math
import os
import random
import shutil
import signal
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import faultlog
import pytest
from soakgames import SoakGame, soak_games
from soakharness import (
    Figures,
    Launcher,
    Reference,
    in_parallel,
    jobs,
    launcher,
    reference,
    soak,
    soak_round,
    tally,
)

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")

SEED = int(os.environ.get("SOAK_SEED", "20261212"))
SHORT_KILLS = int(os.environ.get("SOAK_SHORT_KILLS", "6"))  # per game, in make test
LONG_KILLS = int(os.environ.get("SOAK_KILLS", "1000"))  # in all, in make soak
SPARE_START = os.environ.get("SOAK_SPARE_START") == "1"  # no kill before a game's first entry
_wanted = os.environ.get("SOAK_GAMES")
GAMES: list[SoakGame] = soak_games(_wanted.split(",") if _wanted else None)


@pytest.fixture(scope="module")
def folder() -> Iterator[Path]:
    """Where the runs go (short: unix socket paths). Kept after the long soak when a round
    found something (a round that found nothing removes itself), or with ``SOAK_KEEP=1``."""
    path = Path(tempfile.mkdtemp(prefix="soak-"))
    yield path
    keep = os.environ.get("SOAK_KEEP") == "1" or (path / "KEEP").exists()
    if keep and any(path.glob("*/round-*")):
        print(f"\nthe soak's runs that found something are kept in {path}")
    else:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def launch() -> Iterator[Launcher]:
    started = launcher()
    yield started
    started.close()


@pytest.fixture(scope="module")
def references(folder: Path, launch: Launcher) -> dict[str, Reference | AssertionError]:
    """Each game's uninterrupted run (or why it failed), made once for the module, ``SOAK_JOBS``
    at a time."""
    def one(game: SoakGame) -> Callable[[], Reference | AssertionError]:
        def run() -> Reference | AssertionError:
            try:
                return reference(game, folder / game.name / "reference", launch)
            except AssertionError as e:
                return e
        return run

    return dict(zip((g.name for g in GAMES), in_parallel([one(g) for g in GAMES], jobs())))


def _reference(game: SoakGame, references: dict[str, Reference | AssertionError]) -> Reference:
    ref = references[game.name]
    if isinstance(ref, AssertionError):
        raise ref
    return ref


def _report(title: str, figures: list[tuple[str, Figures]]) -> str:
    total = Figures()
    for _, f in figures:
        total.add(f)
    lines = [title, *(f.line(name) for name, f in figures), total.line("TOTAL")]
    problems = [p for _, f in figures for p in f.problems]
    if problems:
        lines.append(f"{len(problems)} findings:")
        lines += [f"  - {p}" for p in problems]
    text = "\n".join(lines)
    print("\n" + text)
    if os.environ.get("SOAK_REPORT"):
        with open(os.environ["SOAK_REPORT"], "a", encoding="utf-8") as out:
            out.write(text + "\n\n")
    return text


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_an_uninterrupted_run_plays_the_scripted_game(
    game: SoakGame, references: dict[str, Reference | AssertionError]
) -> None:
    ref = _reference(game, references)
    played = ref.journal.game
    assert played is not None and played.over
    assert played.termination == game.expected.termination
    assert tally(played) == tally(game.expected)  # the engine mirror of ScriptWriter computed it alone
    assert played.tally().winners == game.expected.tally().winners
    assert ref.journal.result is not None and [r["final"] for r in ref.journal.result["rows"]] == [
        r.final for r in game.expected.tally().rows
    ]


def _entries(journal: Path) -> list[tuple[str, str, float]]:
    with sqlite3.connect(f"file:{journal}?mode=ro", uri=True) as conn:
        return list(conn.execute("SELECT kind, payload, at FROM entries ORDER BY game_id, seq"))


def test_a_scripted_game_plays_the_same_every_time(
    references: dict[str, Reference | AssertionError], folder: Path, launch: Launcher
) -> None:
    """The lockstep makes a run repeatable to the quantum: every entry and its time (what
    the board wrote during a quantum is read at its end, whenever the reader's thread gets
    to it). A soak's restart can only be held to the same game if the game itself is."""
    game = next((g for g in GAMES if any(o.startswith("game.clock=") for o in g.sets)), GAMES[0])  # the clock too
    first = _reference(game, references)
    again = reference(game, folder / game.name / "again", launch)
    assert tally(again.journal.game) == tally(first.journal.game)  # type: ignore[arg-type]
    want = _entries(folder / game.name / "reference" / "read" / "journal.db")
    got = _entries(folder / game.name / "again" / "read" / "journal.db")
    differ = next((i for i, (a, b) in enumerate(zip(want, got)) if a != b), min(len(want), len(got)))
    assert got == want, f"entry {differ + 1} differs: {got[differ:differ + 2]} against {want[differ:differ + 2]}"


def test_a_short_soak_of_every_game(
    references: dict[str, Reference | AssertionError], folder: Path, launch: Launcher
) -> None:
    def one(i: int, game: SoakGame) -> Callable[[], Figures]:
        def run() -> Figures:
            ref = _reference(game, references)
            return soak_round(ref, folder / game.name / "round-short", launch, random.Random(SEED + i),
                              kills=SHORT_KILLS, torn=2, name=f"{game.name}#short")
        return run

    figures = list(zip((g.name for g in GAMES), in_parallel([one(i, g) for i, g in enumerate(GAMES)], jobs())))
    total = Figures()
    for _, f in figures:
        total.add(f)
    faultlog.injected("SIGKILL in a soak game (short)", total.total_kills)
    _report(f"short soak, seed {SEED}", figures)
    assert total.total_kills >= SHORT_KILLS * len(GAMES) // 2
    assert total.shown > 0
    assert not total.failed, (
        f"{total.divergences} divergences, {total.lost} lost and {total.doubled} doubled records"
        f" in {total.total_kills} kills (the findings are printed above)"
    )


@pytest.mark.soak
def test_soak_a_thousand_kills(
    references: dict[str, Reference | AssertionError], folder: Path, launch: Launcher
) -> None:
    started = time.monotonic()
    each = math.ceil(LONG_KILLS / len(GAMES))

    def one(i: int, game: SoakGame) -> Callable[[], Figures]:
        def run() -> Figures:
            f = soak(_reference(game, references), folder / game.name, launch, random.Random(SEED * 100 + i),
                     kills=each, spare_start=SPARE_START)
            print(f"\n{f.line(game.name)}", flush=True)
            return f
        return run

    figures = list(zip((g.name for g in GAMES), in_parallel([one(i, g) for i, g in enumerate(GAMES)], jobs())))
    total = Figures()
    for _, f in figures:
        total.add(f)
    for kind, n in total.kills.items():
        faultlog.injected(f"SIGKILL in a soak game ({kind})", n)
    _report(f"soak, seed {SEED}, {jobs()} at a time, {time.monotonic() - started:.0f} s in all", figures)
    if total.failed:
        (folder / "KEEP").touch()
    assert total.total_kills >= LONG_KILLS
    assert total.torn > 0
    assert not total.failed, (
        f"{total.divergences} divergences, {total.lost} lost and {total.doubled} doubled records"
        f" in {total.total_kills} kills (the findings are printed above)"
    )
