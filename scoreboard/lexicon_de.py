"""Which entries of the German spelling list are proper names or abbreviations.

``/usr/share/dict/ngerman`` (igerman98) cannot tell ``Berlin`` from ``Bahnhof``: German
capitalises every noun. The Hunspell form of the same dictionary (``de_DE.dic``) keeps each
word's root with its affix flags, so a name's inflected forms (``Berlins``) can be traced to
the name. A root is judged by, in this order:

1. its shape: written with a final dot in Hunspell (``usw.``, which ngerman lists as
   ``usw``), two capitals or a capital inside (``ADAC``, ``GmbH``, ``kWh``), or no vowel
   (``Lkw``, ``kg``): an abbreviation;
2. a lower-case word of the list with the same letters (``Essen``/``essen``): a word;
3. a form of a common noun that German Wiktionary gives with its gender (``Glück``, and
   ``Sachsen``, the plural of ``Sachse``), or a plural flag in Hunspell (names have none):
   a word;
4. an abbreviation only, in Wiktionary: an abbreviation;
5. a proper name in German Wiktionary (place, first name, surname, other name): a name;
6. a form of any other Wiktionary common noun, or a noun lemma of Wikidata's lexemes: a
   word, but when SCOWL's English or Dicollecte's French lists of names have it too, only
   if it is explained as a word (rule 7: ``Jumbo``, ``Kurhaus``, ``Gleichschaltung``; not
   ``Nintendo``, which Wikidata also lists as a noun);
   in those lists of names otherwise: a name;
7. otherwise, a root that takes only the genitive ``-s`` (the Hunspell pattern of names,
   ``Obama/S``) is a name unless it is explained as a word: a compound whose last part is
   a known noun (of four letters or more after a short first part; any common noun of the
   sources, ``Küsten|schelf``) after a known first part, itself such a compound or not
   (``Tomatenketschup``, ``Pyramidenbau``, ``Mohn|anbau|verbot``), the last part of a
   common noun the sources list after a known first part (``Abschluss|kommuniqué``), a verb
   of the list after a verb prefix (``An|drängen``), a noun suffix (``-chen``, ``-tum``,
   ``-ung``...), ``Ge...e`` (``Gekeuche``), or an English common word (``Login``);
8. anything else is kept.

Entries that no Hunspell root explains (compounds the list spells out) get rules 1-6. A
name takes its genitive forms with it (``Berlins``), not its derivations (``Berliner``).
"""

from __future__ import annotations

import bisect
import csv
import gzip
import itertools
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from engine.errors import ScoreboardError
from engine.words import Rejection

__all__ = ["Affixes", "GermanClassifier", "Kind", "SourceFormatError", "read_affixes", "read_hunspell_dic"]


class SourceFormatError(ScoreboardError, ValueError):
    """A source file of a shipped lexicon that does not read as its format; ``path`` and
    ``line`` say where."""

    def __init__(self, message: str, path: Path, line: int) -> None:
        super().__init__(f"{path}, line {line}: {message}")
        self.path = path
        self.line = line


class Kind(Enum):
    """What a root of the German list is, for the game."""

    WORD = "word"
    NAME = "name"
    ABBREVIATION = "abbreviation"


_VOWELS = frozenset("aeiouyäöüéèêáàâíóúôAEIOUYÄÖÜÉ")
_PLURAL_FLAGS = frozenset("ENPpqF")  # plural (and female -in/-innen) suffixes of de_DE.aff
_GENITIVE_FLAGS = frozenset("ST")
_COMPOUND_FLAGS = frozenset("hijmndowxyzcgf")  # compounding, not inflection
_NOUN_SUFFIXES = (
    "chen", "lein", "tum", "ium", "ung", "heit", "keit", "schaft", "nis", "ling", "ei", "ismus",
    "ität", "ion", "or", "ur", "enz", "anz", "ik", "ie", "ment", "eur", "ist", "ant", "ent",
    "at", "it", "ose", "itis", "loge",
)
_LINKS = ("", "s", "es", "n", "en", "er", "e", "ens")
_VERB_PREFIXES = (
    "ab", "an", "auf", "aus", "bei", "dar", "durch", "ein", "fort", "her", "hin", "los", "mit", "nach", "um",
    "vor", "weg", "zu", "zurück", "be", "ent", "er", "ver", "zer", "über", "unter", "wider",
)
_WIKTIONARY_NAMES = frozenset({"Toponym", "Vorname", "Nachname", "Eigenname", "Straßenname"})
_WIKTIONARY_NOT_NOUNS = frozenset({"Affix", "Gebundenes Lexem", "Buchstabe", "Symbol"})


