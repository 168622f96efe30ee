"""A compact, immutable lexicon on a marisa-trie (about 0.8 MB for 356,000 German words).

The trie holds the normalised words and one metadata key, ``#lexicon {json}`` (no word
starts with ``#``), so a lexicon file describes itself: language, word count, source.
Loading (``mmap``) is the caller's business; this module only wraps a trie.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import marisa_trie

from .errors import ScoreboardError

META_KEY = "#lexicon "
FORMAT = 1


class LexiconFormatError(ScoreboardError, ValueError):
    """A trie that is not one of our lexicons, or whose word count does not match."""


class TrieLexicon:
    """Membership and prefix queries on a marisa-trie of normalised words."""

    __slots__ = ("_trie", "_meta_key", "meta")

    def __init__(self, trie: marisa_trie.Trie) -> None:
        metas = trie.keys(META_KEY)
        if len(metas) != 1:
            raise LexiconFormatError("no lexicon metadata in the trie")
        try:
            meta = json.loads(metas[0][len(META_KEY):])
        except json.JSONDecodeError:
            raise LexiconFormatError("unreadable lexicon metadata") from None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise LexiconFormatError(f"unknown lexicon format {meta.get('format') if isinstance(meta, dict) else meta!r}")
        if len(trie) - 1 != meta.get("words"):
            raise LexiconFormatError(
                f"the trie holds {len(trie) - 1} words but its metadata says {meta.get('words')}"
            )
        self._trie = trie
        self._meta_key: str = metas[0]
        self.meta: dict[str, Any] = meta

    @classmethod
    def build(cls, words: Iterable[str], meta: Mapping[str, Any]) -> TrieLexicon:
        """A lexicon of ``words`` (already normalised) with ``meta`` (language, source...)."""
        unique = sorted(set(words))
        info = {"format": FORMAT, **meta, "words": len(unique)}
        key = META_KEY + json.dumps(info, ensure_ascii=False, sort_keys=True)
        return cls(marisa_trie.Trie([*unique, key]))

    @property
    def trie(self) -> marisa_trie.Trie:
        """The underlying trie (to save it)."""
        return self._trie

    @property
    def language(self) -> str:
        """``de``, ``fr`` or ``en``."""
        return str(self.meta.get("language", ""))

    def __contains__(self, word: object) -> bool:
        try:
            return word in self._trie and word != self._meta_key
        except TypeError:  # not a str
            return False

    def has_prefix(self, prefix: str) -> bool:
        if prefix.startswith("#") or not prefix:  # ("#": only the metadata key)
            return not prefix
        for _ in self._trie.iterkeys(prefix):  # (one key is enough: a walk down the trie)
            return True
        return False

    def __len__(self) -> int:
        return int(self.meta["words"])

    def __iter__(self) -> Iterator[str]:
        return (k for k in self._trie.iterkeys() if not k.startswith("#"))

    def __repr__(self) -> str:
        return f"<TrieLexicon {self.language} {len(self)} words>"
