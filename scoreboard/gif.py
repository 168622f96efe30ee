"""Animated GIFs of captured frames, written as a stream: memory does not grow with the frames.

:class:`GifWriter` writes a looping greyscale GIF frame by frame: it holds the frame before
(to find what changed) and the one waiting for its duration (an unchanged frame lengthens
it), and writes each changed rectangle as soon as the next frame differs. Pillow encodes each
rectangle (:func:`PIL.GifImagePlugin.getdata`); the header is written here.

:func:`write_gif` makes ``screens.gif`` of a simulated run from its PNG frames: numbered
frames (``screen-1-000123.png``) are taken in order without keeping their names, a frame
that cannot be read (0-byte, truncated) is skipped and logged, and the GIF is written to a
temporary file and renamed.
"""

from __future__ import annotations

import logging
import os
import re
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from PIL import GifImagePlugin, Image, ImageChops

__all__ = ["GifWriter", "frame_files", "write_gif"]

log = logging.getLogger(__name__)

GREYS = bytes(level for grey in range(256) for level in (grey, grey, grey))
"""The global colour table: index N is grey N, so an ``L`` image's bytes are its indices."""
MAX_DELAY_MS = 0xFFFF * 10  # a frame's delay is 16 bits of centiseconds
GIF_SCALE = 2  # the panel's pixels, doubled
_NUMBERED = re.compile(r"(.*?)([0-9]+)\.png")


class GifWriter:
    """A looping GIF of ``size`` written to ``fp`` frame by frame, each shown ``frame_ms``.

    Frames of any mode and size are made greyscale and scaled to ``size``; :meth:`close`
    writes the last one and the trailer.
    """

    def __init__(self, fp: BinaryIO, size: tuple[int, int], frame_ms: int) -> None:
        self.fp = fp
        self.size = size
        self.frame_ms = frame_ms
        self.written = 0  # frames in the file so far (equal neighbours count once)
        self._before: Image.Image | None = None
        self._pending: tuple[Image.Image, tuple[int, int], int] | None = None  # rectangle, offset, ms
        width, height = size
        fp.write(b"GIF89a" + struct.pack("<HHBBB", width, height, 0xF7, 0, 0) + GREYS)  # 256 colours
        fp.write(b"!\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00")  # loop for ever

    def add(self, frame: Image.Image) -> None:
        """The next frame."""
        image = frame.convert("L")
        if image.size != self.size:
            image = image.resize(self.size, Image.Resampling.NEAREST)
        if self._before is None:
            changed: tuple[int, int, int, int] = (0, 0, *self.size)
        else:
            box = ImageChops.difference(self._before, image).getbbox()
            assert self._pending is not None
            rectangle, offset, ms = self._pending
            if box is None and ms + self.frame_ms <= MAX_DELAY_MS:
                self._pending = (rectangle, offset, ms + self.frame_ms)  # unchanged: shown longer
                return
            changed = box or (0, 0, 1, 1)  # (unchanged, but too long for one delay: a new frame)
        self._flush()
        self._pending = (image.crop(changed), (changed[0], changed[1]), self.frame_ms)
        self._before = image

    def close(self) -> int:
        """Write the last frame and the trailer; the number of frames written."""
        self._flush()
        self.fp.write(b";")
        return self.written

    def _flush(self) -> None:
        if self._pending is None:
            return
        rectangle, offset, ms = self._pending
        self._pending = None
        # disposal 1: the rectangle is drawn over the frame before, which stays
        for chunk in GifImagePlugin.getdata(rectangle, offset, duration=ms, disposal=1):
            self.fp.write(chunk)
        self.written += 1


def frame_files(folder: Path) -> Iterator[str]:
    """The ``*.png`` files of ``folder``: numbered ones by prefix and number, then the rest by name.

    Numbered files are kept as ranges (prefix, digits, lowest, highest), not as a list, so
    memory does not grow with their count; a number missing from a range is passed over.
    No folder, no files. Paths are plain strings: pathlib interns every name it parses, for good.
    """
    ranges: dict[tuple[str, int], tuple[int, int]] = {}
    others: list[str] = []
    if not folder.is_dir():
        return
    with os.scandir(folder) as entries:
        for entry in entries:
            match = _NUMBERED.fullmatch(entry.name)
            if match is None:
                if entry.name.endswith(".png"):
                    others.append(entry.name)
                continue
            key, number = (match.group(1), len(match.group(2))), int(match.group(2))
            low, high = ranges.get(key, (number, number))
            ranges[key] = (min(low, number), max(high, number))
    for (prefix, digits), (low, high) in sorted(ranges.items()):
        for number in range(low, high + 1):
            path = os.path.join(folder, f"{prefix}{number:0{digits}d}.png")
            if os.path.exists(path):
                yield path
    for name in sorted(others):
        yield os.path.join(folder, name)


def write_gif(frames: Path, gif: Path, frame_ms: int = 700) -> bool:
    """An animated GIF of the PNG frames in ``frames`` (:func:`frame_files` order), each pixel
    :data:`GIF_SCALE` x :data:`GIF_SCALE` at the first frame's size; False (and no file) when
    there is no readable frame.

    A frame that cannot be read is skipped and logged; ``gif`` appears whole or not at all.
    """
    part = gif.with_name(gif.name + ".part")
    skipped = 0
    try:
        with open(part, "wb") as fp:
            writer: GifWriter | None = None
            for path in frame_files(frames):
                try:
                    with Image.open(path) as opened:
                        frame = opened.convert("L")  # decodes it: a truncated file fails here
                except (OSError, SyntaxError, ValueError, Image.DecompressionBombError) as e:
                    skipped += 1
                    log.warning("%s: skipping the frame %s, which cannot be read: %s", gif.name, os.path.basename(path), e)
                    continue
                if writer is None:
                    writer = GifWriter(fp, (frame.width * GIF_SCALE, frame.height * GIF_SCALE), frame_ms)
                writer.add(frame)
            written = writer.close() if writer is not None else 0
        if skipped:
            log.warning("%s: %d unreadable frame(s) skipped", gif.name, skipped)
        if not written:
            part.unlink()
            return False
        os.replace(part, gif)
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    return True
