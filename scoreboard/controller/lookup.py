"""The tile registry as the controller sees it: which tile a tag carries."""

from __future__ import annotations

from typing import Protocol

from engine.tiles import Tile

__all__ = ["TileLookup"]


class TileLookup(Protocol):
    """Which tile a tag carries (the tile registry); None: an unknown tag."""

    def tile_of(self, uid: bytes) -> Tile | None: ...
