"""Random games through the state machine, for property tests.

Plays are legal placements (any letters: words are not checked), blanks get random
letters (umlauts included in German), and challenges get random rulings.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from engine.board import SIZE, CENTRE, Direction, Square
from engine.errors import CorrectionError, ExchangeNotAllowedError, GameOverError, PlacementError
from engine.events import PlayMade
from engine.game import Game
from engine.placement import Placement, validate
from engine.rules import RuleProfile
from engine.tiles import Tile

NAMES = ["Jürgen", "Zoë Ørsted", "Ben", "Ana María"]


def random_placement(game: Game, player: int, rng: random.Random) -> Placement | None:
    """A legal placement from ``player``'s rack, or None when none was found quickly."""
    board = game.board
    rack = game.racks[player]
    if not rack:
        return None
    occupied = [sq for sq, _ in board.tiles()]
    for _ in range(60):
        k = min(len(rack), rng.choice([1, 2, 2, 3, 3, 4, 5, 7, 9]))
        tiles = rng.sample(rack, k)
        direction = rng.choice([Direction.ACROSS, Direction.DOWN])
        dr, dc = direction.drow, direction.dcol
        anchor = CENTRE if not occupied else rng.choice(occupied)
        back = rng.randrange(k + 1)
        r, c = anchor.row - dr * back, anchor.col - dc * back
        if r < 0 or c < 0:
            continue
        squares: list[Square] = []
        while len(squares) < k and r < SIZE and c < SIZE:
            if board[Square(r, c)] is None:
                squares.append(Square(r, c))
            r, c = r + dr, c + dc
        if len(squares) < k:
            continue
        named = [
            t.assigned(rng.choice(game.tile_set.letters)) if t.blank else t for t in tiles
        ]
        placement = Placement(zip(squares, named))
        try:
            validate(board, placement, rack=rack, rack_size=game.profile.rack_size, tile_set=game.tile_set)
        except PlacementError:
            continue
        return placement
    return None


def play_random_game(
    profile: RuleProfile,
    players: int,
    seed: int,
    *,
    max_steps: int = 500,
    check: Callable[[Game], None] | None = None,
) -> Game:
    """Play a random game to its end (or ``max_steps``), calling ``check`` after every step."""
    rng = random.Random(seed)
    game = Game(profile, NAMES[:players], rng=random.Random(seed + 1), first=rng.randrange(players))
    game.deal()
    for _ in range(max_steps):
        if game.over:
            break
        # refill racks as the rack readers would see it
        for p in range(players):
            if not game.over and len(game.racks[p]) < profile.rack_size and len(game.bag) and rng.random() < 0.8:
                game.draw(p)
        if game.over:
            break
        try:
            _step(game, rng)
        except GameOverError:
            assert game.over  # the pending play became final and ended the game first
        if check is not None:
            check(game)
    if not game.over:
        game.end_game()
        if check is not None:
            check(game)
    if rng.random() < 0.3:
        game.penalize_time(rng.randrange(players), 10)
    return game


def _step(game: Game, rng: random.Random) -> None:
    players = len(game.players)
    profile = game.profile
    w = game.pending_play
    roll = rng.random()
    going_out = w is not None and not game.racks[w.player] and not len(game.bag)
    if w is not None and (roll < 0.15 or (going_out and roll < 0.3)):
        challenger = rng.choice([p for p in range(players) if p != w.player])
        invalid = rng.random() < 0.5
        phony = invalid and profile.phony_extension_rule and rng.random() < 0.3
        game.rule_challenge(challenger, (w.words[0].text,) if invalid else (), phony)
    elif going_out:
        game.close_window()  # a going-out play: the window times out
    elif roll < 0.18:
        try:
            game.undo_last_play()
        except CorrectionError:
            pass
    elif roll < 0.195 and profile.overrides_allowed and game.overridable_ruling is not None:
        play = next(e for e in reversed(game.events) if isinstance(e, PlayMade))
        try:
            game.override_ruling((play.words[0].text,))
        except (CorrectionError, GameOverError):
            pass
    elif roll < 0.21:
        game.adjust_score(rng.randrange(players), rng.randint(-9, 9))
    elif roll < 0.27:
        game.pass_turn(game.turn)
    elif roll < 0.35 and game.racks[game.turn]:
        rack = game.rack(game.turn)
        try:
            game.exchange(game.turn, "".join(rng.sample(rack, rng.randint(1, len(rack)))))
        except ExchangeNotAllowedError:
            game.pass_turn(game.turn)
    else:
        placement = random_placement(game, game.turn, rng)
        if placement is None:
            game.pass_turn(game.turn)
        else:
            game.play(game.turn, placement)


__all__ = ["NAMES", "Tile", "play_random_game", "random_placement"]
