"""Lexicon files: building them from word lists, loading them, and the house lists.

A lexicon file is a marisa-trie (see :mod:`engine.trie`) loaded with ``mmap``: a few
milliseconds and little memory. The shipped files for ``de``, ``fr`` and ``en`` live in
``scoreboard/data/lexicons/`` (sources and licences in ``SOURCES.md`` beside them). House
lists are small JSON files per language in the state directory.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import marisa_trie

from engine.errors import ScoreboardError
from engine.lexicon import HouseLexicon, Lexicon
from engine.trie import LexiconFormatError, TrieLexicon
from engine.words import Rejection, check_language, normalize
from scoreboard.storage import write_json_atomic


class LexiconFileError(ScoreboardError, OSError):
    """A lexicon file that is missing or not a lexicon; the message says how to rebuild it."""


class WordListError(ScoreboardError, ValueError):
    """A word list that cannot be read (wrong encoding, with the line number)."""


class UnusableWordListError(WordListError):
    """A word list refused because it is empty or mostly unplayable (see :func:`usable`);
    ``report`` says what was read, kept and dropped, with examples."""

    def __init__(self, message: str, report: BuildReport) -> None:
        super().__init__(message)
        self.report = report


class HouseListError(ScoreboardError, ValueError):
    """A house list file that cannot be read or written."""


def shipped_path(language: str) -> Path:
    """The lexicon file shipped for ``language``."""
    check_language(language)
    return Path(str(resources.files("scoreboard") / "data" / "lexicons" / f"{language}.marisa"))


def rebuild_hint(path: Path, language: str | None) -> str:
    """How to make a lexicon file again."""
    lang = language or "LANG"
    return (
        f"rebuild it with: scoreboard lexicon build WORDLIST --lang {lang} -o {path}"
        + (f" (the shipped {lang} list is built from {SOURCE_FILES[lang]})" if lang in SOURCE_FILES else "")
    )


SOURCE_FILES = {
    "de": "/usr/share/dict/ngerman (Debian package wngerman)",
    "fr": "/usr/share/dict/french (Debian package wfrench)",
    "en": "/usr/share/dict/american-english-huge (Debian package wamerican-huge)",
}


def load(path: str | Path, language: str | None = None) -> TrieLexicon:
    """Load (mmap) a lexicon file; ``language`` when given must match the file's."""
    p = Path(path)
    trie = marisa_trie.Trie()
    try:
        trie.mmap(str(p))
    except RuntimeError:
        if not p.exists():
            raise LexiconFileError(f"lexicon file {p} does not exist; {rebuild_hint(p, language)}") from None
        raise LexiconFileError(
            f"lexicon file {p} is corrupt or not a lexicon; {rebuild_hint(p, language)}"
        ) from None
    try:
        lexicon = TrieLexicon(trie)
    except LexiconFormatError as e:
        raise LexiconFileError(f"lexicon file {p} is not usable ({e}); {rebuild_hint(p, language)}") from None
    if language is not None and lexicon.language != language:
        raise LexiconFileError(
            f"lexicon file {p} is for language {lexicon.language!r}, not {language!r}"
        )
    return lexicon


EXAMPLES = 3
"""Dropped entries kept per reason as examples (line number, entry)."""


@dataclass
class BuildReport:
    """What a build kept and dropped, and why, with the first :data:`EXAMPLES` entries
    dropped for each reason."""

    language: str
    read: int = 0
    kept: int = 0
    duplicates: int = 0
    dropped: Counter[Rejection] = field(default_factory=Counter)
    examples: dict[Rejection, list[tuple[int, str]]] = field(default_factory=dict)

    def drop(self, reason: Rejection, line: int, entry: str) -> None:
        """Count ``entry`` of ``line`` as dropped for ``reason``."""
        self.dropped[reason] += 1
        shown = self.examples.setdefault(reason, [])
        if len(shown) < EXAMPLES:
            shown.append((line, entry))

    @property
    def dropped_total(self) -> int:
        """Entries dropped, whatever the reason."""
        return sum(self.dropped.values())

    def lines(self) -> list[str]:
        """A human-readable summary."""
        out = [
            f"read {self.read} entries, kept {self.kept} words "
            f"({self.duplicates} duplicates after normalisation)",
        ]
        for reason, n in self.dropped.most_common():
            shown = ", ".join(f"line {line}: {_quoted(entry)}" for line, entry in self.examples[reason])
            out.append(f"dropped {n}: {reason.value} ({shown}{', ...' if n > EXAMPLES else ''})")
        return out