@dataclass(frozen=True)
class _Suffix:
    strip: str
    add: str
    condition: re.Pattern[str]


Affixes = dict[str, list[_Suffix]]
"""Suffix rules of a Hunspell ``.aff`` file by flag (prefixes and compounding left out)."""


def read_affixes(path: Path) -> Affixes:
    """The plain suffix rules of a Hunspell affix file (``SFX`` without continuation flags)."""
    lines = _read_lines(path)
    rules: Affixes = defaultdict(list)
    i = 0
    while i < len(lines):
        parts = lines[i].split()
        if len(parts) >= 4 and parts[0] == "SFX" and parts[2] in ("Y", "N") and parts[3].isdigit():
            flag, count = parts[1], int(parts[3])
            for j in range(i + 1, i + 1 + count):
                rule = lines[j].split() if j < len(lines) else []
                if len(rule) < 4 or rule[0] != "SFX" or rule[1] != flag:
                    raise SourceFormatError(f"expected {count} SFX {flag} rules", path, j + 1)
                add, _, continuation = rule[3].partition("/")
                if continuation:
                    continue
                condition = rule[4] if len(rule) > 4 else "."
                rules[flag].append(
                    _Suffix("" if rule[2] == "0" else rule[2], "" if add == "0" else add, re.compile(condition + "$"))
                )
            i += count + 1
        else:
            i += 1
    return rules


def read_hunspell_dic(path: Path) -> list[tuple[str, str]]:
    """(root, flags) of a Hunspell ``.dic`` file, in file order."""
    lines = _read_lines(path)
    if not lines or not lines[0].strip().isdigit():
        raise SourceFormatError("a Hunspell .dic file starts with its entry count", path, 1)
    out = []
    for line in lines[1:]:
        if not line or line[0] in "\t#":
            continue
        root, _, flags = line.partition("/")
        out.append((root, flags))
    return out


def _read_lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").split("\n")
    except UnicodeDecodeError as e:
        line = path.read_bytes()[: e.start].count(b"\n") + 1
        raise SourceFormatError("not UTF-8", path, line) from None


def expand(root: str, flags: str, affixes: Affixes) -> set[str]:
    """``root`` with every plain suffix its ``flags`` allow (``Berlin/S``: Berlin, Berlins)."""
    forms = {root}
    for flag in flags:
        for rule in affixes.get(flag, ()):
            if root.endswith(rule.strip) and rule.condition.search(root):
                forms.add(root[: len(root) - len(rule.strip)] + rule.add)
    return forms


@dataclass
class Wiktionary:
    """German Wiktionary's nouns (the ``german-nouns`` table): forms of common nouns given
    with a gender (``declined``), forms of the other common nouns, names and abbreviations."""

    declined: set[str]
    common_forms: set[str]
    names: set[str]
    abbreviations: set[str]


