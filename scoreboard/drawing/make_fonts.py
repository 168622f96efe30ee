"""``python -m scoreboard.drawing.make_fonts [--check]``: the shipped font pack, made again.

Writes :data:`~scoreboard.drawing.font.PACK_PATH`: every face of
:data:`~scoreboard.drawing.font.FACES` made from the font files
(:func:`~scoreboard.drawing.font.build`), packed and gzipped; ``--check`` only says whether
the shipped pack holds exactly that (exit 0) or not (exit 1).
"""

from __future__ import annotations

import gzip
import os
import sys
from collections.abc import Sequence

from scoreboard.drawing.font import FACES, PACK_PATH, build, pack

__all__ = ["main", "packed"]


def packed() -> bytes:
    """The pack of every face, made from the font files (not gzipped)."""
    return pack({size: build(size) for size in FACES})


def main(argv: Sequence[str]) -> int:
    data = packed()
    if list(argv) == ["--check"]:
        try:
            with gzip.open(PACK_PATH, "rb") as f:
                same = f.read() == data
        except (OSError, EOFError):
            same = False
        print(f"{PACK_PATH}: {'up to date' if same else 'OUT OF DATE: run python -m scoreboard.drawing.make_fonts'}")
        return 0 if same else 1
    if argv:
        print("usage: python -m scoreboard.drawing.make_fonts [--check]", file=sys.stderr)
        return 2
    part = PACK_PATH + ".part"
    with open(part, "wb") as f:
        f.write(gzip.compress(data, 9, mtime=0))
    os.replace(part, PACK_PATH)
    print(f"{PACK_PATH}: faces {', '.join(FACES)}, {len(data)} bytes packed, {os.path.getsize(PACK_PATH)} gzipped")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
