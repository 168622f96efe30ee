"""Checksums of the journal's rows (schema 2 on): a bit changed in the file where SQLite does
not look (a payload that is still JSON, a kind, a name) is found when the row is read.

A CRC-32 over the row's values as stored (UTF-8 text, the time as Python writes a float),
with the game and entry numbers in it, so that a row moved to another place fails too.
Rows written before schema 2 have none (NULL) and are read as they are.

From schema 5 each game's row also holds its entries' count and their chain
(:func:`chain_crc` folded over the entries' checksums in order, 0 for none), written in the
transaction that appends them: a read of the game that finds fewer, more or other entries
than were written (a page cut away, a key that hides rows from the search) fails it.
"""

from __future__ import annotations

import zlib

__all__ = ["chain_crc", "entry_crc", "game_crc"]

_SEP = b"\x1f"


def _text(value: str | bytes | None) -> bytes:
    if value is None:
        return b"\x00"
    return value.encode("utf-8") if isinstance(value, str) else value


def entry_crc(game_id: int, seq: int, kind: str | bytes, payload: str | bytes, at: float) -> int:
    """The checksum of entry ``seq`` of game ``game_id``."""
    head = _SEP.join((str(game_id).encode(), str(seq).encode(), _text(kind), repr(float(at)).encode()))
    return zlib.crc32(head + _SEP + _text(payload))


def game_crc(game_id: int, started: str | bytes, meta: str | bytes, finished: str | bytes | None,
             result: str | bytes | None) -> int:
    """The checksum of game ``game_id``'s row (its start, meta data, end and result)."""
    return zlib.crc32(_SEP.join((str(game_id).encode(), _text(started), _text(meta), _text(finished), _text(result))))


def chain_crc(chain: int, entry: int) -> int:
    """A game's chain once an entry whose checksum is ``entry`` follows the ``chain`` so far."""
    return zlib.crc32((entry & 0xFFFFFFFF).to_bytes(4, "big"), chain)
