"""The draw for the first player: everybody draws one tile; nearest to A begins.

A blank beats every letter; then the tile set's alphabet decides (A, Ä, B, ...). Tied
players draw again, the others wait. :class:`FirstPlayerDraw` is the draw as a value, one
round at a time, for a table where the players draw real tiles; :func:`choose_first_player`
draws at random from a bag.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .errors import NoSuchSeatError
from .tiles import Bag, Tile, TileSet

__all__ = ["FirstPlayerDraw", "choose_first_player", "draw_for_first_player"]


@dataclass(frozen=True)
class FirstPlayerDraw:
    """The draw so far: who still draws (``contenders``), the rounds drawn, and who begins.

    ``rounds[k][seat]`` is the tile ``seat`` drew in round ``k`` (None: not drawing then).
    """

    players: int
    contenders: tuple[int, ...]
    rounds: tuple[tuple[Tile | None, ...], ...] = ()
    first: int | None = None

    @classmethod
    def start(cls, players: int) -> FirstPlayerDraw:
        """Nobody has drawn yet; every seat draws."""
        return cls(players, tuple(range(players)))

    def draw(self, tiles: Mapping[int, Tile], tile_set: TileSet) -> FirstPlayerDraw:
        """One round: ``tiles`` has a tile for every contender (and for nobody else).

        The draw after it: decided (:attr:`first`) or with the tied seats to draw again.
        """
        if self.first is not None or set(tiles) != set(self.contenders):
            wrong = sorted(set(tiles) ^ set(self.contenders)) or sorted(tiles)
            raise NoSuchSeatError(
                wrong[0], self.players, f"seats {sorted(tiles)} drew, but {list(self.contenders)} draw now"
            )
        keys = {seat: tile_set.order_key(tile) for seat, tile in tiles.items()}
        best = min(keys.values())
        winners = tuple(seat for seat in self.contenders if keys[seat] == best)
        drawn = tuple(tiles.get(seat) for seat in range(self.players))
        first = winners[0] if len(winners) == 1 else None
        return FirstPlayerDraw(self.players, winners, (*self.rounds, drawn), first)

    def record(self) -> tuple[str, ...]:
        """The rounds as letters per seat, ``-`` for a seat that did not draw: ``("AEAO", "D-C-")``."""
        return tuple("".join("-" if t is None else t.rack_letter for t in r) for r in self.rounds)


def draw_for_first_player(draws: Sequence[Tile], tile_set: TileSet) -> int | None:
    """Index of the player whose drawn tile is nearest to A (a blank beats all); None on a tie."""
    return FirstPlayerDraw.start(len(draws)).draw(dict(enumerate(draws)), tile_set).first


def choose_first_player(players: int, tile_set: TileSet, rng: random.Random) -> tuple[int, list[list[Tile]]]:
    """The draw for first player with the bag: tied players draw again.

    Returns the first player and the rounds of draws (a list per round, in seat order,
    only the tied players drawing from the second round on; others are absent).
    """
    draw = FirstPlayerDraw.start(players)
    rounds: list[list[Tile]] = []
    while draw.first is None:
        tiles = Bag.full(tile_set, rng).draw(len(draw.contenders))
        rounds.append(tiles)
        draw = draw.draw(dict(zip(draw.contenders, tiles)), tile_set)
    return draw.first, rounds
