"""Tiles, tile sets (German, French, English) and the bag.

A :class:`Tile` is a letter with its value; a blank on the rack is ``Tile('?', 0, True)``
and, once played, keeps the letter it was given: ``Tile('E', 0, True)``. GCG writes a
played blank as the lower-case letter (``e``) and a blank on a rack as ``?``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from .errors import BagError, UnknownTileError, UnknownTileSetError

BLANK = "?"


@dataclass(frozen=True, slots=True)
class Tile:
    """One tile: its letter (``?`` for an unassigned blank), value and blank flag."""

    letter: str
    value: int
    blank: bool = False

    @property
    def rack_letter(self) -> str:
        """The letter as it stands on a rack: ``?`` for any blank."""
        return BLANK if self.blank else self.letter

    def gcg(self) -> str:
        """GCG spelling: ``?`` for a blank on the rack, lower case for a played blank."""
        if self.blank:
            return BLANK if self.letter == BLANK else self.letter.lower()
        return self.letter

    def assigned(self, letter: str) -> Tile:
        """This blank with ``letter`` assigned (worth 0 points)."""
        if not self.blank:
            raise UnknownTileError(f"only a blank takes a letter, not {self.letter!r}")
        return Tile(letter, 0, True)

    def unassigned(self) -> Tile:
        """The tile as it goes back to a rack or bag (a blank loses its letter)."""
        return Tile(BLANK, 0, True) if self.blank else self

    def __repr__(self) -> str:
        return f"Tile({self.letter!r}, {self.value}{', True' if self.blank else ''})"


@dataclass(frozen=True)
class TileSet:
    """A tile distribution: letter counts and values, and the set's alphabetical order."""

    name: str
    language: str
    counts: Mapping[str, int]
    values: Mapping[str, int]
    alphabet: tuple[str, ...]
    _tiles: dict[str, Tile] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        tiles = {letter: Tile(letter, self.values[letter], letter == BLANK) for letter in self.counts}
        object.__setattr__(self, "_tiles", tiles)

    @property
    def tiles_by_letter(self) -> dict[str, Tile]:
        """The set's tile for each letter (``?``: the blank); do not modify."""
        return self._tiles

    @property
    def size(self) -> int:
        """Number of tiles in the set."""
        return sum(self.counts.values())

    @property
    def letters(self) -> tuple[str, ...]:
        """The letters a blank may stand for, in the set's order."""
        return self.alphabet

    def tile(self, letter: str) -> Tile:
        """The tile for ``letter`` (``?`` gives the blank)."""
        try:
            return self._tiles[letter]
        except KeyError:
            raise UnknownTileError(
                f"{letter!r} is not a tile of the {self.name} set"
            ) from None

    def from_gcg(self, char: str) -> Tile:
        """A played tile from its GCG character: upper case letter, or lower case for a blank."""
        if char != BLANK and char.islower():
            upper = char.upper()
            if len(upper) != 1 or upper not in self._tiles or upper == BLANK:
                raise UnknownTileError(f"{char!r} is not a letter of the {self.name} set")
            return Tile(upper, 0, True)
        return self.tile(char)

    def value(self, letter: str) -> int:
        """Value of a rack letter (``?`` is 0)."""
        return self.tile(letter).value

    def rack_value(self, letters: Iterable[str]) -> int:
        """Sum of the values of rack letters."""
        return sum(self.tile(ch).value for ch in letters)

    def all_tiles(self) -> list[Tile]:
        """Every tile of the set, blanks unassigned."""
        return [self._tiles[letter] for letter, n in self.counts.items() for _ in range(n)]

    def order_key(self, tile: Tile) -> int:
        """Rank for the draw for first player: blank first, then the set's alphabet."""
        if tile.blank:
            return -1
        return self.alphabet.index(tile.letter)

    def parse_rack(self, text: str) -> list[Tile]:
        """Tiles of a rack written in GCG (``?`` for a blank), e.g. ``'AEIN?RS'``."""
        return [self.tile(ch) for ch in text]


def _make_set(name: str, language: str, spec: str, alphabet: str) -> TileSet:
    counts: dict[str, int] = {}
    values: dict[str, int] = {}
    for item in spec.split():
        letter, rest = item[0], item[1:]
        count, value = rest.split("/")
        counts[letter] = int(count)
        values[letter] = int(value)
    return TileSet(name, language, counts, values, tuple(alphabet))


