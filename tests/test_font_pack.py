"""The shipped font pack holds exactly the faces made from the font files, and a bad pack says so."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path

import pytest

from scoreboard.drawing import font as fonts
from scoreboard.drawing.font import (
    FACES,
    PACK_PATH,
    BitmapFont,
    FontPackError,
    build,
    font,
    pack,
    unpack,
)
from scoreboard.drawing.make_fonts import main, packed


def test_the_shipped_pack_is_what_the_font_files_make() -> None:
    with gzip.open(PACK_PATH, "rb") as f:
        assert f.read() == packed()  # else: python -m scoreboard.drawing.make_fonts
    assert main(["--check"]) == 0


@pytest.mark.parametrize("size", FACES)
def test_each_face_read_from_the_pack_equals_the_one_made(size: str) -> None:
    made, shipped = build(size), font(size)
    assert shipped == made and shipped.name == made.name and list(shipped.index) == list(made.index)


def test_pack_and_unpack_round_trip_a_face() -> None:
    face = BitmapFont("tiny", 3, 2, (b"\xa0\x40", b"\x00\xe0"), {"x": 0, "_": 1, "é": 1})
    assert unpack(pack({"t": face})) == {"t": face}


def test_an_unknown_face_is_refused() -> None:
    with pytest.raises(ValueError, match="no font '7x7'"):
        font("7x7")


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        (lambda d: b"NOTFONTS" + d[8:], "not a font pack"),
        (lambda d: d[:-5], "cut short"),
        (lambda d: d[:40], "cut short"),
        (lambda d: d + b"\x00", "1 bytes past the last face"),
    ],
)
def test_a_damaged_pack_is_a_typed_error_naming_the_file(damage: Callable[[bytes], bytes], why: str) -> None:
    data = pack({"6x12": font("6x12")})
    with pytest.raises(FontPackError, match=why) as caught:
        unpack(damage(data), "faces.bin.gz")
    assert caught.value.path == "faces.bin.gz" and isinstance(caught.value, ValueError)


def test_a_missing_or_non_gzip_pack_is_a_typed_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for content, why in ((None, "cannot be read"), (b"plain bytes", "not gzip data")):
        path = tmp_path / "faces.bin.gz"
        if content is not None:
            path.write_bytes(content)
        monkeypatch.setattr(fonts, "PACK_PATH", str(path))
        fonts._shipped.cache_clear()
        try:
            with pytest.raises(FontPackError, match=why):
                font("6x12")
        finally:
            fonts._shipped.cache_clear()
