"""Measure a lexicon against a hand-written list of words with the verdict each should get.

The lists are ``tests/data/lexicon_eval/LANG.tsv``: one ``word<TAB>accept|reject<TAB>category``
a line, ``#`` comments. ``scoreboard lexicon eval FILE --lang LANG`` prints the rates;
``tests/test_lexicon_eval.py`` holds the shipped lexicons to them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from engine.errors import ScoreboardError
from engine.lexicon import Lexicon
from engine.words import Rejection, normalize

__all__ = ["CategoryResult", "EvalItem", "EvalListError", "measure", "read_eval_list"]


class EvalListError(ScoreboardError, ValueError):
    """A line of an evaluation list that is malformed or contradicts another; ``path`` and
    ``line`` say where."""

    def __init__(self, message: str, path: Path, line: int) -> None:
        super().__init__(f"{path}, line {line}: {message}")
        self.path = path
        self.line = line


@dataclass(frozen=True)
class EvalItem:
    """One word, the verdict the rules give it, and its category (``city``, ``verb_form``...)."""

    word: str
    accept: bool
    category: str


def read_eval_list(path: Path, language: str) -> list[EvalItem]:
    """The items of ``path``; two words with the same board spelling must agree."""
    items: list[EvalItem] = []
    seen: dict[str, tuple[int, bool]] = {}
    for number, raw in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if not raw.strip() or raw.startswith("#"):
            continue
        parts = raw.split("\t")
        if len(parts) != 3 or parts[1] not in ("accept", "reject") or not parts[2]:
            raise EvalListError(f"expected word<TAB>accept|reject<TAB>category, got {raw!r}", path, number)
        word, verdict, category = parts
        normal = normalize(word, language)
        if isinstance(normal, Rejection):
            raise EvalListError(f"{word!r} cannot be played ({normal.value})", path, number)
        accept = verdict == "accept"
        if normal in seen:
            first, other = seen[normal]
            verb = "contradicts" if other != accept else "repeats"
            raise EvalListError(f"{word!r} ({normal}) {verb} line {first}", path, number)
        seen[normal] = (number, accept)
        items.append(EvalItem(word, accept, category))
    return items


@dataclass
class CategoryResult:
    """How a lexicon did on one category: the words it got wrong out of ``total``."""

    category: str
    accept: bool
    total: int = 0
    wrong: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        """Wrong verdicts per word: false accepts for names, false rejects for words."""
        return len(self.wrong) / self.total if self.total else 0.0

    def line(self) -> str:
        """``city: 1 of 69 falsely accepted (Bremen)``."""
        what = "falsely rejected" if self.accept else "falsely accepted"
        shown = f" ({' '.join(self.wrong)})" if self.wrong else ""
        return f"{self.category}: {len(self.wrong)} of {self.total} {what}{shown}"


def measure(lexicon: Lexicon, items: Iterable[EvalItem], language: str) -> dict[str, CategoryResult]:
    """Each category's result, in the list's order."""
    results: dict[str, CategoryResult] = {}
    for item in items:
        result = results.setdefault(item.category, CategoryResult(item.category, item.accept))
        result.total += 1
        normal = normalize(item.word, language)
        if (isinstance(normal, str) and normal in lexicon) != item.accept:
            result.wrong.append(item.word)
    return results


def totals(results: dict[str, CategoryResult], *, accept: bool) -> tuple[int, int]:
    """(wrong, total) over the categories that should be accepted (or rejected)."""
    chosen = [r for r in results.values() if r.accept == accept]
    return sum(len(r.wrong) for r in chosen), sum(r.total for r in chosen)