# Facts from docs/RULES.md ("Tile sets"): letter count/value.
ENGLISH = _make_set(
    "english",
    "en",
    "?2/0 A9/1 B2/3 C2/3 D4/2 E12/1 F2/4 G3/2 H2/4 I9/1 J1/8 K1/5 L4/1 M2/3 N6/1 O8/1 "
    "P2/3 Q1/10 R6/1 S4/1 T6/1 U4/1 V2/4 W2/4 X1/8 Y2/4 Z1/10",
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
)
GERMAN = _make_set(
    "german",
    "de",
    "?2/0 A5/1 Ä1/6 B2/3 C2/4 D4/1 E15/1 F2/4 G3/2 H4/2 I6/1 J1/6 K2/4 L3/2 M4/3 N9/1 "
    "O3/2 Ö1/8 P1/4 Q1/10 R6/1 S7/1 T6/1 U6/1 Ü1/6 V1/6 W1/3 X1/8 Y1/10 Z1/3",
    "AÄBCDEFGHIJKLMNOÖPQRSTUÜVWXYZ",
)
FRENCH = _make_set(
    "french",
    "fr",
    "?2/0 A9/1 B2/3 C2/3 D3/2 E15/1 F2/4 G2/2 H2/4 I8/1 J1/8 K1/10 L5/1 M3/2 N6/1 O6/1 "
    "P2/3 Q1/8 R6/1 S6/1 T6/1 U6/1 V2/4 W1/10 X1/10 Y1/10 Z1/10",
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
)

TILE_SETS: dict[str, TileSet] = {ts.name: ts for ts in (GERMAN, FRENCH, ENGLISH)}


def get_tile_set(name: str) -> TileSet:
    """The tile set called ``name`` (``german``, ``french``, ``english``)."""
    try:
        return TILE_SETS[name.lower()]
    except KeyError:
        known = ", ".join(TILE_SETS)
        raise UnknownTileSetError(f"unknown tile set {name!r}; known: {known}") from None


class Bag:
    """The bag: a multiset of tiles drawn through an injected random generator."""

    __slots__ = ("_tiles", "_rng")

    def __init__(self, tiles: Iterable[Tile], rng: random.Random) -> None:
        self._tiles: list[Tile] = [t.unassigned() for t in tiles]
        self._rng = rng

    @classmethod
    def full(cls, tile_set: TileSet, rng: random.Random) -> Bag:
        """A bag holding the whole tile set."""
        return cls(tile_set.all_tiles(), rng)

    def __len__(self) -> int:
        return len(self._tiles)

    def __repr__(self) -> str:
        return f"<Bag {self.letters()!r}>"

    def letters(self) -> str:
        """The letters in the bag, sorted (``?`` first)."""
        return "".join(sorted(t.rack_letter for t in self._tiles))

    def counts(self) -> Counter[str]:
        """Count of each rack letter in the bag."""
        return Counter(t.rack_letter for t in self._tiles)

    def tiles(self) -> list[Tile]:
        """A copy of the tiles in the bag."""
        return list(self._tiles)

    def draw(self, n: int) -> list[Tile]:
        """Draw ``n`` tiles at random (fewer if the bag runs out)."""
        drawn: list[Tile] = []
        for _ in range(min(n, len(self._tiles))):
            i = self._rng.randrange(len(self._tiles))
            self._tiles[i], self._tiles[-1] = self._tiles[-1], self._tiles[i]
            drawn.append(self._tiles.pop())
        return drawn

    def take(self, tiles: Sequence[Tile]) -> list[Tile]:
        """Remove exactly these tiles (by rack letter), as seen on a rack after a draw."""
        need = Counter(t.rack_letter for t in tiles)
        have = self.counts()
        missing = need - have
        if missing:
            raise BagError(
                f"tiles {''.join(sorted(missing.elements()))!r} are not in the bag {self.letters()!r}"
            )
        taken: list[Tile] = []
        for t in tiles:
            for i, b in enumerate(self._tiles):
                if b.rack_letter == t.rack_letter:
                    taken.append(self._tiles.pop(i))
                    break
        return taken

    def put_back(self, tiles: Iterable[Tile]) -> None:
        """Return tiles to the bag (blanks lose their letter)."""
        self._tiles.extend(t.unassigned() for t in tiles)

    def copy(self, rng: random.Random | None = None) -> Bag:
        """A copy sharing the generator unless another one is given."""
        other = Bag.__new__(Bag)
        other._tiles = list(self._tiles)
        other._rng = rng or self._rng
        return other

    def __eq__(self, other: object) -> bool:
        """The same tiles in the same order (the order decides the next random draws)."""
        return isinstance(other, Bag) and self._tiles == other._tiles

    __hash__ = None  # type: ignore[assignment]


def letters_of(tiles: Iterable[Tile]) -> str:
    """The rack letters of tiles, in order (``?`` for blanks)."""
    return "".join(t.rack_letter for t in tiles)


def sorted_letters(tiles: Iterable[Tile], tile_set: TileSet | None = None) -> str:
    """Rack letters in a stable display order (blank last, then the set's alphabet)."""
    if tile_set is None:
        return "".join(sorted(letters_of(tiles)))
    order = {ch: i for i, ch in enumerate(tile_set.alphabet)}
    return "".join(sorted(letters_of(tiles), key=lambda ch: order.get(ch, len(order))))
