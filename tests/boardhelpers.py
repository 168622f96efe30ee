"""Board-building helpers shared by the placement and scoring tests.

They build tiles square by square, without ``Placement.from_gcg``, so the tests of the
rules do not depend on the notation parser.
"""

from __future__ import annotations

from engine.board import Board, Position, Square
from engine.placement import Placement
from engine.tiles import Tile, TileSet


def line(tile_set: TileSet, position: str, word: str) -> list[tuple[Square, Tile]]:
    """Tiles of ``word`` laid from ``position`` ('8D' across, 'D8' down); '.' skips a square,
    lower case is a blank."""
    pos = Position.from_gcg(position)
    row, col = pos.square
    out = []
    for i, ch in enumerate(word):
        if ch == ".":
            continue
        square = Square(row + pos.direction.drow * i, col + pos.direction.dcol * i)
        tile = Tile(ch.upper(), 0, True) if ch.islower() else tile_set.tile(ch)
        out.append((square, tile))
    return out


def board_with(tile_set: TileSet, *plays: tuple[str, str]) -> Board:
    board = Board()
    for position, word in plays:
        for square, tile in line(tile_set, position, word):
            board.place(square, tile)
    return board


def play(tile_set: TileSet, position: str, word: str) -> Placement:
    return Placement(line(tile_set, position, word))