def read_wiktionary_nouns(path: Path) -> Wiktionary:
    """Read ``nouns.csv`` of the PyPI package german-nouns (lemma, pos, genus, case forms)."""
    declined: set[str] = set()
    common: set[str] = set()
    names: set[str] = set()
    abbreviations: set[str] = set()
    csv.field_size_limit(1 << 24)
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.reader(f)
        header = next(reader, [])
        if header[:2] != ["lemma", "pos"]:
            raise SourceFormatError("expected the columns lemma,pos,...", path, 1)
        forms_at = [i for i, name in enumerate(header) if i >= 2 and not name.startswith("genus")]
        genus_at = [i for i, name in enumerate(header) if name.startswith("genus")]
        for row in reader:
            lemma, pos = row[0], {p.strip() for p in row[1].split(",")}
            if pos & _WIKTIONARY_NAMES:
                names.add(lemma)
            elif "Abkürzung" in pos:
                abbreviations.add(lemma)
            elif not pos & _WIKTIONARY_NOT_NOUNS:
                forms = {lemma, *(row[i] for i in forms_at if i < len(row) and row[i])}
                common |= forms
                if any(i < len(row) and row[i] for i in genus_at):
                    declined |= forms
    return Wiktionary(declined, common, names, abbreviations)


def read_lines_gz(path: Path) -> set[str]:
    """The non-empty lines of a gzipped UTF-8 list."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return {line.strip() for line in f if line.strip()}


class GermanClassifier:
    """Says of each entry of the German list whether it is a name or an abbreviation."""

    def __init__(
        self,
        entries: Iterable[str],
        dic: list[tuple[str, str]],
        affixes: Affixes,
        wiktionary: Wiktionary,
        wikidata_nouns: set[str],
        foreign_names: set[str],
        english_words: set[str],
    ) -> None:
        self.entries = set(entries)
        self._lower = {e.lower() for e in self.entries if e[:1].islower()}
        self._wiktionary = wiktionary
        self._common = wiktionary.common_forms | wikidata_nouns
        self._declined = wiktionary.declined
        self._foreign_names = foreign_names
        self._english = english_words
        flags_of: dict[str, set[str]] = defaultdict(set)
        for root, flags in dic:
            flags_of[root].update(flags)
        declined_roots = {r.lower() for r, fl in flags_of.items() if r[:1].isupper() and fl & _PLURAL_FLAGS}
        self._heads = self._lower | {w.lower() for w in self._common} | declined_roots
        self._heads |= {w[:-2] for w in self._lower if w.endswith("en") and len(w) > 4}  # schreib(en)
        self._heads |= {w[:-1] for w in self._lower if w.endswith("n") and len(w) > 3}
        self._heads |= {w[:-1] for w in self._heads if w.endswith("e") and len(w) > 4}  # Schanz(e)bau
        self._tails = {w.lower() for w in self._declined if w[:1].isupper()} | declined_roots
        self._tails |= {w.lower() for w in self._common if w[:1].isupper() and len(w) >= 4}  # -schelf, -umsetzer
        # the common nouns written backwards, sorted: which of them end in a word (bisect)
        self._backwards = sorted({w.lower()[::-1] for w in self._common if w[:1].isupper()})
        self.root_kinds = {root: self._root_kind(root, "".join(flags)) for root, flags in flags_of.items()}
        self._kinds: dict[str, set[Kind]] = defaultdict(set)
        for root, flags in dic:
            kind = self.root_kinds[root]
            base = root.rstrip(".")
            if kind is Kind.NAME:  # Berlin, Berlins are names; Berliner is a word
                named = expand(base, "".join(f for f in flags if f in _GENITIVE_FLAGS), affixes)
                for form in expand(base, flags, affixes):
                    self._kinds[form].add(Kind.NAME if form in named else Kind.WORD)
            else:
                for form in expand(base, flags, affixes):
                    self._kinds[form].add(kind)

    def _root_kind(self, root: str, flags: str) -> Kind:
        if root.endswith(".") or _abbreviation_shape(root):
            return Kind.ABBREVIATION
        if not root[:1].isupper() or root.lower() in self._lower:
            return Kind.WORD
        return self._capitalised_kind(root, set(flags))

    def _capitalised_kind(self, word: str, flags: set[str] | None) -> Kind:
        if word in self._declined or (flags is not None and flags & _PLURAL_FLAGS):
            return Kind.WORD
        if word in self._wiktionary.abbreviations and word not in self._common:
            return Kind.ABBREVIATION
        if word in self._wiktionary.names:
            return Kind.NAME
        if word in self._common and (word not in self._foreign_names or self._explained(word)):
            return Kind.WORD
        if word in self._foreign_names:
            return Kind.NAME
        if flags is None:
            return Kind.WORD
        inflection = flags - _COMPOUND_FLAGS
        if "S" in inflection and inflection <= _GENITIVE_FLAGS and not self._explained(word):
            return Kind.NAME
        return Kind.WORD

    def _explained(self, word: str) -> bool:
        low = word.lower()
        if low.endswith(_NOUN_SUFFIXES) or low in self._english:
            return True
        if low.startswith("ge") and low.endswith(("e", "el", "er")):
            return True
        if low.endswith("n") and any(  # a verb as a noun: Andrängen (an + drängen)
            low.startswith(p) and low[len(p):] in self._lower for p in _VERB_PREFIXES
        ):
            return True
        return self._compound(low, self._tails, 2) or self._last_part(low)

    def _last_part(self, low: str) -> bool:
        """``low`` (five letters or more) is the last part of a common noun of the sources,
        after a known first part and a link (Kommuniqué: Abschluss-kommuniqué)."""
        if len(low) < 5:
            return False
        back = low[::-1]
        for longer in itertools.islice(self._backwards, bisect.bisect_right(self._backwards, back), None):
            if not longer.startswith(back):
                return False
            head = longer[len(back):][::-1]
            firsts = (head[: len(head) - len(link)] for link in _LINKS if head.endswith(link))
            if any(len(first) >= 4 and first in self._heads for first in firsts):
                return True
        return False

    def _compound(self, low: str, lasts: set[str], depth: int) -> bool:
        """``low`` is a known first part, a link and a known last part (in ``lasts``); the
        first part may be such a compound itself, ``depth`` deep (Mohn-anbau-verbot)."""
        for i in range(3, len(low) - 2):
            head, tail = low[:i], low[i:]
            if len(tail) == 3 and len(head) < 5:  # Pyramidenbau, but not Kaufhof
                continue
            if tail not in lasts and not (len(tail) >= 5 and tail in self._lower):
                continue
            for link in _LINKS:
                first = head[: len(head) - len(link)]
                if not head.endswith(link) or len(first) < 2:
                    continue
                if first in self._heads:
                    return True
                if depth > 1 and len(first) >= 6 and len(tail) >= 4 and self._compound(first, self._heads, depth - 1):
                    return True
        return False

    def kind(self, entry: str) -> Kind:
        """The entry's kind: a name or abbreviation only when every root it comes from is one."""
        kinds = self._kinds.get(entry)
        if kinds is None:
            if _abbreviation_shape(entry):
                return Kind.ABBREVIATION
            if not entry[:1].isupper() or entry.lower() in self._lower:
                return Kind.WORD
            return self._capitalised_kind(entry, None)
        if Kind.WORD in kinds:
            return Kind.WORD
        return Kind.ABBREVIATION if Kind.ABBREVIATION in kinds else Kind.NAME

    def exclude(self, entry: str) -> Rejection | None:
        """For :func:`scoreboard.lexicons.build`: why ``entry`` is left out, or ``None``."""
        kind = self.kind(entry)
        if kind is Kind.NAME:
            return Rejection.NAME
        if kind is Kind.ABBREVIATION:
            return Rejection.ABBREVIATION
        return None

    def names(self) -> Iterator[str]:
        """The entries judged proper names (for inspection)."""
        return (e for e in sorted(self.entries) if self.kind(e) is Kind.NAME)


def _abbreviation_shape(word: str) -> bool:
    letters = word.rstrip(".")
    capitals = sum(c.isupper() for c in letters)
    return capitals >= 2 or (capitals == 1 and not letters[:1].isupper()) or not (set(letters) & _VOWELS)
