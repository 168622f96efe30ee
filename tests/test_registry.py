"""The tile registry: UID -> letter per tile set, its JSON file, counts and conflicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.errors import ScoreboardError, UnknownTileError, UnknownTileSetError
from engine.tiles import FRENCH, GERMAN, Tile, TileSet
from scoreboard.registry import (
    BadUidError,
    CorruptRegistryError,
    IncompleteRegistryError,
    RegistryIOError,
    TileRegistry,
    UidConflictError,
    check_uid,
    enrollment_order,
    registry_path,
    resolve_tile_set,
)


def uid(letter: str, i: int, tile_set: TileSet = GERMAN) -> bytes:
    """A deterministic 7-byte NXP-style UID for the ``i``-th tile ``letter`` of the set."""
    return bytes([0x04, 0x5A, enrollment_order(tile_set).index(letter), i, 0xC1, 0xD2, 0xE3])


def full(tile_set: TileSet = GERMAN) -> dict[bytes, str]:
    """UID -> letter for every tile of the set."""
    return {uid(ch, i, tile_set): ch for ch, n in tile_set.counts.items() for i in range(n)}


# --- lookup and persistence ------------------------------------------------------------------


def test_registry_survives_a_restart(tmp_path: Path) -> None:
    reg = TileRegistry.load(tmp_path, "de")
    assert len(reg) == 0 and reg.letter_of(uid("A", 0)) is None
    reg.add(uid("A", 0), "A")
    reg.add(uid("?", 1), "?")
    reg.add(uid("Ä", 0), "Ä")
    reg.save()

    again = TileRegistry.load(tmp_path, "german")  # the key and the set's name are the same set
    assert again.path == tmp_path / "tiles" / "german.json" == registry_path(tmp_path, "de")
    assert dict(again.items()) == {uid("?", 1): "?", uid("A", 0): "A", uid("Ä", 0): "Ä"}
    assert again.letter_of(uid("Ä", 0)) == "Ä"
    assert again.tile_of(uid("A", 0)) == Tile("A", 1)
    assert again.tile_of(uid("?", 1)) == Tile("?", 0, True)
    assert again.tile_of(uid("B", 0)) is None  # unknown: never guessed
    data = json.loads(again.path.read_text(encoding="utf-8"))
    assert data == {
        "format": 1,
        "tile_set": "german",
        "tiles": {"?": [uid("?", 1).hex().upper()], "A": [uid("A", 0).hex().upper()], "Ä": [uid("Ä", 0).hex().upper()]},
    }


def test_nothing_is_written_until_save(tmp_path: Path) -> None:
    reg = TileRegistry.load(tmp_path, "fr")
    reg.add(uid("A", 0, FRENCH), "A")
    assert not reg.path.exists()
    reg.save()
    assert reg.path.exists() and [p.name for p in reg.path.parent.iterdir()] == ["french.json"]  # no temp file left


def test_sets_are_kept_apart(tmp_path: Path) -> None:
    de = TileRegistry.load(tmp_path, "de")
    de.add(uid("A", 0), "A")
    de.save()
    assert len(TileRegistry.load(tmp_path, "en")) == 0
    assert len(TileRegistry.load(tmp_path, "de")) == 1


def test_items_in_enrollment_order_blank_first() -> None:
    reg = TileRegistry(GERMAN, Path("unused.json"), {uid("Z", 0): "Z", uid("?", 0): "?", uid("Ä", 0): "Ä", uid("A", 0): "A"})
    assert [letter for _, letter in reg.items()] == ["?", "A", "Ä", "Z"]
    assert enrollment_order(GERMAN)[:4] == ("?", "A", "Ä", "B") and len(enrollment_order(GERMAN)) == 30


# --- counts ----------------------------------------------------------------------------------


def test_full_set_is_complete_and_counts_match(tmp_path: Path) -> None:
    reg = TileRegistry(GERMAN, tmp_path / "g.json", full())
    assert len(reg) == GERMAN.size == 102
    assert reg.counts() == dict(GERMAN.counts)
    assert reg.missing() == {} and reg.extra() == {} and reg.complete
    reg.check_complete()


def test_missing_and_extra_per_letter(tmp_path: Path) -> None:
    reg = TileRegistry(GERMAN, tmp_path / "g.json", full())
    assert reg.remove(uid("E", 3)) == "E"
    assert reg.remove(uid("?", 0)) == "?"
    assert reg.remove(uid("?", 0)) is None
    reg.add(uid("Q", 1), "Q")
    assert reg.counts()["E"] == 14 and reg.counts()["Q"] == 2 and reg.counts()["B"] == 2
    assert reg.missing() == {"?": 1, "E": 1}
    assert reg.extra() == {"Q": 1}
    assert not reg.complete and not reg.letter_complete("Q") and reg.letter_complete("A")
    with pytest.raises(IncompleteRegistryError) as info:
        reg.check_complete()
    assert str(info.value) == "the german tile registry is incomplete: missing 1 blank, 1 E; too many 1 Q"
    assert info.value.missing == {"?": 1, "E": 1} and info.value.extra == {"Q": 1}


def test_empty_registry_lists_every_letter_missing(tmp_path: Path) -> None:
    reg = TileRegistry.load(tmp_path, "en")
    assert reg.counts()["?"] == 0 and sum(reg.missing().values()) == 100
    with pytest.raises(IncompleteRegistryError, match=r"missing 2 blanks, 9 A, 2 B, .* 1 Z$"):
        reg.check_complete()


# --- conflicts and bad input -----------------------------------------------------------------


def test_a_uid_has_one_letter(tmp_path: Path) -> None:
    reg = TileRegistry.load(tmp_path, "de")
    reg.add(uid("E", 0), "E")
    reg.add(uid("E", 0), "E")  # the same letter again is fine
    with pytest.raises(UidConflictError) as info:
        reg.add(uid("E", 0), "A")
    assert str(info.value) == f"tile {uid('E', 0).hex().upper()} is already E, it cannot also be A"
    assert (info.value.registered, info.value.wanted) == ("E", "A")
    assert reg.letter_of(uid("E", 0)) == "E" and len(reg) == 1


def test_conflict_names_the_blank(tmp_path: Path) -> None:
    reg = TileRegistry.load(tmp_path, "de")
    reg.add(uid("?", 0), "?")
    with pytest.raises(UidConflictError, match="is already blank, it cannot also be S"):
        reg.add(uid("?", 0), "S")


def test_set_letter_replaces_all_or_nothing(tmp_path: Path) -> None:
    reg = TileRegistry.load(tmp_path, "de")
    reg.set_letter("B", [uid("B", 0), uid("B", 1)])
    reg.add(uid("C", 0), "C")
    with pytest.raises(UidConflictError, match="is already C, it cannot also be B"):
        reg.set_letter("B", [uid("B", 5), uid("C", 0)])
    assert reg.uids("B") == {uid("B", 0), uid("B", 1)}  # untouched by the failed call
    reg.set_letter("B", [uid("B", 1), uid("B", 5)])
    assert reg.uids("B") == {uid("B", 1), uid("B", 5)} and reg.letter_of(uid("B", 0)) is None


@pytest.mark.parametrize(
    ("raw", "match"),
    [
        (b"", "an empty UID has 0 bytes, not 4, 7 or 10"),
        (bytes.fromhex("0401020304"), "0401020304 has 5 bytes, not 4, 7 or 10"),
        (bytes.fromhex("88A1B2C3"), "88A1B2C3 starts with the cascade tag 88"),
    ],
)
def test_bad_uids_are_refused(tmp_path: Path, raw: bytes, match: str) -> None:
    with pytest.raises(BadUidError, match=match):
        check_uid(raw)
    reg = TileRegistry.load(tmp_path, "de")
    with pytest.raises(BadUidError):
        reg.add(raw, "A")
    assert len(reg) == 0


def test_uid_lengths_accepted() -> None:
    for raw in (bytes.fromhex("DEADBEEF"), uid("A", 0), bytes(range(1, 11))):
        assert check_uid(raw) == raw


def test_letter_outside_the_set(tmp_path: Path) -> None:
    reg = TileRegistry.load(tmp_path, "fr")
    with pytest.raises(UnknownTileError, match="'Ä' is not a tile of the french set"):
        reg.add(uid("A", 0), "Ä")


def test_unknown_set_name(tmp_path: Path) -> None:
    with pytest.raises(UnknownTileSetError, match="unknown tile set 'nl'; known: de \\(german\\)"):
        TileRegistry.load(tmp_path, "nl")
    assert resolve_tile_set("DE") is GERMAN and resolve_tile_set("french") is FRENCH


def test_error_classes() -> None:
    assert issubclass(UidConflictError, ScoreboardError) and issubclass(UidConflictError, ValueError)
    assert issubclass(CorruptRegistryError, ScoreboardError) and issubclass(CorruptRegistryError, ValueError)
    assert issubclass(RegistryIOError, ScoreboardError) and issubclass(RegistryIOError, OSError)
    assert issubclass(BadUidError, ValueError) and issubclass(IncompleteRegistryError, ValueError)


# --- a broken file ---------------------------------------------------------------------------

GOOD_UID = "04A1B2C3D4E5F6"


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ("{broken", "not JSON: Expecting property name enclosed in double quotes at line 1"),
        ("[]", "no 'tiles' table"),
        ('{"format": 2, "tile_set": "german", "tiles": {}}', "format 2, expected 1"),
        ('{"format": 1, "tile_set": "french", "tiles": {}}', "it is for the tile set 'french', not 'german'"),
        ('{"format": 1, "tile_set": "german", "tiles": {"1": []}}', "'1' is not a letter of the german set"),
        ('{"format": 1, "tile_set": "german", "tiles": {"A": "04A1"}}', "the tiles of 'A' are not a list"),
        ('{"format": 1, "tile_set": "german", "tiles": {"A": ["zz"]}}', "'zz' under 'A' is not a tag UID"),
        ('{"format": 1, "tile_set": "german", "tiles": {"A": [7]}}', "7 under 'A' is not a tag UID"),
        (
            f'{{"format": 1, "tile_set": "german", "tiles": {{"A": ["{GOOD_UID}"], "E": ["{GOOD_UID}"]}}}}',
            f"tile {GOOD_UID} is listed under 'A' and 'E'",
        ),
    ],
)
def test_corrupt_file_is_reported_and_left_alone(tmp_path: Path, content: str, why: str) -> None:
    path = tmp_path / "tiles" / "german.json"
    path.parent.mkdir()
    path.write_text(content, encoding="utf-8")
    with pytest.raises(CorruptRegistryError) as info:
        TileRegistry.load(tmp_path, "de")
    assert str(info.value) == (
        f"tile registry {path} is corrupt ({why}); it was left untouched: fix it, or move it away "
        "and enroll the tiles again with: scoreboard enroll --set de"
    )
    assert path.read_text(encoding="utf-8") == content


def test_file_that_is_not_text(tmp_path: Path) -> None:
    path = tmp_path / "tiles" / "english.json"
    path.parent.mkdir()
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(CorruptRegistryError, match=r"english.json is corrupt \(not UTF-8 text\).*--set en"):
        TileRegistry.load(tmp_path, "en")
    assert path.read_bytes() == b"\xff\xfe\x00garbage"


def test_write_failure_is_typed_and_keeps_the_old_file(tmp_path: Path) -> None:
    reg = TileRegistry.load(tmp_path, "de")
    reg.add(uid("A", 0), "A")
    reg.save()
    before = reg.path.read_bytes()
    blocked = TileRegistry(GERMAN, tmp_path / "file" / "tiles" / "german.json", {uid("B", 0): "B"})
    (tmp_path / "file").write_text("a file where a directory should be", encoding="utf-8")
    with pytest.raises(RegistryIOError, match=r"cannot write tile registry .*file/tiles/german.json"):
        blocked.save()
    assert reg.path.read_bytes() == before


def test_repr() -> None:
    reg = TileRegistry(GERMAN, Path("/s/tiles/german.json"), {uid("A", 0): "A"})
    assert repr(reg) == "<TileRegistry german 1/102 tiles at '/s/tiles/german.json'>"
