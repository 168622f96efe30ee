"""Seeded fuzzing of ``scoreboard lexicon build``: a usable list is built, any other refused.

Each generated list mixes playable words and unplayable entries (digits, hyphens,
apostrophes, spaces, signs, letters outside the alphabet) in random proportions, with blank
lines, comments, a BOM or CRLF; others are random bytes, Latin-1, UTF-16 or empty. The
oracle: exit 0 exactly when at least one word is kept and no more entries are dropped than
words kept (a word written twice counts once), and then the lexicon holds exactly the playable words; otherwise exit 2, the message
names the first dropped line, and the output file (absent or an older lexicon) is left as it
was with no temporary file beside it.
"""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass
from pathlib import Path

import faultlog
import pytest

from scoreboard import lexicons
from scoreboard.cli import main
from scoreboard.lexicon_cli import cmd_lexicon_build

GOOD = {  # entry -> the word it becomes
    "de": {"haus": "HAUS", "Straße": "STRASSE", "Äpfel": "ÄPFEL", "Café": "CAFE", "ja": "JA", "Öl": "ÖL"},
    "fr": {"élève": "ELEVE", "garçon": "GARCON", "cœur": "COEUR", "mot": "MOT", "Noël": "NOEL"},
    "en": {"cat": "CAT", "qi": "QI", "zax": "ZAX", "naive": "NAIVE", "dog": "DOG"},
}
BAD = ["4x4", "x-ray", "l'eau", "ice cream", "a.b", "λόγος", "Øre", "ab_c", "\x00abc", "tab\tbed", "😀", "C3PO"]
BAD_EN = ["Paris", "café", "naïve"]  # capitalised, or letters outside A-Z


@dataclass
class WordList:
    data: bytes
    expect_ok: bool
    words: set[str]  # what the lexicon holds when built
    first_bad: int | None  # line number of the first dropped entry


def _mixed(rng: random.Random, language: str) -> WordList:
    good, bad = rng.randrange(0, 30), rng.randrange(0, 30)
    pool = list(GOOD[language].items())
    entries = [rng.choice(pool) for _ in range(good)] + [(rng.choice(BAD + (BAD_EN if language == "en" else [])), None) for _ in range(bad)]
    rng.shuffle(entries)
    lines, first_bad = [], None
    for entry, word in entries:
        while rng.random() < 0.2:
            lines.append(rng.choice(["", "   ", "# a comment", "#"]))
        lines.append(entry)
        if word is None and first_bad is None:
            first_bad = len(lines)
    eol = "\r\n" if rng.random() < 0.2 else "\n"
    data = eol.join(lines).encode("utf-8")
    if rng.random() < 0.2:
        data = b"\xef\xbb\xbf" + data
    words = {w for _, w in entries if w is not None}
    return WordList(data, bool(words) and bad <= len(words), words, first_bad)  # (a word written twice counts once)


def _broken(rng: random.Random, language: str) -> WordList:
    kind = rng.randrange(4)
    words = list(GOOD[language]) + ["straße", "élève"]
    if kind == 0:  # random bytes, sometimes with line breaks
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(50, 400)))
    elif kind == 1:  # Latin-1, one non-ASCII word at least
        data = "\n".join(rng.sample(words, 3) + ["straße"]).encode("latin-1", "replace")
    elif kind == 2:
        data = "\n".join(rng.sample(words, 4)).encode(rng.choice(["utf-16", "utf-16-le", "utf-32"]))
    else:  # nothing to build from
        data = rng.choice([b"", b"\n\n  \n", b"# only\n# comments\n", b"\xef\xbb\xbf"])
    return WordList(data, False, set(), None)


