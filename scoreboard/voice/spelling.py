"""Words of the board as espeak-ng is to read them: lower case, their lost signs restored.

Tiles carry no accents: French ÉTÉ lies on the board as ETE, German STRASSE for Straße. Read
as they lie, espeak-ng gets a French word with a lost accent wrong nine times in ten ("ete"
becomes English "eet", "eleve" [əlɛv] for élève) and a German word with a lost ß often
enough (gross [ɡrɔs] for groß). A respelling table per language gives the word back its
signs: the written form of the Debian word list the shipped lexicon comes from, for every
word whose letters lose signs on the tiles and that is not itself a word without them (COTE
stays cote; PECHE, with pêche, pèche and péché, takes the form with the fewest signs, then
the first in order). It is a marisa-trie of ``WORD<TAB>form`` keys in ``data/`` (built by
``python -m scoreboard.voice.spelling``); a language without one, or a word not in it, is
read in lower case as it lies.
"""

from __future__ import annotations

import functools
import sys
import unicodedata
from collections.abc import Iterable, Sequence
from importlib import resources
from pathlib import Path

import marisa_trie

from engine.words import normalize
from scoreboard.screens.models import Lang

__all__ = ["RESPELLINGS", "SOURCES", "build", "respelling_path", "speakable"]

SOURCES: dict[Lang, Path] = {
    "fr": Path("/usr/share/dict/french"),  # Debian wfrench, as the shipped fr lexicon
    "de": Path("/usr/share/dict/ngerman"),  # Debian wngerman, as the shipped de lexicon
}
"""The word lists the tables are built from, per language (English tiles lose nothing)."""

RESPELLINGS: tuple[Lang, ...] = tuple(SOURCES)
"""The languages with a respelling table."""

_SEP = "\t"


def respelling_path(lang: Lang) -> Path:
    """The shipped respelling table of ``lang``."""
    return Path(str(resources.files("scoreboard.voice") / "data" / f"{lang}-respell.marisa"))


@functools.cache
def _table(lang: Lang) -> marisa_trie.Trie | None:
    if lang not in RESPELLINGS:
        return None
    trie = marisa_trie.Trie()
    try:
        trie.mmap(str(respelling_path(lang)))
    except (RuntimeError, OSError):
        return None  # (a missing table only makes such words sound as they lie)
    return trie


def speakable(word: str, lang: Lang) -> str:
    """``word`` (upper case as played, a blank lower case) as espeak-ng is to read it in
    ``lang``: lower case, with the signs the tiles lost restored where the table knows it."""
    key = word.upper()
    table = _table(lang)
    if table is not None:
        found = table.keys(key + _SEP)
        if found:
            return str(found[0]).partition(_SEP)[2]
    return word.lower()


def _signs(form: str) -> int:
    """How many combining signs (accents) ``form`` has; a ß counts as one."""
    return sum(1 for ch in unicodedata.normalize("NFD", form) if unicodedata.combining(ch)) + form.count("ß")


def build(words: Iterable[str], lang: Lang) -> dict[str, str]:
    """The respelling table of a word list: tile word -> its written form (lower case), for
    the words whose tile letters lost signs and are not a word without them."""
    plain: set[str] = set()
    forms: dict[str, set[str]] = {}
    for entry in words:
        entry = entry.strip()
        tiles = normalize(entry, lang)
        if not isinstance(tiles, str):
            continue  # (not a playable word)
        form = entry.lower()
        if form == tiles.lower():
            plain.add(tiles)
        else:
            forms.setdefault(tiles, set()).add(form)
    return {
        tiles: min(options, key=lambda f: (_signs(f), f))
        for tiles, options in forms.items()
        if tiles not in plain
    }


def save(table: dict[str, str], path: Path) -> None:
    """Write ``table`` as a marisa-trie of ``WORD<TAB>form`` keys."""
    path.parent.mkdir(parents=True, exist_ok=True)
    marisa_trie.Trie(sorted(k + _SEP + v for k, v in table.items())).save(str(path))


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m scoreboard.voice.spelling [DIR]``: rebuild the tables from :data:`SOURCES`
    into DIR (default: the package's ``data``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    for lang in RESPELLINGS:
        source = SOURCES[lang]
        out = Path(args[0]) / respelling_path(lang).name if args else respelling_path(lang)
        table = build(source.read_text(encoding="utf-8").splitlines(), lang)
        save(table, out)
        print(f"{out}: {len(table)} words from {source}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
