"""Bitmap fonts read from PC Screen Font files (PSF1/PSF2 with a Unicode table).

The shipped fonts are Spleen's console fonts (``fonts/README.md``). Drawing pastes each
glyph's bitmap, so the pixels do not depend on Pillow's or FreeType's version: golden
images stay the same everywhere. :func:`font` gives the faces the screens use: each cut to
the rows and columns its glyphs ink (so lines can sit closer), the 6x12 face with the few
glyphs Spleen lacks (``Œ œ Ÿ``, from ``fonts/extra-6x12.txt``) and its descenders one row
shorter, and faces scaled up for text read from across the table. A character a face lacks
is drawn as its base letter (``Ł`` as ``L``), else as ``?``; ``…`` is drawn as three dots on
the baseline when the face has no glyph for it.

Making the faces from the PSF files (:func:`build`) takes about half a billion machine
instructions, a second on a Pi Zero 2 W; so the faces are shipped made, packed in
``fonts/faces.bin.gz`` (:func:`pack`, :func:`unpack`), and :func:`font` reads that file once
(a test checks that it holds what :func:`build` makes from the sources; ``python -m
scoreboard.drawing.make_fonts`` writes it again after a change to them or to this module).
"""

from __future__ import annotations

import functools
import os
import struct
import unicodedata
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from PIL import Image

from engine.errors import ScoreboardError

__all__ = [
    "ELLIPSIS",
    "FACES",
    "HEADLINE_CHARS",
    "NAME_LETTERS",
    "PACK_PATH",
    "SUPPORTED",
    "TILE_LETTERS",
    "BitmapFont",
    "FontPackError",
    "build",
    "font",
    "pack",
    "unpack",
]

ELLIPSIS = "\u2026"

_PSF1_MAGIC = b"\x36\x04"
_PSF2_MAGIC = b"\x72\xb5\x4a\x86"

NAME_LETTERS = "".join(
    ch for ch in map(chr, range(0x20, 0x100)) if ch.isalpha() and ch not in "ªºµ"
) + "ŒœŸ"
"""Letters of player names every face draws: A-Z, a-z, the Latin-1 letters (German and
French accents, ß) and French Œ, œ, Ÿ."""

TILE_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜ?"
"""Every letter of the German, French and English tile sets, ``?`` the blank."""

SUPPORTED = (
    "".join(chr(c) for c in range(0x20, 0x7F)) + "".join(chr(c) for c in range(0xA1, 0x100) if c != 0xAD) + "ŒœŸ"
)
"""What the body and big faces draw as themselves (printable ASCII and Latin-1, Œ œ Ÿ)."""

HEADLINE_CHARS = NAME_LETTERS + "0123456789 +-.'!?:" + ELLIPSIS
"""What the headline faces (names and scores) draw; their cells are cut to these glyphs' ink."""


