"""Word normalisation per language (docs/RULES.md, "Word validity").

Words are compared upper case in the tile set's letters:

- German: ``ß`` is ``SS``; accents are dropped except on ``Ä Ö Ü``, which are letters of
  their own; ``AE``/``OE``/``UE`` are never turned into umlauts (``AEPFEL`` is not ``ÄPFEL``).
- French: accents and cedilla dropped (``É`` -> ``E``, ``Ç`` -> ``C``), ``Œ`` -> ``OE``,
  ``Æ`` -> ``AE``.
- English: letters A-Z only.

A word with a hyphen, apostrophe, digit, space or a letter outside the tile set is not a
playable word: :func:`normalize` says why.
"""

from __future__ import annotations

import enum
import unicodedata

from .errors import ScoreboardError

LANGUAGES = ("de", "fr", "en")

_ALPHABETS = {
    "de": frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜ"),
    "fr": frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
    "en": frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
}
_KEEP = {"de": frozenset("ÄÖÜ"), "fr": frozenset(), "en": frozenset()}
_LIGATURES = {"ß": "SS", "ẞ": "SS", "Œ": "OE", "Æ": "AE"}


class Rejection(enum.Enum):
    """Why an entry of a word list is not a playable word."""

    EMPTY = "empty"
    HYPHEN = "hyphen"
    APOSTROPHE = "apostrophe"
    DIGIT = "digit"
    SPACE = "space"
    PROPER_NOUN = "capitalised (proper noun)"
    NAME = "proper name (person, place, brand)"
    ABBREVIATION = "abbreviation or symbol"
    OTHER = "letter or sign outside the tile set"


class UnknownLanguageError(ScoreboardError, ValueError):
    """A language code other than de, fr, en."""


def check_language(language: str) -> str:
    """``language`` if it is one of :data:`LANGUAGES`, else :class:`UnknownLanguageError`."""
    if language not in LANGUAGES:
        raise UnknownLanguageError(
            f"unknown language {language!r}; known: {', '.join(LANGUAGES)}"
        )
    return language


def normalize(word: str, language: str) -> str | Rejection:
    """The word as the board spells it, or why it cannot be played.

    ``normalize('Straße', 'de') == 'STRASSE'``; ``normalize("don't", 'en')`` is
    ``Rejection.APOSTROPHE``.
    """
    check_language(language)
    text = unicodedata.normalize("NFC", word.strip())
    if not text:
        return Rejection.EMPTY
    for ch in text:
        if ch in "-‐‑–":
            return Rejection.HYPHEN
        if ch in "'’`´":
            return Rejection.APOSTROPHE
        if ch.isdigit():
            return Rejection.DIGIT
        if ch.isspace():
            return Rejection.SPACE
    alphabet = _ALPHABETS[language]
    keep = _KEEP[language]
    out: list[str] = []
    for ch in text.upper() if language != "de" else _upper_de(text):
        if ch in alphabet:
            out.append(ch)
            continue
        if language == "en":
            return Rejection.OTHER
        if ch in _LIGATURES:
            out.append(_LIGATURES[ch])
            continue
        base = "".join(c for c in unicodedata.normalize("NFD", ch) if not unicodedata.combining(c))
        if base in alphabet and base not in keep:
            out.append(base)
        else:
            return Rejection.OTHER
    return "".join(out)


def _upper_de(text: str) -> str:
    # str.upper turns ß into SS already; keep it explicit for the capital ẞ too.
    return text.replace("ẞ", "SS").upper()
