"""BoardSnapshot: cells and racks, changes, duplicates."""

from __future__ import annotations

from drivers.board.protocol import Loc
from drivers.board.snapshot import BoardSnapshot
from engine.board import Square

A = bytes.fromhex("04000000000001")
B = bytes.fromhex("04000000000002")


def test_cells_racks_and_lookups() -> None:
    snap = BoardSnapshot.of([(Loc.cell("H8"), A), (Loc.slot(1, 3), B), (Loc.cell("A1"), b"")], sweep=5)
    assert snap.cells() == {Square.from_name("H8"): A}
    assert snap.rack(1) == {3: B} and snap.rack(0) == {}
    assert snap.at(Loc.cell("H8")) == A and snap.at(Loc.cell("A1")) is None
    assert snap.sweep == 5


def test_changes_and_equality() -> None:
    snap = BoardSnapshot.of([(Loc.cell("H8"), A)])
    moved = snap.with_changes([(Loc.cell("H8"), b""), (Loc.cell("I8"), A)], sweep=9)
    assert moved.cells() == {Square.from_name("I8"): A} and moved.sweep == 9
    assert snap.cells() == {Square.from_name("H8"): A}  # unchanged
    assert moved == BoardSnapshot.of([(Loc.cell("I8"), A)])  # the sweep is not part of equality
    assert hash(moved) == hash(BoardSnapshot.of([(Loc.cell("I8"), A)]))


def test_duplicates_name_every_location() -> None:
    snap = BoardSnapshot.of([(Loc.cell("H8"), A), (Loc.cell("I8"), A), (Loc.cell("J8"), B)])
    assert snap.duplicates() == {A: [Loc.cell("H8"), Loc.cell("I8")]}
    assert snap.locations_of(B) == [Loc.cell("J8")]
    assert "H8=04000000000001" in repr(snap)
