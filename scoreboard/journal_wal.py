"""Is a journal's write-ahead log whole? Read from its bytes, before SQLite opens it.

SQLite replays a WAL's frames up to the first one whose checksum or salt does not match and
silently ignores the rest: a bit flipped in the middle of the log, a log cut short or a
damaged log header would lose committed records without a word. :func:`wal_damage` tells
those apart from what a crash or a power cut leaves (a last transaction torn while being
written, which was never reported committed), from the file formats
(https://www.sqlite.org/fileformat2.html#walformat and #walindexformat):

- frames after the damage that still check against their predecessor's checksum, among them
  a commit frame: committed transactions would be dropped;
- the wal-index (``-shm``), when its header is intact and of the same log, knows of more
  committed frames than the log still holds: the log was cut short or damaged near its end;
- a log whose header is damaged while frames follow it.

Only the bytes are read; nothing here opens SQLite.

A log cut exactly at the end of a transaction reads as a shorter, whole log: only a wal-index
of the same log that knows of more frames tells it apart. :func:`unverified` says when no
wal-index vouches for the whole log (none, one not valid, a stale one: after a power cut the
``-shm`` on the card often is, it is never synced), so its bytes can be kept before SQLite
takes it for whole and checkpoints it away.
"""

from __future__ import annotations

import functools
import struct
import sys
from dataclasses import dataclass

__all__ = ["WalFrames", "read_frames", "unverified", "wal_damage"]

_MAGIC = (0x377F0682, 0x377F0683)  # the low bit: checksums over big-endian words
_VERSION = 3007000
_HEADER = 32
_FRAME_HEADER = 24
_INDEX_HEADER = 48  # one copy of the wal-index header; two are kept, then the checkpoint info
_NATIVE_BIG = sys.byteorder == "big"


def _checksum(data: bytes, s0: int, s1: int, big_endian: bool) -> tuple[int, int]:
    """SQLite's WAL checksum of ``data`` (a multiple of 8 bytes), continuing from ``s0, s1``."""
    words = struct.unpack(f"{'>' if big_endian else '<'}{len(data) // 4}I", data)
    mask = 0xFFFFFFFF
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & mask
        s1 = (s1 + words[i + 1] + s0) & mask
    return s0, s1


@dataclass(frozen=True)
class WalFrames:
    """What SQLite will recover from a log: ``recovered`` frames (up to its last valid commit)
    of ``complete`` whole frames, and whether committed frames follow the damage (``lost``)."""

    salt: bytes
    page_size: int
    complete: int
    recovered: int
    lost: bool


@functools.lru_cache(maxsize=1)  # a start asks for the same log twice (its damage, then whether it is vouched for)
def read_frames(wal: bytes) -> WalFrames | None:
    """The frames of the log ``wal``; None when its header is not a valid WAL header."""
    if len(wal) < _HEADER:
        return None
    magic, version, page_size, _, _, _, c0, c1 = struct.unpack(">8I", wal[:_HEADER])
    if magic not in _MAGIC or version != _VERSION or page_size < 512 or page_size & (page_size - 1):
        return None
    big = bool(magic & 1)
    if _checksum(wal[:24], 0, 0, big) != (c0, c1):
        return None
    salt = wal[16:24]
    size = _FRAME_HEADER + page_size
    complete = (len(wal) - _HEADER) // size
    sums = (c0, c1)
    recovered = 0
    n = 0
    while n < complete:  # SQLite's recovery: the valid chain from the header
        at = _HEADER + n * size
        frame = wal[at : at + size]
        if frame[8:16] != salt or struct.unpack(">I", frame[:4])[0] == 0:
            break
        sums = _checksum(frame[:8] + frame[_FRAME_HEADER:], *sums, big)
        if sums != struct.unpack(">2I", frame[16:24]):
            break
        n += 1
        if struct.unpack(">I", frame[4:8])[0]:  # a commit frame
            recovered = n
    lost = False
    for k in range(n + 1, complete):  # past the damage: commit frames that check on their own
        at = _HEADER + k * size
        frame, before = wal[at : at + size], wal[at - size : at]
        if frame[8:16] != salt or not struct.unpack(">I", frame[4:8])[0]:
            continue
        p0, p1 = struct.unpack(">2I", before[16:24])
        if _checksum(frame[:8] + frame[_FRAME_HEADER:], p0, p1, big) == struct.unpack(">2I", frame[16:24]):
            lost = True
            break
    return WalFrames(salt, page_size, complete, recovered, lost)


