"""The ``capture`` display: a PNG per frame (as luma.emulator's capture), written atomically.

A frame goes to a temporary file (``NAME.png.part``, which no ``*.png`` glob takes) and is
renamed into place, so a killed process leaves whole frames and at most one stray
``.part`` file, never a 0-byte or truncated PNG. Numbering goes on after the highest frame
already in the folder: a restarted run adds its frames after those of the run before.
It is a luma.core device of its own, not luma.emulator's ``capture``: that one imports
pygame (and pygame pkg_resources), over a second of a simulated service's start. The PNG is
written here (:func:`png_bytes`: 8-bit RGB, each row unfiltered, zlib): Pillow's ``save``
loads its five image plugins first, a sixth of the instructions to a simulated service's
first frame, which a Pi with its panel never spends.
"""

from __future__ import annotations

import os
import re
import struct
import zlib
from pathlib import Path
from typing import Any

from luma.core.device import device
from luma.core.interface.serial import noop
from PIL import Image

__all__ = ["AtomicCapture", "last_frame_number", "png_bytes"]


def last_frame_number(folder: Path, prefix: str) -> int:
    """The highest N of the ``PREFIXN.png`` frames in ``folder`` (0 when there are none)."""
    pattern = re.compile(re.escape(prefix) + r"([0-9]+)\.png")
    highest = 0
    try:
        entries = os.scandir(folder)
    except FileNotFoundError:
        return 0
    with entries:
        for entry in entries:
            match = pattern.fullmatch(entry.name)
            if match:
                highest = max(highest, int(match.group(1)))
    return highest


_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_bytes(image: Image.Image) -> bytes:
    """``image`` (mode ``RGB``) as a PNG file: 8-bit RGB, not interlaced, each row unfiltered."""
    if image.mode != "RGB":
        raise ValueError(f"a PNG frame is written from an RGB image, not {image.mode!r}")
    width, height = image.size
    raw = image.tobytes()
    stride = 3 * width
    rows = b"".join(b"\x00" + raw[y * stride : (y + 1) * stride] for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # depth 8, colour type 2 (RGB)
    return _PNG_SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(rows, 6)) + _chunk(b"IEND", b"")


class AtomicCapture(device):  # type: ignore[misc]  # luma has no type hints
    """A display writing ``PREFIX{N:06}.png`` in ``folder`` by temp file and rename.

    The frame is written RGB (:func:`png_bytes`), dimmed towards black below full contrast, as
    luma.emulator shows it; contrast, show and hide behave as the emulator's (a new
    contrast writes the last frame again).
    """

    def __init__(self, folder: Path, prefix: str, width: int, height: int, rotate: int = 0, mode: str = "1") -> None:
        super().__init__(serial_interface=noop())
        self.capabilities(width, height, rotate, mode)
        self._folder = folder
        self._prefix = prefix
        self._contrast = 1.0
        self._last_image: Any = None
        self._file_template = str(folder / f"{prefix}{{0:06}}.png")
        self._count = last_frame_number(folder, prefix)

    def show(self) -> None:
        self.contrast(0xFF)

    def hide(self) -> None:
        self.contrast(0x00)

    def contrast(self, value: int) -> None:
        assert 0 <= value <= 255
        self._contrast = value / 255.0
        if self._last_image is not None:
            self.display(self._last_image)

    def cleanup(self) -> None:
        pass

    def display(self, image: Any) -> None:
        """Write ``image`` (a PIL image of the device's size) as the next numbered frame."""
        assert image.size == self.size
        self._last_image = image
        self._count += 1
        final = self._file_template.format(self._count)
        frame = self.preprocess(image).convert("RGB")
        if self._contrast < 1.0:
            frame = Image.blend(Image.new("RGB", frame.size, "black"), frame, self._contrast)
        part = final + ".part"
        try:
            with open(part, "wb") as f:
                f.write(png_bytes(frame))
            os.replace(part, final)
        except BaseException:
            Path(part).unlink(missing_ok=True)
            raise