def _quoted(entry: str, limit: int = 40) -> str:
    """``entry`` quoted with escapes, shortened for a message."""
    return repr(entry if len(entry) <= limit else entry[: limit - 3] + "...")


def usable(report: BuildReport, source: str | Path) -> None:
    """Raise :class:`UnusableWordListError` unless the list is worth a lexicon.

    Refused: no word kept, or more entries dropped than words kept (a word written twice
    counts once; names and abbreviations that a recipe leaves out do not count): such a list
    is the wrong file, the wrong language or damaged, not a word list.
    """
    dropped = report.dropped_total - report.dropped[Rejection.NAME] - report.dropped[Rejection.ABBREVIATION]
    if report.kept and dropped <= report.kept:
        return
    if not report.read:
        why = "it has no entries (only blank lines and # comments)"
    elif not report.kept:
        why = f"none of its {report.read} entries is a playable {report.language} word"
    else:
        why = f"{dropped} of its {report.read} entries cannot be played, more than it keeps"
    lines = [f"word list {source} refused: {why}", *report.lines()]
    raise UnusableWordListError("\n".join(lines if report.read else lines[:1]), report)


WORD_LIST_MAX_BYTES = 256 << 20  # the largest lists are some 30 MiB; /dev/zero is not one


def read_word_list(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, entry) of a UTF-8 word list, one entry per line; blank lines skipped."""
    try:
        with open(path, "rb") as f:
            data = f.read(WORD_LIST_MAX_BYTES + 1)
    except OSError as e:
        raise WordListError(f"cannot read word list {path}: {e.strerror}") from None
    if len(data) > WORD_LIST_MAX_BYTES:
        raise WordListError(f"word list {path} is larger than {WORD_LIST_MAX_BYTES >> 20} MiB: not a word list")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            text = raw.decode("utf-8").strip()
        except UnicodeDecodeError as e:
            raise WordListError(
                f"{path}, line {number}: not UTF-8 (byte {raw[e.start]:#04x}); "
                "convert the list to UTF-8, e.g. iconv -f ISO-8859-1 -t UTF-8"
            ) from None
        if text and not text.startswith("#"):
            yield number, text


EntryFilter = Callable[[str], Rejection | None]
"""Says why an entry of a word list is left out (a name, an abbreviation), or ``None``."""


def build(
    source: str | Path,
    language: str,
    *,
    source_name: str | None = None,
    exclude: EntryFilter | None = None,
    extra_meta: Mapping[str, Any] | None = None,
) -> tuple[TrieLexicon, BuildReport]:
    """Build a lexicon from a one-word-per-line UTF-8 list.

    Entries are normalised per language; those with a hyphen, apostrophe, digit, space or
    a letter outside the tile set are dropped, and in English also capitalised entries
    (proper nouns). ``exclude`` may drop more (the shipped lists use it for names and
    abbreviations, see :mod:`scoreboard.lexicon_sources`); an entry it drops whose
    normalised form another entry keeps (``Essen`` beside ``essen``) stays a word.
    ``extra_meta`` is stored with the lexicon's metadata. Lines starting with ``#`` are
    comments. An empty or mostly unplayable list is an :class:`UnusableWordListError`
    (see :func:`usable`).
    """
    check_language(language)
    path = Path(source)
    report = BuildReport(language)
    words: set[str] = set()
    excluded: dict[str, tuple[Rejection, int, str]] = {}
    digest = hashlib.sha256()
    for number, entry in read_word_list(path):
        report.read += 1
        digest.update(entry.encode("utf-8") + b"\n")
        if language == "en" and not entry.islower():
            report.drop(Rejection.PROPER_NOUN, number, entry)
            continue
        word = normalize(entry, language)
        if isinstance(word, Rejection):
            report.drop(word, number, entry)
            continue
        reason = exclude(entry) if exclude is not None else None
        if reason is not None:
            excluded.setdefault(word, (reason, number, entry))
            continue
        if word in words:
            report.duplicates += 1
        words.add(word)
    for word, (reason, number, entry) in sorted(excluded.items(), key=lambda item: item[1][1]):
        if word in words:
            report.duplicates += 1
        else:
            report.drop(reason, number, entry)
    report.kept = len(words)
    usable(report, path)
    meta = {
        "language": language,
        "source": source_name or path.name,
        "source_sha256": digest.hexdigest(),
        **(extra_meta or {}),
    }
    return TrieLexicon.build(words, meta), report


def save(lexicon: TrieLexicon, out: str | Path) -> None:
    """Write ``lexicon`` to ``out`` atomically (a temporary file, then rename)."""
    target = Path(out)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=target.name + ".", dir=target.parent)
    os.close(fd)
    try:
        lexicon.trie.save(tmp)
        os.chmod(tmp, 0o644)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# --- house lists --------------------------------------------------------------------------


class HouseList:
    """Words a table accepted or rejected by a ruling, for one language, kept in a JSON file."""

    def __init__(self, path: Path, language: str) -> None:
        self.path = path
        self.language = check_language(language)
        self.accept: set[str] = set()
        self.reject: set[str] = set()
        if path.exists():
            self._read()

    @classmethod
    def in_state_dir(cls, state_dir: Path, language: str) -> HouseList:
        """The house list of ``language`` under ``state_dir``."""
        return cls(state_dir / "lexicon" / f"house-{check_language(language)}.json", language)

    def _read(self) -> None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            accept, reject = data["accept"], data["reject"]
            if not all(isinstance(w, str) for w in [*accept, *reject]):
                raise TypeError
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError):
            raise HouseListError(
                f"house list {self.path} is corrupt; move it away to start an empty one "
                "(its words can be re-entered with scoreboard lexicon house accept|reject)"
            ) from None
        self.accept, self.reject = set(accept), set(reject)

    def _normal(self, word: str) -> str:
        result = normalize(word, self.language)
        if isinstance(result, Rejection):
            raise HouseListError(f"{word!r} cannot be played: {result.value}")
        return result

    def add(self, words: Iterable[str], *, accept: bool) -> list[str]:
        """Accept (or reject) ``words``; a word moves from the other list. Returns them normalised."""
        done = [self._normal(w) for w in words]
        for w in done:
            (self.accept if accept else self.reject).add(w)
            (self.reject if accept else self.accept).discard(w)
        self.save()
        return done

    def remove(self, words: Iterable[str]) -> list[str]:
        """Take ``words`` off both lists; returns those that were on one."""
        removed = []
        for w in (self._normal(w) for w in words):
            if w in self.accept or w in self.reject:
                removed.append(w)
            self.accept.discard(w)
            self.reject.discard(w)
        self.save()
        return removed

    def save(self) -> None:
        """Write the lists atomically."""
        data = {"language": self.language, "accept": sorted(self.accept), "reject": sorted(self.reject)}
        try:
            write_json_atomic(self.path, data)
        except OSError as e:
            raise HouseListError(f"cannot write house list {self.path}: {e.strerror or e}") from None

    def over(self, base: Lexicon) -> HouseLexicon:
        """``base`` with these lists laid over it."""
        return HouseLexicon(base, self.accept, self.reject)


def configured_path(language: str, configured: str = "") -> Path:
    """The lexicon file for ``language``: the configured path, else the shipped file."""
    return Path(configured).expanduser() if configured else shipped_path(language)


def open_lexicon(
    language: str,
    *,
    path: str | Path | None = None,
    configured: str = "",
    state_dir: Path | None = None,
) -> Lexicon:
    """The lexicon used for ``language``: ``path``, else the configured, else the shipped file;
    with the house lists of ``state_dir`` laid over it when one is given."""
    base = load(Path(path) if path is not None else configured_path(language, configured), language)
    if state_dir is None:
        return base
    return HouseList.in_state_dir(state_dir, language).over(base)
