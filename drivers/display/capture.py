"""The ``capture`` display: luma.emulator's PNG capture, each frame written atomically.

A frame goes to a temporary file (``NAME.png.part``, which no ``*.png`` glob takes) and is
renamed into place, so a killed process leaves whole frames and at most one stray
``.part`` file, never a 0-byte or truncated PNG. Numbering goes on after the highest frame
already in the folder: a restarted run adds its frames after those of the run before.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from PIL import Image

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
from luma.emulator.device import capture  # noqa: E402

__all__ = ["AtomicCapture", "last_frame_number"]


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


class AtomicCapture(capture):  # type: ignore[misc]  # luma has no type hints
    """luma.emulator's ``capture`` writing ``PREFIX{N:06}.png`` in ``folder`` by temp file and rename.

    Pillow encodes the frame (RGB, dimmed towards black below full contrast, as the emulator
    shows it): pygame's save to a file object keeps about 0.9 kB a frame for good.
    """

    def __init__(self, folder: Path, prefix: str, width: int, height: int, rotate: int = 0, mode: str = "1") -> None:
        self._folder = folder
        self._prefix = prefix
        super().__init__(width=width, height=height, rotate=rotate, mode=mode, transform="none", scale=1,
                         file_template=str(folder / f"{prefix}{{0:06}}.png"))
        self._count = last_frame_number(folder, prefix)

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
            frame.save(part, format="PNG")
            os.replace(part, final)
        except BaseException:
            Path(part).unlink(missing_ok=True)
            raise
