"""Placements (the new tiles of a play), their GCG notation and their validation."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .board import CENTRE, SIZE, Board, Direction, PlacedTile, Position, Square
from .errors import (
    CentreNotCoveredError,
    DuplicateSquareError,
    GapError,
    NoTilesError,
    NotationError,
    NotConnectedError,
    NotInLineError,
    NotOnRackError,
    OpeningTooShortError,
    SquareOccupiedError,
    TileCountError,
    TooManyTilesError,
    UnknownTileError,
)
from .tiles import BLANK, Tile, TileSet


@dataclass(frozen=True, slots=True)
class Placement:
    """The tiles a play puts on the board, sorted in reading order.

    Blanks carry the letter they stand for (``Tile('E', 0, True)``).
    """

    tiles: tuple[PlacedTile, ...]

    def __init__(self, tiles: Iterable[PlacedTile | tuple[Square, Tile]]) -> None:
        object.__setattr__(
            self, "tiles", tuple(sorted((PlacedTile(s, t) for s, t in tiles), key=lambda p: p.square))
        )

    @classmethod
    def from_gcg(cls, position: Position | str, word: str, board: Board, tile_set: TileSet) -> Placement:
        """The new tiles of a GCG play such as ``8D WIN.Y``; ``.`` marks a tile already there.

        Raises :class:`NotationError` when the word runs off the board or a ``.`` stands on
        an empty square, and :class:`SquareOccupiedError` when a letter stands on a tile.
        """
        pos = Position.from_gcg(position) if isinstance(position, str) else position
        if not word:
            raise NotationError("empty word")
        dr, dc = pos.direction.drow, pos.direction.dcol
        row, col = pos.square
        if row + dr * (len(word) - 1) >= SIZE or col + dc * (len(word) - 1) >= SIZE:
            raise NotationError(f"{pos.gcg()} {word} runs off the board")
        placed: list[PlacedTile] = []
        occupied: list[Square] = []
        for i, ch in enumerate(word):
            sq = Square(row + dr * i, col + dc * i)
            if ch == ".":
                if board[sq] is None:
                    raise NotationError(f"{pos.gcg()} {word}: '.' at {sq.name()}, which is empty")
                continue
            if board[sq] is not None:
                occupied.append(sq)
            placed.append(PlacedTile(sq, tile_set.from_gcg(ch)))
        if occupied:
            raise SquareOccupiedError(occupied)
        return cls(placed)

    def gcg(self, board: Board) -> tuple[Position, str]:
        """GCG position and word of this placement on ``board`` (the board before the play).

        The word spans the whole main word, with ``.`` for the tiles already on the board.
        """
        direction = self.direction(board)
        start, end = main_word_span(board, self, direction)
        dr, dc = direction.drow, direction.dcol
        new = {p.square: p.tile for p in self.tiles}
        chars = []
        r, c = start
        while (r, c) <= end:
            sq = Square(r, c)
            tile = new.get(sq)
            chars.append(tile.gcg() if tile is not None else ".")
            r, c = r + dr, c + dc
        return Position(start, direction), "".join(chars)

    @property
    def squares(self) -> tuple[Square, ...]:
        """The squares covered by the new tiles."""
        return tuple(p.square for p in self.tiles)

    def rack_letters(self) -> str:
        """The played tiles as rack letters (``?`` for blanks)."""
        return "".join(p.tile.rack_letter for p in self.tiles)

    def direction(self, board: Board) -> Direction:
        """The direction of the main word.

        For one tile: across if it has a neighbour in its row, otherwise down.
        """
        tiles = self.tiles
        if len(tiles) > 1:
            return Direction.ACROSS if tiles[0].square.row == tiles[-1].square.row else Direction.DOWN
        if not tiles:
            return Direction.ACROSS
        r, c = tiles[0].square
        cells = board.cells
        if (c > 0 and cells[r * SIZE + c - 1] is not None) or (
            c < SIZE - 1 and cells[r * SIZE + c + 1] is not None
        ):
            return Direction.ACROSS
        if (r > 0 and cells[(r - 1) * SIZE + c] is not None) or (
            r < SIZE - 1 and cells[(r + 1) * SIZE + c] is not None
        ):
            return Direction.DOWN
        return Direction.ACROSS

    def __len__(self) -> int:
        return len(self.tiles)

    def __repr__(self) -> str:
        inner = ", ".join(f"({p.square!r}, {p.tile!r})" for p in self.tiles)
        return f"Placement([{inner}])"


def main_word_span(board: Board, placement: Placement, direction: Direction) -> tuple[Square, Square]:
    """First and last square of the main word: the new tiles plus adjacent old tiles."""
    cells = board.cells
    dr, dc = direction.drow, direction.dcol
    r, c = placement.tiles[0].square
    while r - dr >= 0 and c - dc >= 0 and cells[(r - dr) * SIZE + c - dc] is not None:
        r, c = r - dr, c - dc
    start = Square(r, c)
    r, c = placement.tiles[-1].square
    while r + dr < SIZE and c + dc < SIZE and cells[(r + dr) * SIZE + c + dc] is not None:
        r, c = r + dr, c + dc
    return start, Square(r, c)


def validate(
    board: Board,
    placement: Placement,
    *,
    rack: Sequence[Tile] | str | None = None,
    rack_size: int = 7,
    tile_set: TileSet | None = None,
) -> None:
    """Raise the :class:`PlacementError` subclass for the first rule ``placement`` breaks.

    Checked in this order: no tiles; a square given twice; occupied squares; not in one
    line; a gap; on an empty board H8 not covered or fewer than 2 tiles; not touching the
    tiles on the board; more tiles than ``rack_size``; tiles not on ``rack`` (when given);
    more copies of a letter than ``tile_set`` has (when given).
    """
    tiles = placement.tiles
    if not tiles:
        raise NoTilesError()
    cells = board.cells
    squares = [p.square for p in tiles]
    dupes = [s for s, n in Counter(squares).items() if n > 1]
    if dupes:
        raise DuplicateSquareError(dupes)
    occupied = [s for s in squares if cells[s.row * SIZE + s.col] is not None]
    if occupied:
        raise SquareOccupiedError(occupied)
    first, last = squares[0], squares[-1]
    if first.row == last.row and all(s.row == first.row for s in squares):
        dr, dc = 0, 1
    elif first.col == last.col and all(s.col == first.col for s in squares):
        dr, dc = 1, 0
    else:
        raise NotInLineError(squares)
    gaps = []
    r, c = first
    new = set(squares)
    while (r, c) != last:
        r, c = r + dr, c + dc
        sq = Square(r, c)
        if sq not in new and cells[r * SIZE + c] is None:
            gaps.append(sq)
    if gaps:
        raise GapError(gaps)
    if board.is_empty():
        if CENTRE not in new:
            raise CentreNotCoveredError(squares)
        if len(tiles) < 2:
            raise OpeningTooShortError(squares)
    elif not _touches(cells, squares, first, last, dr, dc):
        raise NotConnectedError(squares)
    if len(tiles) > rack_size:
        raise TooManyTilesError(len(tiles), rack_size)
    if rack is not None:
        rack_text = rack if isinstance(rack, str) else "".join(t.rack_letter for t in rack)
        missing = Counter(p.tile.rack_letter for p in tiles) - Counter(rack_text)
        if missing:
            raise NotOnRackError(sorted(missing.elements()), rack_text)
    if tile_set is not None:
        check_tile_counts(board, placement, tile_set)


def check_tile_counts(board: Board, placement: Placement, tile_set: TileSet) -> None:
    """Raise :class:`TileCountError` when board plus play hold more of a letter than the set,
    and :class:`UnknownTileError` for a tile that is not the set's (wrong letter or value)."""
    own = tile_set.tiles_by_letter
    for square, tile in placement.tiles:
        if own.get(tile.letter) is tile:
            continue  # the set's own tile object: nothing to check
        if tile.blank:
            if tile.letter != BLANK and tile.letter not in tile_set.letters:
                raise UnknownTileError(f"the blank at {square.name()} cannot be {tile.letter!r} in the {tile_set.name} set")
            if tile.value:
                raise UnknownTileError(f"the blank at {square.name()} is worth 0, not {tile.value}")
        elif tile_set.counts.get(tile.letter) is None or tile != tile_set.tile(tile.letter):
            raise UnknownTileError(f"{tile!r} at {square.name()} is not a tile of the {tile_set.name} set")
    played = Counter(p.tile.rack_letter for p in placement.tiles)
    on_board = board.letter_counts
    for letter, n in played.items():
        total = n + on_board.get(letter, 0)
        available = tile_set.counts.get(letter, 0)
        if total > available:
            raise TileCountError(letter if letter != BLANK else "? (blank)", total, available)


def _touches(
    cells: list[Tile | None], squares: list[Square], first: Square, last: Square, dr: int, dc: int
) -> bool:
    # A tile of the board inside the span, at either end, or beside any new tile.
    r, c = first
    while True:
        if cells[r * SIZE + c] is not None:
            return True
        if (r, c) == (last.row, last.col):
            break
        r, c = r + dr, c + dc
    br, bc = first.row - dr, first.col - dc
    if br >= 0 and bc >= 0 and cells[br * SIZE + bc] is not None:
        return True
    ar, ac = last.row + dr, last.col + dc
    if ar < SIZE and ac < SIZE and cells[ar * SIZE + ac] is not None:
        return True
    for r, c in squares:
        for nr, nc in ((r - dc, c - dr), (r + dc, c + dr)):
            if 0 <= nr < SIZE and 0 <= nc < SIZE and cells[nr * SIZE + nc] is not None:
                return True
    return False