@dataclass(frozen=True)
class _Index:
    """The wal-index header: the last committed frame it knows, the log's salt, how many
    frames are already copied into the database (``backfilled``)."""

    max_frame: int
    salt: bytes
    backfilled: int


def _read_index(shm: bytes) -> _Index | None:
    """The wal-index header of ``shm``, None unless both copies agree and check."""
    if len(shm) < 2 * _INDEX_HEADER + 4:
        return None
    first, second = shm[:_INDEX_HEADER], shm[_INDEX_HEADER : 2 * _INDEX_HEADER]
    if first != second:
        return None
    order = ">" if _NATIVE_BIG else "<"
    version, _, _, is_init, _, _, max_frame, _, _, _ = struct.unpack(f"{order}3I2BH4I", first[:32])
    if version != _VERSION or not is_init:
        return None
    if _checksum(first[:40], 0, 0, _NATIVE_BIG) != struct.unpack(f"{order}2I", first[40:48]):
        return None
    (backfilled,) = struct.unpack(f"{order}I", shm[2 * _INDEX_HEADER : 2 * _INDEX_HEADER + 4])
    return _Index(max_frame, first[32:40], backfilled)


def wal_damage(wal: bytes | None, shm: bytes | None) -> str | None:
    """Why committed records in the log ``wal`` (with the wal-index ``shm``) would be lost
    when SQLite opens it, in words; None when nothing committed would be (None: no file)."""
    index = _read_index(shm) if shm else None
    if not wal:
        if index is not None and index.max_frame > index.backfilled:
            return f"its write-ahead log is missing or empty, but {index.max_frame - index.backfilled} saved frames were in it"
        return None
    frames = read_frames(wal)
    if frames is None:
        if len(wal) >= _HEADER + _FRAME_HEADER:
            return f"the header of its write-ahead log is damaged ({len(wal)} bytes would be ignored)"
        if index is not None and index.max_frame > index.backfilled:
            return "its write-ahead log is cut short (its header is incomplete)"
        return None
    if frames.lost:
        return (
            f"its write-ahead log is damaged at frame {frames.recovered + 1} of {frames.complete}: "
            "saved transactions follow the damage"
        )
    if index is not None and index.salt == frames.salt and index.max_frame > frames.recovered:
        return (
            f"its write-ahead log is cut short or damaged: {index.max_frame} frames were saved, "
            f"{frames.recovered} can be read"
        )
    return None


def unverified(wal: bytes | None, shm: bytes | None) -> str | None:
    """Why no wal-index vouches for all of the log ``wal`` (with the wal-index ``shm``), in
    words; None when one does or there is no log (None: no file). Vouching: a valid index of
    the same log that knows exactly the frames SQLite will recover, with nothing of this log
    after them (frames of an earlier log may follow: SQLite writes a log again from its
    start); for an empty log, one with no frame left to copy into the database. Call it
    once :func:`wal_damage` found none."""
    if wal is None:
        return None
    if not shm:
        return "it has no wal-index"
    index = _read_index(shm)
    if index is None:
        return "its wal-index is not valid"
    frames = read_frames(wal)
    if frames is None:
        if not wal and index.max_frame <= index.backfilled:
            return None
        return f"its header cannot be read ({len(wal)} bytes)"
    if index.salt != frames.salt:
        return "its wal-index is of another log"
    if index.max_frame != frames.recovered:
        return f"its wal-index knows {index.max_frame} of its {frames.recovered} saved frames"
    after = _HEADER + frames.recovered * (_FRAME_HEADER + frames.page_size)
    if len(wal) > after and (len(wal) < after + 16 or wal[after + 8 : after + 16] == frames.salt):
        # (a transaction cut short, or a log cut short where a stale index happens to end)
        return f"it goes on past the {frames.recovered} frames its wal-index knows"
    return None
