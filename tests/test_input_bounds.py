"""Inputs without an end or mostly not what they claim: refused with a message, never read
whole into memory (``/dev/zero`` as a word list or a config file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoreboard.config import ConfigError, load_config
from scoreboard.lexicons import UnusableWordListError, WordListError, build

ZERO = Path("/dev/zero")


@pytest.mark.skipif(not ZERO.exists(), reason="needs /dev/zero")
def test_an_endless_word_list_is_refused_not_read_whole() -> None:
    with pytest.raises(WordListError, match="larger than"):
        build(ZERO, "de")


@pytest.mark.skipif(not ZERO.exists(), reason="needs /dev/zero")
def test_an_endless_config_file_is_refused_not_read_whole() -> None:
    with pytest.raises(ConfigError, match="larger than"):
        load_config(ZERO)


def test_a_word_written_many_times_does_not_outweigh_the_garbage(tmp_path: Path) -> None:
    listing = tmp_path / "words.txt"
    listing.write_text("haus\n" * 1000 + "".join(f"x{n}y\n" for n in range(999)), encoding="utf-8")
    with pytest.raises(UnusableWordListError, match="999 of its 1999 entries"):
        build(listing, "de")
