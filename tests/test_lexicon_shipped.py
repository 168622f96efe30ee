"""The shipped lexicons are exactly what `scoreboard lexicon build` makes from Debian's lists.

Needs the Debian packages wngerman, wfrench and wamerican-huge (`.ci/run` installs them);
without them these tests are skipped with the reason.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scoreboard import lexicons
from scoreboard.cli import main

SOURCES = {
    "de": (Path("/usr/share/dict/ngerman"), "wngerman"),
    "fr": (Path("/usr/share/dict/french"), "wfrench"),
    "en": (Path("/usr/share/dict/american-english-huge"), "wamerican-huge"),
}


@pytest.mark.parametrize("language", ["de", "fr", "en"])
def test_rebuild_from_the_debian_list_gives_the_shipped_words(
    language: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, package = SOURCES[language]
    if not source.exists():
        pytest.skip(f"{source} is missing: install the Debian package {package}")
    out = tmp_path / f"{language}.marisa"
    assert main(["lexicon", "build", str(source), "--lang", language, "-o", str(out)]) == 0
    rebuilt = lexicons.load(out, language)
    shipped = lexicons.load(lexicons.shipped_path(language), language)
    if rebuilt.meta["source_sha256"] != shipped.meta["source_sha256"]:
        pytest.skip(f"{source} is another version of {package} than the shipped list was built from")
    assert rebuilt.meta == shipped.meta
    assert list(rebuilt) == list(shipped)
