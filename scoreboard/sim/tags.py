"""The tags of the simulated tiles: deterministic UIDs, one for every tile of a set.

The simulated board and ``scoreboard run --simulate`` (its tile registries) agree on them
without an enrollment: copy ``n`` of a letter always has the same UID.
"""

from __future__ import annotations

from engine.tiles import Tile, TileSet

__all__ = ["TILE_SET_INDEX", "tile_set_uids", "tile_uid"]

TILE_SET_INDEX = {"english": 1, "german": 2, "french": 3}


def tile_uid(letter: str, copy: int, tile_set: str = "english") -> bytes:
    """A deterministic NTAG213-like 7-byte UID for copy ``copy`` (0-based) of ``letter``.

    ``04`` (NXP), ``5C`` (our mark), the letter's code point (2 bytes), the copy, the tile
    set's number and an XOR check byte: ``tile_uid('E', 2)`` is ``045C004502011E``.
    """
    if len(letter) != 1:
        raise ValueError(f"one letter or '?', not {letter!r}")
    code = ord(letter)
    index = TILE_SET_INDEX.get(tile_set.lower(), 0)
    body = bytes((0x04, 0x5C, code >> 8 & 0xFF, code & 0xFF, copy & 0xFF, index))
    check = 0
    for b in body:
        check ^= b
    return body + bytes((check,))


def tile_set_uids(tile_set: TileSet) -> list[tuple[Tile, bytes]]:
    """Every tile of ``tile_set`` with its UID, in the set's order (copies numbered from 0)."""
    out = []
    for letter, count in tile_set.counts.items():
        tile = tile_set.tile(letter)
        for copy in range(count):
            out.append((tile, tile_uid(letter, copy, tile_set.name)))
    return out
