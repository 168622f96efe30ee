"""What the board reads: a tag UID per board cell and per rack slot."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from engine.board import Square

from .protocol import Area, Loc, uid_hex


@dataclass(frozen=True)
class BoardSnapshot:
    """Tag UIDs by location at one moment (``sweep`` of the controller); empty ones absent."""

    tags: Mapping[Loc, bytes] = field(default_factory=dict)
    sweep: int = 0

    @classmethod
    def of(cls, entries: Iterable[tuple[Loc, bytes]], sweep: int = 0) -> BoardSnapshot:
        """A snapshot from (location, UID) pairs; empty UIDs are left out."""
        return cls({loc: uid for loc, uid in entries if uid}, sweep)

    def cells(self) -> dict[Square, bytes]:
        """UIDs on the board by square."""
        return {loc.square: uid for loc, uid in self.tags.items() if loc.area is Area.BOARD}

    def rack(self, rack: int) -> dict[int, bytes]:
        """UIDs on rack ``rack`` (0-based) by slot (0-based)."""
        return {
            loc.rack_slot: uid
            for loc, uid in self.tags.items()
            if loc.area is Area.RACK and loc.rack == rack
        }

    def at(self, loc: Loc) -> bytes | None:
        """The UID at ``loc``, or None."""
        return self.tags.get(loc)

    def with_changes(self, changes: Iterable[tuple[Loc, bytes]], sweep: int | None = None) -> BoardSnapshot:
        """This snapshot with CHANGES applied (an empty UID empties the location)."""
        tags = dict(self.tags)
        for loc, uid in changes:
            if uid:
                tags[loc] = uid
            else:
                tags.pop(loc, None)
        return BoardSnapshot(tags, self.sweep if sweep is None else sweep)

    def locations_of(self, uid: bytes) -> list[Loc]:
        """Every location where ``uid`` is read (more than one: a slid or misread tile)."""
        return sorted(loc for loc, u in self.tags.items() if u == uid)

    def duplicates(self) -> dict[bytes, list[Loc]]:
        """UIDs read at more than one location."""
        seen: dict[bytes, list[Loc]] = {}
        for loc, uid in self.tags.items():
            seen.setdefault(uid, []).append(loc)
        return {uid: sorted(locs) for uid, locs in seen.items() if len(locs) > 1}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BoardSnapshot) and dict(self.tags) == dict(other.tags)

    def __hash__(self) -> int:
        return hash(frozenset(self.tags.items()))

    def __repr__(self) -> str:
        inner = ", ".join(f"{loc.name()}={uid_hex(uid)}" for loc, uid in sorted(self.tags.items()))
        return f"<BoardSnapshot sweep {self.sweep}: {inner}>"
