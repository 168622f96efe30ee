"""Bitmap fonts read from PC Screen Font files (PSF1/PSF2 with a Unicode table).

The shipped fonts are Spleen's console fonts, unmodified (``fonts/README.md``). Drawing
pastes each glyph's bitmap, so the pixels do not depend on Pillow's or FreeType's version:
golden images stay the same everywhere. Characters the font lacks are drawn as ``?``;
``…`` is drawn as three dots on the baseline when the font has no glyph for it.
"""

from __future__ import annotations

import functools
import gzip
import struct
from dataclasses import dataclass
from importlib import resources

from PIL import Image

__all__ = ["ELLIPSIS", "BitmapFont", "font"]

ELLIPSIS = "\u2026"

_PSF1_MAGIC = b"\x36\x04"
_PSF2_MAGIC = b"\x72\xb5\x4a\x86"


@dataclass(frozen=True)
class BitmapFont:
    """A monospaced bitmap font: every glyph is ``width`` x ``height`` pixels."""

    name: str
    width: int
    height: int
    glyphs: tuple[bytes, ...]  # rows of each glyph, ceil(width / 8) bytes per row
    index: dict[str, int]  # character -> glyph number

    @classmethod
    def from_psf(cls, data: bytes, name: str = "psf") -> BitmapFont:
        """Parse a PSF1 or PSF2 font (gzip-compressed or not)."""
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        if data[:4] == _PSF2_MAGIC:
            _, _, header, flags, count, size, height, width = struct.unpack("<8I", data[:32])
            glyphs = tuple(data[header + i * size : header + (i + 1) * size] for i in range(count))
            index: dict[str, int] = {}
            if flags & 1:
                table = data[header + count * size :]
                for number, entry in enumerate(table.split(b"\xff")[:count]):
                    for ch in entry.split(b"\xfe")[0].decode("utf-8"):  # sequences not used
                        index.setdefault(ch, number)
            else:
                index = {chr(i): i for i in range(count)}
        elif data[:2] == _PSF1_MAGIC:
            mode, height = data[2], data[3]
            width, count = 8, 512 if mode & 1 else 256
            glyphs = tuple(data[4 + i * height : 4 + (i + 1) * height] for i in range(count))
            index = {}
            if mode & 2:
                table = data[4 + count * height :]
                number, in_sequence = 0, False
                for (value,) in struct.iter_unpack("<H", table[: len(table) // 2 * 2]):
                    if value == 0xFFFF:
                        number, in_sequence = number + 1, False
                    elif value == 0xFFFE:
                        in_sequence = True
                    elif not in_sequence:
                        index.setdefault(chr(value), number)
            else:
                index = {chr(i): i for i in range(count)}
        else:
            raise ValueError(f"{name!r} is not a PSF font")
        return cls(name, width, height, glyphs, index)

    def __repr__(self) -> str:
        return f"<BitmapFont {self.name} {self.width}x{self.height}>"

    def text_width(self, text: str) -> int:
        """Width in pixels of ``text`` on one line."""
        return len(text) * self.width

    def fit(self, text: str, width: int) -> str:
        """``text``, cut and ended with ``…`` if it is wider than ``width`` pixels."""
        room = max(0, width // self.width)
        if len(text) <= room:
            return text
        return text[: room - 1] + ELLIPSIS if room else ""

    def draw(self, image: Image.Image, xy: tuple[int, int], text: str, fill: int = 1) -> None:
        """Draw ``text`` with its top-left corner at ``xy``; pixels off the image are dropped."""
        x, y = xy
        for ch in text:
            self._draw_glyph(image, x, y, ch, fill)
            x += self.width

    def _dot_row(self) -> int:
        """The lowest pixel row of the ``.`` glyph (the baseline of a dot)."""
        stride = (self.width + 7) // 8
        rows = self.glyphs[self.index.get(".", 0)]
        marked = [dy for dy in range(self.height) if any(rows[dy * stride : (dy + 1) * stride])]
        return marked[-1] if marked else self.height - 2

    def _draw_glyph(self, image: Image.Image, x: int, y: int, ch: str, fill: int) -> None:
        number = self.index.get(ch)
        if number is None and ch == ELLIPSIS:
            base = y + self._dot_row()
            for i in range(3):
                _put(image, x + (self.width - 5) // 2 + 2 * i, base, fill)
            return
        if number is None:
            number = self.index.get("?", 0)
        # one paste through the glyph as a mask (PIL clips what falls off the image)
        image.paste(255 if fill else 0, (x, y, x + self.width, y + self.height), self._mask(number))

    def _mask(self, number: int) -> Image.Image:
        """Glyph ``number`` as a 1-bit image: PSF rows are PIL's packed "1" rows."""
        masks: dict[int, Image.Image] = self.__dict__.setdefault("_masks", {})
        mask = masks.get(number)
        if mask is None:
            mask = Image.frombytes("1", (self.width, self.height), bytes(self.glyphs[number]))
            masks[number] = mask
        return mask


def _put(image: Image.Image, x: int, y: int, fill: int) -> None:
    if 0 <= x < image.width and 0 <= y < image.height:
        image.putpixel((x, y), 255 if fill else 0)  # mode "1" stores 0 or 255


@functools.cache
def font(size: str) -> BitmapFont:
    """A shipped Spleen font by size: ``"6x12"`` or ``"8x16"``."""
    name = f"spleen-{size}.psfu.gz"
    data = resources.files(__package__).joinpath("fonts", name).read_bytes()
    return BitmapFont.from_psf(data, name)
