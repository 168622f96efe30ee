"""Plain-words reports of a board reading: unknown tiles, duplicates, reader faults."""

from __future__ import annotations

from drivers.board.link import ReaderFault
from drivers.board.protocol import FaultCode, Loc
from drivers.board.reading import (
    describe_duplicates,
    describe_fault,
    describe_unknown,
    place,
)
from drivers.board.snapshot import BoardSnapshot
from drivers.board.stabiliser import Stabiliser

X = bytes.fromhex("04A1B2C3D4E5F6")
Y = bytes.fromhex("04112233445566")
Z = bytes.fromhex("0477889900AABB")


def test_unknown_tiles_are_named_by_where_they_lie() -> None:
    snap = BoardSnapshot({Loc.cell("I8"): Z, Loc.cell("H8"): X, Loc.slot(0, 2): Z, Loc.cell("A1"): Y})
    assert describe_unknown(snap, lambda uid: uid == Y) == [
        "unknown tile at H8",
        "unknown tile at I8",
        "unknown tile on rack 1 slot 3",
    ]
    assert describe_unknown(snap, lambda uid: True) == []


def test_duplicates_from_a_snapshot() -> None:
    snap = BoardSnapshot({Loc.cell("I8"): X, Loc.cell("H8"): X, Loc.cell("A1"): Y})
    assert describe_duplicates(snap) == ["tile 04A1B2C3D4E5F6 read at H8 and I8"]
    assert describe_duplicates(BoardSnapshot({Loc.cell("A1"): Y})) == []


def test_duplicates_from_the_stabiliser() -> None:
    stab = Stabiliser()
    for i in range(5):
        stab.update(BoardSnapshot({Loc.cell("H8"): X, Loc.cell("I8"): X, Loc.slot(1, 0): X}), i * 0.1)
    assert describe_duplicates(stab.duplicates) == ["tile 04A1B2C3D4E5F6 read at H8, I8 and rack 2 slot 1"]


def test_reader_faults_name_the_cells_they_cover() -> None:
    locs = (Loc.cell("A1"), Loc.cell("B1"), Loc.cell("A2"))
    assert describe_fault(ReaderFault(3, FaultCode.NO_RESPONSE, locs, 0.0)) == "reader 3 does not answer: A1, B1, A2"
    assert describe_fault(ReaderFault(4, FaultCode.BAD_DATA, (Loc.slot(0, 0),), 0.0)) == "reader 4 returns bad data: rack 1 slot 1"
    assert describe_fault(ReaderFault(3, FaultCode.RECOVERED, locs, 0.0)) == "reader 3 works again"


def test_place() -> None:
    assert place(Loc.cell("O15")) == "at O15"
    assert place(Loc.slot(3, 8)) == "on rack 4 slot 9"
