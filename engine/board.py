"""The 15x15 board: squares, premium layout, play positions and placed tiles.

Squares are named column letter + row number, ``H8`` being the centre star. A play
position is written as in GCG: ``8D`` runs across from row 8, column D; ``D8`` runs down
from column D, row 8.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from .errors import NotationError
from .tiles import Tile

SIZE = 15
COLUMNS = "ABCDEFGHIJKLMNO"


class Premium(enum.Enum):
    """A premium square kind, with its letter and word multipliers."""

    NONE = ("", 1, 1)
    DOUBLE_LETTER = ("'", 2, 1)
    TRIPLE_LETTER = ('"', 3, 1)
    DOUBLE_WORD = ("-", 1, 2)
    TRIPLE_WORD = ("=", 1, 3)

    def __init__(self, symbol: str, letter_multiplier: int, word_multiplier: int) -> None:
        self.symbol = symbol
        self.letter_multiplier = letter_multiplier
        self.word_multiplier = word_multiplier


# docs/RULES.md, standard layout: '=' TW, '-' DW, '"' TL, "'" DL.
_LAYOUT = (
    "=  '   =   '  =",
    ' -   "   "   - ',
    "  -   ' '   -  ",
    "'  -   '   -  '",
    "    -     -    ",
    ' "   "   "   " ',
    "  '   ' '   '  ",
    "=  '   -   '  =",
    "  '   ' '   '  ",
    ' "   "   "   " ',
    "    -     -    ",
    "'  -   '   -  '",
    "  -   ' '   -  ",
    ' -   "   "   - ',
    "=  '   =   '  =",
)
_BY_SYMBOL = {p.symbol or " ": p for p in Premium}
PREMIUMS: tuple[Premium, ...] = tuple(_BY_SYMBOL[ch] for row in _LAYOUT for ch in row)


class Square(NamedTuple):
    """A board square by 0-based row and column; ``Square.from_name('H8')`` is the centre."""

    row: int
    col: int

    @classmethod
    def from_name(cls, name: str) -> Square:
        """Parse ``'H8'`` (column letter, row number)."""
        try:
            return _BY_NAME[name.strip().upper()]
        except (KeyError, AttributeError):
            raise NotationError(f"not a square: {name!r} (columns A-O, rows 1-15)") from None

    @classmethod
    def from_cell(cls, cell: int) -> Square:
        """The square at cell number ``row * 15 + col``."""
        return _SQUARES[cell]

    @property
    def cell(self) -> int:
        """Cell number ``row * 15 + col`` (the index into :attr:`Board.cells`)."""
        return self.row * SIZE + self.col

    def name(self) -> str:
        """``'H8'``."""
        return f"{COLUMNS[self.col]}{self.row + 1}"

    @property
    def premium(self) -> Premium:
        """The premium printed on this square."""
        return PREMIUMS[self.row * SIZE + self.col]

    def __repr__(self) -> str:
        return f"Square.from_name({self.name()!r})"

    def __str__(self) -> str:
        return self.name()


_SQUARES: tuple[Square, ...] = tuple(Square(r, c) for r in range(SIZE) for c in range(SIZE))
_BY_NAME: dict[str, Square] = {s.name(): s for s in _SQUARES}
CENTRE = Square.from_name("H8")


class Direction(enum.Enum):
    """Across (along a row) or down (along a column)."""

    ACROSS = (0, 1)
    DOWN = (1, 0)

    def __init__(self, drow: int, dcol: int) -> None:
        self.drow = drow
        self.dcol = dcol

    @property
    def other(self) -> Direction:
        """The perpendicular direction."""
        return Direction.DOWN if self is Direction.ACROSS else Direction.ACROSS


class Position(NamedTuple):
    """Where a play starts and which way it runs, written as in GCG (``8D``, ``D8``)."""

    square: Square
    direction: Direction

    @classmethod
    def from_gcg(cls, text: str) -> Position:
        """Parse ``'8D'`` (across) or ``'D8'`` (down)."""
        t = text.strip().upper()
        if any(ch.isspace() for ch in t):
            raise NotationError(f"not a play position: {text!r} (e.g. 8D across, D8 down)")
        if t[:1].isdigit():
            digits = t.rstrip(COLUMNS)
            name = t[len(digits):] + digits
            direction = Direction.ACROSS
        else:
            name, direction = t, Direction.DOWN
        if not t or (direction is Direction.ACROSS and len(t) - len(t.rstrip(COLUMNS)) != 1):
            raise NotationError(f"not a play position: {text!r} (e.g. 8D across, D8 down)")
        try:
            return cls(Square.from_name(name), direction)
        except NotationError:
            raise NotationError(f"not a play position: {text!r} (e.g. 8D across, D8 down)") from None

    def gcg(self) -> str:
        """``'8D'`` for across, ``'D8'`` for down."""
        col, row = COLUMNS[self.square.col], self.square.row + 1
        return f"{row}{col}" if self.direction is Direction.ACROSS else f"{col}{row}"

    def __repr__(self) -> str:
        return f"Position.from_gcg({self.gcg()!r})"

    def __str__(self) -> str:
        return self.gcg()


class PlacedTile(NamedTuple):
    """A tile on a square."""

    square: Square
    tile: Tile


class Board:
    """The tiles on the 15x15 board. Mutable; :meth:`copy` for a snapshot."""

    __slots__ = ("cells", "count", "letter_counts")

    def __init__(self, tiles: Iterable[PlacedTile] = ()) -> None:
        self.cells: list[Tile | None] = [None] * (SIZE * SIZE)
        self.count = 0
        #: tiles on the board per rack letter (``?`` for blanks)
        self.letter_counts: dict[str, int] = {}
        for square, tile in tiles:
            self.place(square, tile)

    def __getitem__(self, square: Square) -> Tile | None:
        return self.cells[square.row * SIZE + square.col]

    def place(self, square: Square, tile: Tile) -> None:
        """Put ``tile`` on the empty ``square``."""
        i = square.row * SIZE + square.col
        if self.cells[i] is not None:
            raise NotationError(f"square {square.name()} is already occupied")
        self.cells[i] = tile
        self.count += 1
        key = tile.rack_letter
        self.letter_counts[key] = self.letter_counts.get(key, 0) + 1

    def remove(self, square: Square) -> Tile:
        """Take the tile off ``square`` and return it."""
        i = square.row * SIZE + square.col
        tile = self.cells[i]
        if tile is None:
            raise NotationError(f"square {square.name()} is empty")
        self.cells[i] = None
        self.count -= 1
        self.letter_counts[tile.rack_letter] -= 1
        return tile

    def is_empty(self) -> bool:
        """True when no tile lies on the board."""
        return self.count == 0

    def tiles(self) -> Iterator[PlacedTile]:
        """The tiles on the board in reading order."""
        for i, tile in enumerate(self.cells):
            if tile is not None:
                yield PlacedTile(_SQUARES[i], tile)

    def copy(self) -> Board:
        """An independent copy."""
        other = Board()
        other.cells = list(self.cells)
        other.count = self.count
        other.letter_counts = dict(self.letter_counts)
        return other

    def rows(self) -> list[str]:
        """The board as 15 strings: letters, lower case for blanks, ``.`` for empty."""
        return [
            "".join("." if t is None else t.gcg() for t in self.cells[r * SIZE:(r + 1) * SIZE])
            for r in range(SIZE)
        ]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and self.cells == other.cells

    def __repr__(self) -> str:
        return f"<Board {self.count} tiles>"

    def __str__(self) -> str:
        return "\n".join(self.rows())
