"""The lexicon protocol, a set-backed lexicon, challenge rulings and blank inference.

Words are upper case in the tile set's letters (German keeps ``Ä Ö Ü``). The compact
lexicon for the device implements the same protocol.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from .board import Board, PlacedTile, Square
from .placement import Placement
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

    The placement must be valid. Blanks are tried in reading order, letters in the set's
    order. Each word the play forms is a pattern of letters and blanks (the words found
    once, with the blanks named anyhow: naming does not change which squares form words).
    A word without a blank must be valid, or nothing fits; a word with one blank (a cross
    word) leaves that blank the letters that make it a word; the words with two or more
    (the main word) are searched letter by letter, each prefix up to the next unnamed blank
    asked of the lexicon (:meth:`Lexicon.has_prefix`, a walk down the trie), so a letter
    that starts no word is dropped with every name after it. The cost grows with the
    prefixes asked, not with the pairs of letters tried. One result means the letters are
    known; none or several mean the player must say.
    """
    tiles = list(placement.tiles)
    blanks = [i for i, p in enumerate(tiles) if p.tile.blank and p.tile.letter == BLANK]
    if not blanks:
        return [placement] if not invalid_words(score(board, placement).words, lexicon) else []
    letters = [ch for ch in tile_set.letters if ch != BLANK]
    probe = Placement(
        PlacedTile(p.square, p.tile.assigned(letters[0])) if i in blanks else p for i, p in enumerate(tiles)
    )
    at = {tiles[i].square: k for k, i in enumerate(blanks)}  # square -> which blank
    patterns: list[list[str | int]] = [
        [at.get(sq, word.text[n]) for n, sq in enumerate(word.squares)] for word in score(board, probe).words
    ]
    allowed: list[list[str]] = [list(letters) for _ in blanks]
    searched: list[list[str | int]] = []
    for pattern in patterns:
        inside = [item for item in pattern if isinstance(item, int)]
        if not inside:
            if "".join(pattern) not in lexicon:  # type: ignore[arg-type]
                return []
        elif len(inside) == 1:
            k = inside[0]
            allowed[k] = [ch for ch in allowed[k] if _spell(pattern, {k: ch}) in lexicon]
        else:
            searched.append(pattern)
    # Each searched word as its fixed runs between its blanks: (the blanks in order, the runs);
    # the text so far grows by one letter and one run per blank named (one trie walk each).
    compiled: list[tuple[dict[int, int], list[str], int]] = []
    for pattern in searched:
        order: dict[int, int] = {}
        runs = [""]
        for item in pattern:
            if isinstance(item, int):
                order[item] = len(order)
                runs.append("")
            else:
                runs[-1] += item
        if runs[0] and not lexicon.has_prefix(runs[0]):
            return []
        compiled.append((order, runs, max(order)))
    results: list[Placement] = []

    def named_placement(letters: list[str]) -> Placement:
        return Placement(
            PlacedTile(p.square, p.tile.assigned(letters[blanks.index(i)])) if i in blanks else p
            for i, p in enumerate(tiles)
        )

    if len(compiled) == 1 and len(compiled[0][0]) == len(blanks):  # (two blanks or more: all in the main word)
        order, runs, _ = compiled[0]
        contains, starts = lexicon.__contains__, lexicon.has_prefix
        final = len(blanks) - 1

        def walk(k: int, text: str, letters: list[str]) -> None:
            after = runs[order[k] + 1]
            if k == final:  # (the hot loop: one lookup per letter)
                results.extend(named_placement([*letters, ch]) for ch in allowed[k] if contains(text + ch + after))
                return
            for ch in allowed[k]:
                grown = text + ch + after
                if starts(grown):
                    walk(k + 1, grown, [*letters, ch])

        walk(0, runs[0], [])
        return results
    named: list[str] = []

    def search(k: int, texts: list[str]) -> None:
        if k == len(blanks):
            results.append(named_placement(named))
            return
        for letter in allowed[k]:
            grown = list(texts)
            for n, (order, runs, last) in enumerate(compiled):
                j = order.get(k)
                if j is None:
                    continue
                text = texts[n] + letter + runs[j + 1]
                if not (text in lexicon if k == last else lexicon.has_prefix(text)):
                    break
                grown[n] = text
            else:
                named.append(letter)
                search(k + 1, grown)
                named.pop()

    search(0, [runs[0] for _, runs, _ in compiled])
    return results


def _spell(pattern: list[str | int], named: dict[int, str]) -> str:
    """A word's text with its blanks named."""
    return "".join(named[item] if isinstance(item, int) else item for item in pattern)


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
        self._accept_sorted = sorted(self.accept)  # (has_prefix: the first word not below a prefix)

    def __contains__(self, word: object) -> bool:
        if word in self.reject:
            return False
        return word in self.accept or word in self.base

    def has_prefix(self, prefix: str) -> bool:
        if self.base.has_prefix(prefix):
            return True
        at = bisect.bisect_left(self._accept_sorted, prefix)  # any word starting with it sorts first here
        return at < len(self._accept_sorted) and self._accept_sorted[at].startswith(prefix)

    def __repr__(self) -> str:
        return f"<HouseLexicon {self.base!r} +{len(self.accept)} -{len(self.reject)}>"
