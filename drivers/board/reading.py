"""What is wrong with a board reading: unknown tiles, tiles read twice, reader faults.

Pure functions. The turn controller names the places on the display (:func:`cells_text`,
:func:`unknown_locs`); the service logs the sentences (``describe_*``) when what is wrong
changes. A tile the registry does not know is named by where it lies, never guessed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from .link import ReaderFault
from .protocol import Area, FaultCode, Loc, uid_hex
from .snapshot import BoardSnapshot


def place(loc: Loc) -> str:
    """``at H8`` for a cell, ``on rack 1 slot 3`` for a rack slot (1-based)."""
    return f"at {loc.name()}" if loc.area is Area.BOARD else f"on {loc.name()}"


def unknown_locs(tags: Mapping[Loc, bytes], known: Callable[[bytes], bool]) -> tuple[Loc, ...]:
    """The locations of ``tags`` holding a UID that ``known`` rejects, in order."""
    return tuple(sorted(loc for loc, uid in tags.items() if not known(uid)))


def cells_text(locs: Iterable[Loc]) -> str:
    """Locations for one display line: ``H8 H9``, ``A11-O11`` (more than three cells), ``rack 2``."""
    locs = tuple(locs)
    squares = sorted(loc.square for loc in locs if loc.area is Area.BOARD)
    racks = sorted({loc.rack for loc in locs if loc.area is Area.RACK})
    names = [sq.name() for sq in squares]
    parts = [" ".join(names) if len(names) <= 3 else f"{names[0]}-{names[-1]}"] if names else []
    return " ".join(parts + [f"rack {rack + 1}" for rack in racks])


def _join(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def describe_unknown(snapshot: BoardSnapshot, known: Callable[[bytes], bool]) -> list[str]:
    """``unknown tile at H8`` / ``unknown tile on rack 1 slot 3`` for each UID ``known`` rejects."""
    return [f"unknown tile {place(loc)}" for loc, uid in sorted(snapshot.tags.items()) if not known(uid)]


def describe_duplicates(duplicates: BoardSnapshot | Mapping[bytes, Iterable[Loc]]) -> list[str]:
    """``tile 04A1B2C3D4E5F6 read at H8 and I8`` for each UID read at several locations.

    Takes a snapshot (its :meth:`~BoardSnapshot.duplicates`) or a UID -> locations mapping
    such as :attr:`Stabiliser.duplicates <drivers.board.stabiliser.Stabiliser.duplicates>`.
    """
    found = duplicates.duplicates() if isinstance(duplicates, BoardSnapshot) else duplicates
    lines = []
    for uid, locs in sorted(found.items(), key=lambda item: sorted(item[1])):
        names = [loc.name() for loc in sorted(locs)]
        if len(names) > 1:
            lines.append(f"tile {uid_hex(uid)} read at {_join(names)}")
    return lines


_FAULTS = {
    FaultCode.NO_RESPONSE: "does not answer",
    FaultCode.BAD_DATA: "returns bad data",
    FaultCode.RESET: "was reset",
}


def describe_fault(fault: ReaderFault) -> str:
    """``reader 3 does not answer: A1, B1, A2`` (``reader 3 works again`` when it recovered)."""
    if fault.code is FaultCode.RECOVERED:
        return f"reader {fault.reader} works again"
    where = ", ".join(loc.name() for loc in fault.locs) or "no cells"
    return f"reader {fault.reader} {_FAULTS[fault.code]}: {where}"