@dataclass(frozen=True)
class BitmapFont:
    """A monospaced bitmap font: every glyph is ``width`` x ``height`` pixels."""

    name: str
    width: int
    height: int
    glyphs: tuple[bytes, ...]  # rows of each glyph, ceil(width / 8) bytes per row
    index: dict[str, int]  # character -> glyph number
    _masks: dict[int, Image.Image] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_psf(cls, data: bytes, name: str = "psf") -> BitmapFont:
        """Parse a PSF1 or PSF2 font (gzip-compressed or not)."""
        if data[:2] == b"\x1f\x8b":
            data = zlib.decompress(data, wbits=31)  # (gzip's format)
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

    # --- glyphs as rows of bits (bit ``width - 1 - x`` is column x) ---

    def rows(self, number: int) -> list[int]:
        """Glyph ``number`` as ``height`` ints, column 0 the highest bit of ``width``."""
        stride = (self.width + 7) // 8
        data = self.glyphs[number]
        pad = stride * 8 - self.width
        return [int.from_bytes(data[y * stride : (y + 1) * stride], "big") >> pad for y in range(self.height)]

    def _pack(self, rows: Sequence[int], width: int) -> bytes:
        stride = (width + 7) // 8
        pad = stride * 8 - width
        return b"".join((r << pad).to_bytes(stride, "big") for r in rows)

    def _remade(self, name: str, width: int, height: int, rows: Sequence[Sequence[int]], index: dict[str, int]) -> BitmapFont:
        return BitmapFont(name, width, height, tuple(self._pack(r, width) for r in rows), index)

    def ink(self, chars: Iterable[str]) -> tuple[int, int, int, int]:
        """The rows and columns (top, bottom, left, right; inclusive) the glyphs of ``chars`` ink."""
        top, bottom, left, right = self.height, -1, self.width, -1
        for ch in chars:
            number = self.index.get(ch)
            if number is None:
                continue
            for y, row in enumerate(self.rows(number)):
                if row:
                    top, bottom = min(top, y), max(bottom, y)
                    left = min(left, self.width - row.bit_length())
                    right = max(right, self.width - 1 - ((row & -row).bit_length() - 1))
        return top, bottom, left, right

    def with_glyphs(self, art: Mapping[str, Sequence[str]], name: str | None = None) -> BitmapFont:
        """This font with the glyphs of ``art`` (``#`` ink, ``.`` none; a row per line) added or replaced."""
        all_rows = [self.rows(i) for i in range(len(self.glyphs))]
        index = dict(self.index)
        for ch, lines in art.items():
            if len(lines) != self.height or any(len(line) != self.width for line in lines):
                raise ValueError(f"glyph {ch!r} is not {self.width}x{self.height}")
            rows = [int(line.replace("#", "1").replace(".", "0"), 2) for line in lines]
            index[ch] = len(all_rows)
            all_rows.append(rows)
        return self._remade(name or self.name, self.width, self.height, all_rows, index)

    def cropped(self, top: int, bottom: int, left: int, right: int, spacing: int = 0, name: str | None = None) -> BitmapFont:
        """Only rows ``top``..``bottom`` and columns ``left``..``right``, then ``spacing`` blank columns."""
        width = right - left + 1 + spacing
        shift = self.width - 1 - right
        mask = (1 << (right - left + 1)) - 1
        rows = [[(r >> shift & mask) << spacing for r in self.rows(i)[top : bottom + 1]] for i in range(len(self.glyphs))]
        return self._remade(name or self.name, width, bottom - top + 1, rows, self.index)

    def scaled(self, factor: int, name: str | None = None) -> BitmapFont:
        """Every pixel a ``factor`` x ``factor`` block."""
        def widen(row: int) -> int:
            out = 0
            for x in range(self.width):
                bit = row >> (self.width - 1 - x) & 1
                out = out << factor | (((1 << factor) - 1) if bit else 0)
            return out

        rows = [[w for r in self.rows(i) for w in [widen(r)] * factor] for i in range(len(self.glyphs))]
        return self._remade(name or f"{self.name}x{factor}", self.width * factor, self.height * factor, rows, self.index)

    # --- text ---

    def has(self, ch: str) -> bool:
        """True when ``ch`` has a glyph with ink (or is a space)."""
        number = self.index.get(ch)
        return number is not None and (ch.isspace() or any(self.rows(number)))

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
        rows = self.rows(self.index.get(".", 0))
        marked = [dy for dy, row in enumerate(rows) if row]
        return marked[-1] if marked else self.height - 2

    def _number(self, ch: str) -> int | None:
        number = self.index.get(ch)
        if number is None and ch != ELLIPSIS:
            base = unicodedata.normalize("NFD", ch)[:1]
            number = self.index.get(base, self.index.get("?", 0)) if base != ch else self.index.get("?", 0)
        return number

    def _draw_glyph(self, image: Image.Image, x: int, y: int, ch: str, fill: int) -> None:
        number = self._number(ch)
        if number is None:  # the ellipsis, in a face without one
            base = y + self._dot_row()
            dot = max(1, self.width // 6)
            for i in range(3):
                left = x + (self.width - 5 * dot) // 2 + 2 * dot * i
                image.paste(255 if fill else 0, (left, base - dot + 1, left + dot, base + 1))
            return
        # one paste through the glyph as a mask (PIL clips what falls off the image)
        image.paste(255 if fill else 0, (x, y, x + self.width, y + self.height), self._mask(number))

    def _mask(self, number: int) -> Image.Image:
        """Glyph ``number`` as a 1-bit image: the packed rows are PIL's "1" rows."""
        mask = self._masks.get(number)
        if mask is None:
            mask = Image.frombytes("1", (self.width, self.height), bytes(self.glyphs[number]))
            self._masks[number] = mask
        return mask


FONTS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fonts")
"""The folder of the font files (package data)."""


def _read(size: str) -> BitmapFont:
    name = f"spleen-{size}.psfu.gz"
    with open(os.path.join(FONTS_DIR, name), "rb") as f:
        return BitmapFont.from_psf(f.read(), name)


def _extra_glyphs(size: str) -> dict[str, list[str]]:
    """The glyphs of ``fonts/extra-SIZE.txt``: ``char X``, then its rows (``;`` starts a comment)."""
    with open(os.path.join(FONTS_DIR, f"extra-{size}.txt"), encoding="utf-8") as f:
        text = f.read()
    glyphs: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if not line or line.startswith(";"):
            continue
        if line.startswith("char "):
            current = glyphs.setdefault(line[5:].strip(), [])
        elif current is not None:
            current.append(line.strip())
    return glyphs


def _shorter_descenders(f: BitmapFont) -> BitmapFont:
    """The 6x12 face with its lowest row free: a glyph inking it (p, q, y, ç...) loses one
    row of its descender (the lowest row that repeats the one above it, else row 9)."""
    art: dict[str, list[str]] = {}
    for ch in SUPPORTED:
        number = f.index.get(ch)
        if number is None:
            continue
        rows = f.rows(number)
        if not rows[-1]:
            continue
        drop = next((r for r in range(len(rows) - 1, 0, -1) if rows[r] and rows[r] == rows[r - 1]), 9)
        kept = rows[:drop] + rows[drop + 1 :] + [0]
        art[ch] = [format(r, f"0{f.width}b").replace("1", "#").replace("0", ".") for r in kept]
    return f.with_glyphs(art)


@functools.cache
def build(size: str) -> BitmapFont:
    """A face made from the font files, by name: ``"6x12"`` (body, cells 6x11), ``"8x16"`` (big, 8x15), ``"16x32"``
    (headline, 15x32) or ``"6x12x2"``/``"6x12x3"`` (the body face scaled)."""
    if size == "6x12":
        body = _shorter_descenders(_read("6x12").with_glyphs(_extra_glyphs("6x12")))
        top, bottom, _, _ = body.ink(SUPPORTED)
        return body.cropped(top, bottom, 0, body.width - 1, name="spleen-6x12")
    if size.startswith("6x12x"):
        return build("6x12").scaled(int(size[5:]), name=f"spleen-{size}")
    if size == "8x16":
        big = _read(size)
        top, bottom, _, _ = big.ink(SUPPORTED)
        return big.cropped(top, bottom, 0, big.width - 1, name="spleen-8x16")
    if size == "16x32":
        head = _read(size)  # Ð alone inks column 0 (its bar's stub): cut, as the cell would grow for it
        top, bottom, left, right = head.ink(ch for ch in HEADLINE_CHARS if ch != "Ð")
        return head.cropped(top, bottom, left, right, spacing=1, name="spleen-16x32")
    raise ValueError(f"no font {size!r}")


FACES = ("6x12", "8x16", "16x32", "6x12x2", "6x12x3")
"""Every face :func:`font` gives."""

PACK_PATH = os.path.join(FONTS_DIR, "faces.bin.gz")
"""The faces made (:func:`build`), packed (:func:`pack`) and gzipped: package data."""

_MAGIC = b"SBFACES1"
_FACE = struct.Struct("<HHHHHI")  # width, height, glyphs, bytes a glyph, index entries, index's UTF-8 bytes


class FontPackError(ScoreboardError, ValueError):
    """A font pack (``faces.bin.gz``) that cannot be read: ``path`` it, ``why`` what is wrong."""

    def __init__(self, path: str, why: str) -> None:
        self.path, self.why = path, why
        super().__init__(f"{path}: {why}; reinstall the package (python -m scoreboard.drawing.make_fonts makes it)")


def pack(faces: Mapping[str, BitmapFont]) -> bytes:
    """``faces`` (name -> face) as bytes for :func:`unpack`: per face its name, sizes, the
    characters of its index (UTF-8) with their glyph numbers, and its glyphs' rows."""
    out = [_MAGIC, struct.pack("<H", len(faces))]
    for key, face in faces.items():
        stride = (face.width + 7) // 8 * face.height
        if any(len(g) != stride for g in face.glyphs):
            raise ValueError(f"face {key!r}: a glyph is not {stride} bytes")
        chars = "".join(face.index)
        encoded = chars.encode("utf-8")
        for text in (key, face.name):
            name = text.encode("utf-8")
            out += [struct.pack("<B", len(name)), name]
        out += [
            _FACE.pack(face.width, face.height, len(face.glyphs), stride, len(chars), len(encoded)),
            encoded,
            struct.pack(f"<{len(chars)}H", *face.index.values()),
            b"".join(face.glyphs),
        ]
    return b"".join(out)


def unpack(data: bytes, path: str = "font pack") -> dict[str, BitmapFont]:
    """The faces packed by :func:`pack`; :class:`FontPackError` when ``data`` is not such a pack."""
    if not data.startswith(_MAGIC):
        raise FontPackError(path, "not a font pack")
    faces: dict[str, BitmapFont] = {}
    try:
        (count,) = struct.unpack_from("<H", data, len(_MAGIC))
        at = len(_MAGIC) + 2
        for _ in range(count):
            names = []
            for _ in range(2):
                size = data[at]
                names.append(data[at + 1 : at + 1 + size].decode("utf-8"))
                at += 1 + size
            width, height, glyphs, stride, entries, encoded = _FACE.unpack_from(data, at)
            at += _FACE.size
            chars = data[at : at + encoded].decode("utf-8")
            at += encoded
            numbers = struct.unpack_from(f"<{entries}H", data, at)
            at += 2 * entries
            blob = data[at : at + glyphs * stride]
            at += glyphs * stride
            if len(chars) != entries or len(blob) != glyphs * stride or max(numbers, default=0) >= max(glyphs, 1):
                raise FontPackError(path, f"face {names[0]!r} is cut short or inconsistent")
            cut = tuple(blob[i * stride : (i + 1) * stride] for i in range(glyphs))
            faces[names[0]] = BitmapFont(names[1], width, height, cut, dict(zip(chars, numbers)))
    except (struct.error, IndexError, UnicodeDecodeError) as e:
        raise FontPackError(path, f"cut short or damaged ({e})") from None
    if at != len(data):
        raise FontPackError(path, f"{len(data) - at} bytes past the last face")
    return faces


@functools.cache
def _shipped() -> dict[str, BitmapFont]:
    try:
        with open(PACK_PATH, "rb") as f:
            data = f.read()
        data = zlib.decompress(data, wbits=31)  # (gzip's format; zlib's module is the lighter import)
    except OSError as e:
        raise FontPackError(PACK_PATH, f"cannot be read: {e.strerror or e}") from None
    except zlib.error as e:
        raise FontPackError(PACK_PATH, f"not gzip data ({e})") from None
    return unpack(data, PACK_PATH)


def font(size: str) -> BitmapFont:
    """A face by name: ``"6x12"`` (body, cells 6x11), ``"8x16"`` (big, 8x15), ``"16x32"``
    (headline, 15x32) or ``"6x12x2"``/``"6x12x3"`` (the body face scaled); made as
    :func:`build` makes it, read from the shipped pack."""
    try:
        return _shipped()[size]
    except KeyError:
        raise ValueError(f"no font {size!r}") from None
