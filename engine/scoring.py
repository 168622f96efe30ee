"""Word finding and scoring.

Score = the main word plus every cross word of two or more letters through a new tile.
Letter premiums first, then word premiums (two DW x4, two TW x9, three TW x27); premiums
count only under new tiles, for both words at a crossing; a blank is worth 0, also on a
letter premium, and a word premium under it still multiplies. Playing at least the
profile's bingo count of tiles adds the bingo bonus.
"""

from __future__ import annotations

from dataclasses import dataclass

from .board import PREMIUMS, SIZE, Board, Direction, Position, Square
from .placement import Placement
from .tiles import Tile


@dataclass(frozen=True, slots=True)
class Word:
    """A word formed by a play: its letters, start, direction, squares and score."""

    text: str
    position: Position
    squares: tuple[Square, ...]
    score: int


@dataclass(frozen=True, slots=True)
class ScoredPlay:
    """A placement with the words it forms (main word first) and its score."""

    placement: Placement
    words: tuple[Word, ...]
    bingo: bool
    score: int

    @property
    def main_word(self) -> Word:
        """The word along the line of the play (for one tile: across if it forms one)."""
        return self.words[0]


def _word_at(
    cells: list[Tile | None], new: dict[int, object], r: int, c: int, dr: int, dc: int
) -> tuple[int, int, int, int] | None:
    """Score parts of the word through (r, c) along (dr, dc): (start index, length, letters, multiplier).

    Returns None when the word would be a single letter.
    """
    # walk back to the start
    while r - dr >= 0 and c - dc >= 0 and cells[(r - dr) * SIZE + (c - dc)] is not None:
        r, c = r - dr, c - dc
    start = r * SIZE + c
    step = dr * SIZE + dc
    total = 0
    mult = 1
    length = 0
    i = start
    while r < SIZE and c < SIZE:
        tile = cells[i]
        if tile is None:
            break
        if i in new:
            p = PREMIUMS[i]
            total += tile.value * p.letter_multiplier
            mult *= p.word_multiplier
        else:
            total += tile.value
        length += 1
        r, c, i = r + dr, c + dc, i + step
    if length < 2:
        return None
    return start, length, total, mult


def score(board: Board, placement: Placement, *, bingo_tiles: int = 7, bingo_bonus: int = 50) -> ScoredPlay:
    """Score ``placement`` on ``board`` (the board before the play).

    The new tiles are put into ``board.cells`` while the words are read and taken out
    again before this returns, also on an exception.

    The placement must be valid (see :func:`engine.placement.validate`). A play of
    ``bingo_tiles`` or more tiles earns ``bingo_bonus``.
    """
    cells = board.cells
    direction = placement.direction(board)
    new: dict[int, object] = {}
    saved = []
    for sq, tile in placement.tiles:
        i = sq.row * SIZE + sq.col
        new[i] = tile
        saved.append((i, cells[i]))
        cells[i] = tile
    try:
        words: list[Word] = []
        dr, dc = direction.drow, direction.dcol
        first = placement.tiles[0].square
        main = _word_at(cells, new, first.row, first.col, dr, dc)
        if main is not None:
            words.append(_make_word(cells, main, direction))
        odr, odc = dc, dr
        for sq, _ in placement.tiles:
            cross = _word_at(cells, new, sq.row, sq.col, odr, odc)
            if cross is not None:
                words.append(_make_word(cells, cross, direction.other))
    finally:
        for i, old in reversed(saved):
            cells[i] = old
    bingo = len(placement.tiles) >= bingo_tiles
    total = sum(w.score for w in words) + (bingo_bonus if bingo else 0)
    return ScoredPlay(placement, tuple(words), bingo, total)


def _make_word(cells: list[Tile | None], parts: tuple[int, int, int, int], direction: Direction) -> Word:
    start, length, letters, mult = parts
    step = direction.drow * SIZE + direction.dcol
    squares = tuple(Square.from_cell(start + k * step) for k in range(length))
    text = "".join(t.letter for t in cells[start:start + length * step:step] if t is not None)
    return Word(text, Position(squares[0], direction), squares, letters * mult)
