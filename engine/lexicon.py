"""The lexicon protocol, a set-backed lexicon, challenge rulings and blank inference.

Words are upper case in the tile set's letters (German keeps ``Ä Ö Ü``). The compact
lexicon for the device implements the same protocol.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from .board import Board, PlacedTile, Square
from .placement import Placement, main_word_span
from .scoring import Word, score
from .tiles import BLANK, TileSet


@runtime_checkable
class Lexicon(Protocol):
    """What the engine asks of a word list: membership and prefix queries."""

    def __contains__(self, word: object) -> bool:
        """True when ``word`` (upper case) is a valid word."""
        ...

    def has_prefix(self, prefix: str) -> bool:
        """True when some valid word starts with ``prefix`` (the word itself counts)."""
        ...


class SetLexicon:
    """A lexicon held in a Python set: fine for tests and small lists."""

    def __init__(self, words: Iterable[str]) -> None:
        self._words = frozenset(w.upper() for w in words)
        prefixes: set[str] = set()
        for w in self._words:
            for i in range(1, len(w) + 1):
                prefixes.add(w[:i])
        self._prefixes = frozenset(prefixes)

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word in self._words

    def has_prefix(self, prefix: str) -> bool:
        return prefix in self._prefixes or prefix == ""

    def __len__(self) -> int:
        return len(self._words)

    def __repr__(self) -> str:
        return f"<SetLexicon {len(self._words)} words>"


def invalid_words(words: Iterable[Word | str], lexicon: Lexicon) -> tuple[str, ...]:
    """The words (text) that ``lexicon`` does not hold, in order, without repeats."""
    out: list[str] = []
    for w in words:
        text = w if isinstance(w, str) else w.text
        if text not in lexicon and text not in out:
            out.append(text)
    return tuple(out)


def infer_blanks(
    board: Board, placement: Placement, lexicon: Lexicon, tile_set: TileSet
) -> list[Placement]:
    """Every way to name the unassigned blanks (letter ``?``) so that all words are valid.

    The placement must be valid. Blanks are tried in reading order, letters in the
    set's order; the main word's prefix up to the next unnamed blank prunes the search.
    One result means the letters are known; none or several mean the player must say.
    """
    tiles = list(placement.tiles)
    blanks = [i for i, p in enumerate(tiles) if p.tile.blank and p.tile.letter == BLANK]
    # The main word as a list of letters, with the index of the placement's tile where a
    # new tile stands (blanks are filled in as the search names them).
    start, end = main_word_span(board, placement, placement.direction(board))
    new_at = {p.square: i for i, p in enumerate(tiles)}
    main: list[str | int] = []
    for sq in _span(start, end):
        main.append(new_at[sq] if sq in new_at else board[sq].letter)  # type: ignore[union-attr]
    results: list[Placement] = []

    def prefix_ok() -> bool:
        chars = []
        for item in main:
            letter = tiles[item].tile.letter if isinstance(item, int) else item
            if letter == BLANK:
                break
            chars.append(letter)
        else:
            return True  # fully named: the full check follows
        return lexicon.has_prefix("".join(chars))

    def search(k: int) -> None:
        if k == len(blanks):
            trial = Placement(tiles)
            if not invalid_words(score(board, trial).words, lexicon):
                results.append(trial)
            return
        i = blanks[k]
        square, blank = tiles[i]
        for letter in tile_set.letters:
            tiles[i] = PlacedTile(square, blank.assigned(letter))
            if prefix_ok():
                search(k + 1)
        tiles[i] = PlacedTile(square, blank)

    search(0)
    return results


def _span(start: Square, end: Square) -> list[Square]:
    if start.row == end.row:
        return [Square(start.row, c) for c in range(start.col, end.col + 1)]
    return [Square(r, start.col) for r in range(start.row, end.row + 1)]


class HouseLexicon:
    """A base lexicon with a table's house lists laid over it.

    A word on the reject list is invalid and one on the accept list valid, whatever the
    base lexicon says (the reject list wins when a word is on both).
    """

    def __init__(self, base: Lexicon, accept: Iterable[str] = (), reject: Iterable[str] = ()) -> None:
        self.base = base
        self.accept = frozenset(accept)
        self.reject = frozenset(reject)

    def __contains__(self, word: object) -> bool:
        if word in self.reject:
            return False
        return word in self.accept or word in self.base

    def has_prefix(self, prefix: str) -> bool:
        return self.base.has_prefix(prefix) or any(w.startswith(prefix) for w in self.accept)

    def __repr__(self) -> str:
        return f"<HouseLexicon {self.base!r} +{len(self.accept)} -{len(self.reject)}>"
