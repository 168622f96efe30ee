"""The core's costs: an undo at move 5 and at move 50, a restore with 26 undos, ``--help``.

A 4-player German game is made with the engine (deterministic legal plays of one or two
tiles, words not checked, every player refilling after a play) and journaled as the
controller would: a :class:`Started` record and one :class:`Committed` record per command.

- ``undo_ms_move5`` / ``undo_ms_move50``: the table restored with the game up to move 5
  (or 50), its last play's window open; a second seat confirms the undo asked for (a
  long press of its Done). The median time of that one ``Table.step``.
- ``restore_ms_26undos``: ``Table.restore`` of a 60-move game in which 26 plays were
  each undone and laid again (a journal with 26 ``UndoLastPlay`` commands), median.
- ``help_vs_bare_python_ratio``: ``scoreboard --help`` against ``python -c pass``, whole
  processes alternating, the ratio of their median times (the machine's load cancels out).
"""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

from drivers.buttons.logic import ButtonEvent, Kind, Role
from engine.board import CENTRE, SIZE, Direction, Square
from engine.errors import PlacementError
from engine.events import CloseWindow, Play, UndoLastPlay
from engine.game import Game
from engine.lexicon import SetLexicon
from engine.placement import Placement, validate
from engine.rules import get_profile
from engine.tiles import Tile
from scoreboard.controller import Asking, Committed, Context, Record, Started, Table
from scoreboard.screens.models import ConfirmKind

__all__ = ["game_records", "run"]

NAMES = ("Anna", "Ben", "Cleo", "Dirk")
PROFILE = get_profile("de")


class BenchError(RuntimeError):
    """The generated game did not go as planned (the figures would time something else)."""


def _placement(game: Game, rng: random.Random) -> Placement | None:
    """A legal placement of one or two of the player's tiles, or None."""
    board, rack = game.board, game.racks[game.turn]
    occupied = [sq for sq, _ in board.tiles()] or [CENTRE]
    for _ in range(200):
        k = min(len(rack), 1 if board.count and rng.random() < 0.5 else 2)
        tiles = rng.sample(rack, k)
        direction = rng.choice(list(Direction))
        anchor = rng.choice(occupied)
        back = rng.randrange(k + 1)
        r, c = anchor.row - direction.drow * back, anchor.col - direction.dcol * back
        squares: list[Square] = []
        while len(squares) < k and 0 <= r < SIZE and 0 <= c < SIZE:
            if board[Square(r, c)] is None:
                squares.append(Square(r, c))
            r, c = r + direction.drow, c + direction.dcol
        if len(squares) < k:
            continue
        named: list[Tile] = [t.assigned("E") if t.blank else t for t in tiles]
        placement = Placement(zip(squares, named))
        try:
            validate(board, placement, rack=rack, rack_size=PROFILE.rack_size, tile_set=game.tile_set)
        except PlacementError:
            continue
        return placement
    return None


def game_records(moves: int, undos: int = 0, seed: int = 7) -> list[Record]:
    """The journal of a 4-player game of ``moves`` plays (``undos`` of them undone and laid
    again); the last play's window is left open."""
    rng = random.Random(seed)
    game = Game(PROFILE, NAMES, rng=random.Random(1), first=0)
    records: list[Record] = [Started(PROFILE.rules_line(), NAMES, 0, ())]

    def do(command: object) -> None:
        before = len(game.log)
        game.apply(command)  # type: ignore[arg-type]
        logged = game.log[before:] if not isinstance(command, UndoLastPlay) else [command]
        records.extend(Committed(c) for c in logged)

    for seat in range(len(NAMES)):
        game.draw(seat)
        records.append(Committed(game.log[-1]))
    undone = 0
    for move in range(1, moves + 1):
        placement = _placement(game, rng)
        if placement is None or game.over:
            raise BenchError(f"the generated game stopped at move {move}")
        play = Play(game.turn, placement)
        do(play)
        if undone < undos and move % 2 == 0:
            do(UndoLastPlay())
            do(play)
            undone += 1
        if move < moves:
            do(CloseWindow())
            if len(game.bag):
                game.draw(play.player)
                records.append(Committed(game.log[-1]))
    if undone != undos:
        raise BenchError(f"only {undone} of {undos} undos fit in {moves} moves")
    return records


def _table() -> Table:
    lexicon = SetLexicon(())
    return Table(Context(lambda name: PROFILE, lambda language: lexicon, lambda tile_set: _NoTags(), NAMES))


class _NoTags:
    """No tile registry is needed: the journal's commands carry no tags here."""

    def tile_of(self, uid: bytes) -> Tile | None:
        return None


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def undo_ms(moves: int, rounds: int = 30) -> float:
    """Median time of the step that confirms an undo of the play of move ``moves``."""
    table = _table()
    state, _ = table.restore(game_records(moves), 100.0, paused=False)
    asked = replace(state, mode=Asking(ConfirmKind.UNDO, by=0, until=1e9))
    press = ButtonEvent(2, Role.DONE, Kind.LONG_PRESS, 100.1)
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        after, effects = table.step(asked, press)
        times.append(time.perf_counter() - t0)
    plays = [sum(isinstance(c, Play) for c in g.log) for g in (state.game, after.game) if g is not None]
    if plays != [moves, moves - 1] or not effects:
        raise BenchError(f"the undo at move {moves} was not taken: plays {plays}")
    return _median_ms(times)


def restore_ms(rounds: int = 10) -> float:
    """Median time of restoring a 60-move game with 26 undos."""
    records = game_records(60, undos=26)
    table = _table()
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        table.restore(records, 0.0)
        times.append(time.perf_counter() - t0)
    return _median_ms(times)


def help_ratio(rounds: int = 15) -> float:
    """``scoreboard --help`` over ``python -c pass``, medians of alternating runs."""
    script = Path(sys.executable).with_name("scoreboard")
    command = [str(script), "--help"] if script.exists() else [sys.executable, "-m", "scoreboard.cli", "--help"]
    bare: list[float] = []
    helps: list[float] = []
    for _ in range(rounds):
        for argv, into in (([sys.executable, "-c", "pass"], bare), (command, helps)):
            t0 = time.perf_counter()
            subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
            into.append(time.perf_counter() - t0)
    return float(statistics.median(helps) / statistics.median(bare))


def run() -> dict[str, float]:
    """The figures."""
    return {
        "undo_ms_move5": undo_ms(5),
        "undo_ms_move50": undo_ms(50),
        "restore_ms_26undos": restore_ms(),
        "help_vs_bare_python_ratio": help_ratio(),
    }
