"""Numbers and counted nouns as espeak-ng should read them, per language.

A number up to twelve is written as a word (the style books of all three languages do, and
its agreement is ours to get right: "ein Punkt", "eine Minute", "une minute"); a larger one
is written in digits, which espeak-ng reads with its own number rules. Those rules are better
than its reading of written-out numbers: it says German "vierzig" inside a compound with a
[v] and sounds the t of French "quatre-vingt-deux" (NOTE.md of issue 15 has the
measurements). The one agreement digits cannot carry is French feminine "…et une"; that
ending (and the hundreds before it) is written out.

Plurals follow CLDR: German and English take the singular for exactly 1 (also -1), French
for 0 and 1 ("zéro point", "moins un point").
"""

from __future__ import annotations

from typing import Literal, TypeAlias

from scoreboard.screens.models import Lang

__all__ = ["MINUS", "Unit", "count", "number", "singular"]

Unit: TypeAlias = Literal["point", "minute", "second", "tile"]
"""What is counted."""

_WORDS: dict[Lang, tuple[str, ...]] = {
    "de": ("null", "eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun", "zehn", "elf", "zwölf"),
    "fr": ("zéro", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf", "dix", "onze", "douze"),
    "en": ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"),
}
_ONE: dict[Lang, tuple[str, str]] = {"de": ("ein", "eine"), "fr": ("un", "une"), "en": ("one", "one")}
"""One before a noun: masculine (or neuter), feminine."""

_ONE_ACCUSATIVE: dict[Lang, str] = {"de": "einen", "fr": "un", "en": "one"}
"""One before a masculine noun as an object: "Ben verliert einen Punkt"."""

_FR_FEMININE_ONES = {
    1: "une", 21: "vingt et une", 31: "trente et une", 41: "quarante et une", 51: "cinquante et une",
    61: "soixante et une", 81: "quatre-vingt-une",
}
"""French numbers ending in "un" whose feminine espeak-ng cannot know from digits (71 and 91
end in "onze")."""

MINUS: dict[Lang, str] = {"de": "minus", "fr": "moins", "en": "minus"}

_NOUNS: dict[Lang, dict[Unit, tuple[str, str, bool]]] = {  # singular, plural, feminine
    "de": {
        "point": ("Punkt", "Punkte", False),
        "minute": ("Minute", "Minuten", True),
        "second": ("Sekunde", "Sekunden", True),
        "tile": ("Stein", "Steine", False),
    },
    "fr": {
        "point": ("point", "points", False),
        "minute": ("minute", "minutes", True),
        "second": ("seconde", "secondes", True),
        "tile": ("lettre", "lettres", True),
    },
    "en": {
        "point": ("point", "points", False),
        "minute": ("minute", "minutes", False),
        "second": ("second", "seconds", False),
        "tile": ("tile", "tiles", False),
    },
}


def number(
    n: int, lang: Lang, *, before_noun: bool = False, feminine: bool = False, accusative: bool = False
) -> str:
    """``n`` (0 or more) as espeak-ng should read it in ``lang``: a word up to twelve, else
    digits; ``before_noun`` gives one's agreeing form ("ein", "eine", "une"; ``accusative``:
    "einen")."""
    if n < 0:
        raise ValueError(f"number {n!r} is negative; say MINUS before its absolute value")
    if n == 1 and before_noun:
        return _ONE_ACCUSATIVE[lang] if accusative and not feminine else _ONE[lang][feminine]
    if n <= 12:
        return _WORDS[lang][n]
    if lang == "fr" and feminine and before_noun and (ending := _FR_FEMININE_ONES.get(n % 100)) is not None:
        return _fr_feminine(n, ending)
    return str(n)


def _fr_feminine(n: int, ending: str) -> str:
    """A French feminine number ending in "une": the thousands in digits, the hundreds in
    words ("100 une" would be said with a liaison, "cent t'une")."""
    thousands, hundreds = n - n % 1000, n % 1000 // 100
    words = [str(thousands)] if thousands else []
    if hundreds:
        words.append("cent" if hundreds == 1 else f"{_WORDS['fr'][hundreds]} cent")
    return " ".join([*words, ending])


def singular(n: int, lang: Lang) -> bool:
    """True when ``n`` takes the singular in ``lang`` (CLDR's "one": French 0 and 1)."""
    return abs(n) < 2 if lang == "fr" else abs(n) == 1


def count(n: int, unit: Unit, lang: Lang, *, accusative: bool = False) -> str:
    """``n`` ``unit`` in ``lang`` with its plural: "ein Punkt", "zwei Punkte", "minus ein
    Punkt", "zéro point", "vingt et une minutes", "312 points"; ``accusative``: as the object
    of a verb ("verliert einen Punkt")."""
    one, many, feminine = _NOUNS[lang][unit]
    amount = number(abs(n), lang, before_noun=True, feminine=feminine, accusative=accusative)
    text = f"{amount} {one if singular(n, lang) else many}"
    return f"{MINUS[lang]} {text}" if n < 0 else text