def _check(tmp_path: Path, n: int, rng: random.Random, capsys: pytest.CaptureFixture[str]) -> bool:
    language = rng.choice(sorted(GOOD))
    wl = _mixed(rng, language) if rng.random() < 0.7 else _broken(rng, language)
    folder = tmp_path / f"case{n}"
    folder.mkdir()
    source, out = folder / "list.txt", folder / "out" / "lexicon.marisa"
    source.write_bytes(wl.data)
    before = None
    if rng.random() < 0.5:  # an older lexicon that a refusal must leave alone
        out.parent.mkdir()
        out.write_bytes(b"older lexicon")
        before = out.read_bytes()
    if n % 10:  # the subcommand itself (building the argument parser costs more than a build)
        code = cmd_lexicon_build(argparse.Namespace(wordlist=str(source), shipped=False, lang=language, output=str(out)))
    else:
        code = main(["lexicon", "build", str(source), "--lang", language, "-o", str(out)])
    err = capsys.readouterr().err
    if wl.expect_ok:
        assert code == 0, (wl, err)
        assert set(lexicons.load(out, language)) == wl.words
    else:
        assert code == 2, wl
        assert f"nothing written to {out}" in err
        if wl.first_bad is not None and wl.words:
            assert f"line {wl.first_bad}: " in err  # an example of what was dropped
        assert (out.read_bytes() if out.exists() else None) == before
    listing = sorted(p.name for p in out.parent.iterdir()) if out.parent.exists() else []
    assert listing == ([out.name] if out.exists() else [])  # no temporary file left
    return code == 0


def _fuzz(tmp_path: Path, seed: int, count: int, capsys: pytest.CaptureFixture[str]) -> tuple[int, int]:
    rng = random.Random(seed)
    built = sum(_check(tmp_path, n, rng, capsys) for n in range(count))
    return built, count - built


def test_fuzzed_word_lists_are_built_or_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    built, refused = _fuzz(tmp_path, 7, 300, capsys)
    faultlog.injected("fuzzed word list", 300)
    assert built > 30 and refused > 60  # both ways are exercised (few distinct words in the pool: more refused)


@pytest.mark.soak
def test_fuzzed_word_lists_soak(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for seed in range(10):
        (tmp_path / str(seed)).mkdir()
        _fuzz(tmp_path / str(seed), seed, 500, capsys)
    faultlog.injected("fuzzed word list (soak)", 5000)


def _write(path: Path, *lines: str) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_an_empty_list_is_refused(tmp_path: Path) -> None:
    with pytest.raises(lexicons.UnusableWordListError, match="refused: it has no entries") as info:
        lexicons.build(_write(tmp_path / "empty.txt", "# nothing", ""), "de")
    assert info.value.report.read == 0


def test_a_mostly_garbage_list_is_refused_with_counts_and_examples(tmp_path: Path) -> None:
    source = _write(tmp_path / "l.txt", "haus", "4x4", "a-b", "1", "2", "c-d", "e-f", "g-h", "baum")
    with pytest.raises(lexicons.UnusableWordListError) as info:
        lexicons.build(source, "de")
    report = info.value.report
    assert (report.read, report.kept, report.dropped_total) == (9, 2, 7)
    assert report.examples[lexicons.Rejection.HYPHEN] == [(3, "a-b"), (6, "c-d"), (7, "e-f")]
    assert str(info.value).splitlines() == [
        f"word list {source} refused: 7 of its 9 entries cannot be played, more than it keeps",
        "read 9 entries, kept 2 words (0 duplicates after normalisation)",
        "dropped 4: hyphen (line 3: 'a-b', line 6: 'c-d', line 7: 'e-f', ...)",
        "dropped 3: digit (line 2: '4x4', line 4: '1', line 5: '2')",
    ]


def test_as_many_dropped_as_kept_is_still_built(tmp_path: Path) -> None:
    lexicon, report = lexicons.build(_write(tmp_path / "l.txt", "haus", "haus", "baum", "4x4", "a-b"), "de")
    assert list(lexicon) == ["BAUM", "HAUS"] and report.duplicates == 1 and report.dropped_total == 2


def test_a_list_of_another_language_is_refused(tmp_path: Path) -> None:
    source = _write(tmp_path / "de.txt", "Haus", "Straße", "Äpfel", "Baum")  # German nouns, built as English
    with pytest.raises(lexicons.UnusableWordListError, match="none of its 4 entries is a playable en word"):
        lexicons.build(source, "en")
